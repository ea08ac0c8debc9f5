"""A long run's Boundary view in headless Chromium: it opens on what the boundary did and pages
the rest.

The run is real: mini-swe-agent's astropy__astropy-12907 trajectory (64 calls, up to 127
messages sent), replayed under ``sliding_window(keep_recent_turns=30)`` so its first boundary
removes two messages and sends 61. Both hosts of ``boundary.js`` are checked — the Inspector's
pane (as JupyterLab shows it) and the offline report: the record filed there and what left come
first, then the window the call sent, :data:`PAGE_ROWS` rows at a time; paging forwards shows
every message of the window exactly once and in order, and back again; the view is a few
screens tall, not one 61-row table.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import Run, load, replay, sliding_window
from footprint_lab.lab import Inspector
from footprint_lab.lab.render import boundary_script
from footprint_lab.lab.report import write_report
from tests.lab.conftest import pane_html

ROOT = Path(__file__).resolve().parents[2]
LONG = ROOT / "data" / "transcripts" / "mini-swe-agent" / "astropy__astropy-12907.traj.json"

_rows = re.search(r"const PAGE_ROWS = (\d+);", boundary_script())
assert _rows is not None
PAGE_ROWS = int(_rows.group(1))
"""Rows a Boundary table shows at a time (``boundary.js``)."""

READ = """(root) => {
    const ids = (t) => Array.from(root.querySelectorAll(t + ' tbody tr')).map(
        tr => tr.dataset.stageId);
    const top = (s) => root.querySelector(s).getBoundingClientRect().top;
    const pager = root.querySelector('.boundary-sent-pager');
    return {
        sent: ids('table.boundary-sent'), left: ids('table.boundary-left'),
        at: pager.hidden ? null : pager.querySelector('.boundary-page-at').textContent,
        tops: [top('.boundary-records'), top('table.boundary-left'), top('table.boundary-sent')],
        leftPager: !root.querySelector('.boundary-left-pager').hidden,
        height: root.getBoundingClientRect().height,
    };
}"""
"""What a Boundary view shows now: the sent and left rows, the pager's words, where the record,
the left table and the sent table start, and how tall the view is."""


@pytest.fixture(scope="module")
def long_run() -> Run:
    loaded = load(LONG)
    run = loaded[0] if isinstance(loaded, list) else loaded
    return replay(run, sliding_window(keep_recent_turns=30))


def _page_through(page: Any, root: Any, window: list[str | None]) -> float:
    """Page the sent table from its first page to its last and back; returns the view's
    height on its first page."""
    first = page.evaluate(READ, root)
    assert first["tops"] == sorted(first["tops"])  # record, then what left, then the window
    assert first["sent"] == window[:PAGE_ROWS]
    assert first["at"] == f"rows 1–{PAGE_ROWS} of {len(window)}"
    assert not first["leftPager"]  # two rows left: one page, no pager
    later = root.query_selector(".boundary-sent-pager button[data-page='1']")
    earlier = root.query_selector(".boundary-sent-pager button[data-page='-1']")
    assert earlier.is_disabled() and not later.is_disabled()
    seen = list(first["sent"])
    while not later.is_disabled():
        later.click()
        shown = page.evaluate(READ, root)
        start = len(seen)
        assert shown["at"] == (
            f"rows {start + 1}–{min(len(window), start + PAGE_ROWS)} of {len(window)}"
        )
        seen += shown["sent"]
    assert seen == window  # every message of the window, once, in order
    earlier.click()
    pages = -(-len(window) // PAGE_ROWS)
    assert (
        page.evaluate(READ, root)["sent"]
        == window[(pages - 2) * PAGE_ROWS : (pages - 1) * PAGE_ROWS]
    )
    return float(first["height"])


def test_a_long_boundary_opens_on_what_left_and_pages_the_window(
    browser: Any, long_run: Run, tmp_path: Path
) -> None:
    inspector = Inspector(long_run)
    try:
        view = inspector.boundary
        (step,) = view.iterations
        window = [view.messages[ref].stage_id for ref, _ in step.window]
        left = [view.messages[ref].stage_id for ref, _, _ in step.left]
        assert len(window) > 2 * PAGE_ROWS and 0 < len(left) < PAGE_ROWS
        pane = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            pane.set_content(f"<!DOCTYPE html><html><body>{pane_html(view)}</body></html>")
            pane.wait_for_selector("#pane table.boundary-sent tbody tr", state="attached")
            root = pane.query_selector("#pane")
            assert pane.evaluate(READ, root)["left"] == left
            height = _page_through(pane, root, window)
            assert height < 4 * 900, height  # a few screens, the window paged
        finally:
            pane.close()
    finally:
        inspector.close()

    path = write_report({"astropy": {"sliding-window(30)": long_run}}, tmp_path / "report.html")
    report = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        report.goto(path.as_uri(), wait_until="load")
        report.wait_for_selector("div.boundary table.boundary-sent tbody tr", state="attached")
        root = report.query_selector("div.boundary")
        assert root.get_attribute("data-iteration") == str(step.iteration)
        _page_through(report, root, window)
    finally:
        report.close()
