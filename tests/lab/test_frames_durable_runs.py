"""capture() on paused, resumed, injected and multi-request runs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from footprint_lab import (
    Agent,
    Checkpoint,
    Reply,
    ScriptedProvider,
    after_compaction,
    ask_human,
    load_run,
    sliding_window,
    tool,
)
from footprint_lab.lab import capture
from footprint_lab.scenarios import deploy_audit
from tests.lab.invariants import check_all


@tool
def lookup(key: str) -> str:
    """Look something up."""
    return f"{key}: " + "value " * 60


def _agent(replies: list[Reply], keep: int = 1) -> Agent:
    agent: Agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=10)
        .tools(ask_human, lookup)
        .window(sliding_window(keep))
        .build()
    )
    return agent


def test_paused_and_resumed_runs() -> None:
    agent = _agent(
        [
            Reply.tool_call("lookup", key="a"),
            Reply.tool_call("lookup", key="b"),
            Reply.tool_calls([("lookup", {"key": "c"}), ("ask_human", {"question": "which?"})]),
            Reply.tool_call("lookup", key="d"),
            Reply.text("blue it is"),
        ]
    )
    paused = agent.run("pick a colour")
    assert paused.status == "paused"
    frames = capture(paused)
    check_all(paused, frames)
    # the boundary visit at the pause filed a record for an iteration with no call yet
    assert frames.records["iteration"].max() > frames.calls["iteration"].max()
    done = paused.resume("blue")
    assert done.status == "done"
    check_all(done, capture(done))


def test_injections_are_in_the_window_and_never_the_anchor() -> None:
    scenario = deploy_audit()
    agent = (
        Agent.create(provider=scenario.provider(), max_iterations=scenario.max_iterations)
        .tools(*scenario.tools)
        .window(sliding_window(3))
        .inject(after_compaction("Standing order: cite the deployment id."))
        .build()
    )
    run = agent.run(scenario.request)
    frames = capture(run)
    check_all(run, frames)
    injected = frames.messages[frames.messages["authored"] == "injection"]
    assert len(injected) >= 1
    assert set(injected["stage"]) == {"inject"}


def test_a_conversation_of_several_requests() -> None:
    agent = _agent(
        [
            Reply.tool_call("lookup", key="first"),
            Reply.text("first answered"),
            Reply.tool_call("lookup", key="second"),
            Reply.tool_call("lookup", key="third"),
            Reply.text("second answered"),
        ]
    )
    first = agent.run("question one")
    second = agent.run("question two")
    a, b = capture(first), capture(second)
    check_all(first, a)
    check_all(second, b)
    seeds = b.messages[b.messages["stage"] == "seed"]
    assert seeds["role"].tolist() == ["user", "user"]
    # the first conversation's frames are a prefix of the second's
    assert b.calls["chars"].tolist()[: len(a.calls)] == a.calls["chars"].tolist()


def _timeless(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame without wall-clock columns: two executions differ only in when they ran."""
    return frame.drop(columns=[c for c in frame.columns if c.endswith("_ms")])


def test_checkpoint_json_resume_and_save_load_give_equal_frames(tmp_path: Path) -> None:
    replies = [
        Reply.tool_call("lookup", key="a"),
        Reply.tool_calls([("lookup", {"key": "b"}), ("ask_human", {"question": "go?"})]),
        Reply.tool_call("lookup", key="c"),
        Reply.text("done"),
    ]
    paused = _agent(list(replies)).run("work")
    in_process = paused.resume("yes")
    restored = Checkpoint.model_validate_json(paused.checkpoint().model_dump_json())
    elsewhere = _agent(list(replies)).resume(restored, answer="yes")
    loaded = load_run(in_process.save(tmp_path / "run.json"))
    a, b, c = capture(in_process), capture(elsewhere), capture(loaded)
    for name in a.frames():
        pd.testing.assert_frame_equal(_timeless(a[name]), _timeless(b[name]), obj=name)
        pd.testing.assert_frame_equal(a[name], c[name], obj=name)
