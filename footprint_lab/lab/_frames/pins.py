"""The ``pins`` frame: one row per pin, per yielded count and per stand-down.

Layer: lab. A pin names the stage that committed the pinned result (``Pin.stage_id``), so its
ledger position is that stage's latest result of the pinned tool in the window the strategy was
given — no turn segmentation. Only a pin filed before pins named their stage falls back to
finding its turn in the given window.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from footprint_lab.lab._frames.context import CaptureContext, RecordFacts
from footprint_lab.lab.schema import SCHEMAS, build_frame
from footprint_lab.ledger import in_runs
from footprint_lab.window.records import Pin, WindowRecord

__all__ = ["build", "pin_position"]


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``pins`` frame of the run in ``ctx``."""
    cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["pins"]}

    def row(j: int, rec: WindowRecord, kind: str, pin: Pin | None, count: int) -> None:
        pos = None if pin is None else pin_position(ctx, ctx.facts[j], pin)
        stage_id = None if pin is None else pin.stage_id
        if stage_id is None and pos is not None:
            stage_id = ctx.stage_ids[pos]
        cols["record"].append(j)
        cols["iteration"].append(rec.iteration)
        cols["strategy"].append(rec.strategy)
        cols["kind"].append(kind)
        cols["tool_name"].append(None if pin is None else pin.tool_name)
        cols["turn_index"].append(None if pin is None else pin.turn_index)
        cols["chars"].append(None if pin is None else pin.chars)
        cols["count"].append(count)
        cols["position"].append(pos)
        cols["stage_id"].append(stage_id)

    for j, rec in enumerate(ctx.records):
        obs = rec.observations
        if obs is None:
            continue
        for pin in obs.pinned:
            row(j, rec, "pinned", pin, 1)
        if obs.yielded:
            row(j, rec, "yielded", None, obs.yielded)
        if obs.stand_down:
            row(j, rec, "stand-down", None, 1)
    return build_frame("pins", cols)


def pin_position(ctx: CaptureContext, facts: RecordFacts, pin: Pin) -> int | None:
    """Where the pinned result sits in the ledger (None when the given window is unknown)."""
    window = facts.given_runs
    if window is None:
        return None
    if pin.stage_id is None:
        return _position_by_turn(ctx, facts, pin)
    # The pin holds the latest result of its tool, and a stage's messages keep their order in
    # any window, so it is the stage's last such result in the given window.
    roles, tool_names = ctx.roles, ctx.tool_names
    for p in reversed(ctx.stage_positions.get(pin.stage_id, ())):
        if roles[p] == "tool" and tool_names[p] == pin.tool_name and in_runs(p, window):
            return p
    return None


def _position_by_turn(ctx: CaptureContext, facts: RecordFacts, pin: Pin) -> int | None:
    """A pin filed before pins named their stage: the tool's last result in its turn."""
    given = facts.given
    assert given is not None
    roles = ctx.roles
    starts = [i for i, p in enumerate(given) if i == 0 or roles[p] != "tool"]
    if not 0 <= pin.turn_index < len(starts):
        return None
    t0 = starts[pin.turn_index]
    t1 = starts[pin.turn_index + 1] if pin.turn_index + 1 < len(starts) else len(given)
    for i in range(t1 - 1, t0 - 1, -1):
        p = given[i]
        if roles[p] == "tool" and ctx.tool_names[p] == pin.tool_name:
            return p
    return None
