"""Pure figure builders: frames in, ``plotly.graph_objects.Figure`` out.

Layer: lab. Every function here takes :class:`~footprint_lab.lab.Frames` (or the frame it needs)
and returns a new figure; nothing reads a run, a file or a clock, so the same frames always give
the same figure — which is what the HTML report and the widgets build on.

Big runs stay responsive:

* a figure whose scatter traces hold more than :data:`WEBGL_THRESHOLD` points in total uses
  WebGL (``go.Scattergl``) for all of them, lines without per-point markers;
* the window map is a heatmap of at most :data:`MAP_MAX_ROWS` x :data:`MAP_MAX_COLS` cells:
  beyond that, messages and iterations are grouped into equal blocks and each block shows the
  most notable state of any cell in it (pinned > refused > notice > frame > in-window >
  folded > dropped); ``fig.layout.meta`` records the block sizes;
* the refusals chart groups iterations into at most :data:`BAR_MAX_BINS` bins.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.schema import MEMBERSHIP_STATES, STATE_DTYPE
from footprint_lab.window.records import REFUSAL_REASONS

__all__ = [
    "BAR_MAX_BINS",
    "COUNTERFACTUAL_SUFFIX",
    "MAP_MAX_COLS",
    "MAP_MAX_ROWS",
    "REASON_COLORS",
    "STATE_COLORS",
    "WEBGL_THRESHOLD",
    "compare",
    "evidence_tradeoff",
    "is_counterfactual",
    "pins_timeline",
    "refusals_by_reason",
    "window_map",
    "window_size",
]

WEBGL_THRESHOLD = 5000
"""Above this many scatter points in one figure, traces are ``go.Scattergl``."""

MAP_MAX_ROWS = 300
"""The window map shows at most this many message rows (larger runs are grouped in blocks)."""

MAP_MAX_COLS = 600
"""The window map shows at most this many iteration columns (larger runs are grouped)."""

MAP_HOVER_MAX_CELLS = 20_000
"""Up to this many cells, every window-map cell carries its own hover text."""

MAP_TICK_LABEL_MAX_ROWS = 60
"""Up to this many rows, the window map labels each row with its stage id and role/tool."""

BAR_MAX_BINS = 600
"""The refusals chart shows at most this many bars per reason (iterations are binned)."""

STATE_COLORS: dict[str, str] = {
    "in-window": "#4C78A8",
    "pinned": "#F58518",
    "refused-current-request": "#E45756",
    "refused-system-envelope": "#FF9DA6",
    "refused-paused-tool": "#9D755D",
    "refused-pending-check-in": "#B07AA1",
    "refused-unresolved-tool-call": "#D67195",
    "refused-last-tool-result": "#FFBF79",
    "refused-inside-keep-window": "#72B7B2",
    "refused-only-existing-summary": "#8CD17D",
    "refused-summarizer-failed": "#79706E",
    "refused-replacement-not-smaller": "#B6992D",
    "notice": "#EECA3B",
    "frame": "#54A24B",
    "dropped": "#D9D9D9",
    "folded": "#B5D3B0",
}
"""One fixed colour per membership state, the same in every figure."""

REASON_COLORS: dict[str, str] = {
    reason: STATE_COLORS[f"refused-{reason}"] for reason in REFUSAL_REASONS
}
"""One fixed colour per refusal reason."""

_PRIORITY: tuple[str, ...] = (
    "dropped",
    "folded",
    "in-window",
    "frame",
    "notice",
    *(f"refused-{r}" for r in reversed(REFUSAL_REASONS)),
    "pinned",
)
"""States from least to most notable (a block of the window map shows its most notable)."""
_PRIO = {state: i for i, state in enumerate(_PRIORITY)}
_PRIO_BY_CODE = np.asarray([_PRIO[s] for s in MEMBERSHIP_STATES], dtype=np.int16)

_FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12}


def _layout(fig: go.Figure, title: str, **extra: Any) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.01, "xanchor": "left"},
        template="plotly_white",
        font=_FONT,
        margin={"l": 60, "r": 30, "t": 60, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "right", "x": 1},
        **extra,
    )
    return fig


def _empty_note(fig: go.Figure, text: str) -> None:
    fig.add_annotation(
        text=text,
        showarrow=False,
        xref="paper",
        yref="paper",
        x=0.5,
        y=0.5,
        font={"size": 14, "color": "#52606d"},
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(height=200)


def _scatter_class(points: int) -> Any:
    return go.Scattergl if points > WEBGL_THRESHOLD else go.Scatter


def _values(series: pd.Series) -> list[Any]:
    """A column as plain Python values, <NA> as None (what plotly serialises as null)."""
    return [None if pd.isna(v) else v for v in series.tolist()]


def _single(frames: Frames, what: str) -> Frames:
    runs = frames.calls["run"].unique().tolist() if "run" in frames.calls.columns else []
    if len(runs) > 1:
        raise ValueError(
            f"{what} shows one run; these frames stack {len(runs)} runs ({runs[:3]}...). "
            "Use plots.compare(...) or select one run first."
        )
    return frames


COUNTERFACTUAL_SUFFIX = " (counterfactual replay)"
"""Appended to the title of every figure of a counterfactual run (``replay``): its replies are
the original run's, not what a model would have said to that window."""


def is_counterfactual(frames: Frames) -> bool:
    """Whether the frames show a counterfactual replay (for stacked frames: every run is)."""
    if "counterfactual" in frames.info:
        return bool(frames.info["counterfactual"])
    by_run = frames.info.get("by_run") or {}
    return bool(by_run) and all(bool(i.get("counterfactual")) for i in by_run.values())


def _title(frames: Frames, what: str) -> str:
    runs = ", ".join(str(r) for r in frames.info.get("runs", []))
    label = frames.info.get("label") or frames.info.get("strategy") or runs or "no strategy"
    suffix = COUNTERFACTUAL_SUFFIX if is_counterfactual(frames) else ""
    return f"{what} — {label}{suffix}"


def _truncate(text: str, items: int = 4) -> str:
    parts = [p for p in text.split(", ") if p]
    if len(parts) <= items:
        return ", ".join(parts) or "–"
    return ", ".join(parts[:items]) + f", … (+{len(parts) - items} more)"


def removal_summary(row: Mapping[str, Any]) -> str:
    """The hover text of one record: removed count, stage ids (truncated), refusals."""
    reasons = row.get("refusal_reasons") or ""
    return (
        f"iteration {row['iteration']} · {row['strategy']}<br>"
        f"removed {row['removed_message_count']} message(s): "
        f"{_truncate(str(row.get('removed_stage_ids') or ''))}<br>"
        f"chars {row['window_chars_before']} → {row['window_chars_after']}<br>"
        f"refusals: {_truncate(str(reasons), 6)}"
    )


# -- window size ------------------------------------------------------------------------------


def window_size(frames: Frames) -> go.Figure:
    """Characters sent per call (x = iteration), reported input tokens on a secondary axis, the
    threshold (when records carry ``threshold_tokens``) and a marker at every removal.

    Traces, by name: ``chars sent`` (``calls.iteration`` / ``calls.chars``), ``input tokens``
    (``calls.input_tokens``, only when some call reported usage), ``threshold`` (tokens),
    ``removal`` (``records`` rows that removed something: ``iteration`` /
    ``window_chars_after``, hover = the record's summary).
    """
    frames = _single(frames, "window_size")
    calls = frames.calls
    records = frames.records
    removals = records[records["removed_anything"].fillna(False).astype(bool)]
    has_tokens = bool(calls["reported"].fillna(False).any())
    thresholds = records[records["threshold_tokens"].notna()]
    points = len(calls) * (2 if has_tokens else 1) + len(removals) + len(thresholds)
    scatter = _scatter_class(points)
    big = points > WEBGL_THRESHOLD
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        scatter(
            x=_values(calls["iteration"]),
            y=_values(calls["chars"]),
            name="chars sent",
            mode="lines" if big else "lines+markers",
            line={"color": STATE_COLORS["in-window"], "width": 2},
            hovertemplate="iteration %{x}<br>%{y} chars sent<extra></extra>",
        ),
        secondary_y=False,
    )
    if has_tokens:
        fig.add_trace(
            scatter(
                x=_values(calls["iteration"]),
                y=_values(calls["input_tokens"]),
                name="input tokens (reported)",
                mode="lines" if big else "lines+markers",
                line={"color": "#888888", "width": 1.5, "dash": "dot"},
                hovertemplate="iteration %{x}<br>%{y} input tokens reported<extra></extra>",
            ),
            secondary_y=True,
        )
    if len(thresholds):
        xs = _values(thresholds["iteration"])
        ys = _values(thresholds["threshold_tokens"])
        if len(calls):
            first = int(calls["iteration"].min())
            last = int(calls["iteration"].max())
            if first < xs[0]:
                xs, ys = [first, *xs], [ys[0], *ys]
            if last > xs[-1]:
                xs, ys = [*xs, last], [*ys, ys[-1]]
        fig.add_trace(
            scatter(
                x=xs,
                y=ys,
                name="threshold (tokens)",
                mode="lines",
                line={"color": STATE_COLORS["refused-current-request"], "dash": "dash"},
                line_shape="hv",
                hovertemplate="threshold %{y} tokens<extra></extra>",
            ),
            secondary_y=True,
        )
    if len(removals):
        text = [
            removal_summary({str(k): v for k, v in row.items()})
            for row in removals.to_dict("records")
        ]
        fig.add_trace(
            scatter(
                x=_values(removals["iteration"]),
                y=_values(removals["window_chars_after"]),
                name="removal",
                mode="markers",
                marker={
                    "symbol": "triangle-down",
                    "size": 9 if not big else 5,
                    "color": STATE_COLORS["pinned"],
                },
                hovertext=text,
                hoverinfo="text",
            ),
            secondary_y=False,
        )
    pauses = frames.pauses
    if len(pauses):
        top = float(calls["chars"].max()) if len(calls) else 1.0
        fig.add_trace(_pause_trace(pauses, 0.0, top), secondary_y=False)
    _layout(fig, _title(frames, "Window size"), hovermode="closest")
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="characters sent", rangemode="tozero", secondary_y=False)
    fig.update_yaxes(
        title_text="input tokens (reported)",
        rangemode="tozero",
        showgrid=False,
        secondary_y=True,
    )
    return fig


# -- window map -------------------------------------------------------------------------------


def _stepped_colorscale(colors: Sequence[str]) -> list[list[Any]]:
    n = len(colors)
    scale: list[list[Any]] = []
    for i, color in enumerate(colors):
        scale.append([i / n, color])
        scale.append([(i + 1) / n, color])
    return scale


def window_map(
    frames: Frames, *, max_rows: int = MAP_MAX_ROWS, max_cols: int = MAP_MAX_COLS
) -> go.Figure:
    """A heatmap of every message's life: x = iteration, y = ledger message in commit order
    (labelled by stage id and role/tool), colour = its membership state at that iteration.

    ``z`` holds indices into the states present (the colour bar names them, in the order of
    :data:`~footprint_lab.lab.schema.MEMBERSHIP_STATES`); ``fig.layout.meta`` holds
    ``states``, ``row_stride`` and ``col_stride`` (1 unless the run was grouped in blocks, see
    the module docstring). Empty cells: the message did not exist yet.
    """
    frames = _single(frames, "window_map")
    membership = frames.membership
    calls = frames.calls.drop_duplicates("iteration", keep="last").sort_values("iteration")
    iterations = calls["iteration"].to_numpy(dtype=np.int64)
    existing = calls["existing"].to_numpy(dtype=np.int64)
    n_rows = int(existing.max()) if len(existing) else 0
    n_cols = len(iterations)
    rs = max(1, math.ceil(n_rows / max(1, max_rows)))
    cs = max(1, math.ceil(n_cols / max(1, max_cols)))
    g_rows = math.ceil(n_rows / rs) if n_rows else 0
    g_cols = math.ceil(n_cols / cs) if n_cols else 0
    grid = np.full((g_rows, g_cols), -1, dtype=np.int16)

    messages = frames.messages
    if g_rows and g_cols:
        # background: a message that exists and is not shown in the window has left
        left = messages["left"].astype("string").fillna("").to_numpy(dtype=object)[:n_rows]
        out_prio = np.where(left == "summarized", _PRIO["folded"], _PRIO["dropped"])
        row_starts = np.arange(g_rows, dtype=np.int64) * rs
        col_block_exist = np.maximum.reduceat(existing, np.arange(0, n_cols, cs))
        exists = row_starts[:, None] < col_block_exist[None, :]
        grid = np.where(exists, out_prio[row_starts][:, None], -1).astype(np.int16)
        # overlay the membership rows
        if len(membership):
            m_iter = membership["iteration"].to_numpy(dtype=np.int64)
            m_pos = membership["position"].to_numpy(dtype=np.int64)
            codes = membership["state"].astype(STATE_DTYPE).cat.codes.to_numpy()
            m_prio = _PRIO_BY_CODE[codes]
            col = np.searchsorted(iterations, m_iter)
            ok = (col < n_cols) & (m_pos < n_rows)
            col = np.minimum(col, n_cols - 1)
            ok &= iterations[col] == m_iter
            np.maximum.at(grid, (m_pos[ok] // rs, col[ok] // cs), m_prio[ok])

    present = sorted(
        {int(v) for v in np.unique(grid) if v >= 0},
        key=lambda p: MEMBERSHIP_STATES.index(_PRIORITY[p]),
    )
    names = [_PRIORITY[p] for p in present]
    lookup = np.full(len(_PRIORITY) + 1, np.nan)
    for i, p in enumerate(present):
        lookup[p] = i
    z = np.where(grid >= 0, lookup[np.clip(grid, 0, len(_PRIORITY))], np.nan)

    xs = iterations[::cs].tolist() if n_cols else []
    ys = list(range(0, n_rows, rs))
    labels = messages["label"].astype(str).tolist()
    row_labels = [labels[y] if y < len(labels) else str(y) for y in ys]
    colors = [STATE_COLORS[n] for n in names] or ["#FFFFFF"]
    n_states = max(1, len(names))
    heat_kwargs: dict[str, Any] = {}
    if g_rows * g_cols <= MAP_HOVER_MAX_CELLS:
        text = [
            [
                f"#{y} {row_labels[i]}<br>iteration {x}: "
                + (names[int(z[i, j])] if not np.isnan(z[i, j]) else "not yet committed")
                for j, x in enumerate(xs)
            ]
            for i, y in enumerate(ys)
        ]
        heat_kwargs = {"text": text, "hoverinfo": "text"}
    else:
        heat_kwargs = {"hovertemplate": "message #%{y}<br>iteration %{x}<extra></extra>"}
    fig = go.Figure(
        go.Heatmap(
            x=xs,
            y=ys,
            z=[[None if np.isnan(v) else int(v) for v in row] for row in z],
            zmin=-0.5,
            zmax=n_states - 0.5,
            colorscale=_stepped_colorscale(colors),
            colorbar={
                "title": {"text": "state"},
                "tickvals": list(range(len(names))),
                "ticktext": names,
                "len": 1.0,
            },
            xgap=1 if g_cols <= 120 else 0,
            ygap=1 if g_rows <= 120 else 0,
            name="membership",
            **heat_kwargs,
        )
    )
    _map_overlays(fig, frames, ys, rs)
    title = _title(frames, "Window map")
    if rs > 1 or cs > 1:
        title += f" (blocks of {rs} messages × {cs} iterations)"
    _layout(
        fig,
        title,
        meta={"states": names, "row_stride": rs, "col_stride": cs},
        height=max(320, min(900, 60 + 14 * max(1, g_rows))),
    )
    fig.update_xaxes(title_text="iteration")
    yaxis: dict[str, Any] = {"title_text": "ledger message (commit order)", "autorange": "reversed"}
    if 0 < len(ys) <= MAP_TICK_LABEL_MAX_ROWS:
        yaxis.update(tickmode="array", tickvals=ys, ticktext=row_labels)
    fig.update_yaxes(**yaxis)
    return fig


# -- overlays: violations, lost evidence, pauses ---------------------------------------------

PAUSE_OFFSET = 0.5
"""A pause is drawn between its iteration and the next (x = iteration + 0.5): the run stopped
after that iteration's tool calls, before the next call."""

PAUSE_COLOR = "#7F3C8D"
VIOLATION_COLOR = "#D62728"
LOSS_COLOR = "#111111"


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


def _map_overlays(fig: go.Figure, frames: Frames, ys: Sequence[int], rs: int) -> None:
    """Markers over the window map, each only when its frame has rows: ``violation`` (red x at
    the message a rule names, at the record's iteration), ``lost evidence`` (at the tool result
    that carried a dependent value, at the iteration whose call went without it),
    ``call without its evidence`` (the assistant message that call produced) and ``pause``
    (a vertical line after the paused iteration)."""
    violations = frames.violations
    placed = violations[violations["position"].notna()]
    if len(placed):
        text = [
            f"<b>{row['kind']}</b> · iteration {row['iteration']} · {row['strategy']}<br>"
            f"{row['detail']}<br>#{row['position']} {row['stage_id']} "
            f"(index {row['message_index']} of the window {row['window']})"
            for row in placed.to_dict("records")
        ]
        fig.add_trace(
            _scatter_class(len(placed))(
                x=_values(placed["iteration"]),
                y=_values(placed["position"]),
                name="violation",
                mode="markers",
                marker={
                    "symbol": "x",
                    "size": 11,
                    "color": VIOLATION_COLOR,
                    "line": {"width": 1, "color": "white"},
                },
                hovertext=text,
                hoverinfo="text",
            )
        )
    losses = frames.losses
    lost = losses[losses["source_position"].notna()]
    if len(lost):
        rows = lost.to_dict("records")
        text = [_loss_text(row) for row in rows]
        fig.add_trace(
            _scatter_class(len(lost))(
                x=_values(lost["iteration"]),
                y=_values(lost["source_position"]),
                name="lost evidence",
                mode="markers",
                marker={
                    "symbol": "diamond-open",
                    "size": 11,
                    "color": LOSS_COLOR,
                    "line": {"width": 2, "color": LOSS_COLOR},
                },
                hovertext=text,
                hoverinfo="text",
            )
        )
        calls = lost[lost["call_position"].notna()].drop_duplicates(["iteration", "call_position"])
        if len(calls):
            by_call: dict[tuple[Any, Any], list[str]] = {}
            for row in rows:
                by_call.setdefault((row["iteration"], row["call_position"]), []).append(
                    str(row["value"])
                )
            fig.add_trace(
                _scatter_class(len(calls))(
                    x=_values(calls["iteration"]),
                    y=_values(calls["call_position"]),
                    name="call without its evidence",
                    mode="markers",
                    marker={"symbol": "star", "size": 11, "color": LOSS_COLOR},
                    hovertext=[
                        f"iteration {row['iteration']}: call {row['call_id']} "
                        f"({row['tool_name']}) was made without the evidence for "
                        + _truncate(", ".join(by_call[(row["iteration"], row["call_position"])]))
                        for row in calls.to_dict("records")
                    ],
                    hoverinfo="text",
                )
            )
    pauses = frames.pauses
    if len(pauses) and len(ys):
        fig.add_trace(_pause_trace(pauses, ys[-1] + rs / 2, ys[0] - rs / 2))


def _pause_trace(pauses: pd.DataFrame, bottom: float, top: float) -> go.Scatter:
    """The ``pause`` trace: one vertical segment per pause at x = iteration + 0.5, labelled
    with the tool at its top end, hover = kind, call and outcome."""
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


def _loss_text(row: Mapping[Any, Any]) -> str:
    removed = row["removed_by"]
    by = (
        "never sent"
        if removed is None or pd.isna(removed)
        else f"removed by {row['removed_by_strategy']} at iteration {removed}"
    )
    summary = "<br>a summary still states it" if row["kept_by_summary"] is True else ""
    return (
        f"<b>lost evidence</b> at iteration {row['iteration']}<br>"
        f"call {row['call_id']} ({row['tool_name']}) used {row['value']!s}<br>"
        f"carried by {row['source_stage_id']} (#{row['source_position']}), {by}{summary}"
    )


# -- pins -------------------------------------------------------------------------------------

YIELDED_ROW = "(yielded)"
STAND_DOWN_ROW = "(stand-down)"


def pins_timeline(frames: Frames) -> go.Figure:
    """Which tool's result was pinned when (x = iteration, y = tool), with ``yielded`` (names
    that found no free slot; hover = how many) and ``stand-down`` visits marked on their own
    rows. Traces: ``pinned``, ``yielded``, ``stand-down`` (each only when it has rows).
    """
    frames = _single(frames, "pins_timeline")
    pins = frames.pins
    pinned = pins[pins["kind"] == "pinned"]
    yielded = pins[pins["kind"] == "yielded"]
    stand = pins[pins["kind"] == "stand-down"]
    scatter = _scatter_class(len(pins))
    fig = go.Figure()
    if len(pinned):
        fig.add_trace(
            scatter(
                x=_values(pinned["iteration"]),
                y=_values(pinned["tool_name"]),
                name="pinned",
                mode="markers",
                marker={"symbol": "square", "size": 10, "color": STATE_COLORS["pinned"]},
                customdata=np.stack(
                    [pinned["chars"].astype("float64"), pinned["turn_index"].astype("float64")],
                    axis=1,
                ),
                hovertemplate=(
                    "iteration %{x}<br>%{y} pinned (turn %{customdata[1]}, "
                    "%{customdata[0]} chars)<extra></extra>"
                ),
            )
        )
    if len(yielded):
        fig.add_trace(
            scatter(
                x=_values(yielded["iteration"]),
                y=[YIELDED_ROW] * len(yielded),
                name="yielded",
                mode="markers",
                marker={"symbol": "circle-open", "size": 10, "color": "#666666"},
                customdata=_values(yielded["count"]),
                hovertemplate="iteration %{x}<br>%{customdata} name(s) found no pin slot"
                "<extra></extra>",
            )
        )
    if len(stand):
        fig.add_trace(
            scatter(
                x=_values(stand["iteration"]),
                y=[STAND_DOWN_ROW] * len(stand),
                name="stand-down",
                mode="markers",
                marker={
                    "symbol": "x",
                    "size": 10,
                    "color": STATE_COLORS["refused-current-request"],
                },
                hovertemplate="iteration %{x}<br>pins stood down<extra></extra>",
            )
        )
    tools = sorted(pinned["tool_name"].dropna().astype(str).unique().tolist())
    order = [*tools]
    if len(yielded):
        order.append(YIELDED_ROW)
    if len(stand):
        order.append(STAND_DOWN_ROW)
    _layout(fig, _title(frames, "Pins"), height=max(260, 120 + 36 * max(1, len(order))))
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="tool", categoryorder="array", categoryarray=order[::-1])
    if not len(pins):
        _empty_note(fig, "no pins on any visit")
    return fig


# -- refusals ---------------------------------------------------------------------------------


def refusals_by_reason(frames: Frames) -> go.Figure:
    """Refusals per iteration, stacked by reason: one ``go.Bar`` per reason (named after it)
    whose ``x``/``y`` are the iterations and counts of ``frames.refusals``. More than
    :data:`BAR_MAX_BINS` distinct iterations are grouped into equal bins (x = bin start).
    """
    frames = _single(frames, "refusals_by_reason")
    refusals = frames.refusals
    fig = go.Figure()
    bin_width = 1
    tallest = 0
    if len(refusals):
        iters = refusals["iteration"].astype("int64")
        lo, hi = int(iters.min()), int(iters.max())
        if iters.nunique() > BAR_MAX_BINS:
            bin_width = math.ceil((hi - lo + 1) / BAR_MAX_BINS)
        x_key = lo + ((iters - lo) // bin_width) * bin_width
        tallest = int(x_key.value_counts().max())
        counts = (
            pd.DataFrame({"x": x_key.to_numpy(), "reason": refusals["reason"].astype(str)})
            .groupby(["reason", "x"], sort=True)
            .size()
        )
        known = [r for r in REFUSAL_REASONS if r in counts.index.get_level_values(0)]
        others = sorted(set(counts.index.get_level_values(0)) - set(REFUSAL_REASONS))
        for reason in [*known, *others]:
            part = counts.loc[reason]
            fig.add_trace(
                go.Bar(
                    x=[int(v) for v in part.index],
                    y=[int(v) for v in part.to_numpy()],
                    name=reason,
                    marker={"color": REASON_COLORS.get(reason, "#999999")},
                    hovertemplate=f"iteration %{{x}}<br>%{{y}} × {reason}<extra></extra>",
                )
            )
    title = _title(frames, "Refusals by reason")
    if bin_width > 1:
        title += f" (bins of {bin_width} iterations)"
    _layout(fig, title, barmode="stack", bargap=0.15, meta={"bin_width": bin_width})
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="refusals", rangemode="tozero", tickformat="d")
    if tallest and tallest <= 12:
        fig.update_yaxes(dtick=1)
    if not len(refusals):
        _empty_note(fig, "no refusals on any visit")
    return fig


# -- compare ----------------------------------------------------------------------------------


def _counterfactual_runs(source: Mapping[str, Frames] | Frames | pd.DataFrame) -> set[str]:
    """Labels of the runs that are counterfactual replays (unknown for a bare calls frame)."""
    if isinstance(source, Mapping):
        return {str(label) for label, f in source.items() if is_counterfactual(f)}
    if isinstance(source, Frames):
        by_run = source.info.get("by_run")
        if by_run:
            return {str(k) for k, i in by_run.items() if i.get("counterfactual")}
        if is_counterfactual(source):
            return {str(source.info.get("label") or "run")}
    return set()


def _calls_by_run(source: Mapping[str, Frames] | Frames | pd.DataFrame) -> dict[str, pd.DataFrame]:
    if isinstance(source, Mapping):
        return {str(label): frames.calls for label, frames in source.items()}
    calls = source.calls if isinstance(source, Frames) else source
    if "run" not in calls.columns:
        label = source.info.get("label") if isinstance(source, Frames) else None
        return {str(label or "run"): calls}
    order = list(dict.fromkeys(calls["run"].astype(str).tolist()))
    return {label: calls[calls["run"] == label] for label in order}


def compare(
    source: Mapping[str, Frames] | Frames | pd.DataFrame, *, metric: str = "chars"
) -> go.Figure:
    """Several runs' window size on one chart: one line per run, x = iteration,
    y = ``calls[metric]`` (``"chars"`` sent, or ``"input_tokens"`` reported). Counterfactual
    replays are drawn dashed and say so in their hover and in the title.

    Args:
        source: ``{label: frames}``, a ``capture_many`` result, or a calls frame with a
            ``run`` column.
        metric: The ``calls`` column to plot.
    """
    by_run = _calls_by_run(source)
    points = sum(len(c) for c in by_run.values())
    scatter = _scatter_class(points)
    big = points > WEBGL_THRESHOLD
    fig = go.Figure()
    palette = [
        "#4C78A8",
        "#F58518",
        "#54A24B",
        "#E45756",
        "#72B7B2",
        "#B279A2",
        "#EECA3B",
        "#9D755D",
    ]
    replays = _counterfactual_runs(source)
    for i, (label, calls) in enumerate(by_run.items()):
        replayed = label in replays
        note = " (counterfactual replay)" if replayed else ""
        fig.add_trace(
            scatter(
                x=_values(calls["iteration"]),
                y=_values(calls[metric]),
                name=label,
                mode="lines" if big else "lines+markers",
                line={
                    "color": palette[i % len(palette)],
                    "width": 2,
                    "dash": "dash" if replayed else "solid",
                },
                hovertemplate=f"{label}{note}<br>iteration %{{x}}<br>%{{y}} {metric}"
                "<extra></extra>",
            )
        )
    what = "characters sent" if metric == "chars" else metric.replace("_", " ")
    title = f"Window size by run ({what})"
    if replays and replays >= set(by_run):
        title += COUNTERFACTUAL_SUFFIX
    elif replays:
        title += " (dashed: counterfactual replay)"
    _layout(fig, title, hovermode="x unified")
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text=what, rangemode="tozero")
    return fig


# -- evidence trade-off -----------------------------------------------------------------------

_STRATEGY_PALETTE = (
    "#4C78A8",
    "#F58518",
    "#54A24B",
    "#E45756",
    "#72B7B2",
    "#B279A2",
    "#9D755D",
    "#EECA3B",
)

_AXIS_TITLES = {
    "chars_saved_share": "window characters saved vs no policy",
    "chars_saved": "window characters saved vs no policy",
    "lost_share": "dependent calls sent without their evidence",
    "lost_calls": "dependent calls sent without their evidence",
}


def _evidence_hover(row: Mapping[Any, Any]) -> str:
    return (
        f"<b>{row['config']}</b> ({row['strategy']}, pins {row['keep_last_tool_results']})<br>"
        f"saved {row['chars_saved_share']:.1%} of window characters "
        f"({int(row['chars_saved']):,} of {int(row['baseline_window_chars']):,})<br>"
        f"evidence lost on {row['lost_calls']} of {row['dependent_calls']} dependent calls "
        f"({row['lost_share']:.1%})<br>"
        f"wire violations {row['wire_violations']} · windows without the request "
        f"{row['request_lost']} · runs {row['runs']}"
    )


def evidence_tradeoff(
    frame: pd.DataFrame, *, x: str = "chars_saved_share", y: str = "lost_share"
) -> go.Figure:
    """What each configuration saves against what it loses: one point per configuration,
    x = window characters saved versus no policy (share, summed over runs), y = share of
    dependent calls whose evidence was lost, and the Pareto front (saving most while losing
    least) drawn as a line.

    Args:
        frame: :func:`~footprint_lab.lab.evidence_frame` (aggregated here with
            :func:`~footprint_lab.lab.evidence_summary`) or that summary itself.
        x: The summary column on the x axis.
        y: The summary column on the y axis.

    Traces: one per strategy name (``x``/``y`` = the summary rows of that strategy, in order,
    hover naming the configuration; pinned configurations are diamonds), then
    ``Pareto front`` (the non-dominated points sorted by x). ``fig.layout.meta`` holds the
    configuration labels on the front, in that order.
    """
    from footprint_lab.lab.evidence import evidence_summary, pareto_front

    summary = frame if "lost_share" in frame.columns else evidence_summary(frame)
    fig = go.Figure()
    strategies = list(dict.fromkeys(summary["strategy"].astype(str).tolist()))
    for i, name in enumerate(strategies):
        part = summary[summary["strategy"].astype(str) == name]
        rows = part.to_dict("records")
        pins = part["keep_last_tool_results"].fillna(0).astype("int64").tolist()
        fig.add_trace(
            go.Scatter(
                x=_values(part[x]),
                y=_values(part[y]),
                name=name,
                mode="markers",
                marker={
                    "size": 11,
                    "color": _STRATEGY_PALETTE[i % len(_STRATEGY_PALETTE)],
                    "symbol": ["diamond" if p else "circle" for p in pins],
                    "line": {"width": 1, "color": "white"},
                },
                customdata=part["config"].astype(str).tolist(),
                hovertext=[_evidence_hover(r) for r in rows],
                hoverinfo="text",
            )
        )
    front_labels: list[str] = []
    if len(summary):
        mask = pareto_front(
            summary[x].to_numpy(dtype=np.float64, na_value=np.nan),
            summary[y].to_numpy(dtype=np.float64, na_value=np.nan),
        )
        front = summary[mask].sort_values([x, y], kind="stable")
        front_labels = front["config"].astype(str).tolist()
        fig.add_trace(
            go.Scatter(
                x=_values(front[x]),
                y=_values(front[y]),
                name="Pareto front",
                mode="lines",
                line={"color": "#52606d", "width": 1.5, "dash": "dash"},
                customdata=front_labels,
                hovertemplate="Pareto front: %{customdata}<extra></extra>",
            )
        )
    runs = int(summary["runs"].max()) if "runs" in summary.columns and len(summary) else 0
    _layout(
        fig,
        f"Evidence trade-off — {len(summary)} configurations × {runs} runs" + COUNTERFACTUAL_SUFFIX,
        hovermode="closest",
        meta={"pareto": front_labels},
        height=480,
    )
    share = {"tickformat": ".0%"}
    fig.update_xaxes(title_text=_AXIS_TITLES.get(x, x), **(share if x.endswith("_share") else {}))
    fig.update_yaxes(
        title_text=_AXIS_TITLES.get(y, y),
        rangemode="tozero",
        **(share if y.endswith("_share") else {}),
    )
    if not len(summary):
        _empty_note(fig, "no configurations")
    return fig
