"""The ``footprint-lab corpus`` commands: ``corpus build PATHS -o STORE``.

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

__all__ = ["BUILD_DESCRIPTION", "add_corpus_commands", "run_corpus_command"]

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


def add_corpus_commands(sub: Any) -> None:
    """Add ``corpus`` and its subcommands to the CLI's subparsers ``sub``."""
    plain = argparse.RawDescriptionHelpFormatter
    p_corpus = sub.add_parser(
        "corpus",
        help="build a corpus store of many transcripts, to query with pandas and SQL",
        description="Corpus stores: many runs from every stack, in Parquet, queryable.",
        formatter_class=plain,
    )
    commands = p_corpus.add_subparsers(dest="corpus_command", required=True, metavar="{build}")
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


def run_corpus_command(args: argparse.Namespace) -> int:
    """Run the ``corpus`` subcommand ``args`` names; its exit code."""
    from footprint_lab.corpus import Corpus, CorpusError
    from footprint_lab.importers import TranscriptError

    if args.jobs is not None and args.jobs < 1:
        print("footprint-lab corpus build: --jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        if args.jobs is None:
            corpus = Corpus.build(args.paths, args.output, strict=args.strict)
        elif args.jobs == 1:
            corpus = Corpus.build(args.paths, args.output, executor="inline", strict=args.strict)
        else:
            context = get_context("spawn")
            with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
                corpus = Corpus.build(args.paths, args.output, executor=pool, strict=args.strict)
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
