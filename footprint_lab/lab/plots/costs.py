"""Cost per call: each call's price split into cached input, uncached input, cache writes and
output.

Layer: lab. A pure builder: a :func:`footprint_lab.lab.costs.cost_frame` in,
``plotly.graph_objects.Figure`` out; estimated rows say so in their hover and are hatched.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from footprint_lab.lab.plots._common import empty_note, layout, values
from footprint_lab.lab.theme import STATE_COLORS

__all__ = ["cost_per_call"]

_PARTS = (
    ("cached_input_cost", "cached input", "in-window"),
    ("input_cost", "uncached input", "pinned"),
    ("cache_write_cost", "cache writes", "frame"),
    ("output_cost", "output", "dropped"),
)


def cost_per_call(costs: pd.DataFrame, *, label: str | None = None) -> go.Figure:
    """Stacked bars per call (x = iteration): what its cached input, uncached input, cache
    writes and output cost. Estimated rows (no provider reported their tokens) are hatched and
    their hover says "estimated".

    Args:
        costs: :func:`footprint_lab.lab.costs.cost_frame` (one run; pass ``label`` to pick one).
        label: The run to draw when the frame holds several.

    Returns:
        The figure.

    Raises:
        ValueError: the frame holds several runs and no ``label`` picks one.
    """
    labels = list(dict.fromkeys(costs["label"].astype(str))) if len(costs) else []
    if label is None and len(labels) > 1:
        raise ValueError(f"cost_per_call draws one run; pass label= one of {labels}")
    rows = costs if label is None else costs[costs["label"].astype(str) == label]
    fig = go.Figure()
    estimated = rows["estimated"].astype(bool).tolist() if len(rows) else []
    hatch = ["/" if e else "" for e in estimated]
    kind = ["estimated" if e else "reported" for e in estimated]
    for column, name, state in _PARTS:
        fig.add_trace(
            go.Bar(
                x=values(rows["iteration"]),
                y=values(rows[column]),
                name=name,
                marker={"color": STATE_COLORS[state], "pattern": {"shape": hatch}},
                customdata=kind,
                hovertemplate=f"iteration %{{x}}<br>{name}: $%{{y:.6f}} (%{{customdata}})"
                "<extra></extra>",
            )
        )
    total = float(rows["total_cost"].sum()) if len(rows) else 0.0
    name = label if label is not None else (labels[0] if labels else "")
    title = f"Cost per call — {name}: ${total:.4f} in all" if name else "Cost per call"
    guessed = sum(estimated)
    if guessed:
        title += (
            " (estimated)"
            if guessed == len(estimated)
            else f" ({guessed} of {len(estimated)} calls estimated)"
        )
    layout(fig, title, barmode="stack", hovermode="x unified")
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="US dollars", rangemode="tozero")
    if not len(rows):
        empty_note(fig, "no calls")
    return fig
