"""``footprint-lab``: the command line. Layer: top.

``footprint-lab demo`` runs the scripted scenarios under the three shipped strategies, prints
a short summary table per run (:func:`~footprint_lab.lab.summary.run_summary`) and one line per
WindowRecord (:func:`~footprint_lab.lab.views.record_text`), under each removal the sentence
that says why (``WindowRecord.explain()``, as the report words it), writes a standalone HTML report
(``footprint-report.html``, or ``-o PATH``) with the lab's charts, every removal in words and a
Boundary view for every run, and ends with one short table of every run
(:func:`closing_lines`) and where the report is. ``footprint-lab report FILE...`` does the
same for saved runs and for transcripts of every stack :func:`footprint_lab.importers.load`
reads (files, or folders read file by file; what a folder holds that does not load is named and
skipped). The ``--help`` texts (:data:`DESCRIPTION`) are in plain words.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from footprint_lab.agent import Run
from footprint_lab.corpus.cli import add_corpus_commands, run_corpus_command
from footprint_lab.lab.summary import run_summary
from footprint_lab.lab.views import record_text
from footprint_lab.scenarios import SCENARIOS
from footprint_lab.window.records import WindowRecord

if TYPE_CHECKING:
    from footprint_lab.importers import TranscriptError

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
    """A run's summary table: a heading line and a line of numbers, aligned, indented."""
    widths = [max(len(h), len(str(numbers[k]))) for k, h in SUMMARY_TABLE.items()]
    head = "  ".join(h.rjust(w) for h, w in zip(SUMMARY_TABLE.values(), widths, strict=True))
    values = "  ".join(str(numbers[k]).rjust(w) for k, w in zip(SUMMARY_TABLE, widths, strict=True))
    return [f"  {head}", f"  {values}"]


DEMO_RECORD_LINES = 6
"""How many record lines ``footprint-lab demo`` prints per run (the report holds them all)."""


WHY_PREFIX = "      why: "
"""What starts the line under a removal's record line: the record in words."""


def record_lines(record: WindowRecord) -> list[str]:
    """A record's line (:func:`~footprint_lab.lab.views.record_text`) and, when it removed
    something, the sentence that says why (``record.explain()``)."""
    if not record.removed_message_count:
        return [record_text(record)]
    return [record_text(record), WHY_PREFIX + record.explain()]


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


Skipped = list[tuple[Path, str]]
"""Files of a folder the report leaves out, each with why."""


def _label(run: Run, path: Path) -> tuple[str, str]:
    """The report section (scenario) and the label of one run read from ``path``: a saved
    run's scenario and strategy, as ``run.save`` left them; an imported run's file and its
    label (``meta['label']``, else the file's name)."""
    if run.meta.get("format") == "footprint-lab-run":
        scenario = str(run.meta.get("scenario") or path.stem)
        return scenario, f"{run.strategy or 'no strategy'} ({path.stem})"
    label = str(run.meta.get("label") or path.stem)
    if run.strategy:  # an observed policy: the stack's own (e.g. swe-agent)
        label = f"{label} ({run.strategy})"
    return str(path), label


def _add(grouped: dict[str, dict[str, Run]], path: Path, runs: Sequence[Run]) -> None:
    for run in runs:
        scenario, label = _label(run, path)
        section = grouped.setdefault(scenario, {})
        unique, n = label, 2
        while unique in section:
            unique, n = f"{label} #{n}", n + 1
        section[unique] = run


_DOCUMENTATION = "documentation (README, LICENSE, SOURCE, .md, .txt, .rst): not read"


def _why(error: TranscriptError, path: Path) -> str:
    """Why a folder's file was skipped: its error less the file's name (the line names it);
    for a file no format claims, the formats tried by name only (the error of a file named
    on the command line says how each is told)."""
    from footprint_lab.importers import FORMATS

    if error.source == "load":
        problem = error.problem.partition("; formats tried: ")[0]
        return f"{problem}; formats tried: {', '.join(FORMATS)}"
    text = str(error)
    head = f"{path}: "
    return text[len(head) :] if text.startswith(head) else text


def _walk(folder: Path, grouped: dict[str, dict[str, Run]], skipped: Skipped) -> None:
    """Every file under ``folder`` that :func:`footprint_lab.importers.load` reads, into
    ``grouped``; what it does not (documentation, hidden files, files of no format or broken
    for theirs), into ``skipped`` with why."""
    from footprint_lab.importers import TranscriptError, detect_format, folder_entries, load

    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        skipped.append((folder, f"cannot list the folder: {exc.strerror or exc}"))
        return
    kept = set(folder_entries(folder))
    for entry in entries:
        if entry not in kept:
            why = "hidden" if entry.name.startswith(".") else _DOCUMENTATION
            skipped.append((entry, why))
            continue
        if entry.is_dir():
            try:
                detect_format(entry)  # a folder is read whole only when it is one (tau-bench)
            except TranscriptError:
                _walk(entry, grouped, skipped)
                continue
        try:
            runs = load(entry)
        except TranscriptError as exc:
            skipped.append((entry, _why(exc, entry)))
            continue
        _add(grouped, entry, runs)


def gather(paths: Sequence[Path]) -> tuple[dict[str, dict[str, Run]], Skipped]:
    """The runs of every path, for the report: each file is read by
    :func:`footprint_lab.importers.load` (a saved run, or a transcript of any stack it reads;
    one file may hold many runs), each folder file by file (a tau-bench folder whole).

    Returns:
        ``{section: {label: run}}`` — one section per file (a saved run's section is its
        scenario) — and the files of the folders that were left out, each with why.

    Raises:
        TranscriptError: a file named in ``paths`` does not load (the message names the file,
            and the formats tried when none claims it).
    """
    from footprint_lab.importers import TranscriptError, detect_format, load

    grouped: dict[str, dict[str, Run]] = {}
    skipped: Skipped = []
    for path in paths:
        if path.is_dir():
            try:
                detect_format(path)
            except TranscriptError:
                _walk(path, grouped, skipped)
                continue
        _add(grouped, path, load(path))
    return grouped, skipped


def report(paths: Sequence[Path], output: Path) -> int:
    """Read saved runs and transcripts (files or folders) and write one report; a file that
    does not load is a clear error and exit code 2, a folder's files that do not load are
    skipped and named (on stderr)."""
    from footprint_lab.importers import TranscriptError
    from footprint_lab.lab.report import write_report

    try:
        grouped, skipped = gather(paths)
    except TranscriptError as exc:
        print(f"footprint-lab report: {exc}", file=sys.stderr)
        return 2
    for path, why in skipped:
        print(f"footprint-lab report: skipped {path}: {why}", file=sys.stderr)
    if not grouped:
        named = ", ".join(str(p) for p in paths)
        print(f"footprint-lab report: no runs to report in {named}", file=sys.stderr)
        return 2
    written = write_report(grouped, output)
    runs = sum(len(section) for section in grouped.values())
    lines = [f"{runs} run(s) from {len(grouped)} file(s)"]
    if skipped:
        lines.append(f"{len(skipped)} file(s) skipped (listed on stderr)")
    for line in [*lines, "", *closing_lines(grouped), "", *report_lines(written)]:
        print(line)
    return 0


DESCRIPTION = """\
See how an agent's context window is trimmed, and why.

  footprint-lab demo     runs small scripted agents (no network, no API key) under three
                         window strategies, prints what each one removed and why, and
                         writes one HTML report to open in a browser.
  footprint-lab report   writes the same report for runs you saved with run.save(), or
                         for transcripts of other agent stacks (SWE-agent, OpenHands,
                         Inspect, Claude Code, OpenTelemetry, tau-bench): files or folders.
  footprint-lab corpus build PATHS -o STORE
                         imports many transcripts into a corpus store (Parquet datasets
                         and checkpoints) to query with pandas and SQL.
  footprint-lab corpus report STORE -o FILE
                         writes a store's overview page (and a page per run) to open offline.

The report works offline. For each run it shows the window's size call by call, which
messages were in the window at each call, every removal with its reasons in words, and a
Boundary slider with the exact messages sent at each call.
"""
"""The ``--help`` text of ``footprint-lab``."""

DEMO_DESCRIPTION = """\
Run the scripted scenarios under the three shipped window strategies (sliding-window,
token-budget, summarize-oldest). For each run it prints a summary (calls, removals, messages
removed, refusals, pins, window sizes) and one line per time the strategy looked at the
window: the iteration, how many messages it removed (by stage id, the step that wrote them),
the window's characters before and after, and which turns refused to leave and why (turn
numbers count from the start of the window). It ends with one short table of every run and
where the report is.
"""
"""The ``--help`` text of ``footprint-lab demo``."""

REPORT_DESCRIPTION = """\
Write one HTML report for every run in the files given: runs saved with run.save(), and
transcripts of other agent stacks, whatever wrote them (the format is detected from the
file): SWE-agent .traj files, OpenHands event files (.json or .jsonl), Inspect AI logs (.eval
or .json), Claude Code sessions (.jsonl), OpenTelemetry traces (OTLP JSON) and tau-bench
trajectories. One file may hold several runs. A folder is read file by file; the files in it
that cannot be read (documentation, other files) are named, with why, and skipped. A file
named on the command line that cannot be read stops the command, saying which formats were
tried.
"""
"""The ``--help`` text of ``footprint-lab report``."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``footprint-lab`` command."""
    from footprint_lab import __version__

    plain = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="footprint-lab", description=DESCRIPTION, formatter_class=plain
    )
    parser.add_argument("--version", action="version", version=f"footprint-lab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{demo,report,corpus}")
    p_demo = sub.add_parser(
        "demo",
        help="run the scripted agents under each window strategy and write the report",
        description=DEMO_DESCRIPTION,
        formatter_class=plain,
    )
    p_demo.add_argument(
        "--scenario",
        action="append",
        choices=sorted(SCENARIOS),
        help=(
            "run only this scenario; give the option again for more "
            f"(default: all of {', '.join(default_scenarios())})"
        ),
    )
    p_demo.add_argument(
        "-o",
        "--output",
        default="footprint-report.html",
        type=Path,
        help="the HTML file to write (default: footprint-report.html in this folder)",
    )
    p_report = sub.add_parser(
        "report",
        help="write the HTML report for saved runs or other stacks' transcripts",
        description=REPORT_DESCRIPTION,
        formatter_class=plain,
    )
    p_report.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="FILE",
        help=(
            "a run saved with run.save(), a transcript file of a supported stack, or a folder "
            "of them (every file in it that can be read; the others are named and skipped)"
        ),
    )
    p_report.add_argument(
        "-o",
        "--output",
        default="footprint-report.html",
        type=Path,
        help="the HTML file to write (default: footprint-report.html in this folder)",
    )
    add_corpus_commands(sub)
    args = parser.parse_args(argv)
    if args.command == "corpus":
        return run_corpus_command(args)
    if args.command == "report":
        return report(args.paths, args.output)
    if args.command == "demo":
        results = demo(args.scenario)
        from footprint_lab.lab.report import write_report

        path = write_report(results, args.output)
        for line in [*closing_lines(results), "", *report_lines(path)]:
            print(line)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
