"""Every ``plots.*`` figure is a :class:`~footprint_lab.lab.plots.LabFigure`: shown in a Jupyter
kernel, its output holds plotly's own JSON and a widget view of a chart that follows the
front-end's theme; anywhere else, plotly's output unchanged. (In a real JupyterLab, light and
dark, with every figure: ``test_jupyterlab_themes_browser.py``.)"""

from __future__ import annotations

from collections.abc import Iterator

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from footprint_lab import Run
from footprint_lab.lab import capture, plots
from footprint_lab.lab._theme_probe import ThemeProbe
from footprint_lab.lab.plots import _figure
from footprint_lab.lab.plots._figure import PLOTLY_JSON, WIDGET_VIEW, as_lab_figure
from footprint_lab.lab.theme import template_for


@pytest.fixture
def in_kernel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As inside a Jupyter kernel, under plotly's default renderer there."""
    monkeypatch.setattr(_figure, "in_widget_kernel", lambda: True)
    before = pio.renderers.default
    pio.renderers.default = "plotly_mimetype"
    try:
        yield
    finally:
        pio.renderers.default = before


@pytest.fixture(scope="module")
def figure(scenario_runs: dict[tuple[str, str], Run]) -> plots.LabFigure:
    fig = plots.window_size(capture(scenario_runs[("screen-driver", "sliding-window")]))
    assert isinstance(fig, plots.LabFigure)
    return fig


def test_outside_a_kernel_the_output_is_plotlys(figure: plots.LabFigure) -> None:
    assert not _figure.in_widget_kernel()  # pytest is no kernel
    before = pio.renderers.default
    pio.renderers.default = "plotly_mimetype"
    try:
        bundle = figure._repr_mimebundle_()
        assert bundle == go.Figure(figure)._repr_mimebundle_()
        assert WIDGET_VIEW not in bundle
    finally:
        pio.renderers.default = before


def test_in_a_kernel_the_output_adds_a_themed_widget(
    figure: plots.LabFigure, in_kernel: None
) -> None:
    bundle = figure._repr_mimebundle_()
    assert set(bundle) == {PLOTLY_JSON, WIDGET_VIEW}
    assert bundle[PLOTLY_JSON] == go.Figure(figure)._repr_mimebundle_()[PLOTLY_JSON]
    box = figure.themed()
    try:
        chart, probe = box.children
        assert isinstance(chart, go.FigureWidget) and isinstance(probe, ThemeProbe)
        assert "footprint-figure" in box._dom_classes
        assert chart.layout.template == template_for("light")
        probe.theme = "dark"  # what the page says in JupyterLab Dark
        assert chart.layout.template == template_for("dark")
        assert figure.layout.template == template_for("light")  # the figure itself unchanged
        probe.theme = "light"
        assert chart.layout.template == template_for("light")
        drawn = [{k: v for k, v in t.items() if k != "uid"} for t in chart.to_dict()["data"]]
        assert drawn == figure.to_dict()["data"]  # the same traces (a widget adds their uids)
    finally:
        box.close_all()


def test_a_renderer_that_writes_no_figure_json_is_left_alone(
    figure: plots.LabFigure, in_kernel: None
) -> None:
    pio.renderers.default = "json"
    bundle = figure._repr_mimebundle_()
    assert WIDGET_VIEW not in bundle and "application/json" in bundle


def test_as_lab_figure_changes_a_plain_figure_in_place_and_nothing_else() -> None:
    plain = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    assert as_lab_figure(plain) is plain and type(plain) is plots.LabFigure
    assert plain.to_dict()["data"][0]["y"] == [3, 4]  # the same figure, not a copy
    widget = go.FigureWidget()
    try:
        assert as_lab_figure(widget) is widget and not isinstance(widget, plots.LabFigure)
    finally:
        widget.close()
