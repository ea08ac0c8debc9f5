"""The ``calls`` frame: one row per LLM call, with its usage as the provider reported it.

Layer: lab. Everything here is on ``run.calls``; the ledger adds how many messages existed when
the call's window was committed, and the cache lens: ``prefix_chars``, the longest common
prefix of this request and the previous one (:mod:`footprint_lab.evidence.prefix`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from footprint_lab.agent.origin import imported_source
from footprint_lab.evidence.prefix import prefixes_of
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import build_frame

__all__ = ["build", "columns"]


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``calls`` frame of the run in ``ctx``."""
    return build_frame("calls", columns(ctx))


def columns(ctx: CaptureContext) -> dict[str, Any]:
    """The ``calls`` frame's column values (lists and arrays, untyped): what :func:`build`
    types into a frame and a corpus store writes as Arrow."""
    calls = ctx.run.calls
    n_commits = len(ctx.view)
    history_end = ctx.view.history_end
    usages = [call.usage for call in calls]
    # An imported call had its reply; a source that records no usage does not make it fail.
    imported = imported_source(ctx.run.origin) is not None
    positions = ctx.stage_positions
    chars = ctx.chars.tolist()  # Python ints: summed below without numpy scalars
    request, prefix = prefixes_of(ctx.call_windows, ctx.messages, chars, len(ctx.run.system or ""))

    def usage(name: str) -> list[Any]:
        return [None if u is None else getattr(u, name) for u in usages]

    return {
        "call": list(range(len(calls))),
        "iteration": [c.iteration for c in calls],
        "stage_id": [c.stage_id for c in calls],
        "sent_commit": [c.sent_commit for c in calls],
        "messages": [c.messages for c in calls],
        "chars": [c.chars for c in calls],
        "request_chars": request,
        "prefix_chars": prefix,
        "prefix_share": [p / r if r else 0.0 for p, r in zip(prefix, request, strict=True)],
        "existing": [
            history_end[c.sent_commit] if 0 <= c.sent_commit < n_commits else 0 for c in calls
        ],
        "input_tokens": usage("input_tokens"),
        "output_tokens": usage("output_tokens"),
        "cache_read_tokens": usage("cache_read_tokens"),
        "cache_write_tokens": usage("cache_write_tokens"),
        "reported": [u is not None and u.reported for u in usages],
        "tokens_from": [c.tokens_from for c in calls],
        "scaled_from": [c.scaled_from for c in calls],
        "failed": [u is None and not imported for u in usages],
        "reply_chars": [
            sum([chars[p] for p in positions.get(c.stage_id or "", ())]) for c in calls
        ],
        "retry": [c.retry for c in calls],
        "finish_reason": [c.finish_reason for c in calls],
        "truncated": [c.truncated for c in calls],
    }
