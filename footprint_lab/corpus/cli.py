"""The ``footprint-lab corpus`` commands: ``corpus build PATHS -o STORE`` and ``corpus report
STORE -o FILE``.

Layer: corpus (the CLI, :mod:`footprint_lab.cli`, registers these on its parser; they live
here so the CLI module stays one screenful per command).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

__all__ = ["BUILD_DESCRIPTION", "REPORT_DESCRIPTION", "add_corpus_commands", "run_corpus_command"]

BUILD_DESCRIPTION = """\
Import every transcript file of the paths given into a corpus store: a folder of Parquet
datasets (runs, calls, messages, records, refusals, evictions, problems) and each run's
checkpoint, compressed, for replay. A path is a file, a folder (read recursively; README,
LICENSE and other documentation left out) or a glob ('logs/**/*.eval'). The format of each
file is detected (SWE-agent, OpenHands, Inspect, Claude Code, OpenTelemetry, tau-bench, saved
runs). A file that does not import is listed in the store's problems and does not stop the
build (unless --strict). Building again into the same store imports only new or changed files.
Query the store with footprint_lab.corpus.Corpus.open(STORE).
"""
"""The ``--help`` text of ``footprint-lab corpus build``."""

REPORT_DESCRIPTION = """\
Write a corpus store's overview as an offline HTML page: runs by source format, model and
outcome; the distributions of peak window size and calls per run; what each source's own
policy removed (observed records) and the violations it committed; the cost/evidence frontier
of the store's evidence grid (corpus.evidence_frame writes one; without one the page says how
to run it). Each listed run links to its own page (its charts and Boundary view), written
beside FILE in FILE's stem + '_runs/'. Everything opens offline.
"""
"""The ``--help`` text of ``footprint-lab corpus report``."""


def add_corpus_commands(sub: Any) -> None:
    """Add ``corpus`` and its subcommands to the CLI's subparsers ``sub``."""
    plain = argparse.RawDescriptionHelpFormatter
    p_corpus = sub.add_parser(
        "corpus",
        help="build a corpus store of many transcripts, to query with pandas and SQL",
        description="Corpus stores: many runs from every stack, in Parquet, queryable.",
        formatter_class=plain,
    )
    commands = p_corpus.add_subparsers(
        dest="corpus_command", required=True, metavar="{build,report,verify}"
    )
    p_build = commands.add_parser(
        "build",
        help="import transcript files into a corpus store",
        description=BUILD_DESCRIPTION,
        formatter_class=plain,
    )
    p_build.add_argument(
        "paths", nargs="+", metavar="PATH", help="a transcript file, a folder of them, or a glob"
    )
    p_build.add_argument(
        "-o", "--output", required=True, type=Path, metavar="STORE", help="the store's folder"
    )
    p_build.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="import on N worker processes (1: in this process; default: one per core)",
    )
    p_build.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first file that does not import, or imports with a problem",
    )
    p_build.add_argument(
        "--no-wait",
        action="store_true",
        help="if another build is writing the store, stop at once (default: wait for it)",
    )
    p_verify = commands.add_parser(
        "verify",
        help="check every file of a corpus store against the seal its manifest holds",
        description=(
            "Hash every part and checkpoint of the store and compare it with the seal its\n"
            "manifest entry holds. Exit 0: every byte as written; 1: damaged files (listed,\n"
            "with the repair: build again from the same paths); 2: not a store."
        ),
        formatter_class=plain,
    )
    p_verify.add_argument("store", type=Path, metavar="STORE", help="the store's folder")
    p_report = commands.add_parser(
        "report",
        help="write a corpus store's overview as an offline HTML page",
        description=REPORT_DESCRIPTION,
        formatter_class=plain,
    )
    p_report.add_argument("store", type=Path, metavar="STORE", help="the store's folder")
    p_report.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("corpus.html"),
        metavar="FILE",
        help="the page to write (default: corpus.html)",
    )
    p_report.add_argument(
        "--grid",
        default=None,
        metavar="NAME",
        help="the evidence grid (result table) whose frontier to draw (default: 'evidence')",
    )
    p_report.add_argument(
        "--max-runs",
        type=int,
        default=None,
        metavar="N",
        help="list at most N runs, each with its page (default: 200)",
    )


def run_corpus_command(args: argparse.Namespace) -> int:
    """Run the ``corpus`` subcommand ``args`` names; its exit code."""
    if args.corpus_command == "report":
        return _report(args)
    if args.corpus_command == "verify":
        return _verify(args)
    return _build(args)


def _verify(args: argparse.Namespace) -> int:
    """``corpus verify STORE``: 0 when every file is as sealed, 1 when some are damaged, 2
    when the folder is no store (or its manifest does not validate)."""
    from footprint_lab.corpus import Corpus, CorpusError

    try:
        found = Corpus.open(args.store, check=False).verify()
    except CorpusError as exc:
        print(f"footprint-lab corpus verify: {exc}", file=sys.stderr)
        return 2
    if found.ok:
        print(found)
        return 0
    print(found, file=sys.stderr)
    for damage in found.damage:
        print(f"  {damage}", file=sys.stderr)
    return 1


def _report(args: argparse.Namespace) -> int:
    """``corpus report STORE -o FILE``."""
    from footprint_lab.corpus import Corpus, CorpusError
    from footprint_lab.lab.corpus_report import write_corpus_report
    from footprint_lab.lab.corpus_view import RUNS_LISTED

    max_runs = RUNS_LISTED if args.max_runs is None else args.max_runs
    if max_runs < 0:
        print("footprint-lab corpus report: --max-runs must be 0 or more", file=sys.stderr)
        return 2
    try:
        corpus = Corpus.open(args.store)
        report = write_corpus_report(corpus, args.output, grid=args.grid, max_runs=max_runs)
    except (CorpusError, ValueError) as exc:
        print(f"footprint-lab corpus report: {exc}", file=sys.stderr)
        return 2
    print(
        f"wrote {report.path} ({len(corpus)} runs, {report.figures} charts) and "
        f"{len(report.pages)} run page(s) in {report.path.parent / (report.path.stem + '_runs')}"
    )
    return 0


def _build(args: argparse.Namespace) -> int:
    """``corpus build PATHS -o STORE``."""
    from footprint_lab.corpus import Corpus, CorpusError
    from footprint_lab.importers import TranscriptError

    if args.jobs is not None and args.jobs < 1:
        print("footprint-lab corpus build: --jobs must be at least 1", file=sys.stderr)
        return 2
    given = {"strict": args.strict, "wait": not args.no_wait}
    try:
        if args.jobs is None:
            corpus = Corpus.build(args.paths, args.output, **given)
        elif args.jobs == 1:
            corpus = Corpus.build(args.paths, args.output, executor="inline", **given)
        else:
            context = get_context("spawn")
            with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
                corpus = Corpus.build(args.paths, args.output, executor=pool, **given)
    except (CorpusError, TranscriptError) as exc:
        print(f"footprint-lab corpus build: {exc}", file=sys.stderr)
        return 2
    print(corpus.last_build)
    problems = corpus.frame("problems", columns=["source_path", "kind", "message"])
    failed = problems[problems["kind"] != "import-problem"]
    for message in failed["message"].head(10):
        print(f"  problem: {message}", file=sys.stderr)
    if len(failed) > 10:
        print(f"  ... and {len(failed) - 10} more (the store's problems frame)", file=sys.stderr)
    return 0
