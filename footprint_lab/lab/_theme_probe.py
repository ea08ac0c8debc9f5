"""Charts in the front-end's theme: they turn dark when JupyterLab does.

Layer: lab (beneath the widgets and the figure builders, which both use it). A plotly
``FigureWidget`` draws with the template its Python object holds, whatever the page around it
looks like, so in JupyterLab Dark every chart would be a white box. Plotly
has no hook for that; what the front-end knows, the kernel must be told. :class:`ThemeProbe`
is an invisible anywidget (``theme_probe.js``) each lab widget carries, and each figure of
:mod:`footprint_lab.lab.plots` shown in a notebook
(:class:`~footprint_lab.lab.plots.LabFigure`): in the page it reads the theme — JupyterLab and
Notebook 7 set ``data-jp-theme-light`` on ``<body>``, VS Code sets ``data-vscode-theme-kind`` —
and watches it (a ``MutationObserver``), and syncs ``"light"`` or ``"dark"`` to its ``theme``
trait. :func:`follow_theme` re-templates every ``FigureWidget`` of the widget
(:func:`~footprint_lab.lab.theme.template_for`) whenever the trait changes, and
:func:`~footprint_lab.lab.widgets.update_figure` keeps a figure's theme across redraws.

The tables and panes need none of this: their colours are JupyterLab's CSS variables
(:data:`~footprint_lab.lab.theme.THEMED`). With no front-end (a script, nbval) the trait stays
``"light"`` and nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets

from footprint_lab.lab.theme import THEMES, Theme, template_for

__all__ = ["PROBE_SCRIPT", "ThemeProbe", "follow_theme", "probe_script", "retheme"]

PROBE_SCRIPT = "theme_probe.js"
"""The probe's front-end script: a file of this package."""


@cache
def probe_script() -> str:
    """The text of :data:`PROBE_SCRIPT`.

    Raises:
        FileNotFoundError: the file is not in the installed package (reinstall footprint-lab).
    """
    source = resources.files(__name__.rpartition(".")[0]).joinpath(PROBE_SCRIPT)
    if not source.is_file():
        raise FileNotFoundError(
            f"{PROBE_SCRIPT} is missing from {source}: charts cannot follow the front-end's "
            "theme; reinstall footprint-lab (the file ships inside footprint_lab/lab)"
        )
    return source.read_text(encoding="utf-8")


class ThemeProbe(anywidget.AnyWidget):
    """An invisible widget that tells the kernel the front-end's theme (``theme``: ``"light"``
    or ``"dark"``), and tells it again whenever it changes."""

    _esm = probe_script()
    theme = traitlets.Unicode("light").tag(sync=True)
    """The front-end's theme, as the page last said."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(layout=widgets.Layout(width="0px", height="0px", margin="0px"), **kwargs)


def retheme(figure: Any, theme: Theme) -> None:
    """Give ``figure`` (a ``go.Figure`` or ``FigureWidget``) the template of ``theme``, unless it
    has it already (a FigureWidget would send the whole template to the front-end again).

    Raises:
        ValueError: ``theme`` is not one of :data:`~footprint_lab.lab.theme.THEMES`.
    """
    template = template_for(theme)
    if figure.layout.template != template:
        figure.layout.template = template


def follow_theme(widget: Any, figures: Callable[[], Iterable[Any]]) -> ThemeProbe:
    """Make the charts of ``widget`` (a lab widget: a ``VBox``) follow the front-end's theme:
    append a :class:`ThemeProbe` to its children and re-template the ``figures()`` (asked
    anew each time, so figures added later count) whenever the probe's ``theme`` changes.
    Returns the probe."""
    probe = ThemeProbe()

    def on_theme(change: Mapping[str, Any]) -> None:
        theme = str(change["new"])
        if theme not in THEMES:  # a page that says something else: keep what is drawn
            return
        for figure in figures():
            retheme(figure, theme)

    probe.observe(on_theme, names="theme")
    widget.children = (*widget.children, probe)
    return probe
