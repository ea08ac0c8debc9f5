"""The refusals chart: how many turns refused to leave on each visit, stacked by reason.

Layer: lab. A pure builder: frames in, ``plotly.graph_objects.Figure`` out (plotly express
draws the bars). More than :data:`BAR_MAX_BINS` distinct iterations are grouped in equal bins.

The x axis spans the whole run (its first to its last iteration), so where refusals happened
is where they show; and a bar is never narrower than :data:`MIN_BAR_SHARE` of that span, so
three refusals in a 1,000-iteration run are three visible bars, not hairlines. A bar's hover
says what its reason means (the glossary's words).
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._common import empty_note, layout, single, title_of
from footprint_lab.lab.theme import FALLBACK, REASON_COLORS, TEMPLATE
from footprint_lab.lab.views import REFUSAL_MEANINGS
from footprint_lab.window.records import REFUSAL_REASONS

__all__ = ["BAR_MAX_BINS", "MIN_BAR_SHARE", "refusals_by_reason"]

BAR_MAX_BINS = 600
"""The refusals chart shows at most this many bars per reason (iterations are binned)."""

MIN_BAR_SHARE = 1 / 150
"""A refusal bar is at least this share of the x axis wide (about 6 px of a 900 px plot)."""

_BARGAP = 0.15


def _counts(refusals: pd.DataFrame) -> tuple[pd.DataFrame, int, int]:
    """Refusals per (reason, iteration bin): columns ``reason``, ``x`` (bin start), ``count``,
    reasons in :data:`REFUSAL_REASONS` order (unknown ones after, sorted); the bin width; and
    the tallest stack."""
    iters = refusals["iteration"].astype("int64")
    lo, hi = int(iters.min()), int(iters.max())
    bin_width = 1
    if iters.nunique() > BAR_MAX_BINS:
        bin_width = math.ceil((hi - lo + 1) / BAR_MAX_BINS)
    x_key = lo + ((iters - lo) // bin_width) * bin_width
    tallest = int(x_key.value_counts().max())
    counts = (
        pd.DataFrame({"x": x_key.to_numpy(), "reason": refusals["reason"].astype(str)})
        .groupby(["reason", "x"], sort=True)
        .size()
        .rename("count")
        .reset_index()
    )
    seen = set(counts["reason"])
    order = [r for r in REFUSAL_REASONS if r in seen] + sorted(seen - set(REFUSAL_REASONS))
    rank = {reason: i for i, reason in enumerate(order)}
    counts = counts.assign(rank=counts["reason"].map(rank)).sort_values(["rank", "x"])
    counts = counts.drop(columns="rank")
    counts["x"] = counts["x"].astype("int64")
    counts["count"] = counts["count"].astype("int64")
    return counts.reset_index(drop=True), bin_width, tallest


def _bars(counts: pd.DataFrame) -> go.Figure:
    """One stacked bar trace per reason, named after it, in the order of ``counts``."""
    order = list(dict.fromkeys(counts["reason"].tolist()))
    fig = px.bar(
        counts,
        x="x",
        y="count",
        color="reason",
        category_orders={"reason": order},
        color_discrete_map={r: REASON_COLORS.get(r, FALLBACK) for r in order},
        barmode="stack",
        template=TEMPLATE,
    )
    fig.for_each_trace(
        lambda t: t.update(
            hovertemplate=f"iteration %{{x}}<br>%{{y}} × {t.name}: "
            f"{REFUSAL_MEANINGS.get(t.name, 'a reason of this strategy')}<extra></extra>"
        )
    )
    fig.update_layout(legend_title_text=None)
    return fig


def _span(frames: Frames, refusals: pd.DataFrame) -> tuple[int, int]:
    """The first and last iteration of the run (its calls and records), refusals included."""
    found = [
        int(v)
        for column in (
            frames.calls["iteration"],
            frames.records["iteration"],
            refusals["iteration"],
        )
        if len(column)
        for v in (column.min(), column.max())
        if not pd.isna(v)
    ]
    return min(found), max(found)


def _widen(fig: go.Figure, frames: Frames, refusals: pd.DataFrame, bin_width: int) -> None:
    """Stretch the x axis over the whole run and give every bar at least
    :data:`MIN_BAR_SHARE` of it."""
    lo, hi = _span(frames, refusals)
    span = hi - lo + bin_width
    width = max(bin_width * (1 - _BARGAP), span * MIN_BAR_SHARE)
    pad = max(bin_width, width) / 2
    fig.update_traces(width=width)
    fig.update_xaxes(range=[lo - pad, hi + pad])


def refusals_by_reason(frames: Frames) -> go.Figure:
    """Refusals per iteration, stacked by reason: one ``go.Bar`` per reason (named after it)
    whose ``x``/``y`` are the iterations and counts of ``frames.refusals``. More than
    :data:`BAR_MAX_BINS` distinct iterations are grouped into equal bins (x = bin start);
    ``fig.layout.meta["bin_width"]`` says how wide. The x axis spans the run's iterations and
    each trace's ``width`` is at least :data:`MIN_BAR_SHARE` of it.

    Args:
        frames: The frames of one run.

    Returns:
        The figure (no traces when nothing was refused).

    Raises:
        ValueError: The frames stack several runs.
    """
    frames = single(frames, "refusals_by_reason")
    refusals = frames.refusals
    bin_width, tallest = 1, 0
    if len(refusals):
        counts, bin_width, tallest = _counts(refusals)
        fig = _bars(counts)
        _widen(fig, frames, refusals, bin_width)
    else:
        fig = go.Figure()
    title = title_of(frames, "Refusals by reason")
    if bin_width > 1:
        title += f" (bins of {bin_width} iterations)"
    layout(fig, title, barmode="stack", bargap=_BARGAP, meta={"bin_width": bin_width})
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="refusals", rangemode="tozero", tickformat="d")
    if tallest and tallest <= 12:
        fig.update_yaxes(dtick=1)
    if not len(refusals):
        empty_note(fig, "no refusals on any visit")
    return fig
