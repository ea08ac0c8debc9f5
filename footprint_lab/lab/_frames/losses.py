"""The ``losses`` frame: dependent tool calls whose evidence was not in the window.

Layer: lab. Rows are :func:`footprint_lab.evidence.losses` with ledger positions added: the
tool result that carried the value, and the assistant message that made the dependent call.
It scans every dependent call's window, so ``capture`` builds it only when asked.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from footprint_lab.evidence import losses as evidence_losses
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import SCHEMAS, build_frame

__all__ = ["build"]


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``losses`` frame of the run in ``ctx``."""
    ledger = ctx.run.ledger
    found = evidence_losses(ctx.run)
    # transcript index -> ledger position (the transcript leaves library-authored messages out)
    transcript_positions = [p for p, m in enumerate(ctx.messages) if m.authored is None]
    cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["losses"]}
    for loss in found:
        source_pos: int | None = None
        try:
            carriers = ledger.messages_of(loss.source_stage_id)
        except KeyError:
            carriers = []
        tools = [m for m in carriers if m.role == "tool"]
        source = next((m for m in tools if loss.value in m.content), tools[0] if tools else None)
        if source is not None:
            source_pos = ledger.position(source)
        call_pos = (
            transcript_positions[loss.message_index]
            if 0 <= loss.message_index < len(transcript_positions)
            else None
        )
        cols["iteration"].append(loss.iteration)
        cols["call_id"].append(loss.call_id)
        cols["tool_name"].append(loss.tool_name)
        cols["value"].append(loss.value)
        cols["source_stage_id"].append(loss.source_stage_id)
        cols["source_position"].append(source_pos)
        cols["call_position"].append(call_pos)
        cols["removed_by"].append(loss.removed_by)
        cols["removed_by_strategy"].append(loss.removed_by_strategy)
        cols["kept_by_summary"].append(loss.kept_by_summary)
    return build_frame("losses", cols)
