"""The ``messages`` frame: one row per ledger message, with when it was sent and how it left.

Layer: lab. Sent counts come from every call's window (flattened and counted, vectorised);
how a message left comes from the ``evictions`` frame, condensed by
:func:`~footprint_lab.lab._frames.evictions.departures`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from footprint_lab.lab._frames.arrays import IntArray, windows_flat
from footprint_lab.lab._frames.context import CaptureContext, stage_kind
from footprint_lab.lab._frames.evictions import Departures
from footprint_lab.lab.schema import build_frame
from footprint_lab.messages import THINKING_KINDS, Message

__all__ = ["PREVIEW_CHARS", "build", "columns", "int_or_na"]

PREVIEW_CHARS = 80
"""Characters of content kept in ``messages.preview``."""


def int_or_na(values: IntArray) -> Any:
    """An Int64 array with -1 turned into <NA>."""
    return pd.arrays.IntegerArray(values.astype(np.int64), values < 0)


def _sent(ctx: CaptureContext) -> tuple[IntArray, IntArray, IntArray]:
    """Per position: calls whose window held it, and the iterations of the first and last."""
    m_count = ctx.m_count
    all_pos, call_of = windows_flat(ctx.call_windows)
    call_iters = np.asarray([c.iteration for c in ctx.run.calls], dtype=np.int64)
    all_iter = call_iters[call_of]
    times_sent = np.bincount(all_pos, minlength=m_count)[:m_count].astype(np.int64)
    first_sent = np.full(m_count, -1, dtype=np.int64)
    last_sent = np.full(m_count, -1, dtype=np.int64)
    if len(all_pos):
        uniq, first_idx = np.unique(all_pos, return_index=True)
        first_sent[uniq] = all_iter[first_idx]
        rev_uniq, rev_idx = np.unique(all_pos[::-1], return_index=True)
        last_sent[rev_uniq] = all_iter[::-1][rev_idx]
    return times_sent, first_sent, last_sent


def _thinking_note(message: Message) -> str:
    """`` · thinking N chars`` for a reply that carries thinking (its size counts in the
    message's ``chars``; the window map and the tables name it), else nothing."""
    if not message.parts:
        return ""
    chars = sum(p.chars for p in message.parts if p.kind in THINKING_KINDS)
    if not chars and not any(p.kind in THINKING_KINDS for p in message.parts):
        return ""
    return f" · thinking {chars:,} chars"


def build(ctx: CaptureContext, left: Departures) -> pd.DataFrame:
    """The ``messages`` frame of the run in ``ctx``; ``left`` from its ``evictions`` frame."""
    return build_frame("messages", columns(ctx, left))


def columns(ctx: CaptureContext, left: Departures) -> dict[str, Any]:
    """The ``messages`` frame's column values (lists and arrays, untyped): what :func:`build`
    types into a frame and a corpus store writes as Arrow."""
    msgs = ctx.messages
    stage_ids, tool_names, roles = ctx.stage_ids, ctx.tool_names, ctx.roles
    times_sent, first_sent, last_sent = _sent(ctx)
    fate = np.where(
        left.left_iteration >= 0,
        np.where(left.summarized, "summarized", np.where(left.cleared, "cleared", "dropped")),
        np.where(times_sent > 0, "still-in", "never-sent"),
    )
    return {
        "position": np.arange(ctx.m_count, dtype=np.int64),
        "stage_id": ctx.texts("stage_ids"),
        "stage": [stage_kind(s) for s in stage_ids],
        "commit": np.asarray(ctx.message_commit, dtype=np.int64),
        "iteration": ctx.born,
        "role": ctx.texts("roles"),
        "tool_name": ctx.texts("tool_names"),
        "tool_call_id": [m.tool_call_id for m in msgs],
        "authored": ctx.texts("authored"),
        "chars": ctx.chars,
        "label": [
            # most messages carry no parts: their note is empty (no call to find out)
            f"{s or '?'} {t if t is not None else r}{_thinking_note(m) if m.parts else ''}"
            for s, t, r, m in zip(stage_ids, tool_names, roles, msgs, strict=True)
        ],
        "preview": [m.content[:PREVIEW_CHARS] for m in msgs],
        "first_sent": int_or_na(first_sent),
        "last_sent": int_or_na(last_sent),
        "times_sent": times_sent,
        "left": fate.tolist(),
        "left_iteration": int_or_na(left.left_iteration),
    }
