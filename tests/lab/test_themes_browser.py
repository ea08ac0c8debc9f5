"""Readable in both themes, and shareable, measured in headless Chromium.

* The report follows the browser's ``prefers-color-scheme`` and its switch: charts, page and
  tables turn dark (their computed background is dark) and every text stays legible — the WCAG
  contrast ratio of each chart text's computed fill against the chart's computed background,
  and of each page text's computed colour against the background under it, is at least 4.5.
* The theme probe (``lab/theme_probe.js``, the script that tells the kernel JupyterLab's
  theme) reads ``<body data-jp-theme-light>`` and follows it when it changes.
* The Boundary view in a narrow box keeps every column readable and scrolls in its own box.
* ``Compare.to_html`` and ``Tuner.to_html`` open offline: every chart renders and the page asks
  for nothing (any request but the file itself fails the test).
* A widget table's "Download CSV" link downloads exactly ``frame.to_csv(index=False)``.

Playwright drives the system Chromium (/usr/bin/chromium); a missing browser fails the tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from footprint_lab import Run
from footprint_lab.lab import Compare, Inspector, Tuner
from footprint_lab.lab._theme_probe import probe_script
from footprint_lab.lab.render import TEXT_MIN_WIDTH_EM
from footprint_lab.lab.report import render_report
from footprint_lab.lab.views import records_view, refusal_counts
from footprint_lab.scenarios import SCENARIOS
from tests.chromium import COLOR_JS
from tests.lab.conftest import pane_html

WCAG_AA = 4.5
"""The least contrast ratio of body text (WCAG 2 level AA)."""

DARK_LUMINANCE = 0.05
"""A dark background's relative luminance is below this (JupyterLab Dark's is about 0.006)."""

LIGHT_LUMINANCE = 0.8
"""A light background's relative luminance is above this."""


CHARTS_JS = (
    "() => {"
    + COLOR_JS
    + """
  return Array.from(document.querySelectorAll('.js-plotly-plot')).map(chart => {
    const svg = chart.querySelector('.main-svg');
    const paper = parse(getComputedStyle(svg).backgroundColor);
    const texts = Array.from(chart.querySelectorAll('.main-svg text'))
      .filter(t => t.textContent.trim() && t.getBBox().width > 0)
      .map(t => {
        const fill = over(parse(getComputedStyle(t).fill), paper);
        return {text: t.textContent.slice(0, 40), ratio: ratio(fill, paper)};
      });
    return {paper: lum(paper), texts};
  });
}"""
)
"""Each chart: its background's luminance and each visible text's contrast against it."""

PAGE_JS = (
    "(selector) => {"
    + COLOR_JS
    + """
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('.js-plotly-plot') || !el.getClientRects().length) continue;
    const bg = background(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    out.push({tag: el.tagName, text: el.textContent.trim().slice(0, 40), ratio: ratio(fg, bg)});
  }
  return {body: lum(background(document.body)), texts: out};
}"""
)
"""The page's own texts (not the charts'): each one's contrast against the background under it,
and the luminance of the body's background."""

PAGE_TEXT = "h1, h2, h3, h4, h5, p, li, summary, th, td, code, button, label, output, a, b, span"


@pytest.fixture(scope="module")
def audit_runs() -> dict[str, Run]:
    """deploy-audit under each shipped strategy, and one of them again (identical lines)."""
    scenario = SCENARIOS["deploy-audit"]()
    runs = {label: scenario.run(s) for label, s in scenario.strategies().items()}
    runs["sliding-window again"] = scenario.run(scenario.strategies()["sliding-window"])
    return runs


class Offline:
    """A page's errors and every request it makes other than for ``file:`` and ``data:`` URLs
    (which are aborted: the page must not need them)."""

    def __init__(self, page: Any) -> None:
        self.problems: list[str] = []
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        page.on(
            "console",
            lambda msg: (
                self.problems.append(f"console: {msg.text}") if msg.type == "error" else None
            ),
        )
        page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url: str = route.request.url
        if url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            self.problems.append(f"a request leaves the file: {url}")
            route.abort()


def _open(browser: Any, path: Path, scheme: str, figures: int) -> tuple[Any, Offline]:
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    offline = Offline(page)
    page.goto(path.resolve().as_uri(), wait_until="load")
    page.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
        arg=figures,
        timeout=60_000,
    )
    return page, offline


def _shown_theme(page: Any) -> str:
    """The theme the page shows, as the charts say (every chart the same)."""
    themes = set(
        page.evaluate(
            "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
            ".map(d => d.dataset.theme || 'light')"
        )
    )
    assert len(themes) == 1, themes
    return str(themes.pop())


def _assert_legible(page: Any, theme: str) -> None:
    charts = page.evaluate(CHARTS_JS)
    assert charts
    for i, chart in enumerate(charts):
        if theme == "dark":
            assert chart["paper"] < DARK_LUMINANCE, (i, chart["paper"])
        else:
            assert chart["paper"] > LIGHT_LUMINANCE, (i, chart["paper"])
        assert len(chart["texts"]) >= 2, i  # a title and ticks at least
        poor = [t for t in chart["texts"] if t["ratio"] < WCAG_AA]
        assert poor == [], (i, poor[:5])
    own = page.evaluate(PAGE_JS, PAGE_TEXT)
    if theme == "dark":
        assert own["body"] < DARK_LUMINANCE, own["body"]
    else:
        assert own["body"] > LIGHT_LUMINANCE, own["body"]
    assert len(own["texts"]) > 50
    poor = [t for t in own["texts"] if t["ratio"] < WCAG_AA]
    assert poor == [], poor[:5]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_report_follows_the_browser_and_its_switch_legibly(
    browser: Any, audit_runs: dict[str, Run], tmp_path: Path, scheme: str
) -> None:
    report = render_report({"deploy-audit": audit_runs})
    path = tmp_path / "report.html"
    path.write_text(report.html, encoding="utf-8")
    page, offline = _open(browser, path, scheme, report.figures)
    other = "light" if scheme == "dark" else "dark"
    try:
        assert _shown_theme(page) == scheme  # the browser's preference, before any click
        _assert_legible(page, scheme)
        page.screenshot(path=str(tmp_path / f"report-{scheme}.png"))
        switch = page.locator("button.theme-switch")
        assert switch.get_attribute("aria-pressed") == str(scheme == "dark").lower()
        switch.click()
        page.wait_for_function(
            "t => Array.from(document.querySelectorAll('.js-plotly-plot'))"
            ".every(d => (d.dataset.theme || 'light') === t)",
            arg=other,
        )
        assert page.evaluate("() => document.documentElement.dataset.theme") == other
        _assert_legible(page, other)
        page.screenshot(path=str(tmp_path / f"report-{scheme}-switched.png"))
        # the legend says which line stands for two identical runs, and the page says so
        names = page.evaluate(
            "() => document.querySelector('.js-plotly-plot').data.map(t => t.name)"
        )
        assert "sliding-window (also sliding-window again)" in names
        assert page.locator("p.identical").count() == 1
    finally:
        page.close()
    assert offline.problems == []


def test_the_theme_probe_follows_the_body_attribute(browser: Any) -> None:
    model = """{values: {theme: 'light'}, saved: [],
        get(k) { return this.values[k]; }, set(k, v) { this.values[k] = v; },
        save_changes() { this.saved.push(this.values.theme); }}"""
    page = browser.new_page()
    try:
        page.set_content(
            "<!DOCTYPE html><html><body data-jp-theme-light='true'><div id='probe'></div>"
            f"<script type='module'>{probe_script().replace('export default', 'const probe =')}"
            f"\nwindow.MODEL = {model};\n"
            "probe.render({model: window.MODEL, el: document.getElementById('probe')});"
            "</script></body></html>"
        )
        page.wait_for_function("() => window.MODEL !== undefined")
        assert page.evaluate("() => window.MODEL.saved") == []  # light already: nothing said
        page.evaluate("() => document.body.setAttribute('data-jp-theme-light', 'false')")
        page.wait_for_function("() => window.MODEL.values.theme === 'dark'")
        page.evaluate("() => document.body.setAttribute('data-jp-theme-light', 'true')")
        page.wait_for_function("() => window.MODEL.values.theme === 'light'")
        page.evaluate(
            "() => { document.body.removeAttribute('data-jp-theme-light');"
            " document.body.setAttribute('data-vscode-theme-kind', 'vscode-dark'); }"
        )
        page.wait_for_function("() => window.MODEL.values.theme === 'dark'")
        assert page.evaluate("() => window.MODEL.saved") == ["dark", "light", "dark"]
        assert page.locator("#probe").is_hidden()
    finally:
        page.close()


BOUNDARY_COLUMNS_JS = """() => Array.from(document.querySelectorAll('#pane table.boundary-table'))
  .map(t => ({
    kind: ['sent', 'left'].find(k => t.classList.contains('boundary-' + k)),
    widths: Array.from(t.querySelectorAll('thead th')).map(th => ({
      label: th.textContent, width: th.getBoundingClientRect().width,
      fits: th.scrollWidth <= th.clientWidth + 1})),
    box: t.parentElement.clientWidth, table: t.scrollWidth,
    scrolls: getComputedStyle(t.parentElement).overflowX}))"""
"""Each Boundary table: its columns' widths (and whether the header fits), its box's width, its
own width and how its box overflows."""

TEXT_COLUMN_MIN_PX = 240
"""The text column of a Boundary table is never narrower than this (24em at 12px, about 40
characters a line)."""


def _assert_readable_columns(tables: list[dict[str, Any]]) -> None:
    assert {t["kind"] for t in tables} == {"sent", "left"}
    for table in tables:
        *fixed, text = table["widths"]
        assert text["label"] == "text"
        assert text["width"] >= TEXT_COLUMN_MIN_PX, table
        for column in fixed:
            assert column["width"] >= 28 and column["fits"], (table["kind"], column)
        if table["table"] > table["box"] + 1:  # wider than its box: it scrolls there
            assert table["scrolls"] in ("auto", "scroll"), table


@pytest.mark.parametrize("width", [520, 1000])
def test_boundary_columns_stay_readable_in_a_narrow_box(
    browser: Any, audit_runs: dict[str, Run], width: int
) -> None:
    inspector = Inspector(audit_runs["sliding-window"])
    inspector.show_boundary(5)
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.set_content(
            "<!DOCTYPE html><html><body style='margin: 0'>" + pane_html(inspector.boundary)
        )
        page.wait_for_selector("#pane table.boundary-left tbody tr", state="attached")
        tables = page.evaluate(BOUNDARY_COLUMNS_JS)
    finally:
        page.close()
        inspector.close()
    _assert_readable_columns(tables)
    if width < 700:
        assert all(t["table"] > t["box"] for t in tables)  # it scrolls rather than squeezes


@pytest.mark.parametrize("which", ["compare", "tuner"])
def test_compare_and_tuner_to_html_open_offline(browser: Any, tmp_path: Path, which: str) -> None:
    if which == "compare":
        widget: Any = Compare.from_scenario("deploy-audit")
        expected = 1 + 4 * len(widget.runs)
        labels = list(widget.runs)
    else:
        widget = Tuner("deploy-audit", "sliding-window")
        widget.set(keep_recent_turns=1)
        expected = 1 + 4
        labels = [str(widget.frames.info["label"])]
    path = widget.to_html(tmp_path / which / "page.html")
    widget.close()
    page, offline = _open(browser, path, "light", expected)
    try:
        assert page.locator(".js-plotly-plot").count() == expected
        drawn = page.evaluate(
            """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(
                d => d.querySelector('.heatmaplayer image, .barlayer path, .scatterlayer path,'
                    + ' .scatterlayer .trace') !== null || (d.data || []).length === 0)"""
        )
        assert all(drawn), drawn
        assert page.title() == widget.title
        headings = page.locator("article h3").all_inner_texts()
        assert [h.strip() for h in headings] == labels
        page.locator("div.boundary input.boundary-slider").first.wait_for(state="attached")
        assert page.locator("div.boundary .boundary-caption").first.inner_text().strip()
    finally:
        page.close()
    assert offline.problems == []


def _download(browser: Any, html: str, tmp_path: Path, index: int = 0) -> tuple[str, str]:
    """Click the ``index``-th "Download CSV" link of ``html``: the file's name and text."""
    page = browser.new_page(accept_downloads=True)
    try:
        page.set_content("<!DOCTYPE html><html><body>" + html + "</body></html>")
        with page.expect_download() as info:
            page.locator("a.footprint-csv").nth(index).click()
        download = info.value
        target = tmp_path / download.suggested_filename
        download.save_as(str(target))
        return download.suggested_filename, target.read_text(encoding="utf-8")
    finally:
        page.close()


def test_widget_tables_download_as_csv(
    browser: Any, audit_runs: dict[str, Run], tmp_path: Path
) -> None:
    compare = Compare({k: v for k, v in audit_runs.items() if k != "sliding-window again"})
    name, text = _download(browser, compare.summary_html.value, tmp_path)
    assert name == "summary.csv" and text == compare.summary.reset_index().to_csv(index=False)
    compare.close()

    inspector = Inspector(audit_runs["sliding-window"])
    name, text = _download(browser, inspector.records_html.value, tmp_path)
    assert name == "records.csv"
    assert text == records_view(inspector.frames, compact=False).to_csv(index=False)
    assert "inside-keep-window, inside-keep-window" in text  # every item, as the frame holds it
    name, text = _download(browser, inspector.refusals_html.value, tmp_path)
    columns = ["iteration", "reason", "turn_index", "message_index", "turn_messages", "stage_id"]
    assert name == "refusals.csv"
    assert text == inspector.frames.refusals.loc[:, columns].to_csv(index=False)
    name, text = _download(browser, inspector.overview_html.value, tmp_path)
    counts = refusal_counts(inspector.frames)
    assert name == "refusals-by-reason.csv"
    assert text == pd.DataFrame({"reason": list(counts), "refusals": list(counts.values())}).to_csv(
        index=False
    )
    inspector.close()

    tuner = Tuner("deploy-audit", "sliding-window")
    name, text = _download(browser, tuner.records_html.value, tmp_path)
    assert name == "records.csv"
    assert text == records_view(tuner.frames, compact=False).to_csv(index=False)
    rows = json.loads(tuner.frames.records.loc[:, ["iteration"]].to_json(orient="values"))
    assert len(text.strip().splitlines()) == 1 + len(rows)
    tuner.close()


TEXT_CELLS_JS = """() => Array.from(
  document.querySelectorAll('div.table-scroll > table')
).map(t => ({
    box: t.parentElement.clientWidth, table: t.scrollWidth,
    scrolls: getComputedStyle(t.parentElement).overflowX,
    text: Array.from(t.querySelectorAll('tbody tr:first-child td'))
        .filter(td => getComputedStyle(td).overflowWrap === 'anywhere')
        .map(td => td.getBoundingClientRect().width / parseFloat(getComputedStyle(td).fontSize))
}))"""
"""Each scrolling table: its box's and its own width, how the box overflows, and the width (in
em) of each long-text column."""


def test_widget_tables_keep_text_columns_readable_in_a_narrow_box(
    browser: Any, audit_runs: dict[str, Run]
) -> None:
    inspector = Inspector(audit_runs["sliding-window"])
    inspector.slider.value = 5
    html = inspector._static_boundary() + inspector.records_html.value
    inspector.close()
    page = browser.new_page(viewport={"width": 600, "height": 900})
    try:
        page.set_content("<!DOCTYPE html><html><body style='margin: 0'>" + html)
        tables = page.evaluate(TEXT_CELLS_JS)
    finally:
        page.close()
    assert len(tables) == 3  # sent, left, records
    for table in tables:
        assert table["text"], table  # a preview, or the records' reasons and ids
        assert all(width >= TEXT_MIN_WIDTH_EM - 0.01 for width in table["text"]), table
        assert table["table"] > table["box"] and table["scrolls"] == "auto", table
