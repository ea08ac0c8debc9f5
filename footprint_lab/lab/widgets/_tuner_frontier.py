"""The Tuner's frontier pane: the grid of its sliders' values, each setting replayed and placed
by what it costs against the evidence it loses, and the setting a clicked point stands for.

Layer: lab (private, for :mod:`footprint_lab.lab.widgets.tuner`). The grid is an
:func:`~footprint_lab.lab.evidence_frame` of :class:`~footprint_lab.lab.evidence.EvidenceConfig`
objects, one per setting, aggregated by :func:`~footprint_lab.lab.evidence_summary` and drawn
by :func:`~footprint_lab.lab.plots.policy_frontier` — the same chart notebook 10 draws — plus a
marker on the current setting.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from footprint_lab.agent.run import Run
from footprint_lab.lab.evidence import EvidenceConfig, evidence_frame, evidence_summary
from footprint_lab.lab.plots import policy_frontier
from footprint_lab.lab.widgets._tuner_knobs import PIN_KNOB, format_config, with_knobs
from footprint_lab.pricing import CacheRule, Pricing
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies import WindowStrategy

__all__ = ["CURRENT", "FRONTIER_VALUES", "Frontier", "grid_values", "setting_grid"]

FRONTIER_VALUES = 3
"""How many values of each slider the frontier's grid takes by default (its ends and evenly
between, on the slider's steps)."""

CURRENT = "current setting"
"""The name of the frontier's trace that marks the sliders' setting."""


def grid_values(low: Any, high: Any, step: Any, count: int) -> list[Any]:
    """``count`` values from ``low`` to ``high`` (both ends included), evenly spread and each on
    the slider's steps; fewer when the range holds fewer steps."""
    if count <= 1 or high <= low:
        return [low]
    steps = math.floor((high - low) / step + 1e-9)  # whole steps that stay within the range
    picks = sorted({round(i * steps / (count - 1)) for i in range(count)})
    whole = all(isinstance(v, int) for v in (low, high, step))
    return [int(low + k * step) if whole else round(low + k * step, 10) for k in picks]


def setting_grid(ranges: Mapping[str, tuple[Any, Any, Any]], count: int) -> list[dict[str, Any]]:
    """Every setting of the grid: the cartesian product of :func:`grid_values` of each knob's
    ``(min, max, step)``, in the order the knobs are given."""
    keys = list(ranges)
    axes = [grid_values(*ranges[k], count) for k in keys]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*axes)]


@dataclass(frozen=True)
class Frontier:
    """One drawn frontier: its settings by label, the evidence summary and the figure."""

    settings: dict[str, dict[str, Any]]
    """Configuration label (``format_config`` of the setting) -> the setting."""
    summary: pd.DataFrame
    """:func:`~footprint_lab.lab.evidence_summary` of the grid, a row per setting."""
    figure: go.Figure
    """:func:`~footprint_lab.lab.plots.policy_frontier` of it, and the current setting."""
    refused: dict[str, str]
    """Settings of the grid the strategy refused (label -> why): not drawn."""

    @classmethod
    def draw(
        cls,
        runs: Mapping[str, Run],
        base: WindowStrategy,
        grid: Sequence[Mapping[str, Any]],
        *,
        pricing: Pricing | None,
        cache: CacheRule,
    ) -> Frontier:
        """Replay ``runs`` under every setting of ``grid`` and draw the frontier."""
        settings: dict[str, dict[str, Any]] = {}
        configs: list[EvidenceConfig] = []
        refused: dict[str, str] = {}
        for setting in grid:
            label = format_config(setting)
            knobs = {k: v for k, v in setting.items() if k != PIN_KNOB}
            try:
                strategy = with_knobs(base, knobs)
            except (WindowConfigError, TypeError, ValueError) as exc:
                refused[label] = str(exc)  # a setting the strategy refuses is no point
                continue
            settings[label] = dict(setting)
            configs.append(
                EvidenceConfig(
                    label=label,
                    strategy=strategy,
                    keep_last_tool_results=int(setting.get(PIN_KNOB, 2)),
                    knobs=knobs,
                )
            )
        frame = evidence_frame(runs, configs, progress=False, pricing=pricing, cache=cache)
        summary = evidence_summary(frame)
        figure = policy_frontier(summary)
        for trace in figure.data:
            if trace.name == "Pareto front":  # its points are settings too: clickable
                trace.customdata = list(figure.layout.meta["pareto"])
        figure.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                name=CURRENT,
                mode="markers",
                marker={"size": 18, "symbol": "circle-open", "line": {"width": 3}},
                hoverinfo="skip",
            )
        )
        return cls(settings, summary, figure, refused)

    def setting_of(self, trace: Any, index: int) -> dict[str, Any] | None:
        """The setting a point of ``trace`` stands for (its ``customdata`` names the
        configuration), or None for a point that is no setting (the current marker)."""
        custom = getattr(trace, "customdata", None)
        if custom is None or not 0 <= index < len(custom):
            return None
        label = custom[index]
        if isinstance(label, list | tuple | np.ndarray):  # plotly may keep a row per point
            label = label[0]
        return self.settings.get(str(label))
