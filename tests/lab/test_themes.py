"""The two themes in Python: the templates, the widgets' theme probe re-templating every chart
(in tabs too, and across redraws), and the report's themed stylesheet. (The front-end side —
the probe reading JupyterLab's theme, the report's switch — is checked in Chromium:
``test_themes_browser.py``, ``test_jupyterlab_themes_browser.py``.)"""

from __future__ import annotations

import re

import plotly.io as pio
import pytest

from footprint_lab import Run
from footprint_lab.lab import Compare, Inspector, Tuner, plots
from footprint_lab.lab._theme_probe import ThemeProbe, retheme
from footprint_lab.lab.frames import capture
from footprint_lab.lab.report import render_report
from footprint_lab.lab.theme import (
    PAGE_COLORS,
    PAGE_DARK_COLORS,
    TEMPLATE,
    TEMPLATES,
    THEMES,
    build_template,
    template_for,
)
from footprint_lab.lab.widgets import update_figure
from footprint_lab.scenarios import SCENARIOS


@pytest.fixture(scope="module")
def audit_run() -> Run:
    scenario = SCENARIOS["deploy-audit"]()
    return scenario.run(scenario.strategies()["sliding-window"])


def _hex_luminance(color: str) -> float:
    r, g, b = (int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted([_hex_luminance(a), _hex_luminance(b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_each_theme_has_a_registered_template_with_the_same_layout() -> None:
    assert THEMES == ("light", "dark") and TEMPLATES["light"] == TEMPLATE
    light, dark = template_for("light"), template_for("dark")
    assert pio.templates[TEMPLATES["dark"]] is dark
    assert dark.layout.paper_bgcolor == PAGE_DARK_COLORS["surface"]
    assert _contrast(dark.layout.font.color, dark.layout.paper_bgcolor) >= 7
    # what places things is the same in both: a chart keeps its layout when it changes theme
    for key in ("font.family", "margin", "legend", "title.x", "colorway"):
        path = key.split(".")
        values = []
        for template in (light, dark):
            value = template.layout
            for part in path:
                value = value[part]
            values.append(value.to_plotly_json() if hasattr(value, "to_plotly_json") else value)
        assert values[0] == values[1], key
    assert build_template("dark").to_plotly_json() == dark.to_plotly_json()
    with pytest.raises(ValueError, match="no theme 'sepia'; themes: light, dark"):
        template_for("sepia")  # type: ignore[arg-type]


def test_page_colours_of_both_themes_share_their_roles_and_read_well() -> None:
    assert set(PAGE_COLORS) == set(PAGE_DARK_COLORS)
    for colors in (PAGE_COLORS, PAGE_DARK_COLORS):
        for surface in ("background", "surface", "header"):
            assert _contrast(colors["text"], colors[surface]) >= 7, (surface, colors)
            assert _contrast(colors["muted"], colors[surface]) >= 4.5, (surface, colors)
        assert _contrast(colors["link"], colors["background"]) >= 4.5
        assert _contrast(colors["badge-text"], colors["badge-background"]) >= 4.5
        assert _contrast(colors["truncated-text"], colors["truncated-background"]) >= 4.5


def test_the_probe_retemplates_every_chart_of_a_widget(audit_run: Run) -> None:
    inspector = Inspector(audit_run)
    compare = Compare({"a": audit_run, "b": audit_run})
    try:
        for widget in (inspector, compare):
            probe = widget.theme_probe
            assert isinstance(probe, ThemeProbe) and probe in widget.children
            assert probe.theme == "light"
            charts = widget._figure_widgets()
            assert len(charts) == len(widget.figures) + len(getattr(widget, "maps", {}))
            assert all(c.layout.template == template_for("light") for c in charts)
            probe.theme = "dark"  # what the front-end says in JupyterLab Dark
            assert all(c.layout.template == template_for("dark") for c in charts)
            probe.theme = "no such theme"  # a page saying something else changes nothing
            assert all(c.layout.template == template_for("dark") for c in charts)
            probe.theme = "light"
            assert all(c.layout.template == template_for("light") for c in charts)
        # the maps sit in Compare's tabs, and follow too
        assert set(map(id, compare.maps.values())) <= set(map(id, compare._figure_widgets()))
    finally:
        inspector.close()
        compare.close()
    assert inspector.theme_probe.comm is None  # closed with its widget


def test_a_redrawn_chart_keeps_its_theme(audit_run: Run) -> None:
    tuner = Tuner("deploy-audit", "sliding-window")
    try:
        tuner.theme_probe.theme = "dark"
        before = tuner.runs
        tuner.set(keep_recent_turns=1)  # a re-run redraws the charts in place
        assert tuner.runs == before + 1
        for chart in tuner.figures.values():
            assert chart.layout.template == template_for("dark")
    finally:
        tuner.close()
    # update_figure on its own: a lab figure keeps the widget's theme, another template wins
    widget = Inspector(audit_run)
    try:
        chart = widget.figures["window_size"]
        retheme(chart, "dark")
        update_figure(chart, plots.window_size(capture(audit_run)))
        assert chart.layout.template == template_for("dark")
        other = plots.window_size(capture(audit_run))
        other.update_layout(template="plotly_dark")
        update_figure(chart, other)
        assert chart.layout.template == pio.templates["plotly_dark"]
    finally:
        widget.close()


def test_the_report_sets_both_palettes_and_uses_only_their_variables(audit_run: Run) -> None:
    page = render_report({"deploy-audit": {"sliding-window": audit_run}}).html
    head = page[: page.index("</head>")]
    dark_block = re.search(r":root\[data-theme=\"dark\"\] \{([^}]*)\}", head)
    assert dark_block is not None
    for role, value in PAGE_DARK_COLORS.items():
        assert f"--fl-{role}: {value};" in dark_block.group(1)
    assert "@media (prefers-color-scheme: dark)" in head
    for role, value in PAGE_COLORS.items():
        assert f"--fl-{role}: {value};" in head
    rules = head[head.index("body {") :]
    # past the palettes, the stylesheet names colours only through the variables
    assert not re.search(r"#[0-9a-fA-F]{6}\b|\bwhite\b", rules.split("</style>")[0])
    assert 'class="theme-switch"' in page and 'id="footprint-plot-templates"' in page
