"""Figures in widgets: a plotly figure as a ``FigureWidget``, and the in-place figure differ.

Layer: lab. The widgets wrap the pure builders of :mod:`footprint_lab.lab.plots` in
``go.FigureWidget`` objects (:func:`figure_widget`) and keep them current with
:func:`update_figure`, which changes a widget's traces and layout in place instead of
replacing it, so a notebook view never flickers or loses its zoom, and keeps the theme it
follows (:mod:`footprint_lab.lab._theme_probe`): a figure built in the light template does
not turn a dark chart light.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import plotly.graph_objects as go

from footprint_lab.lab.theme import THEMES, template_for

__all__ = ["figure_widget", "update_figure"]


def figure_widget(fig: go.Figure) -> Any:
    """``fig`` as a ``go.FigureWidget``."""
    return go.FigureWidget(fig)


def _trace_props(trace: Any) -> dict[str, Any]:
    props: dict[str, Any] = trace.to_plotly_json()
    props.pop("uid", None)
    props.pop("type", None)
    return props


@cache
def _lab_templates() -> tuple[dict[str, Any], ...]:
    """The lab's templates (one per theme) as plotly JSON."""
    return tuple(template_for(theme).to_plotly_json() for theme in THEMES)


def _keeps_template(new: Any, current: Any) -> bool:
    """Whether a figure widget keeps its template when given a figure with ``new``: the same,
    or both a theme's template of the lab (the widget's is the theme it follows)."""
    if new == current:
        return True
    lab = _lab_templates()
    return new in lab and current in lab


def update_figure(widget: Any, fig: go.Figure) -> Any:
    """Make ``widget`` (a ``go.FigureWidget``) show ``fig``, in place.

    Traces that keep their position and type get the new properties (stale ones reset) in one
    ``batch_update``; surplus traces are removed and missing ones appended, so a chart whose
    builder adds or drops a trace (a threshold line, removal markers, overlays) stays exact.
    The widget object is never replaced, nor its theme: when both templates are the lab's, the
    widget keeps its own (the front-end's light or dark one). Returns ``widget``.
    """
    new_traces = list(fig.data)
    keep = 0
    limit = min(len(widget.data), len(new_traces))
    while keep < limit and widget.data[keep].type == new_traces[keep].type:
        keep += 1
    if keep < len(widget.data):
        widget.data = widget.data[:keep]
    with widget.batch_update():
        for old, new in zip(widget.data, new_traces[:keep], strict=True):
            props = _trace_props(new)
            for stale in set(_trace_props(old)) - set(props):
                old[stale] = None
            old.update(props, overwrite=True)
        layout: dict[str, Any] = fig.layout.to_plotly_json()
        current: dict[str, Any] = widget.layout.to_plotly_json()
        if _keeps_template(layout.get("template"), current.get("template")):
            layout.pop("template", None)  # unchanged (or themed), and by far the largest part
        for stale in set(current) - set(layout) - {"template"}:
            widget.layout[stale] = None
        widget.layout.update(layout, overwrite=True)
    if keep < len(new_traces):
        widget.add_traces(new_traces[keep:])
    return widget
