"""Helpers every chart shares: titles, the lab layout, empty-figure notes, the WebGL switch,
single-run selection, counterfactual detection and the hover text of a record.

Layer: lab. Pure functions of frames and figures; nothing here reads a run, a file or a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._theme import MUTED, TEMPLATE

__all__ = [
    "COUNTERFACTUAL_SUFFIX",
    "WEBGL_THRESHOLD",
    "empty_note",
    "is_counterfactual",
    "layout",
    "removal_summary",
    "scatter_class",
    "single",
    "title_of",
    "truncate",
    "values",
]

WEBGL_THRESHOLD = 5000
"""Above this many scatter points in one figure, traces are ``go.Scattergl``."""

COUNTERFACTUAL_SUFFIX = " (counterfactual replay)"
"""Appended to the title of every figure of a counterfactual run (``replay``): its replies are
the original run's, not what a model would have said to that window."""


def layout(fig: go.Figure, title: str, **extra: Any) -> go.Figure:
    """Give ``fig`` its title and the lab template (font, margins, legend placement).

    Args:
        fig: The figure to lay out, in place.
        title: The title text (left-aligned, in the top margin).
        **extra: Further ``update_layout`` keywords (height, meta, barmode, ...).

    Returns:
        ``fig``.
    """
    fig.update_layout(title={"text": title}, template=TEMPLATE, **extra)
    return fig


def empty_note(fig: go.Figure, text: str) -> None:
    """Replace the axes of an empty figure with a centred note saying why it is empty.

    Args:
        fig: The figure, changed in place.
        text: What the note says (e.g. ``"no pins on any visit"``).
    """
    fig.add_annotation(
        text=text,
        showarrow=False,
        xref="paper",
        yref="paper",
        x=0.5,
        y=0.5,
        font={"size": 14, "color": MUTED},
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(height=200)


def scatter_class(points: int) -> Any:
    """``go.Scattergl`` above :data:`WEBGL_THRESHOLD` points in a figure, else ``go.Scatter``.

    Args:
        points: How many scatter points the whole figure holds.

    Returns:
        The trace class to build the figure's scatter traces with.
    """
    return go.Scattergl if points > WEBGL_THRESHOLD else go.Scatter


def values(series: pd.Series) -> list[Any]:
    """A column as plain Python values, <NA> as None (what plotly serialises as null).

    Args:
        series: The frame column.

    Returns:
        Its values as a list.
    """
    return [None if pd.isna(v) else v for v in series.tolist()]


def single(frames: Frames, what: str) -> Frames:
    """The frames of one run, or a ``ValueError`` naming the builder when they stack several.

    Args:
        frames: The frames a one-run chart was given.
        what: The builder's name, for the message.

    Returns:
        ``frames``.

    Raises:
        ValueError: The frames stack more than one run.
    """
    runs = frames.calls["run"].unique().tolist() if "run" in frames.calls.columns else []
    if len(runs) > 1:
        raise ValueError(
            f"{what} shows one run; these frames stack {len(runs)} runs ({runs[:3]}...). "
            "Use plots.compare(...) or select one run first."
        )
    return frames


def is_counterfactual(frames: Frames) -> bool:
    """Whether the frames show a counterfactual replay (for stacked frames: every run is).

    Args:
        frames: Frames of one run or of several stacked.

    Returns:
        True when the run (every stacked run) is a counterfactual replay.
    """
    if "counterfactual" in frames.info:
        return bool(frames.info["counterfactual"])
    by_run = frames.info.get("by_run") or {}
    return bool(by_run) and all(bool(i.get("counterfactual")) for i in by_run.values())


def title_of(frames: Frames, what: str) -> str:
    """The title of a one-run chart: ``"{what} — {label}"``, marked when counterfactual.

    Args:
        frames: The chart's frames (their label, strategy or run names name the chart).
        what: The chart's name.

    Returns:
        The title text.
    """
    runs = ", ".join(str(r) for r in frames.info.get("runs", []))
    label = frames.info.get("label") or frames.info.get("strategy") or runs or "no strategy"
    suffix = COUNTERFACTUAL_SUFFIX if is_counterfactual(frames) else ""
    return f"{what} — {label}{suffix}"


def truncate(text: str, items: int = 4) -> str:
    """A comma-separated list cut to its first ``items`` entries, saying how many more.

    Args:
        text: Entries separated by ``", "``.
        items: How many entries to keep.

    Returns:
        The shortened list, or ``"–"`` when it is empty.
    """
    parts = [p for p in text.split(", ") if p]
    if len(parts) <= items:
        return ", ".join(parts) or "–"
    return ", ".join(parts[:items]) + f", … (+{len(parts) - items} more)"


def removal_summary(row: Mapping[str, Any]) -> str:
    """The hover text of one record: removed count, stage ids (truncated), refusals.

    Args:
        row: One row of ``frames.records`` as a mapping.

    Returns:
        The hover text (HTML line breaks).
    """
    reasons = row.get("refusal_reasons") or ""
    return (
        f"iteration {row['iteration']} · {row['strategy']}<br>"
        f"removed {row['removed_message_count']} message(s): "
        f"{truncate(str(row.get('removed_stage_ids') or ''))}<br>"
        f"chars {row['window_chars_before']} → {row['window_chars_after']}<br>"
        f"refusals: {truncate(str(reasons), 6)}"
    )
