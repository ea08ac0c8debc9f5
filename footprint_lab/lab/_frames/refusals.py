"""The ``refusals`` frame: one row per turn that refused to leave.

Layer: lab. The record names each refusing turn by its index, its first message's index in the
window the strategy was given, and that message's stage id (``Refusal.stage_id``). Only the
ledger position and the turn's length need the given window: the turn is its first message and
the ``tool`` messages that follow it there.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import SCHEMAS, build_frame

__all__ = ["build", "turn_end"]


def turn_end(roles: list[str], window: list[int], start: int) -> int:
    """The index just past the turn that starts at ``window[start]``."""
    end = start + 1
    while end < len(window) and roles[window[end]] == "tool":
        end += 1
    return end


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``refusals`` frame of the run in ``ctx``."""
    roles, stage_ids = ctx.roles, ctx.stage_ids
    rows: list[tuple[Any, ...]] = []
    for j, (rec, facts) in enumerate(zip(ctx.records, ctx.facts, strict=True)):
        if not rec.refusals:
            continue
        given = facts.given
        for ref in rec.refusals:
            index = ref.message_index
            pos: int | None = None
            turn_len: int | None = None
            if given is not None and 0 <= index < len(given):
                pos = given[index]
                turn_len = turn_end(roles, given, index) - index
            stage_id = ref.stage_id
            if stage_id is None and pos is not None:  # a record filed before refusals named it
                stage_id = stage_ids[pos]
            # one tuple per row, in schema order (transposed below: cheaper than nine appends)
            rows.append(
                (
                    j,
                    rec.iteration,
                    rec.strategy,
                    ref.reason,
                    ref.turn_index,
                    index,
                    turn_len,
                    pos,
                    stage_id,
                )
            )
    names = list(SCHEMAS["refusals"])
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in names]
    return build_frame("refusals", dict(zip(names, columns, strict=True)))
