"""The ``violations`` frame: one row per rule an audited policy broke.

Layer: lab. ``WindowRecord.violations`` is filled only by :func:`footprint_lab.audit`; each
violation's ``message_index`` counts in the window the policy was given or in the one it
produced (:func:`violation_window`), and resolves to a ledger position through that window.
Violations are recorded, never repaired.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab.schema import SCHEMAS, build_frame

__all__ = ["build", "violation_window"]

_SENT_SIDE_KINDS = frozenset({"split-tool-pair", "window-opens-on-non-user"})


def violation_window(kind: str, detail: str = "") -> str:
    """Which window a violation's ``message_index`` counts in: 'given' (the window the policy
    was given) or 'sent' (the window it produced).

    :func:`footprint_lab.auditing.find_violations` names a kept half of a split tool pair, the
    non-user head and an inserted message by their index in the output; every other kind (a
    request or system message that left, a non-contiguous removal, a message rewritten in
    place, and any kind of yours) by its index in the input.

    Args:
        kind: The violation's kind.
        detail: Its detail sentence (it tells an inserted message from a rewrite).

    Returns:
        'given' or 'sent'.
    """
    if kind in _SENT_SIDE_KINDS:
        return "sent"
    if kind == "rewritten-without-frame" and detail.startswith("an inserted message"):
        return "sent"
    return "given"


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``violations`` frame of the run in ``ctx``."""
    cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["violations"]}
    for j, (rec, facts) in enumerate(zip(ctx.records, ctx.facts, strict=True)):
        for v in rec.violations or ():
            side = violation_window(v.kind, v.detail)
            window = facts.given if side == "given" else facts.after
            pos: int | None = None
            index = v.message_index
            if window is not None and index is not None and 0 <= index < len(window):
                pos = window[index]
            cols["record"].append(j)
            cols["iteration"].append(rec.iteration)
            cols["strategy"].append(rec.strategy)
            cols["kind"].append(v.kind)
            cols["message_index"].append(v.message_index)
            cols["window"].append(side)
            cols["position"].append(pos)
            cols["stage_id"].append(None if pos is None else ctx.stage_ids[pos])
            cols["detail"].append(v.detail)
    return build_frame("violations", cols)
