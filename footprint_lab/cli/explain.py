"""``footprint-lab explain FILE STAGE_ID``: why one stage's messages are, or are not, in the
window, in the sentence :func:`footprint_lab.explain` gives. Layer: top (the CLI).

Exit status: 0 when the sentence is printed; 2 for bad input — a file that does not load, a
``--run`` that is not one of the file's runs (or none given for a file of several), a stage id
the run's ledger does not hold (the error names the closest ids and the first few). ``--json``
prints one JSON object (file, run, stage_id, explanation) instead.
"""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path
from typing import Any

from footprint_lab.cli._files import load_or_say, pick_run, say
from footprint_lab.cli._text import listing, wrap

__all__ = ["EXPLAIN_DESCRIPTION", "add_explain_command", "explain_file"]

EXPLAIN_DESCRIPTION = """\
Say why one stage's messages are, or are not, in the run's window: the sentence
footprint_lab.explain(run, STAGE_ID) gives. A stage id names the step that wrote the
messages: seed#0, call-llm#2, tool-calls#3, a window visit's window#9 (the record's own
sentence). For a file of several runs, --run N picks one (counted from 0). Exit status 0; 2
when the file does not load, the run or the stage id is not in it.
"""
"""The ``--help`` text of ``footprint-lab explain``."""


def add_explain_command(sub: Any) -> None:
    """Register ``explain`` on the CLI's sub-parsers."""
    parser = sub.add_parser(
        "explain",
        help="why one stage's messages are, or are not, in the window, in one sentence",
        description=EXPLAIN_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path, metavar="FILE", help="a transcript or a saved run")
    parser.add_argument("stage_id", metavar="STAGE_ID", help="a stage id, e.g. call-llm#3")
    parser.add_argument(
        "--run", type=int, default=None, metavar="N", help="the run of the file (from 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _stages(stage_ids: list[str], wanted: str) -> str:
    near = difflib.get_close_matches(wanted, stage_ids, n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(near)}?" if near else ""
    return (
        f"{hint} Its {len(stage_ids)} stage id(s) begin {listing(stage_ids, 6)} (the step "
        "that wrote each message: seed#0, call-llm#N, tool-calls#N, window#N); give one of them."
    )


def explain_file(path: Path, stage_id: str, *, run_index: int | None, as_json: bool) -> int:
    """Print why ``stage_id`` of the run in ``path`` is, or is not, in the window; return the
    exit status (0, or 2 for bad input)."""
    from footprint_lab.agent.explain import explain

    runs = load_or_say(path, "explain")
    if runs is None:
        return 2
    run = pick_run(runs, run_index, path, "explain")
    if run is None:
        return 2
    stage_ids = list(dict.fromkeys(c.stage_id for c in run.ledger.commits))
    if stage_id not in stage_ids:
        say("explain", f"{path} has no stage {stage_id!r}.{_stages(stage_ids, stage_id)}")
        return 2
    sentence = explain(run, stage_id)
    if as_json:
        index = 0 if run_index is None else run_index
        row = {"file": str(path), "run": index, "stage_id": stage_id, "explanation": sentence}
        print(json.dumps(row, ensure_ascii=False))
        return 0
    for line in wrap(sentence, subsequent=""):
        print(line)
    return 0
