"""In a real JupyterLab, in headless Chromium: the lab's charts follow JupyterLab's theme, and
the Boundary view stays readable with the file browser open at 1,400 px.

JupyterLab runs as in ``test_jupyterlab_browser.py`` (127.0.0.1, temporary Jupyter
directories, no request may leave the machine) over a small notebook written for this test: an
Inspector of deploy-audit under sliding-window. After Run All it checks, in the page:

* in JupyterLab Light the Inspector's chart is light; switching to JupyterLab Dark (the
  ``apputils:change-theme`` command, as the Settings menu does) turns it dark — the kernel,
  told by the widget's theme probe, re-templates it — with every chart text at a WCAG contrast
  of at least 4.5 against the chart's computed background, and every table cell of the
  Inspector legible too; switching back turns it light again;
* with the file browser open, at a 1,400 px window, each column of the Boundary tables is at
  least a readable width (the text column 240 px) and a table wider than its box scrolls there.

A second notebook shows every figure of ``footprint_lab.lab.plots`` directly (a cell's
``display(fig)``, no widget of ours around it), the corpus figures over a store built from
three real transcripts with a grid run over it: each is drawn as its themed widget (not
plotly's static renderer), light in JupyterLab Light, dark with every chart text legible in
JupyterLab Dark, and light again after switching back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.chromium import launched_chromium
from tests.lab.test_jupyterlab_browser import (
    UI_TIMEOUT_MS,
    Console,
    _open_notebook,
    _screenshot_on_failure,
    _wait_until_all_ran,
    jupyterlab,
)
from tests.lab.test_themes_browser import (
    BOUNDARY_COLUMNS_JS,
    CHARTS_JS,
    DARK_LUMINANCE,
    LIGHT_LUMINANCE,
    PAGE_JS,
    WCAG_AA,
    _assert_readable_columns,
)

NOTEBOOK = "themes.ipynb"
CELLS = [
    "from footprint_lab.lab import Inspector\n"
    "from footprint_lab.scenarios import SCENARIOS\n"
    "scenario = SCENARIOS['deploy-audit']()\n"
    "run = scenario.run(scenario.strategies()['sliding-window'])",
    "inspector = Inspector(run)\ninspector",
]
"""The notebook's code cells."""

THEME_COMMAND = "apputils:change-theme"
"""The JupyterLab command the Settings > Theme menu runs."""


FIGURES_NOTEBOOK = "figures.ipynb"
FIGURE_FILES = (
    "../data/transcripts/swe-agent/marshmallow-1867.function-calling-replace-from-source.traj",
    "../data/transcripts/mini-swe-agent/github_issue.traj.json",
    "../data/transcripts/openhands/multi-swe-bench-example-1.jsonl",
)
"""Real transcripts (relative to the notebook) the figures notebook builds its corpus from."""


def _figures_cells(store: Path) -> list[str]:
    """Cells showing every ``plots.*`` figure, each by ``display`` (as a cell's value is)."""
    return [
        "from IPython.display import display\n"
        "from footprint_lab import sliding_window\n"
        "from footprint_lab.corpus import Corpus\n"
        "from footprint_lab.costs import Pricing, cost_frame\n"
        "from footprint_lab.lab import capture, evidence_grid, evidence_summary, plots\n"
        "from footprint_lab.lab.corpus_view import overview_frames\n"
        "from footprint_lab.scenarios import SCENARIOS\n"
        "scenario = SCENARIOS['deploy-audit']()\n"
        "runs = {label: scenario.run(s) for label, s in scenario.strategies().items()}\n"
        "frames = capture(runs['sliding-window'])\n"
        "price = Pricing(input_per_mtok=3.0, cached_input_per_mtok=0.3,"
        " cache_write_per_mtok=3.75, output_per_mtok=15.0)\n"
        f"corpus = Corpus.build({list(FIGURE_FILES)!r}, {str(store)!r}, executor='inline',"
        " progress=False)\n"
        "grid = corpus.evidence_frame(evidence_grid(sliding_window,"
        " {'keep_recent_turns': [2, 6]}), progress=False)\n"
        "overview = overview_frames(corpus)",
        "figures = [plots.window_size(frames), plots.window_map(frames),"
        " plots.pins_timeline(frames), plots.refusals_by_reason(frames),"
        " plots.cache_prefix(frames), plots.cost_per_call(cost_frame(runs['sliding-window'],"
        " price)), plots.compare({k: capture(r) for k, r in runs.items()}),"
        " plots.evidence_tradeoff(evidence_summary(grid)), plots.policy_frontier(grid),"
        " plots.corpus_frontier(grid), plots.runs_by(overview.runs, 'format'),"
        " plots.run_distributions(overview.runs),"
        " plots.source_policies(overview.observed, overview.violations)]\n"
        "for figure in figures:\n"
        "    display(figure)",
    ]


FIGURES_SHOWN = 13
"""How many figures the figures notebook shows: one per ``plots.*`` builder."""


def _write_notebook(root: Path, name: str = NOTEBOOK, sources: list[str] = CELLS) -> None:
    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "source": source,
            "outputs": [],
            "execution_count": None,
        }
        for source in sources
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / name).write_text(json.dumps(notebook), encoding="utf-8")


def _theme(page: Any, name: str, light: bool) -> None:
    """Switch JupyterLab to theme ``name`` and wait until the page says so."""
    page.evaluate(
        "([command, theme]) => window.jupyterapp.commands.execute(command, {theme})",
        [THEME_COMMAND, name],
    )
    page.wait_for_function(
        "light => document.body.dataset.jpThemeLight === String(light)",
        arg=light,
        timeout=UI_TIMEOUT_MS,
    )


SHOWN_CHARTS = """(scope) => Array.from(
    document.querySelectorAll(scope + ' .js-plotly-plot')
).map(d => d.getClientRects().length > 0)"""
"""Which of the page's charts are shown (the others sit in hidden tabs)."""

CHART_LUMINANCE = """([scope, dark]) => {
    const shown = Array.from(document.querySelectorAll(scope + ' .js-plotly-plot'))
        .filter(d => d.getClientRects().length > 0);
    const lum = (c) => {
        const p = c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number).map(v => {
            v = v / 255;
            return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
        });
        return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
    };
    return shown.length > 0 && shown.every(d => {
        const l = lum(getComputedStyle(d.querySelector('.main-svg')).backgroundColor);
        return dark ? l < 0.05 : l > 0.8;
    });
}"""
"""True once every shown chart under ``scope`` (a selector) has a dark (or light) background."""

INSPECTOR = ".footprint-inspector"
FIGURE = ".footprint-figure"


def _shown_charts(page: Any, scope: str) -> list[dict[str, Any]]:
    charts: list[dict[str, Any]] = page.evaluate(CHARTS_JS)
    shown: list[bool] = page.evaluate(SHOWN_CHARTS, scope)
    # CHARTS_JS measures every chart of the page: those under scope are all of them here
    assert len(charts) == len(shown)
    return [chart for chart, visible in zip(charts, shown, strict=True) if visible]


def _assert_charts(page: Any, dark: bool, scope: str = INSPECTOR) -> None:
    page.wait_for_function(CHART_LUMINANCE, arg=[scope, dark], timeout=UI_TIMEOUT_MS)
    charts = _shown_charts(page, scope)
    assert charts
    for chart in charts:
        if dark:
            assert chart["paper"] < DARK_LUMINANCE, chart["paper"]
        else:
            assert chart["paper"] > LIGHT_LUMINANCE, chart["paper"]
        assert len(chart["texts"]) >= 2
        poor = [t for t in chart["texts"] if t["ratio"] < WCAG_AA]
        assert poor == [], poor[:5]


def test_charts_follow_jupyterlab_dark_and_the_boundary_fits_beside_the_file_browser(
    tmp_path: Path,
) -> None:
    console = Console()
    with jupyterlab(tmp_path) as lab, launched_chromium() as browser:
        _write_notebook(lab.root)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = _open_notebook(context, lab, console, len(CELLS), NOTEBOOK)
        with _screenshot_on_failure(page, tmp_path / "failure.png", console):
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            _wait_until_all_ran(page, len(CELLS))
            inspector = page.locator(".footprint-inspector").first
            inspector.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
            inspector.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=UI_TIMEOUT_MS)
            assert page.evaluate("() => document.body.dataset.jpThemeLight") == "true"
            _assert_charts(page, dark=False)

            _theme(page, "JupyterLab Dark", light=False)
            _assert_charts(page, dark=True)
            assert lab.kernel_says(NOTEBOOK, "print(inspector.theme_probe.theme)").strip() == (
                "dark"
            )
            cells = page.evaluate(PAGE_JS, ".footprint-inspector td, .footprint-inspector th")
            assert len(cells["texts"]) > 20
            poor = [t for t in cells["texts"] if t["ratio"] < WCAG_AA]
            assert poor == [], poor[:5]
            page.screenshot(path=str(tmp_path / "dark.png"))

            # the Boundary tab, with the file browser open beside the notebook
            files = page.locator("#filebrowser")
            if not files.is_visible():
                page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
            files.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
            assert files.bounding_box()["width"] >= 200
            tabs = inspector.locator(".footprint-inspector-tabs .lm-TabBar-tab")
            tabs.filter(has_text="Boundary").first.click()
            pane = inspector.locator(".footprint-boundary-table")
            pane.locator("table.boundary-left tbody tr").first.wait_for(
                state="attached", timeout=UI_TIMEOUT_MS
            )
            tables = page.evaluate(
                BOUNDARY_COLUMNS_JS.replace("#pane", ".footprint-boundary-table")
            )
            page.screenshot(path=str(tmp_path / "boundary-dark.png"))
            _assert_readable_columns(tables)
            cells = page.evaluate(PAGE_JS, ".footprint-boundary-table td")
            poor = [t for t in cells["texts"] if t["ratio"] < WCAG_AA]
            assert cells["texts"] and poor == [], poor[:5]

            tabs.filter(has_text="Overview").first.click()
            _theme(page, "JupyterLab Light", light=True)
            _assert_charts(page, dark=False)
        context.close()
    assert console.widget_errors() == [], "\n".join(console.messages)


def test_every_plots_figure_shown_directly_follows_jupyterlab_dark(tmp_path: Path) -> None:
    console = Console()
    with jupyterlab(tmp_path) as lab, launched_chromium() as browser:
        cells = _figures_cells(tmp_path / "store")
        _write_notebook(lab.root, FIGURES_NOTEBOOK, cells)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = _open_notebook(context, lab, console, len(cells), FIGURES_NOTEBOOK)
        with _screenshot_on_failure(page, tmp_path / "failure.png", console):
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            _wait_until_all_ran(page, len(cells))
            page.wait_for_function(
                "n => document.querySelectorAll('.footprint-figure .js-plotly-plot .main-svg')"
                ".length >= n",
                arg=FIGURES_SHOWN,
                timeout=UI_TIMEOUT_MS,
            )
            # each figure is its themed widget; plotly's static renderer drew none of them
            assert page.locator(".footprint-figure .js-plotly-plot").count() == FIGURES_SHOWN
            assert page.locator(".jp-RenderedPlotly").count() == 0
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:hide-all-cell-code')")
            _assert_charts(page, dark=False, scope=FIGURE)
            _theme(page, "JupyterLab Dark", light=False)
            _assert_charts(page, dark=True, scope=FIGURE)
            page.screenshot(path=str(tmp_path / "figures-dark.png"), full_page=True)
            _theme(page, "JupyterLab Light", light=True)
            _assert_charts(page, dark=False, scope=FIGURE)
        context.close()
    assert console.widget_errors() == [], "\n".join(console.messages)
