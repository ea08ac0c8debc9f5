"""The report's Boundary view and its removals in words: the data embedded in the page.

What a page holds without a browser: the JSON of each run's Boundary view (exactly the window
each call sent, its pinned and refused marks, what left and the record filed there), the
sampling of a long run's iterations, the text cap, safe escaping, and each visit of the
strategy named in words. ``test_report_boundary_browser.py`` drives the same page in Chromium.
"""

from __future__ import annotations

import json
import re
from html import escape, unescape
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import Agent, Reply, Run, ScriptedProvider, sliding_window, token_budget, tool
from footprint_lab.lab import capture
from footprint_lab.lab.report import VISITS_LISTED, render_report, write_run_report
from footprint_lab.lab.views import (
    BOUNDARY_OTHER_ITERATIONS,
    BOUNDARY_TEXT_CHARS,
    REFUSAL_MEANINGS,
    STATE_MEANINGS,
    boundary_views,
    record_sentence,
    record_text,
    state_words,
)
from tests.lab.conftest import tool_loop

HOSTILE = "</script><script>alert(1)</script>"
DUMP_CHARS = 5_000

_DATA = re.compile(r'<script type="application/json" id="([^"]+)-data">(.*?)</script>', re.DOTALL)
_BUNDLE = re.compile(r"<script>/\*\*\s*\* plotly\.js v.*?</script>", re.DOTALL)


@tool
def read_log(name: str) -> str:
    """Read a short log."""
    return f"log {name}:\n" + "line\n" * 30


@tool
def dump(name: str) -> str:
    """Dump a file far longer than the report shows."""
    return f"dump {name} {HOSTILE} " + "z" * DUMP_CHARS


def pinned_run() -> Run:
    """A scripted run with known content: a long, hostile ``dump`` result that stays pinned
    (the tool's latest result) while ``read_log`` results slide out of a two-turn window."""
    provider = ScriptedProvider(
        [
            Reply.tool_call("dump", name="a"),
            Reply.tool_call("read_log", name="b"),
            Reply.tool_call("read_log", name="c"),
            Reply.tool_call("read_log", name="d"),
            Reply.tool_call("read_log", name="e"),
            Reply.text("done"),
        ]
    )
    agent = Agent.create(provider=provider).tools(dump, read_log).window(sliding_window(2)).build()
    run = agent.run("Read the dump, then the logs b to e.")
    assert run.status == "done" and any(r.removed_message_count for r in run.records)
    return run


def embedded(html: str) -> dict[str, dict[str, Any]]:
    """Every Boundary view's JSON in a page, by the view's element id."""
    return {view_id: json.loads(text) for view_id, text in _DATA.findall(html)}


def call_of(run: Run, iteration: int) -> int:
    """The last call of ``iteration``."""
    return max(i for i, call in enumerate(run.calls) if call.iteration == iteration)


@pytest.fixture(scope="module")
def run() -> Run:
    return pinned_run()


@pytest.fixture(scope="module")
def page(run: Run) -> str:
    return render_report({"pinned": {"sliding-window": run}}).html


def test_each_iteration_holds_exactly_the_window_its_call_sent(run: Run, page: str) -> None:
    views = embedded(page)
    assert list(views) == ["pinned--sliding-window--boundary"]
    data = views["pinned--sliding-window--boundary"]
    assert [v["iteration"] for v in data["iterations"]] == sorted({c.iteration for c in run.calls})
    for view in data["iterations"]:
        call = call_of(run, view["iteration"])
        assert view["call"] == call and view["sent"] is True
        sent = run.ledger.window_at(run.calls[call].sent_commit)
        shown = [data["messages"][ref] for ref, _ in view["window"]]
        assert [m["stage_id"] for m in shown] == [m.stage_id for m in sent]
        assert [m["role"] for m in shown] == [m.role for m in sent]
        assert [m["chars"] for m in shown] == [m.chars for m in sent]
        assert [m["text"] for m in shown] == [m.content[:BOUNDARY_TEXT_CHARS] for m in sent]
        assert [m["more"] for m in shown] == [
            max(len(m.content) - BOUNDARY_TEXT_CHARS, 0) for m in sent
        ]
        assert view["caption"].startswith(
            f"Iteration {view['iteration']} · call {call} (calls count from 0): "
        )


def test_pinned_and_refused_marks_are_the_membership_states_in_words(run: Run, page: str) -> None:
    data = embedded(page)["pinned--sliding-window--boundary"]
    membership = capture(run).membership
    seen: set[str] = set()
    for view in data["iterations"]:
        here = membership[membership["iteration"] == view["iteration"]]
        expected = dict(zip(here["stage_id"], here["state"].astype(str), strict=True))
        for ref, code in view["window"]:
            state = data["states"][code]
            seen.add(state)
            assert state == expected[data["messages"][ref]["stage_id"]]
            assert data["marks"][state] == state_words(state)
    assert {"pinned", "refused-last-tool-result", "refused-inside-keep-window"} <= seen
    assert data["marks"]["pinned"] == f"pinned: {STATE_MEANINGS['pinned']}"
    assert REFUSAL_MEANINGS["inside-keep-window"] in data["marks"]["refused-inside-keep-window"]
    assert data["marks"]["in-window"] == ""


def test_what_left_and_the_record_filed_at_each_boundary(run: Run, page: str) -> None:
    data = embedded(page)["pinned--sliding-window--boundary"]
    frames = capture(run)
    for view in data["iterations"]:
        iteration = view["iteration"]
        records = [r for r in run.records if r.iteration == iteration]
        assert [r["removed"] for r in view["records"]] == [r.removed_stage_ids for r in records]
        assert [r["sentence"] for r in view["records"]] == [record_sentence(r) for r in records]
        left = frames.evictions[frames.evictions["iteration"] == iteration]
        assert [data["messages"][ref]["stage_id"] for ref, _, _ in view["left"]] == list(
            left["stage_id"]
        )
        removed = [sid for r in records for sid in r.removed_stage_ids]
        assert sorted(data["messages"][ref]["stage_id"] for ref, _, _ in view["left"]) == sorted(
            removed
        )
    first = next(r for r in run.records if r.removed_message_count)
    assert data["iterations"][data["initial"]]["iteration"] == first.iteration


def test_long_text_is_capped_and_counted(run: Run, page: str) -> None:
    data = embedded(page)["pinned--sliding-window--boundary"]
    dumped = [m for m in data["messages"] if m["role"] == "tool" and m["who"] == "tool dump"]
    assert len(dumped) == 1
    full = run.ledger.message(dumped[0]["stage_id"]).content
    assert len(full) > BOUNDARY_TEXT_CHARS
    assert dumped[0]["text"] == full[:BOUNDARY_TEXT_CHARS]
    assert dumped[0]["more"] == len(full) - BOUNDARY_TEXT_CHARS
    # each message is stored once, however many windows it was sent in
    assert len({m["stage_id"] for m in data["messages"]}) == len(data["messages"])


def test_the_json_is_escaped_for_the_page(page: str) -> None:
    ours = _BUNDLE.sub("", page)
    assert HOSTILE not in ours and "<script>alert" not in ours
    block = _DATA.search(ours)
    assert block is not None and "</" not in block.group(2) and "<" not in block.group(2)
    texts = [m["text"] for m in json.loads(block.group(2))["messages"]]
    assert any(HOSTILE in text for text in texts)  # escaped in the page, exact once parsed


def test_each_visit_is_named_in_words_without_turn_shorthand(run: Run, page: str) -> None:
    ours = _BUNDLE.sub("", page)
    visits = re.search(r'<ul class="visits">(.*?)</ul>', ours, re.DOTALL)
    assert visits is not None
    items = re.findall(r'<li data-iteration="(\d+)">(.*?)</li>', visits.group(1), re.DOTALL)
    assert [int(i) for i, _ in items] == [r.iteration for r in run.records]
    for (_, item), record in zip(items, run.records, strict=True):
        text = unescape(re.sub(r"<[^>]+>", "", item))
        assert text == record_sentence(record)
        for stage_id in record.removed_stage_ids:
            assert stage_id in text
        for refusal in record.refusals:
            assert f"{refusal.reason}: {REFUSAL_MEANINGS[refusal.reason]}" in text
        assert record_text(record).count("@t") == 0
    removal = next(r for r in run.records if r.removed_message_count)
    sentence = record_sentence(removal)
    assert sentence.startswith(
        f"iteration {removal.iteration}: sliding-window removed "
        f"{', '.join(removal.removed_stage_ids)} ({removal.removed_message_count} messages, "
    )
    assert "because the window held 5 turns, more than the 2 it keeps" in sentence
    assert "pinned: dump's latest result (tool-calls#3)" in sentence
    assert "@t" not in ours
    # each iteration links to the run's Boundary view
    assert ours.count('href="#pinned--sliding-window--boundary"') == len(run.records)


def test_a_long_run_holds_every_record_iteration_and_a_stride_of_the_others() -> None:
    calls = {"n": 0}

    def reply(request: Any) -> Reply:
        calls["n"] += 1
        return Reply.text("done") if calls["n"] >= 400 else Reply.tool_call("read_log", name="x")

    agent = (
        Agent.create(provider=ScriptedProvider(reply), max_iterations=400)
        .tool(read_log)
        .window(token_budget(threshold_tokens=2_000, keep_recent_turns=2))
        .build()
    )
    long_run = agent.run("loop")
    frames = capture(long_run)
    data = boundary_views(long_run, frames)
    held = [v["iteration"] for v in data["iterations"]]
    recorded = sorted({r.iteration for r in long_run.records})
    assert 3 <= len(recorded) < 100
    assert set(recorded) <= set(held)
    assert held[-1] == long_run.calls[-1].iteration and held[0] == 1
    assert len(held) <= len(recorded) + BOUNDARY_OTHER_ITERATIONS + 1
    assert data["total"] == long_run.iterations > len(held)
    assert data["note"].startswith(f"The slider holds {len(held)} of {data['total']} iterations")
    html = render_report({"long": {"token-budget": long_run}}).html
    assert escape(data["note"]) in html


def test_every_record_of_a_very_long_run_is_capped_too() -> None:
    big = tool_loop(900)
    data = boundary_views(big, capture(big))
    assert len(big.records) > 800
    assert len(data["iterations"]) <= 400 + BOUNDARY_OTHER_ITERATIONS + 1
    assert "spread evenly" in data["note"]
    html = render_report({"big": {"sliding-window": big}}).html
    assert f"The first {VISITS_LISTED} of {len(big.records)} visits" in html


def test_a_report_of_frames_only_says_why_it_has_no_boundary(run: Run) -> None:
    html = render_report({"pinned": {"frames": capture(run)}}).html
    assert not _DATA.search(html)
    assert "this report was given the run's frames only" in html
    assert "mountPage" not in html  # no script when no run has a Boundary view


def test_the_inspector_writes_the_report_of_its_run(run: Run, tmp_path: Path) -> None:
    from footprint_lab.lab import Inspector

    insp = Inspector(run, label="pinned run")
    path = insp.to_html(tmp_path / "nested" / "inspector.html")
    assert path == tmp_path / "nested" / "inspector.html" and path.exists()
    html = path.read_text(encoding="utf-8")
    assert f"<title>{escape(insp.title)}</title>" in html
    assert "<h3>pinned run</h3>" in html
    assert html.count("Plotly.newPlot(") == 5  # compare chart + the four of the run
    views = embedded(html)
    assert len(views) == 1
    (data,) = views.values()
    assert [v["iteration"] for v in data["iterations"]] == insp.iterations
    assert data["iterations"][data["initial"]]["iteration"] == insp.slider.value
    # the same as the report of that run alone, with the Inspector's capture
    assert path.read_text(encoding="utf-8") == (
        write_run_report(
            run, tmp_path / "again.html", frames=insp.frames, title=insp.title
        ).read_text(encoding="utf-8")
    )
