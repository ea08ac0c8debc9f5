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

from footprint_lab.lab._frames.arrays import IntArray, expand_runs
from footprint_lab.lab._frames.context import CaptureContext
from footprint_lab.lab._frames.evictions import Departures
from footprint_lab.lab.schema import MEMBERSHIP_STATES, build_frame
from footprint_lab.ledger import runs_length

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
    ctx: CaptureContext, wanted: set[int], pins: pd.DataFrame, refusals: pd.DataFrame
) -> dict[int, dict[int, int]]:
    """``{record: {position: state code}}`` for the records in ``wanted``: pinned results
    first, then the messages of each refused turn (the first state named wins)."""
    out: dict[int, dict[int, int]] = {}
    pinned = pins[pins["kind"] == "pinned"]
    for j, p in zip(
        pinned["record"].to_numpy(dtype=np.int64).tolist(),
        pinned["position"].to_numpy(dtype=np.int64, na_value=-1).tolist(),
        strict=True,
    ):
        if p >= 0 and j in wanted:
            out.setdefault(j, {}).setdefault(p, _PINNED)
    facts = ctx.facts
    for j, reason, mi, n in zip(
        refusals["record"].to_numpy(dtype=np.int64).tolist(),
        refusals["reason"].tolist(),
        refusals["message_index"].to_numpy(dtype=np.int64).tolist(),
        refusals["turn_messages"].to_numpy(dtype=np.int64, na_value=-1).tolist(),
        strict=True,
    ):
        code = STATE_CODE.get(f"refused-{reason}")
        if n < 0 or code is None or j not in wanted:
            continue
        given = facts[j].given
        assert given is not None  # the turn's length is known only from the given window
        states = out.setdefault(j, {})
        for p in given[mi : mi + n]:
            states.setdefault(p, code)
    return out


def _in_window(
    ctx: CaptureContext,
    iterations: list[int],
    calls: list[int],
    pins: pd.DataFrame,
    refusals: pd.DataFrame,
) -> tuple[IntArray, IntArray, Codes]:
    """The rows of messages in each selected iteration's window: position, rank, state."""
    starts: list[int] = []
    stops: list[int] = []
    lens: list[int] = []
    for ci in calls:
        runs = ctx.call_windows[ci]
        lens.append(runs_length(runs))
        for a, b in runs:
            starts.append(a)
            stops.append(b)
    in_pos = expand_runs(starts, stops)
    in_rank = np.repeat(np.arange(len(calls), dtype=np.int64), np.asarray(lens, dtype=np.int64))
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
    deciding = {k: last_record[k] for k in iterations if k in last_record}
    overrides = _overrides(ctx, set(deciding.values()), pins, refusals)
    stride = ctx.m_count + 1
    ov_keys: list[int] = []
    ov_codes: list[int] = []
    for r_i, k in enumerate(iterations):
        decider = deciding.get(k)
        if decider is None:
            continue
        for p, code in overrides.get(decider, {}).items():
            ov_keys.append(r_i * stride + p)
            ov_codes.append(code)
    if ov_keys and len(in_pos):
        keys = in_rank * stride + in_pos
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        wanted = np.asarray(ov_keys, dtype=np.int64)
        at = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
        hit = sorted_keys[at] == wanted
        in_code[order[at[hit]]] = np.asarray(ov_codes, dtype=np.int8)[hit]
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
    stage_arr = np.asarray(ctx.stage_ids, dtype=object)
    columns: dict[str, Any] = {
        "iteration": [] if empty else np.asarray(iterations, dtype=np.int64)[rank],
        "call": [] if empty else np.asarray(calls, dtype=np.int64)[rank],
        "position": pos,
        "stage_id": [] if empty else stage_arr[pos],
        "state": code.astype(np.int8),
        "in_window": ~np.isin(code, (_DROPPED, _FOLDED, _CLEARED)),
    }
    return build_frame("membership", columns)
