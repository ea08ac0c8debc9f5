"""Figures in widgets: a plotly figure as a ``FigureWidget``, and the in-place figure differ.

Layer: lab. The widgets wrap the pure builders of :mod:`footprint_lab.lab.plots` in
``go.FigureWidget`` objects (:func:`figure_widget`) and keep them current with
:func:`update_figure`, which changes a widget's traces and layout in place instead of
replacing it, so a notebook view never flickers or loses its zoom, and keeps the theme it
follows (:mod:`footprint_lab.lab._theme_probe`): a figure built in the light template does
not turn a dark chart light.

A chart that changes while its view may still be drawing (a live Inspector redraws within
moments of its cell, and a chart's first view takes seconds to draw in a busy page) is shown its
new figure by :func:`show_figure`: in place at once when a front-end view has drawn the widget
(:func:`drawn`) or none is drawing it, else as soon as the view has drawn — a change sent to a
view still drawing is lost there. Never a new widget for a new figure: each new
``FigureWidget`` sends plotly's five-megabyte script over the kernel's socket and the page runs
it again, about half a second of the page's time per chart, so a live Inspector that made new
charts at every boundary kept its page busy from one boundary to the next.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import plotly.graph_objects as go

from footprint_lab.lab.theme import THEMES, template_for

__all__ = ["drawn", "figure_widget", "show_figure", "update_figure"]

_DRAWN = "_footprint_drawn"
"""The widget attribute saying a front-end view has drawn it (plotly lets a figure carry
attributes whose names start with an underscore)."""
_PENDING = "_footprint_pending"
"""The widget attribute holding the figure (and what follows it) to show once it is drawn."""


def figure_widget(fig: go.Figure) -> Any:
    """``fig`` as a ``go.FigureWidget``, noting when a front-end view has drawn it
    (:func:`drawn`) and then showing the figure :func:`show_figure` kept for that moment."""
    widget = go.FigureWidget(fig)
    setattr(widget, _DRAWN, False)
    setattr(widget, _PENDING, None)

    def reported(change: Mapping[str, Any]) -> None:
        # plotly's view reports its traces as drawn once ``Plotly.newPlot`` has drawn the
        # chart (its own handler then sets the trait back to None). Its layout report would
        # say the same, but plotly 7.1's view sends it as ``_js2py_widget_layoutDelta``, a
        # name its Python side has no trait for: it never arrives.
        if change["new"] is None or drawn(widget):
            return
        setattr(widget, _DRAWN, True)
        pending = getattr(widget, _PENDING)
        if pending is not None:
            setattr(widget, _PENDING, None)
            show_figure(widget, *pending)

    widget.observe(reported, names="_js2py_traceDeltas")
    return widget


def drawn(widget: Any) -> bool:
    """Whether a front-end view has drawn ``widget`` (made by :func:`figure_widget`)."""
    return bool(getattr(widget, _DRAWN, False))


def show_figure(widget: Any, fig: go.Figure, then: Callable[[Any], None] | None = None) -> None:
    """Make ``widget`` (made by :func:`figure_widget`) show ``fig`` (:func:`update_figure`),
    then call ``then(widget)``: now, when a view has drawn it or no view is drawing it (a view
    made later draws the widget's state as it is then); otherwise once the view has drawn, the
    latest figure kept until then replacing any older one."""
    if drawn(widget) or not getattr(widget, "_view_count", 0):
        setattr(widget, _PENDING, None)  # an older figure kept for a view since removed
        update_figure(widget, fig)
        if then is not None:
            then(widget)
    else:
        setattr(widget, _PENDING, (fig, then))


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
