"""The ``pauses`` frame: one row per ``run.paused`` event, with its outcome.

Layer: lab. A pause's outcome is that of the next ``run.resumed`` event for the same call; its
position is the assistant message that made the call.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from footprint_lab.events import RunPaused, RunResumed
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import SCHEMAS, build_frame

__all__ = ["build"]


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``pauses`` frame of the run in ``ctx``."""
    cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["pauses"]}
    if "run.paused" not in ctx.events_by_type:
        return build_frame("pauses", cols)
    events = list(ctx.run.events)
    made_by: dict[str, int] = {}
    for p, m in enumerate(ctx.messages):
        if ctx.roles[p] == "assistant":
            for call in m.tool_calls:
                made_by[call.id] = p
    for i, event in enumerate(events):
        if not isinstance(event, RunPaused):
            continue
        resumed = next(
            (
                e
                for e in events[i + 1 :]
                if isinstance(e, RunResumed) and e.call_id == event.call_id
            ),
            None,
        )
        pos = made_by.get(event.call_id)
        cols["iteration"].append(event.iteration)
        cols["call_id"].append(event.call_id)
        cols["tool_name"].append(event.tool_name)
        cols["kind"].append(event.kind)
        cols["outcome"].append(None if resumed is None else resumed.outcome)
        cols["resumed_iteration"].append(None if resumed is None else resumed.iteration)
        cols["position"].append(pos)
        cols["stage_id"].append(None if pos is None else ctx.stage_ids[pos])
    return build_frame("pauses", cols)
