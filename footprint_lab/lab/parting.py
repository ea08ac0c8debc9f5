"""Where two runs part: the first iteration whose window differs, and the first whose reply
differs — a fork against the run it forked from, or any two runs of one story.

Layer: lab. Pure functions of runs: :func:`parting` compares two, :func:`parting_frame` every
run of a mapping with its first (the ``parting`` frame, one row per run compared), and
:func:`parting_words` says one row in a sentence (:func:`parting_lines`, every row: what
``Compare`` shows under its heading).
A window or a reply is compared by what it says — role, text, tool names and arguments, who
wrote it — never by stage or call ids, which two runs mint apart even when they say the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from footprint_lab.agent.origin import Fork
from footprint_lab.agent.run import Run
from footprint_lab.lab.schema import build_frame
from footprint_lab.messages import Message

__all__ = ["Parting", "parting", "parting_frame", "parting_lines", "parting_words"]

_Said = tuple[str, str, str | None, str | None, tuple[tuple[str, str], ...]]


def _said(message: Message) -> _Said:
    """What a message says, ids aside."""
    calls = tuple((c.name, json.dumps(c.arguments, sort_keys=True)) for c in message.tool_calls)
    return (message.role, message.content, message.name, message.authored, calls)


@dataclass(frozen=True)
class _Iteration:
    """What a run sent and was answered at one iteration (its last call, a retry's)."""

    window: tuple[_Said, ...]
    """What each message of the window sent says."""
    chars: int
    """The characters sent."""
    reply: _Said | None
    """What the reply says (None: the call failed)."""


def _iterations(run: Run) -> dict[int, _Iteration]:
    last: dict[int, int] = {}
    for index, call in enumerate(run.calls):
        last[call.iteration] = index
    out: dict[int, _Iteration] = {}
    for iteration, index in sorted(last.items()):
        call = run.calls[index]
        answered = [m for m in run.ledger.messages_of(call.stage_id) if m.role == "assistant"]
        out[iteration] = _Iteration(
            tuple(map(_said, run.window_sent(index))),
            call.chars,
            _said(answered[-1]) if answered else None,
        )
    return out


@dataclass(frozen=True)
class Parting:
    """Where a run parts from the one it is compared with."""

    windows_part_at: int | None
    """The first iteration whose window differs (or that only one of them ran); None when
    every window is the same."""
    replies_part_at: int | None
    """The first iteration whose reply differs (or that only one of them ran); None when
    every reply is the same."""
    shared_iterations: int
    """Iterations both runs made a call in."""
    chars: tuple[int | None, int | None]
    """Characters the reference and the run sent where their windows part (None: that one
    did not call there)."""


def parting(reference: Run, run: Run) -> Parting:
    """Where ``run`` parts from ``reference``: their windows and their replies, iteration by
    iteration (see the module docstring for what counts as the same)."""
    theirs, ours = _iterations(reference), _iterations(run)
    every = sorted(set(theirs) | set(ours))
    window_at = next(
        (
            k
            for k in every
            if k not in theirs or k not in ours or theirs[k].window != ours[k].window
        ),
        None,
    )
    reply_at = next(
        (k for k in every if k not in theirs or k not in ours or theirs[k].reply != ours[k].reply),
        None,
    )
    chars: tuple[int | None, int | None] = (None, None)
    if window_at is not None:
        a, b = theirs.get(window_at), ours.get(window_at)
        chars = (None if a is None else a.chars, None if b is None else b.chars)
    return Parting(window_at, reply_at, len(set(theirs) & set(ours)), chars)


def parting_frame(runs: Mapping[str, Run]) -> pd.DataFrame:
    """The ``parting`` frame: every run after the first of ``runs`` against the first, one
    row each (none for fewer than two runs)."""
    labels = list(runs)
    rows: list[dict[str, Any]] = []
    for label in labels[1:]:
        run = runs[label]
        found = parting(runs[labels[0]], run)
        origin = run.origin
        rows.append(
            {
                "run": label,
                "against": labels[0],
                "fork_at": origin.at if isinstance(origin, Fork) else None,
                "shared_iterations": found.shared_iterations,
                "windows_part_at": found.windows_part_at,
                "replies_part_at": found.replies_part_at,
                "reference_chars": found.chars[0],
                "run_chars": found.chars[1],
            }
        )
    columns = (
        "run",
        "against",
        "fork_at",
        "shared_iterations",
        "windows_part_at",
        "replies_part_at",
        "reference_chars",
        "run_chars",
    )
    return build_frame("parting", {c: [row[c] for row in rows] for c in columns})


def _iteration(value: Any) -> int | None:
    return None if value is None or value is pd.NA else int(value)


def parting_words(row: Mapping[str, Any]) -> str:
    """One row of the ``parting`` frame in a sentence: ``"fork (at 4) parts from original: the
    windows at iteration 4 (3,120 → 1,204 chars sent), the replies at iteration 4."``"""
    fork_at = _iteration(row["fork_at"])
    who = str(row["run"])
    if fork_at is not None and f"fork at {fork_at}" not in who:  # the label may say it
        who += f" (forked at iteration {fork_at})"
    windows, replies = _iteration(row["windows_part_at"]), _iteration(row["replies_part_at"])
    if windows is None and replies is None:
        return (
            f"{who} and {row['against']} never part: the same windows and the same replies "
            f"over all {int(row['shared_iterations'])} iterations"
        )
    parts = []
    if windows is None:
        parts.append("the same window at every iteration")
    else:
        before, after = _iteration(row["reference_chars"]), _iteration(row["run_chars"])
        sizes = (
            f" ({before:,} → {after:,} chars sent)"
            if before is not None and after is not None
            else " (only one of them called there)"
        )
        parts.append(f"the windows at iteration {windows}{sizes}")
    parts.append(
        "the same reply at every iteration"
        if replies is None
        else f"the replies at iteration {replies}"
    )
    return f"{who} parts from {row['against']}: {', '.join(parts)}"


def parting_lines(frame: pd.DataFrame) -> list[str]:
    """Every row of a ``parting`` frame in a sentence (:func:`parting_words`), in order."""
    return [parting_words({str(k): v for k, v in row.items()}) for row in frame.to_dict("records")]
