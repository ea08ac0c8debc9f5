"""Column names and dtypes of every frame :func:`footprint_lab.lab.capture` produces.

Layer: lab. One place states each frame's columns, so an empty frame (a run with no strategy,
no calls, or a fault before the first call) has exactly the columns and dtypes of a full one,
and ``capture_many`` can stack runs without dtype drift.

Dtypes are pandas' nullable ones: ``Int64`` (integers, ``<NA>`` where a fact does not apply),
``string``, ``boolean``, ``float64``; membership ``state`` is a categorical over the closed set
:data:`MEMBERSHIP_STATES`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from footprint_lab.window.records import REFUSAL_REASONS

MEMBERSHIP_STATES: tuple[str, ...] = (
    "in-window",
    "pinned",
    *(f"refused-{reason}" for reason in REFUSAL_REASONS),
    "notice",
    "frame",
    "dropped",
    "folded",
)
"""Every state a message can be in at one iteration (see ``Frames.membership``)."""

IN_WINDOW_STATES: frozenset[str] = frozenset(
    s for s in MEMBERSHIP_STATES if s not in ("dropped", "folded")
)
"""States of a message that was in the window sent."""

STATE_DTYPE = pd.CategoricalDtype(list(MEMBERSHIP_STATES), ordered=False)
"""The dtype of ``membership.state``: the same categories for every run."""

PIN_KINDS: tuple[str, ...] = ("pinned", "yielded", "stand-down")
"""Values of ``pins.kind``."""

MESSAGE_FATES: tuple[str, ...] = ("dropped", "summarized", "still-in", "never-sent")
"""Values of ``messages.left``."""

EVICTION_HOWS: tuple[str, ...] = ("dropped", "summarized")
"""Values of ``evictions.how``."""

PAUSE_KINDS: tuple[str, ...] = ("ask-human", "check-in")
"""Values of ``pauses.kind``."""

PAUSE_OUTCOMES: tuple[str, ...] = ("answered", "approved", "denied")
"""Values of ``pauses.outcome`` (<NA> while the run still waits)."""

VIOLATION_WINDOWS: tuple[str, ...] = ("given", "sent")
"""Values of ``violations.window``: which window ``message_index`` counts in — the one the
policy was given, or the one it produced (and the call sent)."""

_I = "Int64"
_S = "string"
_B = "boolean"
_F = "float64"

SCHEMAS: dict[str, dict[str, Any]] = {
    "records": {
        "record": _I,
        "iteration": _I,
        "strategy": _S,
        "commit": _I,
        "forced": _B,
        "removed_anything": _B,
        "removed_message_count": _I,
        "removed_stage_count": _I,
        "removed_stage_ids": _S,
        "window_chars_before": _I,
        "window_chars_after": _I,
        "chars_removed": _I,
        "messages_before": _I,
        "messages_after": _I,
        "refusal_count": _I,
        "refusal_reasons": _S,
        "dropped_observations": _S,
        "pins": _I,
        "pinned_tools": _S,
        "yielded": _I,
        "pin_limit": _I,
        "stand_down": _B,
        "keep_recent_turns": _I,
        "turns_before": _I,
        "turns_after": _I,
        "measured_tokens": _I,
        "threshold_tokens": _I,
        "over_budget": _B,
        "summary_chars": _I,
        "summarizer_tokens": _I,
        "summarizer_skipped": _B,
        "threshold_fraction": _F,
        "reserve_tokens": _I,
        "context_window": _I,
        "notice": _S,
        "span_key": _S,
        "error": _S,
        "violation_count": _I,
        "violation_kinds": _S,
    },
    "refusals": {
        "record": _I,
        "iteration": _I,
        "strategy": _S,
        "reason": _S,
        "turn_index": _I,
        "message_index": _I,
        "turn_messages": _I,
        "position": _I,
        "stage_id": _S,
    },
    "pins": {
        "record": _I,
        "iteration": _I,
        "strategy": _S,
        "kind": _S,
        "tool_name": _S,
        "turn_index": _I,
        "chars": _I,
        "count": _I,
        "position": _I,
        "stage_id": _S,
    },
    "evictions": {
        "record": _I,
        "iteration": _I,
        "strategy": _S,
        "position": _I,
        "stage_id": _S,
        "role": _S,
        "tool_name": _S,
        "authored": _S,
        "chars": _I,
        "born_iteration": _I,
        "survival_iterations": _I,
        "survival_ms": _I,
        "how": _S,
        "forced": _B,
    },
    "commits": {
        "index": _I,
        "stage_id": _S,
        "stage": _S,
        "key": _S,
        "at_ms": _I,
        "iteration": _I,
    },
    "calls": {
        "call": _I,
        "iteration": _I,
        "stage_id": _S,
        "sent_commit": _I,
        "messages": _I,
        "chars": _I,
        "existing": _I,
        "input_tokens": _I,
        "output_tokens": _I,
        "cache_read_tokens": _I,
        "cache_write_tokens": _I,
        "reported": _B,
        "failed": _B,
        "retry": _B,
        "finish_reason": _S,
        "truncated": _B,
    },
    "messages": {
        "position": _I,
        "stage_id": _S,
        "stage": _S,
        "commit": _I,
        "iteration": _I,
        "role": _S,
        "tool_name": _S,
        "tool_call_id": _S,
        "authored": _S,
        "chars": _I,
        "label": _S,
        "preview": _S,
        "first_sent": _I,
        "last_sent": _I,
        "times_sent": _I,
        "left": _S,
        "left_iteration": _I,
    },
    "membership": {
        "iteration": _I,
        "call": _I,
        "position": _I,
        "stage_id": _S,
        "state": STATE_DTYPE,
        "in_window": _B,
    },
    "violations": {
        "record": _I,
        "iteration": _I,
        "strategy": _S,
        "kind": _S,
        "message_index": _I,
        "window": _S,
        "position": _I,
        "stage_id": _S,
        "detail": _S,
    },
    "pauses": {
        "iteration": _I,
        "call_id": _S,
        "tool_name": _S,
        "kind": _S,
        "outcome": _S,
        "resumed_iteration": _I,
        "position": _I,
        "stage_id": _S,
    },
    "losses": {
        "iteration": _I,
        "call_id": _S,
        "tool_name": _S,
        "value": _S,
        "source_stage_id": _S,
        "source_position": _I,
        "call_position": _I,
        "removed_by": _I,
        "removed_by_strategy": _S,
        "kept_by_summary": _B,
    },
}
"""Every frame's columns, in order, with their dtypes."""

FRAME_NAMES: tuple[str, ...] = tuple(SCHEMAS)
"""The frames of a capture, in the order they are documented."""


def column(values: Any, dtype: Any) -> Any:
    """One column as a pandas extension array (or numpy array) of ``dtype``."""
    if isinstance(dtype, pd.CategoricalDtype):
        if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
            return pd.Categorical.from_codes(values.astype(np.int8, copy=False), dtype=dtype)
        return pd.Categorical(list(values), dtype=dtype)
    if dtype == _F:
        return np.asarray(
            [np.nan if v is None else v for v in values]
            if not isinstance(values, np.ndarray)
            else values,
            dtype=np.float64,
        )
    return pd.array(values, dtype=dtype)


def build_frame(name: str, columns: Mapping[str, Any]) -> pd.DataFrame:
    """A frame of schema ``name`` from column values (lists or arrays, all the same length)."""
    schema = SCHEMAS[name]
    missing = set(schema) - set(columns)
    extra = set(columns) - set(schema)
    if missing or extra:  # pragma: no cover - a programming error in this package
        raise ValueError(f"{name}: missing columns {sorted(missing)}, unexpected {sorted(extra)}")
    data = {col: column(columns[col], dtype) for col, dtype in schema.items()}
    return pd.DataFrame(data, columns=list(schema))


def empty_frame(name: str) -> pd.DataFrame:
    """An empty frame of schema ``name`` with the right dtypes."""
    return build_frame(name, {col: [] for col in SCHEMAS[name]})


def with_run_column(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    """``frame`` with a ``run`` column (string) first."""
    out = frame.copy()
    out.insert(0, "run", column([label] * len(out), _S))
    return out


def join(values: Iterable[Any], sep: str = ", ") -> str:
    """Values joined as text (an empty list joins to '')."""
    return sep.join(str(v) for v in values)
