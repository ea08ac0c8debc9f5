"""A corpus's distributions: the peak window size and the calls of each run, by format.

Layer: lab. A pure builder: the overview's ``runs`` frame (``format``, ``peak_window_chars``,
``calls``) in, ``plotly.graph_objects.Figure`` out. The bins are counted here (numpy, fixed
edges), not in the browser, so the figure holds the counts it shows and its edges are in
``fig.layout.meta``.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from footprint_lab.lab.plots._common import empty_note, layout
from footprint_lab.lab.theme import RUN_COLORS, TEMPLATE

__all__ = ["DISTRIBUTED", "MAX_BINS", "bin_edges", "run_distributions"]

MAX_BINS = 30
"""Bins per histogram, at most."""

DISTRIBUTED: dict[str, str] = {
    "peak_window_chars": "peak window size (characters sent in one call)",
    "calls": "model calls per run",
}
"""The per-run numbers drawn, and their axis titles."""


def bin_edges(values: np.ndarray[Any, np.dtype[np.float64]], integer: bool) -> list[float]:
    """The bin edges of ``values`` (numpy's ``auto`` rule, at most :data:`MAX_BINS` bins;
    whole-number bins for counts)."""
    if not len(values):
        return [0.0, 1.0]
    low, high = float(values.min()), float(values.max())
    if integer:
        # Whole-number bins centred on the counts: a bar never straddles two call counts.
        width = float(np.ceil((high - low + 1) / MAX_BINS))
        bins = int(np.ceil((high - low + 1) / width))
        edges = low - 0.5 + width * np.arange(bins + 1)
    elif high == low:
        edges = np.array([low, low + 1.0])
    else:
        edges = np.histogram_bin_edges(values, bins="auto")
        if len(edges) - 1 > MAX_BINS:
            edges = np.histogram_bin_edges(values, bins=MAX_BINS)
    return [float(e) for e in edges]


def run_distributions(runs: pd.DataFrame) -> go.Figure:
    """Two histograms side by side — each run's peak window size and its model calls — the
    bars stacked by source format. ``fig.layout.meta["edges"]`` holds each histogram's bin
    edges by column; a bar's ``x`` is its bin's centre, its ``width`` the bin's width.

    Args:
        runs: One row per run, with ``format`` and the columns of :data:`DISTRIBUTED`.

    Returns:
        The figure.
    """
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=list(DISTRIBUTED.values()), horizontal_spacing=0.1
    )
    fig.update_layout(template=TEMPLATE)
    formats = sorted(set(runs["format"].astype(str)))
    colors = {f: RUN_COLORS[i % len(RUN_COLORS)] for i, f in enumerate(formats)}
    edges_of: dict[str, list[float]] = {}
    for col, column in enumerate(DISTRIBUTED, start=1):
        numbers = runs[column].to_numpy(dtype=np.float64, na_value=np.nan)
        present = numbers[~np.isnan(numbers)]
        edges = bin_edges(present, integer=column == "calls")
        edges_of[column] = edges
        centres = [(a + b) / 2 for a, b in pairwise(edges)]
        widths = [b - a for a, b in pairwise(edges)]
        for fmt in formats:
            mine = numbers[(runs["format"].astype(str) == fmt).to_numpy() & ~np.isnan(numbers)]
            counts, _ = np.histogram(mine, bins=edges)
            fig.add_trace(
                go.Bar(
                    name=fmt,
                    legendgroup=fmt,
                    showlegend=col == 1,
                    x=centres,
                    y=[int(c) for c in counts],
                    width=widths,
                    marker={"color": colors[fmt]},
                    customdata=[[a, b] for a, b in pairwise(edges)],
                    hovertemplate=(
                        f"{fmt}: %{{y}} run(s) from %{{customdata[0]:,.0f}} "
                        "to %{customdata[1]:,.0f}<extra></extra>"
                    ),
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(title_text=DISTRIBUTED[column], row=1, col=col)
        fig.update_yaxes(title_text="runs", row=1, col=col)
    layout(
        fig,
        f"Distributions over {len(runs)} runs, by source format",
        barmode="stack",
        bargap=0,
        meta={"edges": edges_of},
        height=420,
    )
    if not len(runs):
        empty_note(fig, "no runs in the corpus")
    return fig
