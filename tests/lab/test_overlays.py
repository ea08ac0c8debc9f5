"""Overlays: violations, pauses and lost evidence as frames, drawn over the window map; and
counterfactual replays labelled wherever they are shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Agent,
    Reply,
    Run,
    ScriptedProvider,
    ask_human,
    audit,
    replay,
    sliding_window,
    tool,
)
from footprint_lab.auditing import keep_last_messages
from footprint_lab.evidence import losses
from footprint_lab.importers import from_openai, load_tau_bench
from footprint_lab.lab import Frames, capture, capture_many, plots
from footprint_lab.lab.frames import violation_window
from footprint_lab.lab.report import render_report
from footprint_lab.lab.schema import SCHEMAS
from tests.builders import EVIDENCE_TRANSCRIPT
from tests.lab.invariants import (
    check_all,
    check_calls_and_messages,
    check_records,
    check_schema,
    record_windows,
)

DATA = Path(__file__).parents[2] / "data" / "tau-bench"


def _title(fig: Any) -> str:
    """A figure's title as one line (a long one is drawn broken into lines)."""
    return str(fig.layout.title.text).replace(plots.TITLE_BREAK, " ")


def _trace(fig: go.Figure, name: str) -> Any:
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, [t.name for t in fig.data]
    return matches[0]


def _col(series: pd.Series) -> list[Any]:
    return [None if pd.isna(v) else v for v in series.tolist()]


TRANSCRIPT = EVIDENCE_TRANSCRIPT


@pytest.fixture(scope="module")
def transcript() -> Run:
    return from_openai(TRANSCRIPT)


@pytest.fixture(scope="module")
def tau_runs() -> list[Run]:
    return load_tau_bench(DATA)


# -- violations --------------------------------------------------------------------------------


def test_violations_frame_names_every_violation_and_resolves_its_message(transcript: Run) -> None:
    replayed = replay(transcript, audit(keep_last_messages(3)), keep_last_tool_results=0)
    frames = capture(replayed)
    # (check_all would stop here: this policy drops the current request, which is the point)
    check_schema(frames)
    check_records(replayed, frames)
    check_calls_and_messages(replayed, frames)
    violations = frames.violations
    expected = [
        (r.iteration, v.kind, v.message_index) for r in replayed.records for v in r.violations or ()
    ]
    assert (
        list(
            zip(
                violations["iteration"],
                violations["kind"],
                violations["message_index"],
                strict=True,
            )
        )
        == expected
    )
    assert set(violations["kind"]) == {
        "split-tool-pair",
        "lost-current-request",
        "window-opens-on-non-user",
    }
    windows = record_windows(replayed)
    messages = replayed.ledger.messages
    for row in violations.to_dict("records"):
        _, given_w, after_w = windows[row["record"]]
        side = given_w if row["window"] == "given" else after_w
        assert row["position"] == side[row["message_index"]]
        assert row["stage_id"] == messages[row["position"]].stage_id
        if row["kind"] == "lost-current-request":
            # the request the policy dropped: a user message, no longer in the window sent
            assert row["window"] == "given" and messages[row["position"]].role == "user"
            assert row["position"] not in after_w
        if row["kind"] == "split-tool-pair":
            # the half that was kept: a tool result in the window sent
            assert row["window"] == "sent" and messages[row["position"]].role == "tool"
            assert row["position"] in after_w
    # records carry the same count
    counts = frames.records.set_index("record")["violation_count"]
    assert violations.groupby("record").size().to_dict() == {
        k: v for k, v in counts.to_dict().items() if v
    }


def test_violation_window_follows_find_violations() -> None:
    assert violation_window("split-tool-pair") == "sent"
    assert violation_window("window-opens-on-non-user") == "sent"
    assert violation_window("lost-current-request") == "given"
    assert violation_window("system-dropped") == "given"
    assert violation_window("non-contiguous-removal") == "given"
    assert violation_window("rewritten-without-frame", "content of seed#0 changed") == "given"
    assert (
        violation_window("rewritten-without-frame", "an inserted message does not say ...")
        == "sent"
    )
    assert violation_window("a-kind-of-yours") == "given"


def test_our_strategies_file_no_violations(transcript: Run) -> None:
    frames = capture(replay(transcript, sliding_window(1), keep_last_tool_results=0))
    assert frames.violations.empty
    assert list(frames.violations.columns) == list(SCHEMAS["violations"])


# -- pauses ------------------------------------------------------------------------------------


@tool
def lookup(key: str) -> str:
    """Look something up."""
    return f"{key}: " + "value " * 60


@tool(check_in=True)
def deploy(target: str) -> str:
    """Deploy somewhere (needs consent)."""
    return f"deployed {target}"


def _paused_agent() -> Agent:
    replies = [
        Reply.tool_call("lookup", key="a"),
        Reply.tool_call("ask_human", question="which colour?"),
        Reply.tool_call("lookup", key="b"),
        Reply.tool_call("deploy", target="prod"),
        Reply.text("done"),
    ]
    agent: Agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=10)
        .tools(ask_human, lookup, deploy)
        .window(sliding_window(1))
        .build()
    )
    return agent


def test_pauses_frame_follows_paused_and_resumed_events() -> None:
    paused = _paused_agent().run("pick a colour")
    assert paused.status == "paused"
    frames = capture(paused)
    check_all(paused, frames)
    (row,) = frames.pauses.to_dict("records")
    assert row["iteration"] == 2 and row["tool_name"] == "ask_human"
    assert row["kind"] == "ask-human"
    assert pd.isna(row["outcome"]) and pd.isna(row["resumed_iteration"])  # still waiting
    maker = paused.ledger.messages[row["position"]]
    assert maker.role == "assistant" and [c.id for c in maker.tool_calls] == [row["call_id"]]
    assert row["stage_id"] == maker.stage_id

    answered = paused.resume("blue")
    assert answered.status == "paused"  # now on the check-in
    denied = answered.deny("not today")
    assert denied.status == "done"
    pauses = capture(denied).pauses
    assert pauses["tool_name"].tolist() == ["ask_human", "deploy"]
    assert pauses["kind"].tolist() == ["ask-human", "check-in"]
    assert pauses["outcome"].tolist() == ["answered", "denied"]
    events = [e for e in denied.events if e.type == "run.paused"]
    assert pauses["iteration"].tolist() == [e.iteration for e in events]
    assert (pauses["resumed_iteration"] >= pauses["iteration"]).all()


def test_pauses_are_drawn_after_the_paused_iteration() -> None:
    run = _paused_agent().run("pick a colour").resume("blue").approve()
    assert run.status == "done"
    frames = capture(run)
    pauses = frames.pauses
    expected_x: list[Any] = []
    for it in pauses["iteration"]:
        expected_x += [int(it) + plots.PAUSE_OFFSET] * 2 + [None]
    for fig in (plots.window_map(frames), plots.window_size(frames)):
        trace = _trace(fig, "pause")
        assert list(trace.x) == expected_x
        texts = [t for t in trace.hovertext if t]
        assert any("ask_human" in t and "answered" in t for t in texts)
        assert any("deploy" in t and "approved" in t for t in texts)
    # the map's line spans every row
    heat = plots.window_map(frames).data[0]
    ys = [y for y in _trace(plots.window_map(frames), "pause").y if y is not None]
    assert min(ys) < min(heat.y) and max(ys) > max(heat.y)


# -- lost evidence -----------------------------------------------------------------------------


def test_losses_frame_only_when_asked(transcript: Run) -> None:
    replayed = replay(transcript, sliding_window(1), keep_last_tool_results=0)
    assert capture(replayed).losses.empty
    frames = capture(replayed, evidence=True)
    check_schema(frames)
    assert frames.info["evidence"] is True
    expected = losses(replayed)
    assert len(expected) == 1
    (row,) = frames.losses.to_dict("records")
    loss = expected[0]
    assert (row["iteration"], row["call_id"], row["value"]) == (
        loss.iteration,
        loss.call_id,
        loss.value,
    )
    assert row["source_stage_id"] == loss.source_stage_id
    assert row["removed_by"] == loss.removed_by
    assert row["removed_by_strategy"] == "sliding-window"
    assert row["kept_by_summary"] is False
    source = replayed.ledger.messages[row["source_position"]]
    assert source.role == "tool" and loss.value in source.content
    maker = replayed.ledger.messages[row["call_position"]]
    assert maker.role == "assistant" and maker.tool_calls[0].id == row["call_id"]


def test_window_map_marks_violations_and_lost_evidence(transcript: Run) -> None:
    replayed = replay(transcript, audit(keep_last_messages(3)), keep_last_tool_results=0)
    frames = capture(replayed, evidence=True)
    fig = plots.window_map(frames)
    assert isinstance(fig.data[0], go.Heatmap)
    violation = _trace(fig, "violation")
    assert list(violation.x) == _col(frames.violations["iteration"])
    assert list(violation.y) == _col(frames.violations["position"])
    assert all(k in t for k, t in zip(frames.violations["kind"], violation.hovertext, strict=True))
    lost = _trace(fig, "lost evidence")
    assert list(lost.x) == _col(frames.losses["iteration"])
    assert list(lost.y) == _col(frames.losses["source_position"])
    for text, row in zip(lost.hovertext, frames.losses.to_dict("records"), strict=True):
        assert row["call_id"] in text and row["value"] in text
        assert f"at iteration {row['removed_by']}" in text
    calls = _trace(fig, "call without its evidence")
    assert list(calls.y) == _col(frames.losses["call_position"].drop_duplicates())
    # the heatmap is the same as without overlays
    bare = plots.window_map(capture(replayed))
    assert len(bare.data) == 2  # heatmap + violations; no losses without evidence=True
    assert np.array_equal(bare.data[0].z, fig.data[0].z, equal_nan=True)


def test_capture_many_stacks_the_overlay_frames(transcript: Run) -> None:
    a = replay(transcript, audit(keep_last_messages(3)), keep_last_tool_results=0)
    b = replay(transcript, sliding_window(1), keep_last_tool_results=0)
    many = capture_many({"keep-3": a, "sliding": b}, evidence=True)
    for name in ("violations", "pauses", "losses"):
        assert list(many[name].columns) == ["run", *SCHEMAS[name]]
    assert set(many.losses["run"]) == {"keep-3", "sliding"}
    assert (many.violations["run"] == "keep-3").all()
    assert len(many.violations) == len(capture(a).violations)


# -- counterfactual labels ---------------------------------------------------------------------


def test_counterfactual_runs_are_labelled_in_every_figure(transcript: Run) -> None:
    replayed = capture(replay(transcript, sliding_window(1)), label="sliding k=1")
    assert replayed.info["counterfactual"] is True
    agent_run = capture(_paused_agent().run("x"), label="agent")
    assert agent_run.info["counterfactual"] is False
    builders = (plots.window_size, plots.window_map, plots.pins_timeline, plots.refusals_by_reason)
    for build in builders:
        assert _title(build(replayed)).endswith(plots.COUNTERFACTUAL_SUFFIX)
        assert "counterfactual" not in build(agent_run).layout.title.text
    both = plots.compare({"replay": replayed, "agent": agent_run})
    assert "counterfactual" in both.layout.title.text
    assert _trace(both, "replay").line.dash == "dash"
    assert _trace(both, "agent").line.dash == "solid"
    assert "counterfactual replay" in _trace(both, "replay").hovertemplate
    only = plots.compare(capture_many({"r": replayed}))
    assert _title(only).endswith(plots.COUNTERFACTUAL_SUFFIX)


def test_report_labels_counterfactual_runs(transcript: Run) -> None:
    html = render_report(
        {
            "imported": {
                "as recorded": transcript,
                "sliding k=1": replay(transcript, sliding_window(1)),
            }
        }
    ).html
    assert html.count('<span class="badge">counterfactual replay</span>') == 1
    assert "sliding k=1 (counterfactual replay)" in html  # the summary table
    assert "every reply after it is the original run" in html
    assert "as recorded (counterfactual replay)" not in html


# -- properties --------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    index=st.integers(min_value=0, max_value=49),
    kind=st.sampled_from(["sliding", "keep-last"]),
    keep=st.integers(min_value=1, max_value=6),
    pins=st.sampled_from([0, 2]),
)
def test_overlays_point_at_the_messages_they_name(
    tau_runs: list[Run], index: int, kind: str, keep: int, pins: int
) -> None:
    strategy = sliding_window(keep) if kind == "sliding" else audit(keep_last_messages(2 * keep))
    replayed = replay(tau_runs[index], strategy, keep_last_tool_results=pins)
    frames = capture(replayed, evidence=True)
    check_schema(frames)
    if kind == "sliding":
        check_all(replayed, frames)
    ledger = replayed.ledger
    sent = {c.iteration: ci for ci, c in enumerate(replayed.calls)}
    membership = frames.membership.set_index(["iteration", "position"])["in_window"]
    for row in frames.losses.to_dict("records"):
        source = ledger.messages[row["source_position"]]
        assert source.role == "tool" and source.stage_id == row["source_stage_id"]
        window = replayed.window_sent(sent[row["iteration"]])
        assert all(m is not source for m in window)  # missing where the marker sits
        assert not bool(membership.get((row["iteration"], row["source_position"]), False))
    windows = record_windows(replayed)
    for row in frames.violations.to_dict("records"):
        _, given_w, after_w = windows[row["record"]]
        side = given_w if row["window"] == "given" else after_w
        assert row["position"] == side[row["message_index"]]
    if kind == "sliding":
        assert frames.violations.empty


def test_empty_frames_draw_no_overlays() -> None:
    fig = plots.window_map(Frames.empty())
    assert [t.name for t in fig.data] == ["membership"]
