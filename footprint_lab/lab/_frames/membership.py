"""The ``membership`` frame: the window in long form, one state per (iteration, message).

Layer: lab. The iteration's window is that of its last call. A message in it takes the state
its message kind gives (notice, frame, placeholder, in-window) unless the last record of the
iteration pinned it or refused its turn — read from the ``pins`` and ``refusals`` frames,
passed in. A message out of it is dropped, folded or cleared, as the ``evictions`` frame says.
Vectorised: the full form is quadratic in the run's length.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from footprint_lab.lab._frames.arrays import IntArray, expand_runs, windows_flat
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab._frames.evictions import Departures
from footprint_lab.lab.schema import MEMBERSHIP_STATES, build_frame

__all__ = ["STATE_CODE", "build", "choose_mode", "last_calls"]

STATE_CODE: dict[str, int] = {state: i for i, state in enumerate(MEMBERSHIP_STATES)}
"""Each state's code in the ``state`` categorical."""
_IN_WINDOW = STATE_CODE["in-window"]
_PINNED = STATE_CODE["pinned"]
_NOTICE = STATE_CODE["notice"]
_FRAME = STATE_CODE["frame"]
_PLACEHOLDER = STATE_CODE["placeholder"]
_DROPPED = STATE_CODE["dropped"]
_FOLDED = STATE_CODE["folded"]
_CLEARED = STATE_CODE["cleared"]

Codes = np.ndarray[tuple[int], np.dtype[np.int8]]


def last_calls(ctx: CaptureContext) -> tuple[list[int], list[int]]:
    """The iterations that made a call, in order, and the last call of each."""
    last_call: dict[int, int] = {}
    for ci, call in enumerate(ctx.run.calls):
        last_call[call.iteration] = ci
    iterations = sorted(last_call)
    return iterations, [last_call[k] for k in iterations]


def _existing(ctx: CaptureContext, calls: list[int]) -> list[int]:
    n_commits = len(ctx.view)
    run_calls = ctx.run.calls
    return [
        ctx.view.history_end[run_calls[ci].sent_commit]
        if 0 <= run_calls[ci].sent_commit < n_commits
        else 0
        for ci in calls
    ]


def choose_mode(
    ctx: CaptureContext, mode: Literal["auto", "full", "window"], max_full_rows: int
) -> Literal["full", "window"]:
    """``mode``, with 'auto' resolved: 'full' when it has at most ``max_full_rows`` rows."""
    if mode != "auto":
        return mode
    _, calls = last_calls(ctx)
    return "full" if sum(_existing(ctx, calls)) <= max_full_rows else "window"


def _overrides(
    ctx: CaptureContext, rank_of_record: IntArray, pins: pd.DataFrame, refusals: pd.DataFrame
) -> tuple[IntArray, Codes]:
    """The states the deciding records name, as sorted keys (``rank * (m_count + 1) +
    position``, ``rank`` the row rank of the iteration a record decides, from
    ``rank_of_record``: -1 for a record that decides none) and their state codes: pinned
    results first, then the messages of each refused turn; the first state named for a key
    wins. Vectorised: a long run has about seven refused turns per record."""
    stride = ctx.m_count + 1
    pinned = pins[pins["kind"] == "pinned"]
    pin_rank = rank_of_record[pinned["record"].to_numpy(dtype=np.int64)]
    pin_pos = pinned["position"].to_numpy(dtype=np.int64, na_value=-1)
    pin_keep = (pin_pos >= 0) & (pin_rank >= 0)
    pin_keys = pin_rank[pin_keep] * stride + pin_pos[pin_keep]

    # each reason's state ("refused-<reason>"), -1 for a reason with no state of its own
    reason_at, reasons = pd.factorize(refusals["reason"])
    reason_code = np.asarray(
        [STATE_CODE.get(f"refused-{reason}", -1) for reason in reasons] + [-1], dtype=np.int64
    )
    code = reason_code[reason_at]  # a missing reason (factorized to -1) reads the last: -1
    record = refusals["record"].to_numpy(dtype=np.int64)
    rank = rank_of_record[record]
    turn_len = refusals["turn_messages"].to_numpy(dtype=np.int64, na_value=-1)
    keep = (turn_len >= 0) & (code >= 0) & (rank >= 0)
    record, rank, code, turn_len = record[keep], rank[keep], code[keep], turn_len[keep]
    # the turn's messages are given[message_index : message_index + turn_len] of its record's
    # given window: the given windows of the records named, end to end, then slices of that
    given: list[int] = []
    offset: dict[int, int] = {}
    for j in dict.fromkeys(record.tolist()):
        window = ctx.facts[j].given
        assert window is not None  # the turn's length is known only from the given window
        offset[j] = len(given)
        given.extend(window)
    starts = np.asarray([offset[j] for j in record.tolist()], dtype=np.int64)
    starts += refusals["message_index"].to_numpy(dtype=np.int64)[keep]
    at = expand_runs(starts.tolist(), (starts + turn_len).tolist())
    ref_keys = np.repeat(rank, turn_len) * stride + np.asarray(given, dtype=np.int64)[at]

    keys = np.concatenate([pin_keys, ref_keys])
    codes = np.concatenate(
        [np.full(len(pin_keys), _PINNED, dtype=np.int8), np.repeat(code, turn_len)]
    ).astype(np.int8)
    unique, first = np.unique(keys, return_index=True)  # the first occurrence of each key
    return unique, codes[first]


def _in_window(
    ctx: CaptureContext,
    iterations: list[int],
    calls: list[int],
    pins: pd.DataFrame,
    refusals: pd.DataFrame,
) -> tuple[IntArray, IntArray, Codes]:
    """The rows of messages in each selected iteration's window: position, rank, state."""
    in_pos, in_rank = windows_flat([ctx.call_windows[ci] for ci in calls])
    authored = np.asarray(ctx.authored, dtype=object)
    base = np.full(ctx.m_count, _IN_WINDOW, dtype=np.int8)
    base[authored == "drop-notice"] = _NOTICE
    base[authored == "compaction-frame"] = _FRAME
    base[authored == "cleared-result"] = _PLACEHOLDER
    in_code: Codes = base[in_pos] if len(in_pos) else np.zeros(0, dtype=np.int8)

    # pins and refusals of the last record of each selected iteration
    last_record: dict[int, int] = {}
    for j, rec in enumerate(ctx.records):
        last_record[rec.iteration] = j
    rank_of_record = np.full(len(ctx.records), -1, dtype=np.int64)
    for r_i, k in enumerate(iterations):
        decider = last_record.get(k)
        if decider is not None:
            rank_of_record[decider] = r_i
    ov_keys, ov_codes = _overrides(ctx, rank_of_record, pins, refusals)
    if len(ov_keys) and len(in_pos):
        keys = in_rank * (ctx.m_count + 1) + in_pos
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        at = np.minimum(np.searchsorted(sorted_keys, ov_keys), len(sorted_keys) - 1)
        hit = sorted_keys[at] == ov_keys
        in_code[order[at[hit]]] = ov_codes[hit]
    return in_pos, in_rank, in_code


def build(
    ctx: CaptureContext,
    mode: Literal["full", "window"],
    *,
    pins: pd.DataFrame,
    refusals: pd.DataFrame,
    evictions: pd.DataFrame,
    left: Departures,
) -> pd.DataFrame:
    """The ``membership`` frame in ``mode`` (see ``Frames.membership``).

    Args:
        ctx: The run's capture context.
        mode: 'full' (every existing message at every iteration) or 'window'.
        pins: The run's ``pins`` frame.
        refusals: The run's ``refusals`` frame.
        evictions: The run's ``evictions`` frame.
        left: Its :func:`~footprint_lab.lab._frames.evictions.departures`.
    """
    iterations, calls = last_calls(ctx)
    in_pos, in_rank, in_code = _in_window(ctx, iterations, calls, pins, refusals)
    out_code: Codes = np.where(
        left.summarized, _FOLDED, np.where(left.cleared, _CLEARED, _DROPPED)
    ).astype(np.int8)
    pos: IntArray
    rank: IntArray
    code: Codes
    if mode == "full":
        ex = np.asarray(_existing(ctx, calls), dtype=np.int64)
        offsets = np.cumsum(ex) - ex
        pos = expand_runs(np.zeros(len(ex), dtype=np.int64).tolist(), ex.tolist())
        rank = np.repeat(np.arange(len(calls), dtype=np.int64), ex)
        code = out_code[pos] if len(pos) else np.zeros(0, dtype=np.int8)
        if len(in_pos):
            code[offsets[in_rank] + in_pos] = in_code
    else:
        rank_of = np.full(max(iterations, default=-1) + 2, -1, dtype=np.int64)
        rank_of[np.asarray(iterations, dtype=np.int64)] = np.arange(len(iterations))
        ev_iter = evictions["iteration"].to_numpy(dtype=np.int64)
        ev_rank = np.where(
            (ev_iter >= 0) & (ev_iter < len(rank_of)),
            rank_of[np.clip(ev_iter, 0, len(rank_of) - 1)],
            -1,
        )
        keep = ev_rank >= 0
        e_pos = evictions["position"].to_numpy(dtype=np.int64)[keep]
        e_rank = ev_rank[keep]
        pos = np.concatenate([in_pos, e_pos])
        rank = np.concatenate([in_rank, e_rank])
        code = np.concatenate([in_code, out_code[e_pos]])
        order = np.lexsort((pos, rank))
        pos, rank, code = pos[order], rank[order], code[order]
    return _frame(ctx, iterations, calls, pos, rank, code)


def _frame(
    ctx: CaptureContext,
    iterations: list[int],
    calls: list[int],
    pos: IntArray,
    rank: IntArray,
    code: Codes,
) -> pd.DataFrame:
    empty = not len(rank)
    columns: dict[str, Any] = {
        "iteration": [] if empty else np.asarray(iterations, dtype=np.int64)[rank],
        "call": [] if empty else np.asarray(calls, dtype=np.int64)[rank],
        "position": pos,
        # each message's stage id converted once, then taken per row (a long run's window
        # form has 150,000 rows of 20,000 messages)
        "stage_id": [] if empty else ctx.texts("stage_ids").take(pos),
        "state": code.astype(np.int8),
        "in_window": ~np.isin(code, (_DROPPED, _FOLDED, _CLEARED)),
    }
    return build_frame("membership", columns)
