"""The cost/evidence frontier of a grid over a corpus, with every run of it behind.

Layer: lab. A pure builder: an evidence grid's frame (one row per run × configuration, as
``corpus.evidence_frame`` writes it back) in, ``plotly.graph_objects.Figure`` out. It is the
policy frontier (:func:`~footprint_lab.lab.plots.policy_frontier`: one point per
configuration, summed over the runs, and the Pareto front) over a faint cloud of the runs
themselves, one point per run × configuration, so a point of the cloud names one run (its
``customdata``) — what a click on the overview opens.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from footprint_lab.lab.plots._common import scatter_class
from footprint_lab.lab.plots.policy_frontier import policy_frontier
from footprint_lab.lab.theme import NEUTRAL_MARK

__all__ = ["RUNS_TRACE", "corpus_frontier", "run_lost_share", "worst_runs"]

RUNS_TRACE = "runs (one point per run × configuration)"
"""The name of the cloud's trace (always the figure's first)."""


def run_lost_share(frame: pd.DataFrame) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Each row's share of dependent calls sent without their evidence (NaN without any)."""
    dependent = frame["dependent_calls"].to_numpy(dtype=np.float64, na_value=np.nan)
    lost = frame["lost_calls"].to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        share: np.ndarray[Any, np.dtype[np.float64]] = np.where(
            dependent > 0, lost / np.where(dependent > 0, dependent, 1.0), np.nan
        )
    return share


def worst_runs(frame: pd.DataFrame) -> dict[str, str]:
    """For each configuration, the run that lost the most dependent calls under it (the first
    such in the frame's order; the first run when none lost any): the run that explains a
    configuration's point."""
    out: dict[str, str] = {}
    for config, part in frame.groupby("config", sort=False, observed=True):
        lost = part["lost_calls"].fillna(0).astype("int64").to_numpy()
        out[str(config)] = str(part["run"].iloc[int(np.argmax(lost))]) if len(part) else ""
    return out


def corpus_frontier(frame: pd.DataFrame) -> go.Figure:
    """The policy frontier of an evidence grid over a corpus, the runs behind it.

    Traces: first :data:`RUNS_TRACE` — one point per run × configuration with a cost ratio
    and at least one dependent call, x = ``cost_ratio``, y = its lost share, ``customdata``
    = ``[run id, configuration]`` — then the policy frontier's (one trace per strategy whose
    ``customdata`` is the configuration, then the Pareto front). ``fig.layout.meta`` holds
    ``pareto`` (the front's configurations), ``worst_run`` (:func:`worst_runs`), ``runs``
    (distinct runs in the grid) and ``points`` / ``undrawn`` (rows drawn in the cloud, and
    those without a cost ratio or a dependent call).

    Args:
        frame: The evidence frame (``run``, ``config``, ``strategy``,
            ``keep_last_tool_results``, ``dependent_calls``, ``lost_calls``, ``cost_ratio``
            and the rest of :func:`~footprint_lab.lab.evidence_frame`'s columns).

    Returns:
        The figure.
    """
    fig = policy_frontier(frame)
    share = run_lost_share(frame)
    cost = frame["cost_ratio"].to_numpy(dtype=np.float64, na_value=np.nan)
    drawn = ~np.isnan(share) & ~np.isnan(cost)
    part = frame[drawn]
    runs = part["run"].astype(str).tolist()
    configs = part["config"].astype(str).tolist()
    cloud = scatter_class(int(drawn.sum()))(
        x=cost[drawn].tolist(),
        y=share[drawn].tolist(),
        name=RUNS_TRACE,
        mode="markers",
        marker={"size": 6, "color": NEUTRAL_MARK, "opacity": 0.35},
        customdata=[[r, c] for r, c in zip(runs, configs, strict=True)],
        hovertemplate=(
            "run %{customdata[0]}<br>%{customdata[1]}<br>cost %{x:.0%} of no policy · "
            "evidence lost on %{y:.0%} of its dependent calls<br>click: open this run"
            "<extra></extra>"
        ),
    )
    fig.add_trace(cloud)
    fig.data = (fig.data[-1], *fig.data[:-1])  # the cloud underneath the configurations
    distinct = int(frame["run"].nunique()) if len(frame) else 0
    meta = dict(fig.layout.meta or {})
    meta.update(
        worst_run=worst_runs(frame),
        runs=distinct,
        points=int(drawn.sum()),
        undrawn=int((~drawn).sum()),
    )
    configs_count = int(frame["config"].nunique()) if len(frame) else 0
    fig.update_layout(
        meta=meta,
        title_text=(
            f"Cost/evidence frontier — {configs_count} configurations over {distinct} runs "
            "(counterfactual replays; click a point to open its run)"
        ),
    )
    return fig
