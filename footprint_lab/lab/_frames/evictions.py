"""The ``evictions`` frame: one row per message that left the window, and how it left.

Layer: lab. What left on a visit is the record's given window minus the window after it
(:class:`~footprint_lab.lab._frames.context.RecordFacts`); a message left ``summarized`` when
its record wrote a summary or a folded span of that iteration names its stage.
:func:`departures` condenses the frame to one fact per message (the first time it left), which
the ``messages`` and ``membership`` frames read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any, Literal

import numpy as np
import pandas as pd

from footprint_lab.lab._frames.arrays import IntArray
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import build_frame

__all__ = ["Departures", "build", "columns", "departures"]


@dataclass(frozen=True, slots=True)
class Departures:
    """The first time each message left the window, by position."""

    left_iteration: IntArray
    """The iteration it first left at (-1: it never left)."""
    summarized: np.ndarray[tuple[int], np.dtype[np.bool_]]
    """It first left into a summary (False when it never left)."""
    cleared: np.ndarray[tuple[int], np.dtype[np.bool_]]
    """It first left by being replaced in place by a cleared-result placeholder."""


_NONE: frozenset[str] = frozenset()
"""No stage ids."""


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``evictions`` frame of the run in ``ctx``, in record order then window order."""
    return build_frame("evictions", columns(ctx))


def columns(ctx: CaptureContext) -> dict[str, Any]:
    """The ``evictions`` frame's column values (lists and arrays, untyped): what :func:`build`
    types into a frame and a corpus store writes as Arrow."""
    records, stage_ids = ctx.records, ctx.stage_ids
    folded_ids: dict[int, set[str]] = {}
    for span in getattr(ctx.run, "folded", []) or []:
        folded_ids.setdefault(span.iteration, set()).update(span.removed_stage_ids)
    leaving = [j for j, facts in enumerate(ctx.facts) if facts.removed]
    counts = [len(ctx.facts[j].removed) for j in leaving]
    ev_pos = list(chain.from_iterable(ctx.facts[j].removed for j in leaving))
    ev_how: list[str] = []
    for j in leaving:
        rec, removed = records[j], ctx.facts[j].removed
        fold_ids = folded_ids.get(rec.iteration, _NONE)
        # A clearing is an in-place move: everything its record removed was replaced in place.
        cleared = set(rec.cleared_stage_ids) if rec.cleared_stage_ids else _NONE
        if rec.summary_chars is not None:
            ev_how.extend(["summarized"] * len(removed))
        elif not fold_ids and not cleared:  # a plain drop (most visits): no id to look up
            ev_how.extend(["dropped"] * len(removed))
        else:
            ev_how.extend(
                "summarized"
                if stage_ids[p] in fold_ids
                else "cleared"
                if stage_ids[p] in cleared
                else "dropped"
                for p in removed
            )
    n_ev = len(ev_pos)
    pos = np.asarray(ev_pos, dtype=np.int64)
    ev_record = np.repeat(np.asarray(leaving, dtype=np.int64), counts)
    ev_iter = np.repeat(np.asarray([records[j].iteration for j in leaving], dtype=np.int64), counts)
    born = ctx.born[pos] if n_ev else np.zeros(0, dtype=np.int64)

    def per_record(values: list[Any]) -> list[Any]:
        """One value per record that removed something, repeated for each message it removed."""
        return list(chain.from_iterable(map(repeat, values, counts)))

    def per_message(name: Literal["stage_ids", "roles", "tool_names", "authored"]) -> Any:
        """Each removed message's value in the context's list ``name``."""
        return ctx.texts(name).take(pos) if n_ev else []

    return {
        "record": ev_record,
        "iteration": ev_iter,
        "strategy": per_record([records[j].strategy for j in leaving]),
        "position": pos,
        "stage_id": per_message("stage_ids"),
        "role": per_message("roles"),
        "tool_name": per_message("tool_names"),
        "authored": per_message("authored"),
        "chars": ctx.chars[pos] if n_ev else [],
        "born_iteration": born,
        "survival_iterations": ev_iter - born,
        "survival_ms": _survival_ms(ctx, ev_record.tolist(), ev_pos),
        "how": ev_how,
        "forced": per_record([records[j].forced for j in leaving]),
    }


def _survival_ms(ctx: CaptureContext, ev_record: list[int], ev_pos: list[int]) -> list[int | None]:
    """From the ``context.evicted`` events when they match one to one, else from the ledger."""
    stage_ids = ctx.stage_ids
    events = ctx.events_by_type.get("context.evicted", [])
    if len(events) == len(ev_pos) and [getattr(e, "stage_id", None) for e in events] == [
        stage_ids[p] for p in ev_pos
    ]:
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


def departures(ctx: CaptureContext, evictions: pd.DataFrame | Mapping[str, Any]) -> Departures:
    """Condense ``evictions`` (this run's frame, or its :func:`columns`) to the first
    departure of each message."""
    left = np.full(ctx.m_count, -1, dtype=np.int64)
    summarized = np.zeros(ctx.m_count, dtype=np.bool_)
    cleared = np.zeros(ctx.m_count, dtype=np.bool_)
    pos = np.asarray(evictions["position"], dtype=np.int64)
    if len(pos):
        uniq, first = np.unique(pos, return_index=True)
        left[uniq] = np.asarray(evictions["iteration"], dtype=np.int64)[first]
        how = np.asarray(evictions["how"], dtype=object)
        summarized[uniq] = (how == "summarized")[first]
        cleared[uniq] = (how == "cleared")[first]
    return Departures(left, summarized, cleared)
