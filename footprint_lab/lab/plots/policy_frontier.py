"""The policy frontier: what each configuration costs against the evidence it loses.

Layer: lab. A pure builder: an evidence frame (or its summary) in,
``plotly.graph_objects.Figure`` out; the points and the front are drawn as in
:mod:`.evidence_tradeoff`, with the estimated input cost (relative to no policy, the prefix
cache counted) on the x axis, so the front is the configurations that cost least for the least
evidence lost.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from footprint_lab.lab.plots._common import COUNTERFACTUAL_SUFFIX, empty_note, layout
from footprint_lab.lab.plots.evidence_tradeoff import config_points, pareto_line

__all__ = ["policy_frontier"]


def policy_frontier(frame: pd.DataFrame) -> go.Figure:
    """Estimated input cost relative to no policy (x, ``cost_ratio``) against the share of
    dependent calls sent without their evidence (y, ``lost_share``): one point per
    configuration (hover naming it, with its cache-reusable share), and the Pareto front of
    the configurations no other beats on both. ``fig.layout.meta["pareto"]`` lists the front's
    configurations.

    Args:
        frame: :func:`~footprint_lab.lab.evidence_frame` (aggregated here with
            :func:`~footprint_lab.lab.evidence_summary`) or that summary.

    Returns:
        The figure.
    """
    from footprint_lab.lab.evidence import evidence_summary

    summary = frame if "lost_share" in frame.columns else evidence_summary(frame)
    fig = config_points(summary, "cost_ratio", "lost_share") if len(summary) else go.Figure()
    labels: list[str] = []
    if len(summary):
        front, labels = pareto_line(summary, "cost_ratio", "lost_share", maximize_x=False)
        fig.add_trace(front)
    layout(
        fig,
        f"Policy frontier — cost against evidence, {len(summary)} configurations"
        + COUNTERFACTUAL_SUFFIX,
        hovermode="closest",
        meta={"pareto": labels},
        height=480,
    )
    fig.update_xaxes(
        title_text="estimated input cost vs no policy (prefix cache counted)", tickformat=".0%"
    )
    fig.update_yaxes(
        title_text="dependent calls sent without their evidence",
        rangemode="tozero",
        tickformat=".0%",
    )
    if not len(summary):
        empty_note(fig, "no configurations")
    return fig
