"""``footprint-lab judge FILE...``: what each compaction a stack performed did, one line per
finding (:func:`footprint_lab.judge`). Layer: top (the CLI).

Findings are facts, not failures: the command exits 0 whatever it finds, 2 when a file named
does not load (the error names the file and the formats tried). ``--json`` prints one JSON
object per finding instead, a line each, for scripts.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from footprint_lab.cli._files import gather_or_say
from footprint_lab.cli._text import WIDTH

__all__ = ["JUDGE_DESCRIPTION", "WIDTH", "add_judge_command", "judge_files"]


JUDGE_DESCRIPTION = """\
Judge the stack's own window policy in each file: for every compaction the transcript
records (Claude Code boundaries, Codex compacted entries, OpenHands condensations, pi and
provider compaction, SWE-agent masking, ...), one line per finding — the context grew, the
request was lost, a tool pair split, a removed result fetched again, the trigger late or
early, an empty summary, a cache write that cost more than the compaction saved. A file
whose stack never compacted has no finding. Exit status 0 whatever is found (findings are
facts, not failures); 2 when a file does not load.
"""
"""The ``--help`` text of ``footprint-lab judge``."""


def add_judge_command(sub: Any) -> None:
    """Register ``judge`` on the CLI's sub-parsers."""
    parser = sub.add_parser(
        "judge",
        help="one line per finding about each compaction a transcript's own stack performed",
        description=JUDGE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="a transcript of any stack footprint_lab reads, a saved run, or a folder of them",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per finding, a line each"
    )


def _lines(source: str, label: str, rule: str, iteration: int, detail: str) -> list[str]:
    head = f"{label} · iteration {iteration} · {rule}: "
    return textwrap.wrap(
        head + detail, WIDTH, subsequent_indent="    ", break_on_hyphens=False
    ) or [head]


def judge_files(paths: Sequence[Path], *, as_json: bool = False) -> int:
    """Print every finding of every run in ``paths``; return the exit status (0, or 2 when a
    file does not load)."""
    from footprint_lab.evidence.judge import judge

    gathered = gather_or_say(paths, "judge")
    if gathered is None:
        return 2
    grouped, _ = gathered
    runs = compactions = found = 0
    for source, section in grouped.items():
        for label, run in section.items():
            runs += 1
            compactions += sum(1 for r in run.records if r.observed)
            for finding in judge(run):
                found += 1
                if as_json:
                    row = {"file": source, "run": label, **finding.model_dump()}
                    print(json.dumps(row, ensure_ascii=False))
                else:
                    for line in _lines(
                        source, label, finding.rule, finding.iteration, finding.detail
                    ):
                        print(line)
    if not as_json:
        print(
            f"{found} finding(s) about {compactions} observed compaction(s) in {runs} run(s)",
        )
    return 0
