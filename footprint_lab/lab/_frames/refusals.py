"""The ``refusals`` frame: one row per turn that refused to leave.

Layer: lab. The record names each refusing turn by its index, its first message's index in the
window the strategy was given, and that message's stage id (``Refusal.stage_id``). Only the
ledger position and the turn's length need the given window: the turn is its first message and
the ``tool`` messages that follow it there.

Vectorised: a long run refuses about seven turns a visit (its keep window), so the refusals
are read in one pass and the turns measured in numpy over the given windows laid end to end.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import Any

import numpy as np
import pandas as pd

from footprint_lab.lab._frames.arrays import IntArray
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import SCHEMAS, build_frame

__all__ = ["build", "columns", "turn_end"]

_REFUSAL_FIELDS = attrgetter("reason", "turn_index", "message_index", "stage_id")
"""What a row reads of a refusal, in one call."""


def turn_end(roles: list[str], window: list[int], start: int) -> int:
    """The index just past the turn that starts at ``window[start]``."""
    end = start + 1
    while end < len(window) and roles[window[end]] == "tool":
        end += 1
    return end


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``refusals`` frame of the run in ``ctx``."""
    return build_frame("refusals", columns(ctx))


def columns(ctx: CaptureContext) -> dict[str, Any]:
    """The ``refusals`` frame's column values (lists and arrays, untyped): what :func:`build`
    types into a frame and a corpus store writes as Arrow."""
    records = ctx.records
    refusing = [j for j, rec in enumerate(records) if rec.refusals]
    rows = list(map(_REFUSAL_FIELDS, chain.from_iterable(records[j].refusals for j in refusing)))
    if not rows:
        return {name: [] for name in SCHEMAS["refusals"]}
    reason, turn_index, message_index, stage_id = (list(c) for c in zip(*rows, strict=True))
    counts = np.asarray([len(records[j].refusals) for j in refusing], dtype=np.int64)
    record = np.repeat(np.asarray(refusing, dtype=np.int64), counts)
    position, turn_messages = _turns(ctx, refusing, record, message_index)
    if None in stage_id:  # a record filed before refusals named it: the ledger says
        stage_ids = ctx.stage_ids
        stage_id = [
            stage_ids[p] if s is None and p is not pd.NA else s
            for s, p in zip(stage_id, position.tolist(), strict=True)
        ]
    iteration = np.asarray([records[j].iteration for j in refusing], dtype=np.int64)
    strategy = [records[j].strategy for j in refusing]
    return {
        "record": record,
        "iteration": np.repeat(iteration, counts),
        "strategy": [
            name for name, n in zip(strategy, counts.tolist(), strict=True) for _ in range(n)
        ],
        "reason": reason,
        "turn_index": turn_index,
        "message_index": message_index,
        "turn_messages": turn_messages,
        "position": position,
        "stage_id": stage_id,
    }


def _turns(
    ctx: CaptureContext, refusing: list[int], record: IntArray, message_index: list[int]
) -> tuple[Any, Any]:
    """Each refusing turn's first message's ledger position and its length in messages
    (:func:`turn_end`), as nullable integer arrays: <NA> when the record's given window is
    unknown or does not reach the turn's index."""
    given: list[int] = []
    # where each record's given window starts in ``given`` (-1: unknown), and its length
    start = np.full(len(ctx.facts), -1, dtype=np.int64)
    length = np.zeros(len(ctx.facts), dtype=np.int64)
    for j in refusing:
        window = ctx.facts[j].given
        if window is not None:
            start[j] = len(given)
            length[j] = len(window)
            given.extend(window)
    flat = np.asarray(given, dtype=np.int64)
    # a turn ends at the next message that is not a tool result, or at its window's end: mark
    # both, then read the next mark after each turn's first message
    marks = np.ones(len(flat) + 1, dtype=bool)
    if len(flat):
        marks[:-1] = np.asarray([r != "tool" for r in ctx.roles], dtype=bool)[flat]
        marks[start[start >= 0]] = True
    at_mark = np.where(marks, np.arange(len(marks)), len(marks))
    next_mark = np.minimum.accumulate(at_mark[::-1])[::-1]
    index = np.asarray(message_index, dtype=np.int64)
    offset = start[record]
    known = (offset >= 0) & (index >= 0) & (index < length[record])
    k = np.where(known, offset + index, 0)
    position = flat[k] if len(flat) else np.zeros(len(k), dtype=np.int64)
    turn_len = next_mark[k + 1] - k if len(flat) else np.zeros(len(k), dtype=np.int64)
    return (
        pd.arrays.IntegerArray(position, ~known),
        pd.arrays.IntegerArray(turn_len, ~known),
    )
