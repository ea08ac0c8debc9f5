"""The Inspector's four charts: what they are, and which open a boundary when clicked.

Layer: lab (widgets; private to :mod:`footprint_lab.lab.widgets.inspector`).
"""

from __future__ import annotations

import plotly.graph_objects as go

from footprint_lab.lab import plots
from footprint_lab.lab.frames import Frames

__all__ = ["CLICKABLE", "charts"]

CLICKABLE = ("window_map", "window_size")
"""The charts whose points open their iteration's boundary."""


def charts(frames: Frames) -> dict[str, go.Figure]:
    """The Inspector's four charts of ``frames`` (plotly figures), by name."""
    return {
        "window_size": plots.window_size(frames),
        "window_map": plots.window_map(frames),
        "pins": plots.pins_timeline(frames),
        "refusals": plots.refusals_by_reason(frames),
    }
