"""The Inspector finds, compares and prices (no browser: set the widgets' values, read their
frames and HTML): the Search tab, the window against the one before it, each call's tokens,
cost and latency, and the "why" the Boundary view and the records table say."""

from __future__ import annotations

import html
import itertools

import pandas as pd
import pytest

from footprint_lab import Run, clear_tool_results, explain, replay, sliding_window
from footprint_lab.costs import Pricing, cost_frame
from footprint_lab.lab import Inspector, capture
from footprint_lab.lab.views import (
    LATENCY_NOTE,
    call_costs,
    records_view,
    search_frame,
    window_at,
    window_diff,
)
from footprint_lab.lab.widgets import INSPECTOR_TABS
from footprint_lab.scenarios import deploy_audit
from footprint_lab.window.words import call_label, departure_words


@pytest.fixture(scope="module")
def run() -> Run:
    return deploy_audit().run(sliding_window(keep_recent_turns=3))


@pytest.fixture(scope="module")
def insp(run: Run) -> Inspector:
    return Inspector(run)


def test_the_inspector_has_calls_and_search_tabs(insp: Inspector) -> None:
    assert INSPECTOR_TABS[-2:] == ("Calls", "Search")
    assert tuple(insp.tabs.titles) == INSPECTOR_TABS
    assert insp.tabs.children[INSPECTOR_TABS.index("Calls")] is insp.calls
    assert insp.tabs.children[INSPECTOR_TABS.index("Search")] is insp.search_pane


# -- search ---------------------------------------------------------------------------------


def test_search_finds_a_stage_id_and_says_why(run: Run, insp: Inspector) -> None:
    found = insp.search("tool-calls#3")
    assert found["stage_id"].tolist() == ["tool-calls#3"]
    row = found.iloc[0]
    assert row["matched"] == "stage id" and row["left"] == "dropped"
    assert row["explanation"] == explain(run, "tool-calls#3")
    assert "left the window: dropped by sliding-window at iteration 5" in row["explanation"]
    shown = html.unescape(insp.search_pane.html.value)
    assert "1 message hold 'tool-calls#3'." in shown
    assert row["explanation"] in shown
    # typing in the box is the same search
    insp.search_pane.box.value = "call-llm#11"
    assert insp.search_pane.results["stage_id"].tolist() == ["call-llm#11"]


def test_search_finds_text_and_tool_calls_across_the_run(run: Run, insp: Inspector) -> None:
    found = insp.search("D4")  # case-insensitive
    messages = run.ledger.messages
    expected = [
        p
        for p, m in enumerate(messages)
        if "d4" in m.content.lower() or any("d4" in str(c.arguments).lower() for c in m.tool_calls)
    ]
    assert found["position"].tolist() == expected
    assert set(found["matched"]) == {"text", "tool call"}
    assert all("d4" in s.lower() for s in found["snippet"])
    frames = capture(run)
    facts = frames.messages.set_index("position")
    for _, row in found.iterrows():
        for ours, theirs in (("written_at", "iteration"), ("first_sent", "first_sent")):
            mine, truth = row[ours], facts.loc[row["position"], theirs]
            assert (pd.isna(mine) and pd.isna(truth)) or mine == truth
        assert row["explanation"] == explain(run, row["stage_id"])
    assert insp.search("").empty and insp.search("no such text anywhere").empty
    assert "No message of this run holds it." in insp.search_pane.html.value


def test_search_caps_its_results_and_counts_the_rest(run: Run) -> None:
    frames = capture(run)
    every = search_frame(run, frames, "#")
    few = search_frame(run, frames, "#", limit=3)
    assert len(few) == 3 and few.attrs["more"] == len(every) - 3
    assert few["position"].tolist() == every["position"].tolist()[:3]


# -- window N against window N-1 ------------------------------------------------------------


def test_the_diff_is_exactly_the_two_windows_difference(run: Run, insp: Inspector) -> None:
    frames = insp.frames
    iterations = insp.iterations
    for before, now in itertools.pairwise(iterations):
        insp.slider.value = now
        diff = insp.diff.frame
        assert diff.attrs["previous"] == before and diff.attrs["iteration"] == now
        was = {run.ledger.position(m) for m in window_at(run, frames, before)[0]}
        is_ = {run.ledger.position(m) for m in window_at(run, frames, now)[0]}
        assert set(diff.loc[diff["change"] == "left", "position"]) == was - is_
        assert set(diff.loc[diff["change"] == "came", "position"]) == is_ - was
        records = [r for r in run.records if r.iteration == now]
        for _, row in diff[diff["change"] == "left"].iterrows():
            (by,) = [r for r in records if row["stage_id"] in r.removed_stage_ids]
            assert row["reason"] == departure_words(by, row["stage_id"])
        assert f"Window {now} against window {before}" in insp.diff.html.value
    first = window_diff(run, frames, iterations[0])
    assert first.attrs["previous"] is None and set(first["change"]) == {"came"}


def test_a_cleared_result_is_a_change_in_place() -> None:
    run = deploy_audit().run(clear_tool_results(keep_recent_turns=1, keep_results=1))
    frames = capture(run)
    record = next(r for r in run.records if r.cleared_stage_ids)
    diff = window_diff(run, frames, record.iteration)
    changed = diff[diff["change"] == "changed"]
    assert len(changed) == len(record.cleared_stage_ids)
    for stage, reason in zip(record.cleared_stage_ids, changed["reason"], strict=True):
        assert f"now stands in place of {stage}" in reason
        assert "cleared-result" in reason
    # a result replaced in place did not 'leave': the placeholder stands for it
    assert not set(diff.loc[diff["change"] == "left", "stage_id"]) & set(record.cleared_stage_ids)


# -- each call: tokens, cost, latency -------------------------------------------------------


def test_each_call_has_its_tokens_latency_and_a_cost_when_priced(run: Run) -> None:
    frames = capture(run)
    unpriced = call_costs(run, frames)
    assert unpriced["call"].tolist() == list(range(len(run.calls)))
    for k, call in enumerate(run.calls):
        row = unpriced.iloc[k]
        assert row["label"] == call_label(call.iteration, k)
        assert call.usage is not None and row["input_tokens"] == call.usage.input_tokens
        assert row["output_tokens"] == call.usage.output_tokens
        assert row["latency_ms"] >= 0
    # the scripted model has no list price: no cost, and the note says how to pass one
    assert unpriced["cost_usd"].isna().all()
    assert any("no price is known for model 'scripted'" in n for n in unpriced.attrs["notes"])
    assert any(n.startswith(LATENCY_NOTE) for n in unpriced.attrs["notes"])
    price = Pricing(
        input_per_mtok=1.0, cached_input_per_mtok=0.5, cache_write_per_mtok=1.0, output_per_mtok=2.0
    )
    # priced: the cost is cost_frame's, under its cache rule (one implementation of pricing)
    priced = call_costs(run, frames, price)
    truth = cost_frame(frames, price)
    assert priced["cost_usd"].notna().all() and (priced["cost_usd"] > 0).all()
    assert priced["cost_usd"].tolist() == pytest.approx(truth["total_cost"].tolist())
    assert priced["cost_estimated"].tolist() == truth["estimated"].tolist()


def test_latency_is_not_claimed_for_a_run_that_did_not_happen_here(run: Run) -> None:
    replayed = replay(run, sliding_window(keep_recent_turns=2))
    costs = call_costs(replayed, capture(replayed))
    assert costs["latency_ms"].isna().all()
    assert any("latency: not recorded" in n for n in costs.attrs["notes"])


def test_the_boundary_tab_names_the_call_with_its_tokens_cost_and_latency(
    run: Run, insp: Inspector
) -> None:
    priced = Inspector(
        run,
        pricing=Pricing(
            input_per_mtok=1.0,
            cached_input_per_mtok=0.5,
            cache_write_per_mtok=1.0,
            output_per_mtok=2.0,
        ),
    )
    try:
        for k, call in enumerate(run.calls):
            priced.slider.value = call.iteration
            line = html.unescape(priced.call_html.value)
            row = priced.calls.frame.iloc[k]
            assert call_label(call.iteration, k) in line
            assert f"{row['input_tokens']:,} input + {row['output_tokens']:,} output tokens" in line
            assert f"cost ${row['cost_usd']:.6f}" in line
            assert f"latency {row['latency_ms']:,} ms" in line
        calls_html = html.unescape(priced.calls.html.value)
        assert "Latency (ms)" in calls_html and "Cost (USD)" in calls_html
    finally:
        priced.close()


# -- the why of every view ------------------------------------------------------------------


def test_the_records_table_and_the_left_table_say_why(run: Run, insp: Inspector) -> None:
    frames = insp.frames
    assert frames.records["explanation"].tolist() == [r.explain() for r in run.records]
    assert "explanation" in records_view(frames).columns
    assert html.escape(run.records[1].explain()) in insp.records_html.value
    for record in run.records:
        left = insp.left_frame(record.iteration)
        assert left["why"].tolist() == [
            departure_words(record, stage) for stage in left["stage_id"]
        ]
        insp.slider.value = record.iteration
        (step,) = insp.boundary.iterations
        assert list(step.why) == left["why"].tolist()
    assert isinstance(frames.records["explanation"].dtype, pd.StringDtype)
