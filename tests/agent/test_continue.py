"""A standing agent keeps talking across a restart: ``agent.continue_from(run_or_checkpoint)``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from footprint_lab import Agent, Reply, ScriptedProvider, ask_human, load_run, sliding_window
from footprint_lab.scenarios import deploy_audit

CHILD = Path(__file__).with_name("continue_child.py")
NEXT_REQUEST = "Now re-check d4 and tell me whether the rollback finished."


def _child(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, str(CHILD), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("strategy", ["sliding-window", "summarize-oldest"])
@pytest.mark.parametrize("source", ["run", "checkpoint"])
def test_a_saved_conversation_continues_in_a_new_process(
    tmp_path: Path, strategy: str, source: str
) -> None:
    run_file, checkpoint_file = tmp_path / "run.json", tmp_path / "checkpoint.json"
    _child("first", strategy, str(run_file), str(checkpoint_file))
    report = tmp_path / "report.json"
    _child("second", source, str(run_file if source == "run" else checkpoint_file), str(report))
    result = json.loads(report.read_text())
    earlier = load_run(run_file)

    assert result["status"] == "done" and result["output"] == "d4: rollback finished."
    assert result["requests"] == [deploy_audit().request, NEXT_REQUEST]
    assert result["provider_calls"] == 2  # scripted for the continuation from its first reply
    # The ledger holds both requests, and everything the first one committed.
    assert result["ledger_users"][0] == deploy_audit().request
    assert NEXT_REQUEST in result["ledger_users"]
    assert result["ledger_messages"] > len(earlier.ledger.messages)
    assert result["calls"] == len(earlier.calls) + 2
    # The second request's first call sends the earlier window, as committed, then the request.
    history = [m.model_dump(mode="json") for m in earlier.window]
    first_of_second = result["windows"][len(earlier.calls)]
    assert first_of_second[: len(history)] == history
    assert first_of_second[len(history)]["content"] == NEXT_REQUEST
    library = {m["authored"] for m in history} - {None}
    assert library  # drop notices / compaction frames ride along as ordinary messages
    assert library <= {"drop-notice", "compaction-frame"}
    # The earlier calls are kept as they were sent.
    for i in range(len(earlier.calls)):
        assert result["windows"][i] == [m.model_dump(mode="json") for m in earlier.window_sent(i)]


def _agent(replies: list[Reply]) -> Agent:
    agent: Agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=4)
        .tool(ask_human)
        .window(sliding_window(3))
        .build()
    )
    return agent


def test_continue_from_in_process_returns_the_agent_and_keeps_the_source() -> None:
    first = _agent([Reply.text("one")]).run("first request")
    fresh = _agent([Reply.text("two")])
    assert fresh.continue_from(first.checkpoint()) is fresh
    second = fresh.run("second request")
    assert second.output == "two" and second.requests == ["first request", "second request"]
    assert [m.content for m in second.window_sent(1)] == ["first request", "one", "second request"]
    assert len(first.ledger.messages) == 2  # the source run is left as it was
    again = _agent([Reply.text("three")]).continue_from(first).run("another")
    assert again.requests == ["first request", "another"]


def test_continue_from_refuses_runs_that_did_not_finish() -> None:
    paused = _agent([Reply.tool_call("ask_human", question="which?")]).run("ask")
    assert paused.status == "paused"
    with pytest.raises(ValueError, match=r"agent\.resume\("):
        _agent([]).continue_from(paused.checkpoint())
    failed = _agent([Reply.fail("503 overloaded")]).run("fail")
    assert failed.status == "error"
    with pytest.raises(ValueError, match="resume_on_error"):
        _agent([]).continue_from(failed)


def test_a_conversation_goes_on_under_another_policy_only_when_asked(tmp_path: Path) -> None:
    """#37 item 4: a policy that quietly changed is one nobody can audit. continue_from refuses
    a conversation written under another strategy (knobs compared while the run has its agent)
    or pin limit, saying what to change; allowed, the run records a run.policy_changed event,
    which the run file keeps and the lab's captured facts state."""
    from footprint_lab import Agent, Reply, ScriptedProvider, sliding_window, tool

    @tool
    def look(n: int) -> str:
        """Look."""
        return f"r{n} " + "x" * 50

    def agent(keep: int | None, pins: int = 2) -> Agent:
        replies = [Reply.tool_calls([("look", {"n": 1})]), Reply.text("ok")]
        builder = Agent.create(
            provider=ScriptedProvider(replies), keep_last_tool_results=pins
        ).tool(look)
        built: Agent = (builder if keep is None else builder.window(sliding_window(keep))).build()
        return built

    first = agent(2).run("first")
    for other in (agent(3), agent(2, pins=1), agent(None)):
        with pytest.raises(ValueError, match="allow_policy_change=True"):
            other.continue_from(first)
    same = agent(2).continue_from(first).run("second")
    assert not [e for e in same.events if e.type == "run.policy_changed"]
    changed = agent(3).continue_from(first, allow_policy_change=True).run("second")
    [event] = [e for e in changed.events if e.type == "run.policy_changed"]
    assert event.strategy_before == "sliding-window(keep_recent_turns=2)"
    assert event.strategy_after == "sliding-window(keep_recent_turns=3)"
    assert event.iteration == first.iterations
    loaded = load_run(changed.save(tmp_path / "changed.json"))
    assert [e for e in loaded.events if e.type == "run.policy_changed"] == [event]
    # The lab states it: the captured run's facts, and their view in a notebook.
    from footprint_lab.lab import capture

    frames = capture(loaded)
    [said] = frames.info["policy_changes"]
    assert said == (
        f"after iteration {first.iterations}: sliding-window(keep_recent_turns=2) with 2 pin(s) "
        "became sliding-window(keep_recent_turns=3) with 2 pin(s)"
    )
    assert said in frames._repr_html_()
    assert capture(same).info["policy_changes"] == []
