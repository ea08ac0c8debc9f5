"""``footprint-lab``: the command line. Layer: top.

``footprint-lab demo`` runs the scripted scenarios under the three shipped strategies, prints
a short summary table per run (:func:`~footprint_lab.lab.summary.run_summary`) and one line per
WindowRecord (:func:`~footprint_lab.lab.views.record_text`), and writes a standalone HTML
report (``footprint-report.html``, or ``-o PATH``) with the lab's charts for every run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from footprint_lab.agent import Run
from footprint_lab.lab.summary import run_summary
from footprint_lab.lab.views import record_text
from footprint_lab.scenarios import SCENARIOS

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


def run_lines(label: str, run: Run) -> list[str]:
    """A run's header line, its summary table and one line per record."""
    numbers = run_summary(run)
    head = (
        f"{label}: status={numbers['status']} iterations={numbers['iterations']} "
        f"records={numbers['records']}"
    )
    return [head, *summary_lines(numbers), *(record_text(record) for record in run.records)]


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
                for line in run_lines(label, run):
                    say(line)
                bar.update(1)
            say()
    return results


def report(paths: Sequence[Path], output: Path) -> int:
    """Load saved runs and write one report; a bad file is a clear error and exit code 2."""
    from footprint_lab.agent.checkpoint import RunFileError, load_run
    from footprint_lab.lab.report import write_report

    grouped: dict[str, dict[str, Run]] = {}
    for path in paths:
        try:
            run = load_run(path)
        except RunFileError as exc:
            print(f"footprint-lab report: {exc}", file=sys.stderr)
            return 2
        scenario = str(run.meta.get("scenario") or path.stem)
        label = f"{run.strategy or 'no strategy'} ({path.stem})"
        grouped.setdefault(scenario, {})[label] = run
    written = write_report(grouped, output)
    print(f"report written to {written.resolve()}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``footprint-lab`` command."""
    from footprint_lab import __version__

    parser = argparse.ArgumentParser(prog="footprint-lab", description=__doc__)
    parser.add_argument("--version", action="version", version=f"footprint-lab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="run the scripted scenarios under the three strategies")
    p_demo.add_argument(
        "--scenario",
        action="append",
        choices=sorted(SCENARIOS),
        help=f"scenario to run (repeatable; default: {', '.join(default_scenarios())})",
    )
    p_demo.add_argument(
        "-o",
        "--output",
        default="footprint-report.html",
        type=Path,
        help="where to write the HTML report (default: footprint-report.html)",
    )
    p_report = sub.add_parser("report", help="write the HTML report for saved runs")
    p_report.add_argument("runs", nargs="+", type=Path, help="run files written by run.save()")
    p_report.add_argument(
        "-o",
        "--output",
        default="footprint-report.html",
        type=Path,
        help="where to write the HTML report (default: footprint-report.html)",
    )
    args = parser.parse_args(argv)
    if args.command == "report":
        return report(args.runs, args.output)
    if args.command == "demo":
        results = demo(args.scenario)
        from footprint_lab.lab.report import write_report

        path = write_report(results, args.output)
        print(f"report written to {path.resolve()}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
