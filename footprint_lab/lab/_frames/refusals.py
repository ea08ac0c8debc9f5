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
    cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["refusals"]}
    roles, stage_ids = ctx.roles, ctx.stage_ids
    for j, (rec, facts) in enumerate(zip(ctx.records, ctx.facts, strict=True)):
        if not rec.refusals:
            continue
        given = facts.given
        for ref in rec.refusals:
            pos: int | None = None
            turn_len: int | None = None
            if given is not None and 0 <= ref.message_index < len(given):
                pos = given[ref.message_index]
                turn_len = turn_end(roles, given, ref.message_index) - ref.message_index
            stage_id = ref.stage_id
            if stage_id is None and pos is not None:  # a record filed before refusals named it
                stage_id = stage_ids[pos]
            cols["record"].append(j)
            cols["iteration"].append(rec.iteration)
            cols["strategy"].append(rec.strategy)
            cols["reason"].append(ref.reason)
            cols["turn_index"].append(ref.turn_index)
            cols["message_index"].append(ref.message_index)
            cols["turn_messages"].append(turn_len)
            cols["position"].append(pos)
            cols["stage_id"].append(stage_id)
    return build_frame("refusals", cols)
