"""The figure every ``plots.*`` builder returns: a plotly ``Figure`` that, shown in a notebook,
follows the front-end's light or dark theme.

Layer: lab (plots). Plotly's JupyterLab renderer draws a figure's JSON with the template the
JSON holds, whatever the page around it looks like, so in JupyterLab Dark a figure built with
the light template stays a white box, and nothing in plotly's output can ask the page its
theme. A :class:`LabFigure` shown in a Jupyter kernel therefore adds a widget view to plotly's
own output: a ``FigureWidget`` of the same figure beside the lab's theme probe
(:mod:`footprint_lab.lab._theme_probe`), which re-templates it to the theme the page says, and
again whenever it changes. A front-end with widgets draws that; one without (a saved notebook
on GitHub, nbconvert, the docs site) draws plotly's JSON, which is still there. Outside a
kernel, with a renderer chosen by name (``fig.show("png")``) or with plotly's default renderer
set to one that writes no figure JSON (``"png"``, ``"svg"``, ``"browser"`` ...), plotly's
output is left exactly as plotly makes it.
"""

from __future__ import annotations

from typing import Any, cast

import plotly.graph_objects as go
import plotly.io as pio

__all__ = ["PLOTLY_JSON", "WIDGET_VIEW", "LabFigure", "as_lab_figure", "in_widget_kernel"]

PLOTLY_JSON = "application/vnd.plotly.v1+json"
"""The MIME type of plotly's figure JSON (what JupyterLab's plotly renderer draws)."""

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
"""The MIME type of a widget view (what a front-end with widgets draws first)."""


def in_widget_kernel() -> bool:
    """True inside a Jupyter kernel (IPython with a kernel), where a widget can be shown."""
    try:
        from IPython import get_ipython
    except ImportError:  # IPython comes with the lab's widgets; a bare install may lack it
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class LabFigure(go.Figure):  # type: ignore[misc]
    """A ``go.Figure`` that follows the notebook's light or dark theme when shown.

    Everything else is plotly's: build, update, write and export it as any figure. Shown in a
    Jupyter kernel under a renderer that writes figure JSON (plotly's default there), its
    output holds both plotly's JSON and a widget view: a ``FigureWidget`` of this figure that
    takes the lab's dark template in a dark front-end (:func:`themed`). Each showing makes a new
    widget from the figure as it is then.
    """

    def themed(self) -> Any:
        """A widget showing this figure in the front-end's theme: an ``ipywidgets.VBox`` of a
        ``go.FigureWidget`` (a copy of this figure) and the theme probe that re-templates it."""
        import ipywidgets as widgets

        from footprint_lab.lab._theme_probe import follow_theme

        chart = go.FigureWidget(self)
        box = widgets.VBox([chart])
        box.add_class("footprint-figure")
        follow_theme(box, lambda: [chart])
        return box

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, validate: bool = True, **kwargs: Any
    ) -> dict[str, Any]:
        bundle: dict[str, Any] = super()._repr_mimebundle_(include, exclude, validate, **kwargs)
        if PLOTLY_JSON not in bundle or not in_widget_kernel():
            return bundle
        view = self.themed()._repr_mimebundle_()
        return {**bundle, WIDGET_VIEW: view[WIDGET_VIEW]}

    def _ipython_display_(self) -> None:
        if not (pio.renderers.render_on_display and pio.renderers.default):
            super()._ipython_display_()
            return
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)  # type: ignore[no-untyped-call]

    def show(self, *args: Any, **kwargs: Any) -> None:
        """Show the figure: with no renderer named, in a Jupyter kernel, as the cell's value
        is shown (themed); otherwise as plotly's ``Figure.show`` does."""
        if args or kwargs or not in_widget_kernel():
            super().show(*args, **kwargs)
            return
        self._ipython_display_()


def as_lab_figure(fig: go.Figure) -> LabFigure:
    """``fig`` as a :class:`LabFigure`, in place (no copy: a builder's figure may hold 100,000
    cells). A figure of another subclass (a ``FigureWidget``) is left as it is."""
    if type(fig) is go.Figure:
        # LabFigure adds methods only, no state: the object is the same figure either way
        fig.__class__ = LabFigure
    return cast(LabFigure, fig)
