"""The window size chart: characters sent per call, reported input tokens, the threshold, every
removal and every pause.

Layer: lab. A pure builder: frames in, ``plotly.graph_objects.Figure`` out. Both y axes tick at
round numbers chosen from the data (0, 5k, 10k, ...: :func:`._common.round_ticks`); a removal
marker's hover names the record, the rule that fired and the refusals by reason.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._common import (
    WEBGL_THRESHOLD,
    layout,
    record_hover_rows,
    removal_summary,
    round_ticks,
    scatter_class,
    single,
    title_of,
    values,
)
from footprint_lab.lab.plots._overlays import pause_trace
from footprint_lab.lab.theme import SECONDARY_LINE, STATE_COLORS

__all__ = ["window_size"]


def _threshold_steps(thresholds: pd.DataFrame, calls: pd.DataFrame) -> tuple[list[Any], list[Any]]:
    """The threshold as a step line, stretched to the first and the last call."""
    xs = values(thresholds["iteration"])
    ys = values(thresholds["threshold_tokens"])
    if len(calls):
        first = int(calls["iteration"].min())
        last = int(calls["iteration"].max())
        if first < xs[0]:
            xs, ys = [first, *xs], [ys[0], *ys]
        if last > xs[-1]:
            xs, ys = [*xs, last], [*ys, ys[-1]]
    return xs, ys


def _removal_trace(removals: pd.DataFrame, scatter: Any, big: bool) -> Any:
    """The ``removal`` markers: one per record that removed something, hover = its summary."""
    text = [removal_summary(row) for row in record_hover_rows(removals)]
    return scatter(
        x=values(removals["iteration"]),
        y=values(removals["window_chars_after"]),
        name="removal",
        mode="markers",
        marker={
            "symbol": "triangle-down",
            "size": 9 if not big else 5,
            "color": STATE_COLORS["pinned"],
        },
        hovertext=text,
        hoverinfo="text",
    )


def tokens_label(calls: pd.DataFrame) -> str:
    """What the input tokens of ``calls`` are: ``input tokens (reported)`` where the provider
    reported them; in a replay, ``(counted)``, ``(scaled)`` or ``(estimated)`` as each call's
    ``tokens_from`` says (several, joined, when they differ) — never "reported" for a figure
    nobody reported."""
    kinds: set[str] = set()
    if "tokens_from" in calls.columns:
        known = calls[calls["input_tokens"].notna()]
        kinds = {"reported" if pd.isna(k) else str(k) for k in known["tokens_from"]}
    return f"input tokens ({' / '.join(sorted(kinds)) if kinds else 'reported'})"


def _add_call_traces(
    fig: go.Figure, calls: pd.DataFrame, scatter: Any, *, big: bool, tokens: bool
) -> None:
    """``chars sent`` on the primary axis and, when known, the input tokens on the secondary
    one, named by where they came from (:func:`tokens_label`)."""
    mode = "lines" if big else "lines+markers"
    fig.add_trace(
        scatter(
            x=values(calls["iteration"]),
            y=values(calls["chars"]),
            name="chars sent",
            mode=mode,
            line={"color": STATE_COLORS["in-window"], "width": 2},
            hovertemplate="iteration %{x}<br>%{y:,} chars sent<extra></extra>",
        ),
        secondary_y=False,
    )
    if tokens:
        fig.add_trace(
            scatter(
                x=values(calls["iteration"]),
                y=values(calls["input_tokens"]),
                name=tokens_label(calls),
                mode=mode,
                line={"color": SECONDARY_LINE, "width": 1.5, "dash": "dot"},
                hovertemplate="iteration %{x}<br>%{y:,} " + tokens_label(calls) + "<extra></extra>",
            ),
            secondary_y=True,
        )


def _peak(*columns: pd.Series) -> float | None:
    """The largest value in ``columns`` (None when they hold none)."""
    peaks = [float(c.max()) for c in columns if len(c) and not pd.isna(c.max())]
    return max(peaks) if peaks else None


def window_size(frames: Frames) -> go.Figure:
    """Characters sent per call (x = iteration), reported input tokens on a secondary axis, the
    threshold (when records carry ``threshold_tokens``) and a marker at every removal.

    Traces, by name: ``chars sent`` (``calls.iteration`` / ``calls.chars``), ``input tokens``
    (``calls.input_tokens``, only when some call reported usage), ``threshold`` (tokens),
    ``removal`` (``records`` rows that removed something: ``iteration`` /
    ``window_chars_after``, hover = the record's summary), ``pause`` (when the run paused).
    Both y axes have ``tick0`` 0 and a round ``dtick`` (1, 2 or 5 x 10^k) from their range.

    Args:
        frames: The frames of one run.

    Returns:
        The figure.

    Raises:
        ValueError: The frames stack several runs (use :func:`compare`).
    """
    frames = single(frames, "window_size")
    calls = frames.calls
    records = frames.records
    removals = records[records["removed_anything"].fillna(False).astype(bool)]
    has_tokens = bool(calls["reported"].fillna(False).any())
    thresholds = records[records["threshold_tokens"].notna()]
    points = len(calls) * (2 if has_tokens else 1) + len(removals) + len(thresholds)
    scatter = scatter_class(points)
    big = points > WEBGL_THRESHOLD
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    _add_call_traces(fig, calls, scatter, big=big, tokens=has_tokens)
    if len(thresholds):
        xs, ys = _threshold_steps(thresholds, calls)
        fig.add_trace(
            scatter(
                x=xs,
                y=ys,
                name="threshold (tokens)",
                mode="lines",
                line={"color": STATE_COLORS["refused-current-request"], "dash": "dash"},
                line_shape="hv",
                hovertemplate="threshold %{y:,} tokens<extra></extra>",
            ),
            secondary_y=True,
        )
    if len(removals):
        fig.add_trace(_removal_trace(removals, scatter, big), secondary_y=False)
    pauses = frames.pauses
    if len(pauses):
        top = float(calls["chars"].max()) if len(calls) else 1.0
        fig.add_trace(pause_trace(pauses, 0.0, top), secondary_y=False)
    layout(fig, title_of(frames, "Window size"), hovermode="closest")
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(
        title_text="characters sent",
        rangemode="tozero",
        secondary_y=False,
        **round_ticks(_peak(calls["chars"])),
    )
    token_columns = [thresholds["threshold_tokens"]]
    if has_tokens:
        token_columns.append(calls["input_tokens"])
    fig.update_yaxes(
        title_text=tokens_label(calls),
        rangemode="tozero",
        showgrid=False,
        secondary_y=True,
        **round_ticks(_peak(*token_columns)),
    )
    return fig
