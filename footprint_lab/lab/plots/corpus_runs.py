"""A corpus's runs counted by source format or by model, stacked by outcome.

Layer: lab. A pure builder: the overview's ``runs`` frame (one row per run, with ``format``,
``model`` and ``outcome``: :func:`~footprint_lab.lab.corpus_view.overview_frames`) in,
``plotly.graph_objects.Figure`` out.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from footprint_lab.lab.plots._common import empty_note, layout
from footprint_lab.lab.theme import FALLBACK, OUTCOME_COLORS

__all__ = ["CATEGORIES_SHOWN", "runs_by"]

CATEGORIES_SHOWN = 20
"""Bars shown at most; the categories with fewer runs are summed into one ``other`` bar."""

_WORDS = {"format": "source format", "model": "model"}


def _outcome_order(outcomes: pd.Series) -> list[str]:
    """The outcomes present: the palette's order first, then any other by name."""
    present = set(outcomes.astype(str))
    known = [o for o in OUTCOME_COLORS if o in present]
    return known + sorted(present - set(known))


def runs_by(runs: pd.DataFrame, by: str = "format") -> go.Figure:
    """How many runs each ``by`` value (``format`` or ``model``) has, one horizontal bar each,
    stacked by outcome; the most runs on top. Beyond :data:`CATEGORIES_SHOWN` values, the rest
    are one ``other (N)`` bar. ``fig.layout.meta`` holds ``by`` and ``categories`` (the bars,
    top to bottom).

    Args:
        runs: One row per run, with the ``by`` column and ``outcome``.
        by: The column to count by.

    Returns:
        The figure.

    Raises:
        KeyError: ``runs`` has no column ``by`` or ``outcome``.
    """
    for column in (by, "outcome"):
        if column not in runs.columns:
            raise KeyError(f"runs_by: the runs frame has no column {column!r}")
    words = _WORDS.get(by, by)
    keys = runs[by].astype("string").fillna("(none)").astype(str)
    totals = keys.value_counts(sort=False)
    ordered = sorted(totals.index, key=lambda k: (-int(totals[k]), k))
    shown = ordered[:CATEGORIES_SHOWN]
    rest = ordered[CATEGORIES_SHOWN:]
    if rest:
        other = f"other ({len(rest)})"
        keys = keys.where(keys.isin(shown), other)
        shown = [*shown, other]
    outcomes = runs["outcome"].astype(str)
    table = pd.crosstab(keys, outcomes).reindex(index=shown, fill_value=0)
    fig = go.Figure()
    for outcome in _outcome_order(outcomes):
        counts = [int(v) for v in table[outcome].tolist()]
        fig.add_trace(
            go.Bar(
                name=outcome,
                y=shown,
                x=counts,
                orientation="h",
                marker={"color": OUTCOME_COLORS.get(outcome, FALLBACK)},
                hovertemplate=f"%{{y}}: %{{x}} run(s) {outcome}<extra></extra>",
            )
        )
    layout(
        fig,
        f"Runs by {words} and outcome — {len(runs)} runs, {len(ordered)} {words}s",
        barmode="stack",
        meta={"by": by, "categories": shown},
        height=max(260, 90 + 26 * len(shown)),
    )
    fig.update_yaxes(autorange="reversed", title_text=words, automargin=True)
    fig.update_xaxes(title_text="runs")
    if not len(runs):
        empty_note(fig, "no runs in the corpus")
    return fig
