"""What the CLI prints: the demo's runs, a run's summary and records, the closing table and
where the report is. Layer: top (the CLI).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from footprint_lab.agent import Run
from footprint_lab.lab.summary import run_summary
from footprint_lab.lab.views import record_text
from footprint_lab.scenarios import SCENARIOS
from footprint_lab.window.records import WindowRecord

__all__ = [
    "CLOSING_TABLE",
    "DEMO_RECORD_LINES",
    "DEMO_SCENARIOS",
    "RECORD_INDENT",
    "REPORT_HINT",
    "SUMMARY_TABLE",
    "WHY_PREFIX",
    "WIDTH",
    "closing_lines",
    "default_scenarios",
    "demo",
    "format_record",
    "listing",
    "print_run",
    "record_lines",
    "report_lines",
    "run_lines",
    "summary_lines",
    "wrap",
]

DEMO_SCENARIOS: tuple[str, ...] = (
    "deploy-audit",
    "screen-driver",
    "parallel-tools",
    "long-session",
)
"""What ``footprint-lab demo`` runs by default (those that exist in ``SCENARIOS``)."""


def default_scenarios() -> list[str]:
    """The demo's scenarios that this installation has."""
    return [name for name in DEMO_SCENARIOS if name in SCENARIOS]


format_record = record_text
"""One line per record (the text form of the lab's record rendering)."""

SUMMARY_TABLE: dict[str, str] = {
    "calls": "calls",
    "removals": "removals",
    "removed_messages": "removed",
    "refusals": "refusals",
    "pins": "pins",
    "peak_window_chars": "peak chars",
    "final_window_chars": "last chars",
    "peak_input_tokens": "peak tokens",
}
"""The :func:`~footprint_lab.lab.summary.run_summary` keys in a run's summary table, and
their headings."""


def summary_lines(numbers: dict[str, Any]) -> list[str]:
    """A run's summary table: a heading line and a line of numbers, aligned, indented. A token
    figure says where it came from unless a provider reported it (``6007 scaled``), and a run
    with no figure shows ``none``, never 0."""
    shown = {k: _shown(k, numbers) for k in SUMMARY_TABLE}
    widths = [max(len(h), len(shown[k])) for k, h in SUMMARY_TABLE.items()]
    head = "  ".join(h.rjust(w) for h, w in zip(SUMMARY_TABLE.values(), widths, strict=True))
    values = "  ".join(shown[k].rjust(w) for k, w in zip(SUMMARY_TABLE, widths, strict=True))
    return [f"  {head}", f"  {values}"]


def _shown(key: str, numbers: dict[str, Any]) -> str:
    value = numbers[key]
    if key != "peak_input_tokens":
        return str(value)
    if value is None:
        return "none"
    source = numbers.get("tokens_from")
    return str(value) if source in (None, "reported") else f"{value} {source}"


DEMO_RECORD_LINES = 6
"""How many record lines ``footprint-lab demo`` prints per run (the report holds them all)."""


WHY_PREFIX = "      why: "
"""What starts the line under a removal's record line: the record in words."""


RECORD_INDENT = " " * 8
"""The indent of a record line's continuation (its ids wrapped)."""


def record_lines(record: WindowRecord) -> list[str]:
    """A record's line (:func:`~footprint_lab.lab.views.record_text`) and, when it removed
    something, the sentence that says why (``record.explain()``), each wrapped to
    :data:`WIDTH` columns: a long list of ids goes on over several lines, never one."""
    lines = wrap(record_text(record), subsequent=RECORD_INDENT)
    if record.removed_message_count:
        lines += wrap(record.explain(), WHY_PREFIX, " " * len(WHY_PREFIX))
    return lines


def run_lines(label: str, run: Run, max_records: int | None = None) -> list[str]:
    """A run's header line, its summary table and one line per record — with the sentence
    saying why under each removal (:func:`record_lines`) — for the first ``max_records``
    records, then how many more the report holds."""
    numbers = run_summary(run)
    head = (
        f"{label}: status={numbers['status']} iterations={numbers['iterations']} "
        f"records={numbers['records']}"
    )
    records = run.records if max_records is None else run.records[:max_records]
    lines = [head, *summary_lines(numbers)]
    for record in records:
        lines.extend(record_lines(record))
    hidden = len(run.records) - len(records)
    if hidden:
        lines.append(f"  … {hidden} more record(s): every one is in the report")
    return lines


def print_run(label: str, run: Run) -> None:
    """Print a run's header and its records."""
    for line in run_lines(label, run):
        print(line)


def demo(scenario_names: Sequence[str] | None = None) -> dict[str, dict[str, Run]]:
    """Run each scenario under its three strategies and print the records.

    A ``tqdm.auto`` progress bar counts the runs (on stderr; off when not a terminal, under
    pytest or with ``FOOTPRINT_LAB_QUIET=1``).
    """
    from footprint_lab.lab.progress import progress

    names = list(scenario_names) if scenario_names else default_scenarios()
    scenarios = [SCENARIOS[name]() for name in names]
    plans = [(scenario, scenario.strategies()) for scenario in scenarios]
    total = sum(len(strategies) for _, strategies in plans)
    results: dict[str, dict[str, Run]] = {}
    with progress(total=total, desc="runs", unit="run", file=sys.stderr) as bar:

        def say(text: str = "") -> None:
            bar.write(text, file=sys.stdout)

        for scenario, strategies in plans:
            say(f"== {scenario.name}: {scenario.request}")
            results[scenario.name] = {}
            for label, strategy in strategies.items():
                bar.set_postfix_str(f"{scenario.name} / {label}", refresh=False)
                run = scenario.run(strategy)
                results[scenario.name][label] = run
                for line in run_lines(label, run, DEMO_RECORD_LINES):
                    say(line)
                bar.update(1)
            say()
    return results


CLOSING_TABLE: dict[str, str] = {
    "iterations": "iterations",
    "records": "records",
    "removed_messages": "messages removed",
    "refusals": "refusals",
    "final_window_chars": "final window chars",
}
"""The :func:`~footprint_lab.lab.summary.run_summary` keys of the closing table, and their
headings."""

REPORT_HINT = (
    "Open it in any web browser; it needs no network. For each run it names every removal "
    'and its reasons ("What left, and why") and has a Boundary slider showing the exact '
    "messages sent at each call."
)
"""What the CLI says under the report's path."""


def closing_lines(results: Mapping[str, Mapping[str, Run]]) -> list[str]:
    """One short table of every run (scenario, strategy, then :data:`CLOSING_TABLE`), aligned:
    names to the left, numbers to the right, the scenario named on its first row only."""
    head = ["scenario", "strategy", *CLOSING_TABLE.values()]
    rows: list[list[str]] = []
    for scenario, by_strategy in results.items():
        for i, (label, run) in enumerate(by_strategy.items()):
            numbers = run_summary(run)
            rows.append(
                [scenario if i == 0 else "", label, *(str(numbers[k]) for k in CLOSING_TABLE)]
            )
    widths = [max(len(row[j]) for row in [head, *rows]) for j in range(len(head))]

    def line(cells: list[str]) -> str:
        names = [c.ljust(w) for c, w in zip(cells[:2], widths[:2], strict=True)]
        numbers = [c.rjust(w) for c, w in zip(cells[2:], widths[2:], strict=True)]
        return "  " + "  ".join([*names, *numbers]).rstrip()

    return ["In short, one row per run:", line(head), *(line(row) for row in rows)]


def report_lines(path: Path) -> list[str]:
    """Where the report was written (its absolute path) and how to read it (wrapped)."""
    return [f"report written to {path.resolve()}", *textwrap.wrap(REPORT_HINT, 88)]


WIDTH = 80
"""The terminal width the question commands (``explain``, ``replay``, ``cost``, ``inspect``)
wrap their lines to: none is longer."""


def wrap(text: str, indent: str = "", subsequent: str = "    ") -> list[str]:
    """``text`` as lines of at most :data:`WIDTH` characters: broken at spaces (never at a
    hyphen), a word longer than a line (a long path) broken where it must be."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=subsequent,
        break_on_hyphens=False,
        break_long_words=True,
    ) or [indent.rstrip()]


def listing(items: Sequence[str], limit: int = 8) -> str:
    """The first ``limit`` of ``items``, comma-separated, with ``…`` when there are more."""
    shown = ", ".join(items[:limit])
    return shown + (", …" if len(items) > limit else "") if shown else "none"
