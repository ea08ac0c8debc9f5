"""The report's Boundary view works in a browser with no kernel and no network.

Playwright for Python (sync API) drives the system Chromium at /usr/bin/chromium (the Debian
package, as in ``test_report_browser.py``; never ``playwright install``). For a scripted run of
known content, in the report and in ``Inspector(run).to_html(path)``: move the Boundary slider
with the keyboard to an iteration, then read the page — the exact messages shown (stage ids
and text, against ``run.ledger.window_at(call.sent_commit)``), the pinned and refused marks in
words, what left, the record's removed stage ids — with no console error, and no horizontal
overflow at 1,000 px. A screenshot of the view is saved under the test's ``tmp_path``. The
Inspector's Boundary pane runs the same script (``boundary.js``, its anywidget ``render``) over
the same model's JSON: at every iteration it shows what the report shows, to the letter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from footprint_lab import Run
from footprint_lab.lab import Inspector, capture
from footprint_lab.lab.report import write_report
from footprint_lab.lab.views import (
    BOUNDARY_TEXT_CHARS,
    REFUSAL_MEANINGS,
    STATE_MEANINGS,
    record_sentence,
    record_trigger,
)
from footprint_lab.window.words import departure_words
from tests.lab.conftest import pane_html
from tests.lab.test_report_boundary import pinned_run

WIDTH = 1000
BOUNDARY = "pinned--sliding-window--boundary"

_ROWS = """(table) => Array.from(document.querySelectorAll(table + ' tbody tr')).map(tr => ({
    stage: tr.dataset.stageId, state: tr.dataset.state, role: tr.dataset.role,
    shownStage: tr.querySelector('.b-stage').textContent,
    content: tr.querySelector('.b-content').textContent,
    more: tr.querySelector('.b-more').textContent,
    mark: tr.querySelector('.b-mark') ? tr.querySelector('.b-mark').textContent : null,
    why: tr.querySelector('.b-why') ? tr.querySelector('.b-why').textContent : null}))"""

_OVERFLOW = """(root) => [root, ...root.querySelectorAll('.boundary-scroll, table')].filter(
    el => el.getClientRects().length && el.scrollWidth > el.clientWidth).map(
    el => `${el.className}: ${el.scrollWidth} > ${el.clientWidth}`)"""


@pytest.fixture(scope="module")
def run() -> Run:
    return pinned_run()


def _open(browser: Any, path: Path, errors: list[str]) -> Any:
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None
        ),
    )
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url}"))
    page.goto(path.resolve().as_uri(), wait_until="load")
    page.wait_for_function(
        "() => document.querySelector('div.boundary') "
        "&& document.querySelector('div.boundary').dataset.iteration !== undefined",
        timeout=30_000,
    )
    return page


def _slide_to(page: Any, root: str, iteration: int) -> None:
    """Move the slider with the keyboard, as a reader would: Home, then → until there."""
    held = page.evaluate(
        "(id) => JSON.parse(document.getElementById(id + '-data').textContent)"
        ".iterations.map(v => v.iteration)",
        root,
    )
    slider = page.locator(f"#{root} input.boundary-slider")
    slider.focus()
    slider.press("Home")
    for _ in range(held.index(iteration)):
        slider.press("ArrowRight")
    page.wait_for_function(
        "([id, it]) => document.getElementById(id).dataset.iteration === String(it)",
        arg=[root, iteration],
    )


def _expected_states(run: Run, iteration: int) -> dict[str, str]:
    membership = capture(run).membership
    here = membership[membership["iteration"] == iteration]
    return dict(zip(here["stage_id"], here["state"].astype(str), strict=True))


def _check_boundary(page: Any, run: Run, root: str, iteration: int, shot: Path) -> None:
    _slide_to(page, root, iteration)
    view = page.locator(f"#{root}")
    call = max(i for i, c in enumerate(run.calls) if c.iteration == iteration)
    sent = run.ledger.window_at(run.calls[call].sent_commit)
    assert (
        view.locator(".boundary-caption")
        .text_content()
        .startswith(
            f"Iteration {iteration} · call {call} (calls count from 0): {len(sent)} message(s)"
        )
    )

    # the exact messages sent, in order, their text wrapped and capped
    rows = page.evaluate(_ROWS, f"#{root} table.boundary-sent")
    assert [r["stage"] for r in rows] == [m.stage_id for m in sent]
    assert [r["shownStage"] for r in rows] == [m.stage_id for m in sent]
    assert [r["role"] for r in rows] == [m.role for m in sent]
    assert [r["content"] for r in rows] == [m.content[:BOUNDARY_TEXT_CHARS] for m in sent]
    for row, message in zip(rows, sent, strict=True):
        left_out = len(message.content) - BOUNDARY_TEXT_CHARS
        assert row["more"] == (f"… {left_out:,} more characters" if left_out > 0 else "")
    assert any(row["more"] for row in rows)  # the long dump is in this window

    # pinned and refused, in the glossary's words
    states = _expected_states(run, iteration)
    assert [r["state"] for r in rows] == [states[m.stage_id] for m in sent]
    marks = {r["stage"]: (r["state"], r["mark"]) for r in rows}
    assert marks["tool-calls#3"] == ("pinned", f"pinned: {STATE_MEANINGS['pinned']}")
    refused = [(s, m) for s, m in marks.values() if s.startswith("refused-")]
    assert refused
    for state, mark in refused:
        reason = state.removeprefix("refused-")
        assert mark == f"refused, {reason}: {REFUSAL_MEANINGS[reason]}"
    assert marks[sent[0].stage_id][0] == "refused-current-request"

    # what left there, and the record filed there
    (record,) = [r for r in run.records if r.iteration == iteration]
    assert record.removed_stage_ids
    left = page.evaluate(_ROWS, f"#{root} table.boundary-left")
    assert [r["stage"] for r in left] == record.removed_stage_ids
    assert all(r["state"] == "dropped" for r in left)
    # why each left, not just "dropped": the strategy, the iteration and the rule that fired
    assert [r["why"] for r in left] == [
        departure_words(record, stage) for stage in record.removed_stage_ids
    ]
    assert all(f"because {record_trigger(record)}" in r["why"] for r in left)
    assert view.locator("table.boundary-left th", has_text="why it left").is_visible()
    assert view.locator("table.boundary-left td.b-why").first.is_visible()
    card = view.locator(".boundary-record")
    assert card.count() == 1
    assert card.get_attribute("data-removed") == " ".join(record.removed_stage_ids)
    assert card.locator(".b-sentence").text_content() == record_sentence(record)
    pairs = card.locator("table.boundary-pairs").text_content()
    assert ", ".join(record.removed_stage_ids) in pairs
    assert view.locator(".boundary-no-record").is_hidden()

    # 1,000 px wide, nothing scrolls sideways
    assert page.evaluate("() => window.innerWidth") == WIDTH
    assert page.evaluate(_OVERFLOW, view.element_handle()) == []
    view.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


def test_the_report_boundary_shows_the_exact_window_of_a_call(
    run: Run, browser: Any, tmp_path: Path
) -> None:
    path = write_report({"pinned": {"sliding-window": run}}, tmp_path / "report.html")
    errors: list[str] = []
    page = _open(browser, path, errors)
    removal = next(r for r in run.records if r.removed_message_count)
    # it opens at the first removal
    assert page.locator(f"#{BOUNDARY}").get_attribute("data-iteration") == str(removal.iteration)
    last = max(r.iteration for r in run.records)
    _check_boundary(page, run, BOUNDARY, last, tmp_path / "boundary.png")
    # an iteration with no record says why
    _slide_to(page, BOUNDARY, 1)
    assert page.locator(f"#{BOUNDARY} .boundary-record").count() == 0
    assert page.locator(f"#{BOUNDARY} .boundary-no-record").text_content() == (
        "No record at iteration 1: the strategy did not engage."
    )
    # a removal named in "What left, and why" opens its boundary
    page.locator(f'a.to-boundary[data-iteration="{removal.iteration}"]').click()
    page.wait_for_function(
        "([id, it]) => document.getElementById(id).dataset.iteration === String(it)",
        arg=[BOUNDARY, removal.iteration],
    )
    assert page.locator(f"#{BOUNDARY} input.boundary-slider").input_value() == str(
        [c.iteration for c in run.calls].index(removal.iteration)
    )
    page.close()
    assert errors == []


def test_the_inspector_file_has_the_same_boundary(run: Run, browser: Any, tmp_path: Path) -> None:
    insp = Inspector(run)
    path = insp.to_html(tmp_path / "inspector.html")
    errors: list[str] = []
    page = _open(browser, path, errors)
    root = page.locator("div.boundary").get_attribute("id")
    assert page.locator("div.boundary").count() == 1
    assert page.title() == insp.title
    # it opens where the Inspector's slider does
    assert page.locator(f"#{root}").get_attribute("data-iteration") == str(insp.slider.value)
    removing = [r.iteration for r in run.records if r.removed_message_count]
    _check_boundary(page, run, root, removing[-1], tmp_path / "inspector-boundary.png")
    # every chart drew too, offline
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 5",
        timeout=60_000,
    )
    page.close()
    assert errors == []


# -- one view, two hosts ------------------------------------------------------------------------

_SHOWN = """(root) => {
    const rows = (table) => Array.from(root.querySelectorAll(table + ' tbody tr')).map(
        tr => [tr.dataset.stageId, tr.dataset.state, tr.innerText]);
    return {
        iteration: root.dataset.iteration,
        caption: root.querySelector('.boundary-caption').textContent,
        sentences: Array.from(root.querySelectorAll('.b-sentence')).map(p => p.textContent),
        removed: Array.from(root.querySelectorAll('.boundary-record')).map(
            card => card.dataset.removed),
        pairs: Array.from(root.querySelectorAll('table.boundary-pairs')).map(t => t.textContent),
        noRecord: root.querySelector('.boundary-no-record').hidden
            ? null : root.querySelector('.boundary-no-record').textContent,
        sentCount: root.querySelector('.boundary-sent-count').textContent,
        leftCount: root.querySelector('.boundary-left-count').textContent,
        sent: rows('table.boundary-sent'),
        left: rows('table.boundary-left'),
        why: Array.from(root.querySelectorAll('table.boundary-left td.b-why')).map(
            td => td.textContent),
    };
}"""
"""What a Boundary view shows, read from the page: the same reading for both hosts."""


def test_the_report_and_the_inspector_pane_show_the_same_boundary(
    run: Run, browser: Any, tmp_path: Path
) -> None:
    insp = Inspector(run)
    path = write_report({"pinned": {"sliding-window": run}}, tmp_path / "report.html")
    errors: list[str] = []
    report = _open(browser, path, errors)
    pane = browser.new_page(viewport={"width": WIDTH, "height": 900})
    pane.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    pane.on(
        "console",
        lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None,
    )
    compared = 0
    for iteration in insp.iterations:
        _slide_to(report, BOUNDARY, iteration)
        in_report = report.evaluate(_SHOWN, report.locator(f"#{BOUNDARY}").element_handle())
        insp.slider.value = iteration  # the Inspector's pane is given this iteration's view
        pane.set_content(f"<!DOCTYPE html><html><body>{pane_html(insp.boundary)}</body></html>")
        pane.wait_for_function(
            "(it) => document.getElementById('pane').dataset.iteration === String(it)",
            arg=iteration,
        )
        in_pane = pane.evaluate(_SHOWN, pane.locator("#pane").element_handle())
        assert in_pane == in_report
        # the rule that fired, and what was kept and what left, as the run says
        records = [r for r in run.records if r.iteration == iteration]
        assert in_pane["sentences"] == [record_sentence(r) for r in records]
        left = sum(r.removed_message_count for r in records)
        assert in_pane["leftCount"] == str(left) and len(in_pane["left"]) == left
        assert in_pane["why"] == [
            departure_words(r, stage) for r in records for stage in r.removed_stage_ids
        ]
        sent = run.window_sent(max(i for i, c in enumerate(run.calls) if c.iteration == iteration))
        assert [stage for stage, _, _ in in_pane["sent"]] == [m.stage_id for m in sent]
        compared += bool(records and left)
    assert compared >= 2
    pane.screenshot(path=str(tmp_path / "pane.png"), full_page=True)
    report.close()
    pane.close()
    assert errors == []
