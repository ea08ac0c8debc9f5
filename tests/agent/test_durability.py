"""Durable runs: pauses for a person, injections, conversations, checkpoints, run files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Agent,
    Checkpoint,
    Message,
    Reply,
    RunFileError,
    ScriptedProvider,
    StrategyInput,
    StrategyResult,
    after_compaction,
    ask_human,
    load_run,
    sliding_window,
    summarize_oldest,
    tool,
)
from footprint_lab.scenarios import deploy_audit, extractive_summarizer
from tests.budget import examples

deleted: list[str] = []


@tool(check_in=True)
def delete_branch(name: str) -> str:
    """Delete a git branch (acts on the world: needs consent)."""
    deleted.append(name)
    return f"deleted {name}"


@tool
def lookup(key: str) -> str:
    """Look something up."""
    return f"{key}: " + "value " * 60


def _human_agent(replies: list[Reply], strategy: object = None) -> Agent:
    builder = Agent.create(provider=ScriptedProvider(replies), max_iterations=10).tools(
        ask_human, delete_branch, lookup
    )
    if strategy is not None:
        builder = builder.window(strategy)
    agent: Agent = builder.build()
    return agent


# -- human pauses --------------------------------------------------------------------------


def test_ask_human_pauses_and_resume_answers() -> None:
    agent = _human_agent(
        [
            Reply.tool_calls([("lookup", {"key": "a"}), ("ask_human", {"question": "which?"})]),
            Reply.text("going with blue"),
        ]
    )
    run = agent.run("pick a colour")
    assert run.status == "paused" and run.pause is not None
    assert (run.pause.tool_name, run.pause.kind, run.pause.arguments) == (
        "ask_human",
        "ask-human",
        {"question": "which?"},
    )
    # The other call of the batch ran; the paused one waits, unanswered, in the window.
    assert run.window[-1].name == "lookup"
    with pytest.raises(ValueError, match="answer"):
        run.resume()
    done = run.resume("blue")
    assert done.status == "done" and done.output == "going with blue"
    answer = next(m for m in done.window if m.tool_call_id == run.pause.call_id)
    assert answer.content == "blue" and answer.stage_id is not None
    assert done.ledger.message(answer.stage_id).content == "blue"


def test_check_in_approve_runs_the_tool_and_deny_refuses_it() -> None:
    deleted.clear()
    replies = [Reply.tool_call("delete_branch", name="old"), Reply.text("ok")]
    paused = _human_agent(list(replies)).run("clean up")
    assert paused.status == "paused" and paused.pause is not None and paused.pause.check_in
    assert deleted == []
    approved = paused.approve()
    assert approved.status == "done" and deleted == ["old"]

    denied = _human_agent(list(replies)).run("clean up").deny("keep it for now")
    assert denied.status == "done" and deleted == ["old"]
    result = next(m for m in denied.window if m.role == "tool")
    assert result.content == "error: denied by the person: keep it for now"


class KeepNothing:
    """A custom strategy with no keep window: only the guards hold anything."""

    name = "keep-nothing"

    def plan(self, input: StrategyInput) -> StrategyResult:
        return input.drop(self.name, input.plan_removal(0))


def test_the_turn_a_paused_run_waits_on_refuses_by_name() -> None:
    agent = _human_agent(
        [
            Reply.tool_call("lookup", key="a"),
            Reply.tool_call("delete_branch", name="x"),
            Reply.text("done"),
        ],
        strategy=KeepNothing(),
    )
    run = agent.run("tidy")
    assert run.status == "paused"
    last = run.records[-1]
    assert last.iteration == run.iterations
    assert "pending-check-in" in last.refusal_reasons()
    # The waiting call survived the boundary; the lookup turn before it did not.
    assert any(c.id == run.pause.call_id for m in run.window for c in m.tool_calls)  # type: ignore[union-attr]
    assert run.approve().status == "done"


# -- injections and conversations ----------------------------------------------------------


def test_injection_after_compaction_is_authored_and_never_the_anchor() -> None:
    scenario = deploy_audit()
    agent = (
        Agent.create(provider=scenario.provider(), max_iterations=scenario.max_iterations)
        .tools(*scenario.tools)
        .window(sliding_window(3))
        .inject(after_compaction("Standing order: cite the deployment id."))
        .build()
    )
    run = agent.run(scenario.request)
    assert run.status == "done"
    injected = [m for m in run.ledger.messages if m.authored == "injection"]
    changed = [r for r in run.records if r.removed_message_count]
    assert len(injected) == len(changed) >= 1
    assert all(m.stage_id and m.stage_id.startswith("inject#") for m in injected)
    assert all(r.refusals[0].reason == "current-request" for r in run.records)
    assert all(r.refusals[0].message_index == 0 for r in run.records)


def test_second_run_continues_the_conversation_and_moves_the_anchor() -> None:
    replies = [
        Reply.tool_call("lookup", key="first"),
        Reply.text("first answered"),
        Reply.tool_call("lookup", key="second"),
        Reply.tool_call("lookup", key="third"),
        Reply.text("second answered"),
    ]
    agent = _human_agent(replies, strategy=sliding_window(1))
    first = agent.run("question one")
    second = agent.run("question two")
    assert (first.status, second.status) == ("done", "done")
    assert second.requests == ["question one", "question two"]
    assert len(first.ledger.messages) == 4  # the first run is left as it was
    assert second.ledger.messages[:4] == first.ledger.messages
    sent = second.window_sent(2)  # first call of the second loop
    assert sent[-1].content == "question two"
    # The old request is ordinary history now: the anchor moved, so it may leave.
    late = [r for r in second.records if r.iteration > first.iterations]
    assert "seed#0" in {s for r in late for s in r.removed_stage_ids}
    request_two = next(m for m in second.ledger.messages if m.content == "question two")
    for i, call in enumerate(second.calls):
        if call.iteration > first.iterations:
            assert request_two in second.window_sent(i)
    # The first loop's lookup result sits before the new request: it is never pinned again.
    first_result = next(m for m in first.ledger.messages if m.role == "tool")
    assert first_result not in second.window


# -- checkpoints -----------------------------------------------------------------------------


def test_checkpoint_json_round_trip_resumes_identically() -> None:
    replies = [
        Reply.tool_call("lookup", key="a"),
        Reply.tool_call("ask_human", question="go on?"),
        Reply.tool_call("lookup", key="b"),
        Reply.text("finished"),
    ]
    paused = _human_agent(list(replies), strategy=sliding_window(1)).run("work")
    in_process = paused.resume("yes")
    payload = paused.checkpoint().model_dump_json()
    restored = Checkpoint.model_validate_json(payload)
    fresh_agent = _human_agent(list(replies), strategy=sliding_window(1))
    elsewhere = fresh_agent.resume(restored, answer="yes")
    assert elsewhere.status == in_process.status == "done"
    assert elsewhere.output == in_process.output
    assert [r.model_dump() for r in elsewhere.records] == [
        r.model_dump() for r in in_process.records
    ]
    for i in range(len(in_process.calls)):
        assert elsewhere.window_sent(i) == in_process.window_sent(i)


def test_resume_on_error_retries_with_the_identical_window() -> None:
    replies = [Reply.tool_call("lookup", key="a"), Reply.fail("503 overloaded"), Reply.text("ok")]
    failed = _human_agent(replies, strategy=sliding_window(2)).run("go")
    assert failed.status == "error"
    checkpoint = failed.checkpoint()
    assert checkpoint.error is not None and "503" in checkpoint.error.message
    with pytest.raises(ValueError, match="resume_on_error"):
        failed.agent.resume(checkpoint)  # type: ignore[union-attr]
    failed_call = failed.calls[-1]
    assert failed_call.usage is None  # the attempt that got no reply
    resumed = failed.agent.resume_on_error(checkpoint)  # type: ignore[union-attr]
    assert resumed.status == "done" and resumed.output == "ok"
    # the re-run took the failed attempt's place: the calls are an uninterrupted run's
    clean = [r for r in replies if r is not replies[1]]
    whole = _human_agent(clean, strategy=sliding_window(2)).run("go")
    assert [c.model_dump() for c in resumed.calls] == [c.model_dump() for c in whole.calls]
    retried = resumed.calls[-1]
    assert (retried.stage_id, retried.iteration) == (failed_call.stage_id, failed_call.iteration)
    assert resumed.window_sent(len(resumed.calls) - 1) == failed.window_sent(len(failed.calls) - 1)
    # the failed attempt is still told by the events: two starts of its stage, and the fault
    starts = [e for e in resumed.events if e.type == "llm.start" and e.stage_id == retried.stage_id]
    assert len(starts) == 2 and any(e.type == "run.error" for e in resumed.events)


def test_folded_originals_ride_the_checkpoint_unless_discarded() -> None:
    scenario = deploy_audit()
    for retain, expect in (("conversation", True), ("discard", False)):
        strategy = summarize_oldest(1500, extractive_summarizer, 3, retain=retain)  # type: ignore[arg-type]
        run = scenario.run(strategy)
        restored = Checkpoint.model_validate_json(run.checkpoint().model_dump_json())
        assert restored.folded and bool(restored.folded[0].originals) is expect
        assert restored.folded[0].frame_stage_id is not None
        if expect:
            originals = restored.folded[0].originals
            assert originals[1].content.startswith("DEPLOY d1")


# -- run files -------------------------------------------------------------------------------


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    scenario = deploy_audit()
    run = scenario.run(scenario.strategies()["summarize-oldest"])
    path = run.save(tmp_path / "runs" / "audit.json")
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    loaded = load_run(path)
    assert loaded.checkpoint().model_dump() == run.checkpoint().model_dump()
    assert loaded.ledger.messages == run.ledger.messages
    assert loaded.usage == run.usage
    assert [e.model_dump() for e in loaded.events] == [e.model_dump() for e in run.events]
    assert loaded.meta["scenario"] == "deploy-audit"


def test_clear_errors_for_bad_files(tmp_path: Path) -> None:
    good = deploy_audit().run(sliding_window(3)).save(tmp_path / "good.json")
    text = good.read_text()
    cases = {
        "missing.json": None,
        "truncated.json": text[: len(text) // 2],
        "foreign.json": json.dumps({"hello": "world"}),
        "version.json": text.replace('"version":2', '"version":99'),
        "corrupt.json": text.replace('"stage_counter":', '"stage_counter":"many","x":'),
    }
    expected = {
        "missing.json": "no such run file",
        "truncated.json": "truncated or corrupt",
        "foreign.json": "not a footprint_lab run file",
        "version.json": "version 99 is not supported",
        "corrupt.json": "corrupt run file",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_text(content)
        with pytest.raises(RunFileError) as info:
            load_run(path)
        assert str(path) in str(info.value) and expected[name] in str(info.value)


_GOOD: dict[str, str] = {}


def _good_text() -> str:
    if "text" not in _GOOD:
        run = deploy_audit().run(sliding_window(3))
        _GOOD["text"] = run.checkpoint().model_dump_json()
    return _GOOD["text"]


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_fuzzed_and_truncated_files_always_give_the_clear_error(
    tmp_path: Path, data: st.DataObject
) -> None:
    text = _good_text()
    mode = data.draw(st.sampled_from(["truncate", "flip", "splice", "garbage"]))
    if mode == "truncate":
        mutated = text[: data.draw(st.integers(0, len(text) - 1))]
    elif mode == "flip":
        at = data.draw(st.integers(0, len(text) - 1))
        mutated = text[:at] + data.draw(st.sampled_from(list('{}[]",:0a-'))) + text[at + 1 :]
    elif mode == "splice":
        at = data.draw(st.integers(0, len(text) - 1))
        mutated = text[:at] + data.draw(st.text(max_size=20)) + text[at:]
    else:
        mutated = data.draw(st.text(max_size=200))
    path = tmp_path / "fuzzed.json"
    path.write_text(mutated, encoding="utf-8")
    try:
        loaded = load_run(path)
    except RunFileError as exc:
        assert str(path) in str(exc)
        return
    # A mutation that still parses must give a whole, consistent run.
    assert loaded.window == [
        loaded.ledger.messages[loaded.ledger.position(m)] for m in loaded.window
    ]  # type: ignore[index]
    assert isinstance(loaded.ledger.messages[0], Message)


def test_a_finished_run_has_nothing_to_resume() -> None:
    run = deploy_audit().run(sliding_window(3))
    with pytest.raises(ValueError, match="nothing to resume") as raised:
        run.agent.resume(run.checkpoint())  # type: ignore[union-attr]
    # It points to the call that continues the conversation, not to run(), which starts anew.
    assert "agent.continue_from(checkpoint).run(" in str(raised.value)
    assert "call run()" not in str(raised.value)
    with pytest.raises(ValueError, match="not stopped on a fault"):
        run.agent.resume_on_error(run.checkpoint())  # type: ignore[union-attr]


def test_pauses_and_resumes_are_events() -> None:
    agent = _human_agent(
        [
            Reply.tool_calls([("ask_human", {"question": "a?"}), ("delete_branch", {"name": "x"})]),
            Reply.text("ok"),
        ]
    )
    run = agent.run("go")
    run = run.resume("yes")
    assert run.status == "paused" and run.pause is not None and run.pause.kind == "check-in"
    run = run.deny("no")
    kinds = [
        (e.type, getattr(e, "outcome", getattr(e, "kind", None)))
        for e in run.events
        if e.type in ("run.paused", "run.resumed")
    ]
    assert kinds == [
        ("run.paused", "ask-human"),
        ("run.resumed", "answered"),
        ("run.paused", "check-in"),
        ("run.resumed", "denied"),
    ]
