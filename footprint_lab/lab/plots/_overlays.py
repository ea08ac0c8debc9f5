"""Markers drawn over the window map (and pauses over the window size chart): audit
violations, lost evidence, calls made without their evidence, and pauses.

Layer: lab. Each overlay is a trace built from one frame (``violations``, ``losses``,
``pauses``) and added only when that frame has rows. A marker that points at a record (the
record that broke a rule, the record that removed lost evidence) names it in its hover —
iteration · strategy — with the rule that fired and its refusals by reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._common import (
    record_reasons,
    record_rule,
    refusal_lines,
    scatter_class,
    truncate,
    values,
)
from footprint_lab.lab.theme import LOSS_COLOR, OUTLINE, PAUSE_COLOR, VIOLATION_COLOR

__all__ = [
    "LOSS_COLOR",
    "PAUSE_COLOR",
    "PAUSE_OFFSET",
    "VIOLATION_COLOR",
    "map_overlays",
    "pause_trace",
]

PAUSE_OFFSET = 0.5
"""A pause is drawn between its iteration and the next (x = iteration + 0.5): the run stopped
after that iteration's tool calls, before the next call."""


def _vertical_segments(
    xs: Sequence[float], bottom: float, top: float, texts: Sequence[str]
) -> tuple[list[float | None], list[float | None], list[str | None]]:
    """One vertical segment per x, as a single line trace's data (segments split by None)."""
    out_x: list[float | None] = []
    out_y: list[float | None] = []
    out_t: list[str | None] = []
    for x, text in zip(xs, texts, strict=True):
        out_x += [x, x, None]
        out_y += [top, bottom, None]
        out_t += [text, text, None]
    return out_x, out_y, out_t


def _pause_texts(pauses: pd.DataFrame) -> list[str]:
    """The hover text of each pause: after which iteration, kind, tool, call and outcome."""
    texts: list[str] = []
    for row in pauses.to_dict("records"):
        outcome = row["outcome"]
        after = (
            "still waiting"
            if outcome is None or pd.isna(outcome)
            else f"{outcome} at iteration {row['resumed_iteration']}"
        )
        texts.append(
            f"paused after iteration {row['iteration']} ({row['kind']})<br>"
            f"{row['tool_name']} · call {row['call_id']}<br>{after}"
        )
    return texts


def pause_trace(pauses: pd.DataFrame, bottom: float, top: float) -> go.Scatter:
    """The ``pause`` trace: one vertical segment per pause at x = iteration + 0.5, labelled
    with the tool at its top end, hover = kind, call and outcome.

    Args:
        pauses: ``frames.pauses`` (at least one row).
        bottom: The y of each segment's lower end.
        top: The y of each segment's upper end (where the label sits).

    Returns:
        The trace.
    """
    xs, ys, hover = _vertical_segments(
        [int(v) + PAUSE_OFFSET for v in pauses["iteration"]], bottom, top, _pause_texts(pauses)
    )
    labels: list[str | None] = []
    for name in pauses["tool_name"].astype(str):
        labels += [f"paused: {name}", None, None]
    return go.Scatter(
        x=xs,
        y=ys,
        name="pause",
        mode="lines+markers+text",
        line={"color": PAUSE_COLOR, "dash": "dot", "width": 2},
        marker={"symbol": "line-ew", "size": 10, "color": PAUSE_COLOR},
        text=labels,
        textposition="top center",
        textfont={"color": PAUSE_COLOR, "size": 11},
        cliponaxis=False,
        hovertext=hover,
        hoverinfo="text",
    )


def _records_by(records: pd.DataFrame, key: str) -> dict[Any, dict[str, Any]]:
    """``records`` rows (as mappings) by the value of column ``key`` (the last row wins)."""
    return {
        row[key]: {str(k): v for k, v in row.items()}
        for row in records.to_dict("records")
        if row[key] is not None and not pd.isna(row[key])
    }


def _record_note(row: Mapping[str, Any] | None) -> str:
    """The rule that fired at a record and its refusals, as hover lines (empty: no record)."""
    if row is None:
        return ""
    return "<br>" + "<br>".join([record_rule(row), *refusal_lines(record_reasons(row))])


def _loss_text(row: Mapping[Any, Any], remover: Mapping[str, Any] | None) -> str:
    """The hover text of one lost value: the call that went without it, and the record that
    removed it (iteration · strategy, its rule and refusals)."""
    removed = row["removed_by"]
    by = (
        "never sent"
        if removed is None or pd.isna(removed)
        else f"removed by the record at iteration {removed} · {row['removed_by_strategy']}"
    )
    summary = "<br>a summary still states it" if row["kept_by_summary"] is True else ""
    return (
        f"<b>lost evidence</b> at iteration {row['iteration']}<br>"
        f"call {row['call_id']} ({row['tool_name']}) used {row['value']!s}<br>"
        f"carried by {row['source_stage_id']} (#{row['source_position']}), {by}"
        f"{_record_note(remover)}{summary}"
    )


def _violation_trace(placed: pd.DataFrame, records: pd.DataFrame) -> Any:
    """The ``violation`` trace: a red x at the message a rule names, at the record's
    iteration; the hover names the record, the rule that fired there and its refusals."""
    by_record = _records_by(records, "record")
    text = [
        f"<b>{row['kind']}</b> · record at iteration {row['iteration']} · {row['strategy']}<br>"
        f"{row['detail']}<br>#{row['position']} {row['stage_id']} "
        f"(index {row['message_index']} of the window {row['window']})"
        + _record_note(by_record.get(row["record"]))
        for row in placed.to_dict("records")
    ]
    marker = {"symbol": "x", "color": VIOLATION_COLOR, "line": {"width": 1, "color": OUTLINE}}
    return _markers(placed, "position", "violation", marker, text)


def _markers(rows: pd.DataFrame, y: str, name: str, marker: dict[str, Any], text: list[str]) -> Any:
    """One overlay of markers at ``(iteration, rows[y])``, hover text per marker."""
    return scatter_class(len(rows))(
        x=values(rows["iteration"]),
        y=values(rows[y]),
        name=name,
        mode="markers",
        marker={"size": 11, **marker},
        hovertext=text,
        hoverinfo="text",
    )


def _removers(records: pd.DataFrame) -> dict[tuple[int, str], dict[str, Any]]:
    """The records that removed something, by (iteration, strategy) (the last one wins)."""
    removing = records[records["removed_anything"].fillna(False).astype(bool)]
    return {
        (int(row["iteration"]), str(row["strategy"])): {str(k): v for k, v in row.items()}
        for row in removing.to_dict("records")
    }


def _remover(row: Mapping[Any, Any], removers: Mapping[tuple[int, str], Any]) -> Any:
    """The record that removed a lost value's source (None: never sent, or not found)."""
    removed = row["removed_by"]
    if removed is None or pd.isna(removed):
        return None
    return removers.get((int(removed), str(row["removed_by_strategy"])))


def _loss_traces(lost: pd.DataFrame, records: pd.DataFrame) -> list[Any]:
    """``lost evidence`` (at the tool result that carried a dependent value, at the iteration
    whose call went without it) and ``call without its evidence`` (the assistant message that
    call produced, when it is placed)."""
    rows = lost.to_dict("records")
    removers = _removers(records)
    lost_marker = {
        "symbol": "diamond-open",
        "color": LOSS_COLOR,
        "line": {"width": 2, "color": LOSS_COLOR},
    }
    traces: list[Any] = [
        _markers(
            lost,
            "source_position",
            "lost evidence",
            lost_marker,
            [_loss_text(r, _remover(r, removers)) for r in rows],
        )
    ]
    calls = lost[lost["call_position"].notna()].drop_duplicates(["iteration", "call_position"])
    if len(calls):
        by_call: dict[tuple[Any, Any], list[str]] = {}
        for row in rows:
            by_call.setdefault((row["iteration"], row["call_position"]), []).append(
                str(row["value"])
            )
        text = [
            f"iteration {row['iteration']}: call {row['call_id']} "
            f"({row['tool_name']}) was made without the evidence for "
            + truncate(", ".join(by_call[(row["iteration"], row["call_position"])]))
            for row in calls.to_dict("records")
        ]
        star = {"symbol": "star", "color": LOSS_COLOR}
        traces.append(_markers(calls, "call_position", "call without its evidence", star, text))
    return traces


def map_overlays(fig: go.Figure, frames: Frames, ys: Sequence[int], rs: int) -> None:
    """Add the overlays to a window map, each only when its frame has rows: ``violation``,
    ``lost evidence``, ``call without its evidence`` and ``pause`` (a vertical line after the
    paused iteration, spanning the map's rows).

    Args:
        fig: The window map, changed in place.
        frames: The frames it was built from.
        ys: The map's row positions (first message of each row block).
        rs: The row stride (messages per row block).
    """
    violations = frames.violations
    placed = violations[violations["position"].notna()]
    if len(placed):
        fig.add_trace(_violation_trace(placed, frames.records))
    losses = frames.losses
    lost = losses[losses["source_position"].notna()]
    if len(lost):
        for trace in _loss_traces(lost, frames.records):
            fig.add_trace(trace)
    pauses = frames.pauses
    if len(pauses) and len(ys):
        fig.add_trace(pause_trace(pauses, ys[-1] + rs / 2, ys[0] - rs / 2))
