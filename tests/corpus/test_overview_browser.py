"""The corpus report in headless Chromium, offline: the overview page's charts render with no
network request, and a run's link opens its page, whose charts (on the shared plotly.js) and
Boundary view render. The overview follows the browser's light or dark preference and its
switch, every chart text and page text legible in both (the run report's contrast check).

Playwright for Python drives the system browser at /usr/bin/chromium (the Debian package; CI
installs it). A missing browser fails this test instead of skipping it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from footprint_lab.corpus import Corpus, write_corpus_report
from tests.chromium import launched_chromium
from tests.corpus.overview_fixtures import gridded, plain
from tests.lab.test_themes_browser import _assert_legible, _open, _shown_theme

__all__ = ["gridded", "plain"]  # the fixtures, used by name

_DRAWN = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(
    d => (d.data || []).length > 0 && d.querySelector(
        '.barlayer path, .scatterlayer path, .scatterlayer .trace') !== null)"""
"""Per figure: it has traces, and some are drawn."""


def _open_offline(path: Path, charts: int, check_run_page: bool) -> None:
    errors: list[str] = []
    requests: list[str] = []
    with launched_chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        page.on(
            "console",
            lambda msg: errors.append(msg.text) if msg.type == "error" else None,
        )
        page.on("request", lambda req: requests.append(req.url))
        page.goto(path.resolve().as_uri(), wait_until="load")
        page.wait_for_function(
            "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
            arg=charts,
            timeout=60_000,
        )
        assert page.locator(".js-plotly-plot").count() == charts
        assert all(page.evaluate(_DRAWN))
        if check_run_page:
            link = page.locator("table.runs a.run-link").first
            run_id = link.text_content()
            anchor = link.get_attribute("href").split("#")[1]
            link.click()
            page.wait_for_url(f"**/corpus_runs/{run_id}.html#{anchor}")
            page.wait_for_function(
                "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4 "
                "&& document.querySelector('div.boundary') "
                "&& document.querySelector('div.boundary').dataset.iteration !== undefined",
                timeout=60_000,
            )
            boundary = page.locator(f"div.boundary#{anchor}")
            assert boundary.locator("table.boundary-sent tbody tr").count() >= 1
            # the link opened the page at its Boundary view: it is on screen
            top = page.evaluate(
                "id => document.getElementById(id).getBoundingClientRect().top", anchor
            )
            assert -2 <= top < 900, top  # at the top of the screen (sub-pixel)
            assert page.locator("h1").first.text_content().startswith("Inspector")
    assert not errors, errors
    assert all(url.startswith("file://") for url in requests), [
        u for u in requests if not u.startswith("file://")
    ]


def test_the_corpus_report_opens_offline_and_a_run_link_opens_its_boundary(
    gridded: Corpus, tmp_path: Path
) -> None:
    report = write_corpus_report(gridded, tmp_path / "corpus.html", max_runs=3)
    assert report.figures == 5
    _open_offline(report.path, 5, check_run_page=True)


def test_the_corpus_report_without_a_grid_renders_its_four_charts(
    plain: Corpus, tmp_path: Path
) -> None:
    report = write_corpus_report(plain, tmp_path / "corpus.html", max_runs=0)
    _open_offline(report.path, 4, check_run_page=False)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_corpus_report_follows_the_browser_and_its_switch_legibly(
    browser: Any, gridded: Corpus, tmp_path: Path, scheme: str
) -> None:
    report = write_corpus_report(gridded, tmp_path / "corpus.html", max_runs=3)
    page, offline = _open(browser, report.path, scheme, report.figures)
    other = "light" if scheme == "dark" else "dark"
    try:
        assert _shown_theme(page) == scheme  # the browser's preference, before any click
        _assert_legible(page, scheme)
        page.locator("button.theme-switch").click()
        page.wait_for_function(
            "t => Array.from(document.querySelectorAll('.js-plotly-plot'))"
            ".every(d => (d.dataset.theme || 'light') === t)",
            arg=other,
        )
        _assert_legible(page, other)
        page.screenshot(path=str(tmp_path / f"corpus-{other}.png"), full_page=True)
    finally:
        page.close()
    assert offline.problems == []
