"""``footprint-lab inspect FILE``: the short summary a person reads first — which stack wrote
the file, the model, how many runs, calls and messages, what the stack's own window policy did
(its observed records and :func:`footprint_lab.judge`'s findings about them) and which facts
the file does not record. Layer: top (the CLI).

The numbers are :func:`footprint_lab.lab.summary.run_summary`'s (``calls``,
``ledger_messages``), summed over the file's runs (or of one, with ``--run N``); what a file
records is its import's :class:`~footprint_lab.agent.origin.Recorded` (``run.origin``).

Exit status: 0 when the summary is printed; 2 for bad input — a file that does not load, a
``--run`` not in it. ``--json`` prints one JSON document instead.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from footprint_lab.cli._files import load_or_say, pick_run
from footprint_lab.cli._text import listing, wrap

if TYPE_CHECKING:
    from footprint_lab.agent import Run

__all__ = ["INSPECT_DESCRIPTION", "RECORDED_WORDS", "add_inspect_command", "inspect_file"]

INSPECT_DESCRIPTION = """\
Print the short summary of a file to read first: the stack that wrote it, the model, how
many runs, calls and messages it holds, what the stack's own window policy did (the
compactions it recorded and how many findings footprint-lab judge has about them), and what
the file does not record (what each call was sent, token usage, tool results, the model,
how the run ended). Exit status 0; 2 when the file does not load.
"""
"""The ``--help`` text of ``footprint-lab inspect``."""

RECORDED_WORDS: dict[str, str] = {
    "inputs": "what each call was sent",
    "usage": "token usage",
    "tool_results": "tool results",
    "model": "the model",
    "outcome": "how the run ended",
}
"""Each fact of :class:`~footprint_lab.agent.origin.Recorded`, in words."""


def add_inspect_command(sub: Any) -> None:
    """Register ``inspect`` on the CLI's sub-parsers."""
    parser = sub.add_parser(
        "inspect",
        help="the short summary of a transcript: stack, model, calls, its own policy, gaps",
        description=INSPECT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path, metavar="FILE", help="a transcript or a saved run")
    parser.add_argument(
        "--run", type=int, default=None, metavar="N", help="only this run of the file (from 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def _stack(run: Run) -> str:
    """Which stack wrote the run, from its origin."""
    from footprint_lab.agent.origin import Fork, Import, Replay, imported_source

    origin = run.origin
    if isinstance(origin, Import):
        return origin.format
    source = imported_source(origin)
    made = {Replay: "a replay", Fork: "a fork"}.get(type(origin), "a run of this lab")
    return f"{made} of a {source.format} transcript" if source is not None else made


def _not_recorded(run: Run) -> list[str] | None:
    """The facts the run's file does not record (None: unknown, or not an import)."""
    from footprint_lab.agent.origin import recorded_of_origin

    recorded = recorded_of_origin(run.origin)
    if recorded is None:
        return None
    return [key for key in RECORDED_WORDS if not getattr(recorded, key)]


def _of_run(index: int, run: Run) -> dict[str, Any]:
    from footprint_lab.evidence.judge import judge
    from footprint_lab.importers.inspect import outcome_words
    from footprint_lab.lab.summary import run_summary

    numbers = run_summary(run)
    gaps = _not_recorded(run)
    return {
        "run": index,
        "label": run.meta.get("label"),
        "stack": _stack(run),
        "model": None if gaps is not None and "model" in gaps else run.model,
        "policy": run.strategy,
        "calls": int(numbers["calls"]),
        "messages": int(numbers["ledger_messages"]),
        "observed_records": sum(1 for r in run.records if r.observed),
        "removed_messages": int(numbers["removed_messages"]),
        "findings": len(judge(run)),
        "outcome": outcome_words(run.meta.get("scores")),
        "not_recorded": gaps,
    }


def _lines(path: Path, about: list[dict[str, Any]], total_runs: int) -> list[str]:
    def field(name: str, value: str) -> list[str]:
        return wrap(f"{name + ':':<15}{value}", "  ", " " * 17)

    stacks = list(dict.fromkeys(a["stack"] for a in about))
    models = list(dict.fromkeys(a["model"] or "not recorded" for a in about))
    policies = list(dict.fromkeys(a["policy"] for a in about if a["policy"]))
    lines = [*wrap(str(path), "", "")]
    if len(about) == 1 and total_runs > 1:
        lines += field("run", f"{about[0]['run']} of {total_runs}")
    else:
        lines += field("runs", str(len(about)))
    if len(about) == 1 and about[0]["label"]:
        lines += field("label", str(about[0]["label"]))
    lines += field("stack", ", ".join(stacks))
    lines += field("model", listing(models, 6))
    calls = sum(a["calls"] for a in about)
    messages = sum(a["messages"] for a in about)
    lines += field("calls", f"{calls:,}")
    lines += field("messages", f"{messages:,}")
    observed = sum(a["observed_records"] for a in about)
    findings = sum(a["findings"] for a in about)
    removed = sum(a["removed_messages"] for a in about)
    if observed:
        own = (
            f"{observed} compaction(s) recorded, {removed:,} message(s) removed; "
            f"{findings} finding(s) (footprint-lab judge says which)"
        )
    elif policies:
        own = f"{', '.join(policies)}: no compaction recorded; {findings} finding(s)"
    else:
        own = "no compaction recorded"
    lines += field("own policy", own)
    scored = [a["outcome"] for a in about if a["outcome"]]
    if len(about) == 1 and scored:
        lines += field("outcome", scored[0])
    elif scored:
        counts = Counter(outcome.split(" (")[0] for outcome in scored)
        lines += field("outcomes", ", ".join(f"{n} {word}" for word, n in counts.most_common()))
    gaps = [a["not_recorded"] for a in about]
    if any(g is None for g in gaps):
        missing = "not known (not an imported file, or saved before it was kept)"
    else:
        keys = [k for k in RECORDED_WORDS if any(k in (g or []) for g in gaps)]
        partly = [k for k in keys if not all(k in (g or []) for g in gaps)]
        words = [RECORDED_WORDS[k] + (" (in some runs)" if k in partly else "") for k in keys]
        missing = "; ".join(words) if words else "nothing: every fact is recorded"
    lines += field("not recorded", missing)
    if not any(g is None for g in gaps) and any("inputs" in (g or []) for g in gaps):
        lines += wrap(
            "The file does not record what each call was sent: every window shown is the "
            "whole history up to its call, so the stack's own trimming cannot be seen; "
            "footprint-lab replay shows what a strategy would remove.",
            "  ",
            "  ",
        )
    if len(about) > 1:
        lines += wrap(f"--run N (0 to {total_runs - 1}) shows one run.", "  ", "  ")
    return lines


def inspect_file(path: Path, *, run_index: int | None = None, as_json: bool = False) -> int:
    """Print the summary of the runs of ``path``; return the exit status (0, or 2 for bad
    input)."""
    runs = load_or_say(path, "inspect")
    if runs is None:
        return 2
    if run_index is not None:
        run = pick_run(runs, run_index, path, "inspect")
        if run is None:
            return 2
        about = [_of_run(run_index, run)]
    else:
        about = [_of_run(i, run) for i, run in enumerate(runs)]
    if as_json:
        print(json.dumps({"file": str(path), "runs": about}, ensure_ascii=False))
        return 0
    for line in _lines(path, about, len(runs)):
        print(line)
    return 0
