"""The ``commits`` frame: the ledger, one row per commit, with the iteration it belongs to.

Layer: lab. A commit's iteration is that of the last call or record stage at or before it
(:attr:`~footprint_lab.lab._frames.context.CaptureContext.commit_iter`).
"""

from __future__ import annotations

import pandas as pd

from footprint_lab.lab._frames.context import CaptureContext, stage_kind
from footprint_lab.lab.schema import build_frame

__all__ = ["build"]


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``commits`` frame of the run in ``ctx``."""
    commits = ctx.commits
    return build_frame(
        "commits",
        {
            "index": [c.index for c in commits],
            "stage_id": [c.stage_id for c in commits],
            "stage": [stage_kind(c.stage_id) for c in commits],
            "key": [c.key for c in commits],
            "at_ms": [c.at_ms for c in commits],
            "iteration": ctx.commit_iter,
        },
    )
