"""What each source's own context policy did: what it removed, and the rules it broke.

Layer: lab. A pure builder: the overview's ``observed`` and ``violations`` frames
(:func:`~footprint_lab.lab.corpus_view.overview_frames`) in, ``plotly.graph_objects.Figure``
out. An imported run's *observed* records describe what its source's own policy really removed
(rebuilt from what the source sent); its violations are the rules that policy broke (a tool
pair split, the current request lost, ...). A side with nothing to draw says so in words.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from footprint_lab.lab.plots._common import layout
from footprint_lab.lab.theme import FALLBACK, RUN_COLORS, TEMPLATE, VIOLATION_COLOR

__all__ = ["NO_OBSERVED", "NO_VIOLATIONS", "source_policies"]

NO_OBSERVED = "no source's own policy removed anything (no observed records)"
"""The note of the left side when no run has an observed record that removed a message."""

NO_VIOLATIONS = "no violations: no source's own policy broke a rule"
"""The note of the right side when the sources committed no violation."""

_KIND_COLORS = (VIOLATION_COLOR, *RUN_COLORS)


def _note(fig: go.Figure, text: str, col: int) -> None:
    fig.add_annotation(
        text=text,
        showarrow=False,
        xref=f"x{col if col > 1 else ''} domain",
        yref=f"y{col if col > 1 else ''} domain",
        x=0.5,
        y=0.5,
        font={"size": 13},  # in the theme's muted colour (the template's annotationdefaults)
    )


def source_policies(observed: pd.DataFrame, violations: pd.DataFrame) -> go.Figure:
    """Left: the messages each source format's own policy removed (one bar per format; hover:
    its observed records, the runs that have them, the characters removed). Right: the
    violations each format's policy committed, stacked by kind. ``fig.layout.meta`` holds
    ``formats`` and ``kinds``.

    Args:
        observed: One row per format: ``format``, ``runs``, ``observed_runs``, ``records``,
            ``removed_messages``, ``chars_removed``.
        violations: One row per format × kind: ``format``, ``kind``, ``violations``.

    Returns:
        The figure.
    """
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            "messages removed by the source's own policy (observed records)",
            "violations the source's own policy committed",
        ),
        horizontal_spacing=0.12,
    )
    fig.update_layout(template=TEMPLATE)
    formats = [str(f) for f in observed["format"].tolist()]
    removed = [int(v) for v in observed["removed_messages"].fillna(0).tolist()]
    fig.add_trace(
        go.Bar(
            name="messages removed",
            x=formats,
            y=removed,
            marker={"color": RUN_COLORS[0]},
            customdata=observed[["records", "observed_runs", "runs", "chars_removed"]]
            .fillna(0)
            .astype("int64")
            .to_numpy()
            .tolist(),
            hovertemplate=(
                "%{x}: %{y} message(s) removed in %{customdata[0]} observed record(s), "
                "%{customdata[1]} of %{customdata[2]} run(s), %{customdata[3]:,} characters"
                "<extra></extra>"
            ),
            showlegend=False,
        ),
        row=1,
        col=1,
    )
    if not any(removed):
        _note(fig, NO_OBSERVED, 1)
    kinds = sorted(set(violations["kind"].astype(str)))
    for i, kind in enumerate(kinds):
        part = violations[violations["kind"].astype(str) == kind]
        by_format = dict(zip(part["format"].astype(str), part["violations"], strict=True))
        fig.add_trace(
            go.Bar(
                name=kind,
                x=formats,
                y=[int(by_format.get(f, 0)) for f in formats],
                marker={"color": _KIND_COLORS[i] if i < len(_KIND_COLORS) else FALLBACK},
                hovertemplate=f"%{{x}}: %{{y}} {kind}<extra></extra>",
            ),
            row=1,
            col=2,
        )
    if not kinds:
        # An empty side keeps the formats on its axis, so the note reads against them.
        fig.add_trace(
            go.Bar(x=formats, y=[0] * len(formats), showlegend=False, hoverinfo="skip"),
            row=1,
            col=2,
        )
        _note(fig, NO_VIOLATIONS, 2)
    fig.update_yaxes(title_text="messages", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="violations", rangemode="tozero", row=1, col=2)
    fig.update_xaxes(title_text="source format", row=1, col=1)
    fig.update_xaxes(title_text="source format", row=1, col=2)
    layout(
        fig,
        "What each source's own policy removed, and the rules it broke",
        barmode="stack",
        meta={"formats": formats, "kinds": kinds},
        height=420,
    )
    return fig
