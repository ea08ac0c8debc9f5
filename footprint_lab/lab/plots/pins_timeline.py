"""The pins timeline: which tool's result was pinned on which visit, with the names that found
no free slot and the visits where pins stood down.

Layer: lab. A pure builder: frames in, ``plotly.graph_objects.Figure`` out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._common import (
    empty_note,
    layout,
    scatter_class,
    single,
    title_of,
    values,
)
from footprint_lab.lab.theme import STATE_COLORS, YIELDED

__all__ = ["STAND_DOWN_ROW", "YIELDED_ROW", "pins_timeline"]

YIELDED_ROW = "(yielded)"
"""The y row of the ``yielded`` markers."""

STAND_DOWN_ROW = "(stand-down)"
"""The y row of the ``stand-down`` markers."""


def _pinned_trace(pinned: pd.DataFrame, scatter: Any) -> Any:
    """``pinned``: a square per pinned tool result, hover = its turn and size."""
    return scatter(
        x=values(pinned["iteration"]),
        y=values(pinned["tool_name"]),
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


def _yielded_trace(yielded: pd.DataFrame, scatter: Any) -> Any:
    """``yielded``: visits where some names found no pin slot, hover = how many."""
    return scatter(
        x=values(yielded["iteration"]),
        y=[YIELDED_ROW] * len(yielded),
        name="yielded",
        mode="markers",
        marker={"symbol": "circle-open", "size": 10, "color": YIELDED},
        customdata=values(yielded["count"]),
        hovertemplate="iteration %{x}<br>%{customdata} name(s) found no pin slot<extra></extra>",
    )


def _stand_down_trace(stand: pd.DataFrame, scatter: Any) -> Any:
    """``stand-down``: visits where no pin was offered."""
    return scatter(
        x=values(stand["iteration"]),
        y=[STAND_DOWN_ROW] * len(stand),
        name="stand-down",
        mode="markers",
        marker={"symbol": "x", "size": 10, "color": STATE_COLORS["refused-current-request"]},
        hovertemplate="iteration %{x}<br>pins stood down<extra></extra>",
    )


def pins_timeline(frames: Frames) -> go.Figure:
    """Which tool's result was pinned when (x = iteration, y = tool), with ``yielded`` (names
    that found no free slot; hover = how many) and ``stand-down`` visits marked on their own
    rows. Traces: ``pinned``, ``yielded``, ``stand-down`` (each only when it has rows).

    Args:
        frames: The frames of one run.

    Returns:
        The figure.

    Raises:
        ValueError: The frames stack several runs.
    """
    frames = single(frames, "pins_timeline")
    pins = frames.pins
    pinned = pins[pins["kind"] == "pinned"]
    yielded = pins[pins["kind"] == "yielded"]
    stand = pins[pins["kind"] == "stand-down"]
    scatter = scatter_class(len(pins))
    fig = go.Figure()
    if len(pinned):
        fig.add_trace(_pinned_trace(pinned, scatter))
    if len(yielded):
        fig.add_trace(_yielded_trace(yielded, scatter))
    if len(stand):
        fig.add_trace(_stand_down_trace(stand, scatter))
    order = sorted(pinned["tool_name"].dropna().astype(str).unique().tolist())
    if len(yielded):
        order.append(YIELDED_ROW)
    if len(stand):
        order.append(STAND_DOWN_ROW)
    layout(fig, title_of(frames, "Pins"), height=max(260, 120 + 36 * max(1, len(order))))
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="tool", categoryorder="array", categoryarray=order[::-1])
    if not len(pins):
        empty_note(fig, "no pins on any visit")
    return fig
