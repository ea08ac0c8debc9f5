"""The cache lens chart: how much of each request a provider's prefix cache could reuse.

Layer: lab. A pure builder: frames in, ``plotly.graph_objects.Figure`` out. Bars are each call's
request, split into the prefix it shares with the previous request (cacheable) and the rest; a
line is the shared part as a share; every removal is marked, so a reader sees which visits
rewrote the prefix.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._common import (
    layout,
    removal_summary,
    round_ticks,
    single,
    title_of,
    values,
)
from footprint_lab.lab.theme import SECONDARY_LINE, STATE_COLORS

__all__ = ["cache_prefix"]


def cache_prefix(frames: Frames) -> go.Figure:
    """Each call's request split into the common prefix with the previous request and the
    rest (x = iteration), the prefix share on a secondary axis, and a marker at every removal.

    Traces, by name: ``cacheable prefix`` (bars, ``calls.prefix_chars``), ``rewritten or new``
    (bars, ``request_chars - prefix_chars``), ``prefix share`` (line, ``calls.prefix_share``,
    secondary axis), ``removal`` (records that removed something, at share 0, hover = the
    record's summary).

    Args:
        frames: The frames of one run.

    Returns:
        The figure.

    Raises:
        ValueError: The frames stack several runs.
    """
    frames = single(frames, "cache_prefix")
    calls = frames.calls
    records = frames.records
    removals = records[records["removed_anything"].fillna(False).astype(bool)]
    x = values(calls["iteration"])
    prefix = values(calls["prefix_chars"])
    rest = values(calls["request_chars"] - calls["prefix_chars"])
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    parts = (
        ("cacheable prefix", prefix, "in-window", "chars shared with the previous request"),
        ("rewritten or new", rest, "pinned", "chars the cache cannot reuse"),
    )
    for name, ys, state, what in parts:
        fig.add_trace(
            go.Bar(
                x=x,
                y=ys,
                name=name,
                marker_color=STATE_COLORS[state],
                hovertemplate=f"iteration %{{x}}<br>%{{y:,}} {what}<extra></extra>",
            ),
            secondary_y=False,
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=values(calls["prefix_share"]),
            name="prefix share",
            mode="lines+markers",
            line={"color": SECONDARY_LINE, "width": 1.5},
            hovertemplate="iteration %{x}<br>%{y:.0%} of the request is a cached prefix"
            "<extra></extra>",
        ),
        secondary_y=True,
    )
    if len(removals):
        fig.add_trace(
            go.Scatter(
                x=values(removals["iteration"]),
                y=[0.0] * len(removals),
                name="removal",
                mode="markers",
                marker={
                    "symbol": "triangle-up",
                    "size": 10,
                    "color": STATE_COLORS["dropped"],
                    "line": {"width": 1, "color": SECONDARY_LINE},
                },
                hovertext=[
                    removal_summary({str(k): v for k, v in row.items()})
                    for row in removals.to_dict("records")
                ],
                hoverinfo="text",
            ),
            secondary_y=True,
        )
    top = float(calls["request_chars"].max()) if len(calls) else None
    layout(
        fig, title_of(frames, "Prefix cache reuse per call"), barmode="stack", hovermode="x unified"
    )
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="request characters", secondary_y=False, **round_ticks(top))
    fig.update_yaxes(
        title_text="prefix share",
        secondary_y=True,
        range=[0, 1.05],
        tickformat=".0%",
        tick0=0,
        dtick=0.25,
    )
    return fig
