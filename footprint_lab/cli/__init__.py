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
skipped). ``footprint-lab judge``, ``inspect``, ``explain``, ``replay`` and ``cost`` each
answer one question about a transcript (a module each: :mod:`footprint_lab.cli.judge`,
:mod:`footprint_lab.cli.inspect`, :mod:`footprint_lab.cli.explain`,
:mod:`footprint_lab.cli.replay`, :mod:`footprint_lab.cli.cost`); they exit 0, or 2 for bad
input (a file that does not load, a wrong argument: the message names it). The ``--help``
texts (:data:`DESCRIPTION`) are in plain words.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from footprint_lab.cli._files import Skipped, gather, report
from footprint_lab.cli._text import (
    CLOSING_TABLE,
    DEMO_RECORD_LINES,
    DEMO_SCENARIOS,
    RECORD_INDENT,
    REPORT_HINT,
    SUMMARY_TABLE,
    WHY_PREFIX,
    WIDTH,
    closing_lines,
    default_scenarios,
    demo,
    format_record,
    print_run,
    record_lines,
    report_lines,
    run_lines,
    summary_lines,
)
from footprint_lab.cli.cost import add_cost_command, cost_file
from footprint_lab.cli.explain import add_explain_command, explain_file
from footprint_lab.cli.inspect import add_inspect_command, inspect_file
from footprint_lab.cli.judge import add_judge_command, judge_files
from footprint_lab.cli.replay import add_replay_command, replay_file
from footprint_lab.corpus.cli import add_corpus_commands, run_corpus_command
from footprint_lab.scenarios import SCENARIOS

__all__ = [
    "CLOSING_TABLE",
    "DEMO_RECORD_LINES",
    "DEMO_SCENARIOS",
    "DESCRIPTION",
    "RECORD_INDENT",
    "REPORT_HINT",
    "SUMMARY_TABLE",
    "WHY_PREFIX",
    "WIDTH",
    "Skipped",
    "closing_lines",
    "cost_file",
    "default_scenarios",
    "demo",
    "explain_file",
    "format_record",
    "gather",
    "inspect_file",
    "judge_files",
    "main",
    "print_run",
    "record_lines",
    "replay_file",
    "report",
    "report_lines",
    "run_lines",
    "summary_lines",
]

DESCRIPTION = """\
See how an agent's context window is trimmed, and why.

  footprint-lab demo     runs small scripted agents (no network, no API key) under three
                         window strategies, prints what each one removed and why, and
                         writes one HTML report to open in a browser.
  footprint-lab report   writes the same report for runs you saved with run.save(), or
                         for transcripts of other agent stacks (SWE-agent, mini-swe-agent,
                         OpenHands V0 and V1, Inspect, Claude Code, Codex CLI, Gemini
                         CLI, OpenAI Responses, Aider, pi, OpenTelemetry, tau-bench):
                         files or folders.
  footprint-lab judge    one line per finding about each compaction a transcript's own
                         stack performed (did it grow the context, lose the request,
                         make the agent fetch again what it removed, ...).
  footprint-lab inspect FILE
                         what a transcript holds: its stack, model, calls and messages,
                         what its own policy did and what the file does not record.
  footprint-lab explain FILE STAGE_ID
                         why one stage's messages are, or are not, in the window.
  footprint-lab replay FILE --strategy "sliding_window(keep_recent_turns=3)"
                         the run as recorded beside replays under strategies: messages
                         removed, characters sent, cost, tool evidence lost.
  footprint-lab cost FILE
                         what each call cost (list prices, prompt cache), and the total.
  footprint-lab corpus build PATHS -o STORE
                         imports many transcripts into a corpus store (Parquet datasets
                         and checkpoints) to query with pandas and SQL.
  footprint-lab corpus report STORE -o FILE
                         writes a store's overview page (and a page per run) to open offline.

inspect, explain, replay and cost print lines of at most 80 characters (--json: one JSON
document, for scripts). Every command exits 0 when it worked, 2 when a file does not load or
an argument is wrong (the message names which, and what to do).

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
file): SWE-agent .traj files, mini-swe-agent .traj.json files, OpenHands event files (.json or
.jsonl) and V1 conversation folders, Inspect AI logs (.eval or .json), Claude Code sessions
(.jsonl), Codex CLI rollouts (.jsonl), Gemini CLI chat recordings (.json or .jsonl), OpenAI
Responses items and Agents SDK sessions (.json), Aider chat histories (.md), pi sessions
(.jsonl), OpenTelemetry traces (OTLP JSON) and tau-bench trajectories. One file may hold
several runs. A folder is read file by file; the files in it
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
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="{demo,report,judge,inspect,explain,replay,cost,corpus}",
    )
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
    add_judge_command(sub)
    add_inspect_command(sub)
    add_explain_command(sub)
    add_replay_command(sub)
    add_cost_command(sub)
    add_corpus_commands(sub)
    args = parser.parse_args(argv)
    if args.command == "corpus":
        return run_corpus_command(args)
    if args.command == "report":
        return report(args.paths, args.output)
    if args.command == "judge":
        return judge_files(args.paths, as_json=args.json)
    if args.command == "inspect":
        return inspect_file(args.path, run_index=args.run, as_json=args.json)
    if args.command == "explain":
        return explain_file(args.path, args.stage_id, run_index=args.run, as_json=args.json)
    if args.command == "replay":
        return replay_file(
            args.path,
            args.strategy,
            run_index=args.run,
            pricing=args.pricing,
            output=args.output,
            as_json=args.json,
        )
    if args.command == "cost":
        return cost_file(
            args.path,
            pricing=args.pricing,
            cache=args.cache,
            run_index=args.run,
            as_json=args.json,
        )
    if args.command == "demo":
        results = demo(args.scenario)
        from footprint_lab.lab.report import write_report

        path = write_report(results, args.output)
        for line in [*closing_lines(results), "", *report_lines(path)]:
            print(line)
    return 0
