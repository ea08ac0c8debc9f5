"""The ``findings`` frame: one row per finding :func:`footprint_lab.judge` makes about a
compaction the run's own stack performed.

Layer: lab. The judging is :mod:`footprint_lab.evidence.judge`'s; this module only lays its
findings out in the frame's columns (stated in :mod:`footprint_lab.lab.schema`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from footprint_lab.evidence.judge import judge
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import SCHEMAS, build_frame

__all__ = ["build", "columns"]


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``findings`` frame of the run in ``ctx`` (empty without observed records)."""
    return build_frame("findings", columns(ctx))


def columns(ctx: CaptureContext) -> dict[str, Any]:
    """The ``findings`` frame's column values (lists and arrays, untyped): what :func:`build`
    types into a frame and a corpus store writes as Arrow."""
    cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["findings"]}
    records = ctx.run.records
    for finding in judge(ctx.run):
        cols["record"].append(finding.record_index)
        cols["iteration"].append(finding.iteration)
        cols["policy"].append(records[finding.record_index].strategy)
        cols["rule"].append(finding.rule)
        cols["stage_ids"].append(" ".join(finding.stage_ids))
        cols["tokens_before"].append(finding.tokens_before)
        cols["tokens_after"].append(finding.tokens_after)
        cols["figure"].append(finding.figure)
        cols["unit"].append(finding.unit)
        cols["detail"].append(finding.detail)
    return cols
