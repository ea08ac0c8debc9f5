"""``footprint-lab``: the command line. Layer: top.

``footprint-lab demo`` runs the scripted scenarios under the three shipped strategies and
prints one line per WindowRecord.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from footprint_lab.agent import Run
from footprint_lab.scenarios import SCENARIOS
from footprint_lab.window.records import WindowRecord


def format_record(record: WindowRecord) -> str:
    """One line per record: iteration, removed count and ids, chars, refusals."""
    refusals = ", ".join(f"{r.reason}@t{r.turn_index}" for r in record.refusals) or "-"
    removed = ", ".join(record.removed_stage_ids) or "-"
    extra = ""
    if record.measured_tokens is not None:
        extra = f"  tokens {record.measured_tokens}/{record.threshold_tokens}"
    return (
        f"  iter {record.iteration:>3}  removed {record.removed_message_count:>3} [{removed}]  "
        f"chars {record.window_chars_before} -> {record.window_chars_after}  "
        f"refusals: {refusals}{extra}"
    )


def print_run(label: str, run: Run) -> None:
    """Print a run's header and its records."""
    print(f"{label}: status={run.status} iterations={run.iterations} records={len(run.records)}")
    for record in run.records:
        print(format_record(record))


def demo(scenario_names: Sequence[str]) -> dict[str, dict[str, Run]]:
    """Run each scenario under its three strategies and print the records."""
    results: dict[str, dict[str, Run]] = {}
    for name in scenario_names:
        scenario = SCENARIOS[name]()
        print(f"== {scenario.name}: {scenario.request}")
        results[name] = {}
        for label, strategy in scenario.strategies().items():
            run = scenario.run(strategy)
            results[name][label] = run
            print_run(label, run)
        print()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``footprint-lab`` command."""
    parser = argparse.ArgumentParser(prog="footprint-lab", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="run the scripted scenarios under the three strategies")
    p_demo.add_argument(
        "--scenario",
        action="append",
        choices=sorted(SCENARIOS),
        help="scenario to run (repeatable; default: deploy-audit)",
    )
    args = parser.parse_args(argv)
    if args.command == "demo":
        demo(args.scenario or ["deploy-audit"])
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
