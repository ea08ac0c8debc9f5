"""The ``evictions`` frame: one row per message that left the window, and how it left.

Layer: lab. What left on a visit is the record's given window minus the window after it
(:class:`~footprint_lab.lab._frames.context.RecordFacts`); a message left ``summarized`` when
its record wrote a summary or a folded span of that iteration names its stage.
:func:`departures` condenses the frame to one fact per message (the first time it left), which
the ``messages`` and ``membership`` frames read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from footprint_lab.lab._frames.arrays import IntArray
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import build_frame

__all__ = ["Departures", "build", "departures"]


@dataclass(frozen=True, slots=True)
class Departures:
    """The first time each message left the window, by position."""

    left_iteration: IntArray
    """The iteration it first left at (-1: it never left)."""
    summarized: np.ndarray[tuple[int], np.dtype[np.bool_]]
    """It first left into a summary (False when it never left)."""
    cleared: np.ndarray[tuple[int], np.dtype[np.bool_]]
    """It first left by being replaced in place by a cleared-result placeholder."""


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``evictions`` frame of the run in ``ctx``, in record order then window order."""
    records, stage_ids = ctx.records, ctx.stage_ids
    folded_ids: dict[int, set[str]] = {}
    for span in getattr(ctx.run, "folded", []) or []:
        folded_ids.setdefault(span.iteration, set()).update(span.removed_stage_ids)
    ev_record: list[int] = []
    ev_pos: list[int] = []
    ev_how: list[str] = []
    for j, (rec, facts) in enumerate(zip(records, ctx.facts, strict=True)):
        if not facts.removed:
            continue
        summarized = rec.summary_chars is not None
        fold_ids = folded_ids.get(rec.iteration, set())
        # A clearing is an in-place move: everything its record removed was replaced in place.
        cleared = set(rec.cleared_stage_ids)
        for p in facts.removed:
            ev_record.append(j)
            ev_pos.append(p)
            if summarized or stage_ids[p] in fold_ids:
                ev_how.append("summarized")
            elif stage_ids[p] in cleared:
                ev_how.append("cleared")
            else:
                ev_how.append("dropped")
    n_ev = len(ev_pos)
    pos = np.asarray(ev_pos, dtype=np.int64)
    ev_iter = [records[j].iteration for j in ev_record]
    born = ctx.born[pos] if n_ev else np.zeros(0, dtype=np.int64)
    return build_frame(
        "evictions",
        {
            "record": ev_record,
            "iteration": ev_iter,
            "strategy": [records[j].strategy for j in ev_record],
            "position": pos,
            "stage_id": [stage_ids[p] for p in ev_pos],
            "role": [ctx.roles[p] for p in ev_pos],
            "tool_name": [ctx.tool_names[p] for p in ev_pos],
            "authored": [ctx.authored[p] for p in ev_pos],
            "chars": ctx.chars[pos] if n_ev else [],
            "born_iteration": born,
            "survival_iterations": np.asarray(ev_iter, dtype=np.int64) - born,
            "survival_ms": _survival_ms(ctx, ev_record, ev_pos),
            "how": ev_how,
            "forced": [records[j].forced for j in ev_record],
        },
    )


def _survival_ms(ctx: CaptureContext, ev_record: list[int], ev_pos: list[int]) -> list[int | None]:
    """From the ``context.evicted`` events when they match one to one, else from the ledger."""
    stage_ids = ctx.stage_ids
    events = [e for e in ctx.run.events if e.type == "context.evicted"]
    if len(events) == len(ev_pos) and all(
        getattr(e, "stage_id", None) == stage_ids[p] for e, p in zip(events, ev_pos, strict=True)
    ):
        return [int(getattr(e, "survival_ms", 0)) for e in events]
    commits = ctx.commits
    out: list[int | None] = []
    for j, p in zip(ev_record, ev_pos, strict=True):
        rc = ctx.facts[j].commit
        if rc is None:
            out.append(None)
        else:
            born_ms = commits[ctx.message_commit[p]].at_ms
            out.append(max(0, commits[rc].at_ms - born_ms))
    return out


def departures(ctx: CaptureContext, evictions: pd.DataFrame) -> Departures:
    """Condense ``evictions`` (this run's frame) to the first departure of each message."""
    left = np.full(ctx.m_count, -1, dtype=np.int64)
    summarized = np.zeros(ctx.m_count, dtype=np.bool_)
    cleared = np.zeros(ctx.m_count, dtype=np.bool_)
    if len(evictions):
        pos = evictions["position"].to_numpy(dtype=np.int64)
        uniq, first = np.unique(pos, return_index=True)
        left[uniq] = evictions["iteration"].to_numpy(dtype=np.int64)[first]
        how = evictions["how"].to_numpy(dtype=object)
        summarized[uniq] = (how == "summarized")[first]
        cleared[uniq] = (how == "cleared")[first]
    return Departures(left, summarized, cleared)
