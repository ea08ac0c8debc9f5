"""The evidence trade-off: what each window configuration saves against the evidence it loses,
with the Pareto front of the configurations that save most while losing least.

Layer: lab. A pure builder: an evidence frame (or its summary) in,
``plotly.graph_objects.Figure`` out (plotly express draws the points).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from footprint_lab.lab.plots._common import COUNTERFACTUAL_SUFFIX, empty_note, layout, values
from footprint_lab.lab.theme import NEUTRAL_MARK, OUTLINE, STRATEGY_COLORS, TEMPLATE

__all__ = ["config_points", "evidence_tradeoff", "pareto_line"]

_AXIS_TITLES = {
    "chars_saved_share": "window characters saved vs no policy",
    "chars_saved": "window characters saved vs no policy",
    "lost_share": "dependent calls sent without their evidence",
    "lost_calls": "dependent calls sent without their evidence",
}


def _evidence_hover(row: Mapping[Any, Any]) -> str:
    """The hover text of one configuration: what it saved, what it lost, what it broke."""
    return (
        f"<b>{row['config']}</b> ({row['strategy']}, pins {row['keep_last_tool_results']})<br>"
        f"saved {row['chars_saved_share']:.1%} of window characters "
        f"({int(row['chars_saved']):,} of {int(row['baseline_window_chars']):,})<br>"
        f"evidence lost on {row['lost_calls']} of {row['dependent_calls']} dependent calls "
        f"({row['lost_share']:.1%})<br>"
        f"wire violations {row['wire_violations']} · windows without the request "
        f"{row['request_lost']} · runs {row['runs']}"
        + (
            f"<br>estimated input cost {row['cost_ratio']:.0%} of no policy · "
            f"{row['cache_share']:.0%} of request characters a cached prefix"
            if pd.notna(row.get("cost_ratio")) and pd.notna(row.get("cache_share"))
            else ""
        )
    )


def config_points(summary: pd.DataFrame, x: str, y: str) -> go.Figure:
    """One marker trace per strategy (in order of appearance), hover naming the configuration;
    pinned configurations are diamonds."""
    names = summary["strategy"].astype(str)
    strategies = list(dict.fromkeys(names.tolist()))
    fig = px.scatter(
        pd.DataFrame(
            {
                "x": summary[x].to_numpy(dtype=np.float64, na_value=np.nan),
                "y": summary[y].to_numpy(dtype=np.float64, na_value=np.nan),
                "strategy": names.to_numpy(dtype=object),
            }
        ),
        x="x",
        y="y",
        color="strategy",
        category_orders={"strategy": strategies},
        color_discrete_sequence=list(STRATEGY_COLORS),
        render_mode="svg",
        template=TEMPLATE,
    )
    for trace in fig.data:
        part = summary[names == trace.name]
        pins = part["keep_last_tool_results"].fillna(0).astype("int64").tolist()
        trace.update(
            x=values(part[x]),
            y=values(part[y]),
            marker={
                "size": 11,
                "symbol": ["diamond" if p else "circle" for p in pins],
                "line": {"width": 1, "color": OUTLINE},
            },
            customdata=part["config"].astype(str).tolist(),
            hovertext=[_evidence_hover(r) for r in part.to_dict("records")],
            hoverinfo="text",
            hovertemplate=None,
        )
    fig.update_layout(legend_title_text=None)
    fig.update_xaxes(title_text=None)
    fig.update_yaxes(title_text=None)
    return fig


def pareto_line(
    summary: pd.DataFrame, x: str, y: str, *, maximize_x: bool = True
) -> tuple[go.Scatter, list[str]]:
    """The ``Pareto front`` line (non-dominated points sorted by x) and its configurations:
    the most ``x`` (or, with ``maximize_x=False``, the least) for the least ``y``."""
    from footprint_lab.lab.evidence import pareto_front

    xs = summary[x].to_numpy(dtype=np.float64, na_value=np.nan)
    mask = pareto_front(
        xs if maximize_x else -xs,
        summary[y].to_numpy(dtype=np.float64, na_value=np.nan),
    )
    front = summary[mask].sort_values([x, y], kind="stable")
    labels = front["config"].astype(str).tolist()
    trace = go.Scatter(
        x=values(front[x]),
        y=values(front[y]),
        name="Pareto front",
        mode="lines",
        line={"color": NEUTRAL_MARK, "width": 1.5, "dash": "dash"},
        customdata=labels,
        hovertemplate="Pareto front: %{customdata}<extra></extra>",
    )
    return trace, labels


def evidence_tradeoff(
    frame: pd.DataFrame, *, x: str = "chars_saved_share", y: str = "lost_share"
) -> go.Figure:
    """What each configuration saves against what it loses: one point per configuration,
    x = window characters saved versus no policy (share, summed over runs), y = share of
    dependent calls whose evidence was lost, and the Pareto front (saving most while losing
    least) drawn as a line.

    Traces: one per strategy name (``x``/``y`` = the summary rows of that strategy, in order,
    hover naming the configuration; pinned configurations are diamonds), then
    ``Pareto front`` (the non-dominated points sorted by x). ``fig.layout.meta`` holds the
    configuration labels on the front, in that order.

    Args:
        frame: :func:`~footprint_lab.lab.evidence_frame` (aggregated here with
            :func:`~footprint_lab.lab.evidence_summary`) or that summary itself.
        x: The summary column on the x axis.
        y: The summary column on the y axis.

    Returns:
        The figure.
    """
    from footprint_lab.lab.evidence import evidence_summary

    summary = frame if "lost_share" in frame.columns else evidence_summary(frame)
    fig = config_points(summary, x, y) if len(summary) else go.Figure()
    front_labels: list[str] = []
    if len(summary):
        front, front_labels = pareto_line(summary, x, y)
        fig.add_trace(front)
    runs = int(summary["runs"].max()) if "runs" in summary.columns and len(summary) else 0
    layout(
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
        empty_note(fig, "no configurations")
    return fig
