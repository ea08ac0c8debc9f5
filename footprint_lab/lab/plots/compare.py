"""The comparison chart: several runs' window size on one chart, one line per run.

Layer: lab. A pure builder: frames (or a stacked calls frame) in, ``plotly.graph_objects.Figure``
out. Counterfactual replays are drawn dashed and say so. Two runs that sent exactly the same
(two strategies that behaved the same) stay apart: the later line is dotted, with its own
markers, and named ``"<label> (identical to <first>)"``, and the first one's legend entry says
which lines it stands for, ``"<first> (also <label>)"``. The y axis ticks at round numbers.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._common import (
    COUNTERFACTUAL_SUFFIX,
    WEBGL_THRESHOLD,
    is_counterfactual,
    layout,
    round_ticks,
    scatter_class,
    values,
)
from footprint_lab.lab.theme import RUN_COLORS

__all__ = ["compare"]

Source = Mapping[str, Frames] | Frames | pd.DataFrame
"""What :func:`compare` accepts."""


def _counterfactual_runs(source: Source) -> set[str]:
    """Labels of the runs that are counterfactual replays (unknown for a bare calls frame)."""
    if isinstance(source, Mapping):
        return {str(label) for label, f in source.items() if is_counterfactual(f)}
    if isinstance(source, Frames):
        by_run = source.info.get("by_run")
        if by_run:
            return {str(k) for k, i in by_run.items() if i.get("counterfactual")}
        if is_counterfactual(source):
            return {str(source.info.get("label") or "run")}
    return set()


def _calls_by_run(source: Source) -> dict[str, pd.DataFrame]:
    """Each run's ``calls`` frame by label, in the order the runs come."""
    if isinstance(source, Mapping):
        return {str(label): frames.calls for label, frames in source.items()}
    calls = source.calls if isinstance(source, Frames) else source
    if "run" not in calls.columns:
        label = source.info.get("label") if isinstance(source, Frames) else None
        return {str(label or "run"): calls}
    order = list(dict.fromkeys(calls["run"].astype(str).tolist()))
    return {label: calls[calls["run"] == label] for label in order}


def _what(metric: str) -> str:
    """The words for ``metric`` on the axis and in the title."""
    return "characters sent" if metric == "chars" else metric.replace("_", " ")


def _title(metric: str, replays: set[str], labels: set[str]) -> str:
    """The title; it says which runs are counterfactual replays."""
    title = f"Window size by run ({_what(metric)})"
    if replays and replays >= labels:
        title += COUNTERFACTUAL_SUFFIX
    elif replays:
        title += " (dashed: counterfactual replay)"
    return title


def compare(source: Source, *, metric: str = "chars") -> go.Figure:
    """Several runs' window size on one chart: one line per run, x = iteration,
    y = ``calls[metric]`` (``"chars"`` sent, or ``"input_tokens"`` reported). Counterfactual
    replays are drawn dashed and say so in their hover and in the title.

    Args:
        source: ``{label: frames}``, a ``capture_many`` result, or a calls frame with a
            ``run`` column.
        metric: The ``calls`` column to plot.

    Returns:
        The figure (one trace per run, named by its label; a run identical to an earlier one
        is named ``"<label> (identical to <earlier>)"`` and drawn dotted with markers, and the
        earlier one ``"<earlier> (also <label>)"``).
    """
    by_run = _calls_by_run(source)
    points = sum(len(c) for c in by_run.values())
    scatter = scatter_class(points)
    big = points > WEBGL_THRESHOLD
    fig = go.Figure()
    replays = _counterfactual_runs(source)
    for i, (label, calls) in enumerate(by_run.items()):
        replayed = label in replays
        note = COUNTERFACTUAL_SUFFIX if replayed else ""
        fig.add_trace(
            scatter(
                x=values(calls["iteration"]),
                y=values(calls[metric]),
                name=label,
                mode="lines" if big else "lines+markers",
                line={
                    "color": RUN_COLORS[i % len(RUN_COLORS)],
                    "width": 2,
                    "dash": "dash" if replayed else "solid",
                },
                hovertemplate=f"%{{fullData.name}}{note}<br>iteration %{{x}}<br>%{{y:,}} "
                f"{metric}<extra></extra>",
            )
        )
    layout(fig, _title(metric, replays, set(by_run)), hovermode="x unified")
    fig.update_xaxes(title_text="iteration")
    peak = max((c[metric].max() for c in by_run.values() if len(c)), default=None)
    fig.update_yaxes(
        title_text=_what(metric),
        rangemode="tozero",
        **round_ticks(None if peak is None or pd.isna(peak) else float(peak)),
    )
    return fig
