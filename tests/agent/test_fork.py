"""Fork (#26 item 2): a recorded, saved or imported run continued from boundary ``at`` with the
window a strategy would have sent there, against a scripted provider and over the loopback
OpenAI and Anthropic servers through the official SDKs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import footprint_lab
from footprint_lab import (
    Agent,
    Reply,
    Run,
    ScriptedProvider,
    WindowConfigError,
    fork,
    load_run,
    replay,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)
from footprint_lab.importers import from_openai, load
from footprint_lab.lab import capture
from footprint_lab.messages import Message
from footprint_lab.scenarios import (
    deploy_audit,
    extractive_summarizer,
    long_session,
    parallel_tools,
)
from footprint_lab.window.strategies import WindowStrategy
from tests.lab.invariants import check_all
from tests.providers.conftest import _hermetic_environment, wire  # noqa: F401 (fixtures)
from tests.providers.servers import MODEL, WireServer, provider_for

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts"  # real files, licences
OPENHANDS = DATA / "openhands" / "multi-swe-bench-example-1.jsonl"
SWE_AGENT = DATA / "swe-agent" / "marshmallow-1867.function-calling-replace-from-source.traj"

STRATEGIES: dict[str, Callable[[], WindowStrategy | None]] = {
    "none": lambda: None,
    "sliding-window": lambda: sliding_window(keep_recent_turns=2),
    "sliding-window-3": lambda: sliding_window(keep_recent_turns=3),
    "token-budget": lambda: token_budget(threshold_tokens=900, keep_recent_turns=2),
    "summarize-oldest": lambda: summarize_oldest(
        threshold_tokens=900, summarizer=extractive_summarizer, keep_recent_turns=2
    ),
}


def _view(messages: list[Message]) -> list[tuple[str, str, list[tuple[str, str]], str | None]]:
    """What a window says, whoever committed it (stage ids aside)."""
    return [
        (m.role, m.content, [(c.name, str(c.arguments)) for c in m.tool_calls], m.authored)
        for m in messages
    ]


def _parent_boundary_commit(parent: Run, at: int) -> int:
    """How many of the parent's commits come before iteration ``at`` (no injections here):
    up to the window its visit at ``at`` was given, else up to what its call sent."""
    record = next((r for r in parent.records if r.iteration == at), None)
    if record is not None and record.given_commit is not None:
        return record.given_commit + 1
    call = next(c for c in parent.calls if c.iteration == at)
    return call.sent_commit + 1


def _answer(replies: int = 1) -> ScriptedProvider:
    return ScriptedProvider(
        [Reply.tool_call("read_log", deployment="d6")] * (replies - 1)
        + [Reply.text("asked again: d4 failed")]
    )


# -- the ledger up to `at`, the window S would have sent, its own calls after -----------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parent_strategy=st.sampled_from(sorted(STRATEGIES)),
    fork_strategy=st.sampled_from(sorted(STRATEGIES)),
    at=st.integers(min_value=1, max_value=7),
    replies=st.integers(min_value=1, max_value=3),
)
def test_a_fork_keeps_the_parents_ledger_up_to_at_and_sends_the_replayed_window(
    parent_strategy: str, fork_strategy: str, at: int, replies: int
) -> None:
    parent = deploy_audit().run(STRATEGIES[parent_strategy]())
    saved = parent.checkpoint().model_dump_json()
    forked = fork(parent, at=at, strategy=STRATEGIES[fork_strategy](), provider=_answer(replies))

    # the same ledger up to `at`: commit for commit, the very messages
    cut = _parent_boundary_commit(parent, at)
    assert forked.ledger.commits[:cut] == parent.ledger.commits[:cut]
    kept = parent.ledger.history_end(cut - 1)
    pairs = zip(forked.ledger.messages[:kept], parent.ledger.messages[:kept], strict=True)
    assert all(a is b for a, b in pairs)
    assert [c.stage_id for c in forked.calls if c.iteration < at] == [
        c.stage_id for c in parent.calls if c.iteration < at
    ]
    # its own calls after: the first sends what a replay of the parent under S sent at `at`
    own = [c for c in forked.calls if c.iteration >= at]
    assert [c.iteration for c in own] == list(range(at, at + replies))
    first = forked.calls.index(own[0])
    replayed = replay(parent, STRATEGIES[fork_strategy]())
    assert _view(forked.window_sent(first)) == _view(replayed.window_sent(at - 1))
    assert forked.status == "done" and forked.output == "asked again: d4 failed"
    # the meta names the parent, the boundary and the strategy
    assert forked.origin.parent_id == "deploy-audit"
    assert forked.origin.at == at
    assert forked.origin.strategy == (None if fork_strategy == "none" else forked.strategy)
    # a splice record says exactly what left the parent's window, and the lab agrees
    splices = [r for r in forked.records if r.forked]
    assert len(splices) == int(forked.origin.window_changed) <= 1
    assert all(r.iteration == at for r in splices)
    check_all(forked, capture(forked))
    # the parent never changed
    assert parent.checkpoint().model_dump_json() == saved


def test_a_fork_of_a_run_under_its_own_strategy_changes_nothing_up_to_the_call() -> None:
    parent = deploy_audit().run(sliding_window(keep_recent_turns=3))
    forked = fork(parent, at=5, strategy=sliding_window(keep_recent_turns=3), provider=_answer())
    # replay sends what the live run sent, so the window at 5 is the parent's own
    assert _view(forked.window_sent(4)) == _view(parent.window_sent(4))
    assert forked.origin.window_changed is (
        next(r for r in parent.records if r.iteration == 5).removed_message_count > 0
    )


def test_a_fork_that_keeps_what_the_parent_dropped_puts_it_back_and_saves(
    tmp_path: Path,
) -> None:
    parent = deploy_audit().run(sliding_window(keep_recent_turns=1))
    forked = fork(parent, at=6, strategy=None, provider=_answer())
    # no strategy: the whole history goes back in, every read_log result included
    results = [m for m in forked.window_sent(5) if m.role == "tool"]
    assert len(results) == 5
    splice = next(r for r in forked.records if r.forked)
    assert splice.strategy == "none" and splice.removed_message_count == 1  # the drop notice
    again = load_run(forked.save(tmp_path / "fork.json"))
    assert again.checkpoint().model_dump_json() == forked.checkpoint().model_dump_json()
    assert _view(again.window_sent(5)) == _view(forked.window_sent(5))


# -- tools -----------------------------------------------------------------------------------


def test_tools_default_to_the_parents_agent_and_others_get_an_error_result() -> None:
    parent = deploy_audit().run()
    provider = ScriptedProvider(
        [
            Reply.tool_calls([("read_log", {"deployment": "d2"}), ("deploy", {"target": "d4"})]),
            Reply.text("done"),
        ]
    )
    forked = fork(parent, at=3, strategy=None, provider=provider)
    results = {m.name: m.content for m in forked.ledger.messages[-3:] if m.role == "tool"}
    assert results["read_log"].startswith("DEPLOY d2 status=OK")
    assert results["deploy"].startswith("error: tool 'deploy' was not passed to fork")
    assert "tools passed: read_log" in results["deploy"]
    # the ids the scripted provider mints go on past the parent's: none repeats
    ids = [c.id for m in forked.ledger.messages for c in m.tool_calls]
    assert len(ids) == len(set(ids))


def test_tools_by_name_or_in_a_list_and_bad_tools_say_what_to_pass(tmp_path: Path) -> None:
    parent = load_run(deploy_audit().run().save(tmp_path / "parent.json"))
    assert parent.agent is None

    def read_log(deployment: str) -> str:
        return f"log of {deployment}"

    def script() -> ScriptedProvider:
        return ScriptedProvider([Reply.tool_call("read_log", deployment="d9"), Reply.text("ok")])

    for tools in ({"read_log": read_log}, [tool(read_log)], [read_log]):
        forked = fork(parent, at=2, strategy=None, provider=script(), tools=tools)  # type: ignore[arg-type]
        assert forked.ledger.messages[-2].content == "log of d9"
    bare = fork(parent, at=2, strategy=None, provider=script())
    assert bare.ledger.messages[-2].content.startswith(
        "error: tool 'read_log' was not passed to fork"
    )
    assert "tools passed: none" in bare.ledger.messages[-2].content
    with pytest.raises(WindowConfigError, match="key it by its own name"):
        fork(parent, at=2, strategy=None, provider=script(), tools={"other": tool(read_log)})
    with pytest.raises(WindowConfigError, match="pass a list of tools"):
        fork(parent, at=2, strategy=None, provider=script(), tools="read_log")  # type: ignore[arg-type]
    with pytest.raises(WindowConfigError, match="a tool must be a callable"):
        fork(parent, at=2, strategy=None, provider=script(), tools=[42])  # type: ignore[list-item]
    with pytest.raises(WindowConfigError, match="tool names must be unique"):
        fork(parent, at=2, strategy=None, provider=script(), tools=[read_log, tool(read_log)])


# -- bad arguments ---------------------------------------------------------------------------


def test_at_out_of_range_and_a_run_without_boundaries_are_clear_errors() -> None:
    parent = deploy_audit().run()
    assert len(parent.calls) == 7
    for at in (0, 8, -1, True, "2", 2.0):
        with pytest.raises(ValueError, match=r"this run has 7 \(pass 1 to 7\)"):
            fork(parent, at=at, strategy=None, provider=_answer())  # type: ignore[arg-type]
    empty = from_openai([{"role": "user", "content": "hello?"}])
    with pytest.raises(ValueError, match="no boundary to fork at"):
        fork(empty, at=1, strategy=None, provider=_answer())


def test_a_strategy_given_wrongly_fails_at_call_time_saying_the_fix() -> None:
    parent = deploy_audit().run()
    provider = _answer()
    with pytest.raises(WindowConfigError, match=r"pass a strategy, not its name"):
        fork(parent, at=2, strategy="sliding-window", provider=provider)  # type: ignore[arg-type]
    with pytest.raises(WindowConfigError, match=r"strategy=sliding_window\(\.\.\.\)"):
        fork(parent, at=2, strategy=sliding_window, provider=provider)  # type: ignore[arg-type]
    with pytest.raises(WindowConfigError, match="is not a window strategy"):
        fork(parent, at=2, strategy=object(), provider=provider)  # type: ignore[arg-type]
    with pytest.raises(WindowConfigError, match="keep_recent_turns"):
        fork(parent, at=2, strategy=sliding_window(0), provider=provider)
    with pytest.raises(WindowConfigError, match="max_iterations"):
        fork(parent, at=2, strategy=None, provider=provider, max_iterations=0)
    with pytest.raises(WindowConfigError, match="is not a provider"):
        fork(parent, at=2, strategy=None, provider=object())  # type: ignore[arg-type]
    assert provider.calls == 0  # nothing ran


# -- faults: the parent is never touched -----------------------------------------------------


def test_a_fork_that_fails_mid_way_keeps_its_run_and_leaves_the_parent_alone() -> None:
    parent = parallel_tools().run(sliding_window(keep_recent_turns=2))
    saved = parent.checkpoint().model_dump_json()
    provider = ScriptedProvider(
        [Reply.tool_calls([("get_weather", {"city": "Oslo"})]), Reply.fail("upstream down")]
    )
    forked = fork(parent, at=2, strategy=None, provider=provider)
    assert forked.status == "error" and "upstream down" in str(forked.error)
    assert [c.iteration for c in forked.calls][-2:] == [2, 3]
    assert parent.checkpoint().model_dump_json() == saved
    check_all(forked, capture(forked))


def test_an_interrupt_mid_fork_carries_the_fork_and_leaves_the_parent_alone() -> None:
    @tool
    def read_log(deployment: str) -> str:
        """Read a log."""
        raise KeyboardInterrupt

    parent = deploy_audit().run(token_budget(threshold_tokens=900, keep_recent_turns=2))
    saved = parent.checkpoint().model_dump_json()
    provider = ScriptedProvider([Reply.tool_call("read_log", deployment="d1"), Reply.text("x")])
    with pytest.raises(KeyboardInterrupt) as caught:
        fork(parent, at=4, strategy=sliding_window(2), provider=provider, tools=[read_log])
    cancelled = caught.value.run  # type: ignore[attr-defined]
    assert cancelled.status == "cancelled" and cancelled.origin.at == 4
    assert parent.checkpoint().model_dump_json() == saved


# -- saved and imported runs -----------------------------------------------------------------


def test_a_saved_run_forks_and_the_fork_round_trips_through_a_file(tmp_path: Path) -> None:
    parent = load_run(
        deploy_audit().run(token_budget(threshold_tokens=900)).save(tmp_path / "parent.json")
    )
    forked = fork(
        parent,
        at=5,
        strategy=summarize_oldest(
            threshold_tokens=900, summarizer=extractive_summarizer, keep_recent_turns=2
        ),
        provider=_answer(2),
        tools=[deploy_audit().tools[0]],
    )
    assert forked.status == "done" and forked.origin.parent_id == "deploy-audit"
    again = load_run(forked.save(tmp_path / "fork.json"))
    assert again.checkpoint().model_dump_json() == forked.checkpoint().model_dump_json()
    check_all(again, capture(again))
    # a fork of a fork names its parent as a fork
    assert fork(again, at=6, strategy=None, provider=_answer()).origin.parent_id == (
        "deploy-audit (fork at 5)"
    )


@pytest.mark.parametrize(("path", "at"), [(OPENHANDS, 10), (SWE_AGENT, 7)])
def test_an_imported_real_run_forks_with_the_tools_passed_by_name(
    path: Path, at: int, tmp_path: Path
) -> None:
    (parent,) = load(path)
    saved = parent.checkpoint().model_dump_json()

    def bash(command: str) -> str:
        return f"$ {command}\nok"

    provider = ScriptedProvider(
        [
            Reply.tool_call("bash", command="pytest -q"),
            Reply.tool_call("str_replace_editor", command="view", path="setup.py"),
            Reply.text("patched"),
        ]
    )
    forked = fork(
        parent,
        at=at,
        strategy=sliding_window(keep_recent_turns=3),
        provider=provider,
        tools={"bash": bash},
    )
    assert forked.status == "done" and forked.output == "patched"
    assert forked.origin.parent_id == parent.origin.format
    results = [m.content for m in forked.ledger.messages if m.role == "tool"][-2:]
    assert results[0] == "$ pytest -q\nok"
    assert results[1].startswith("error: tool 'str_replace_editor' was not passed to fork")
    cut = _parent_boundary_commit(parent, at)
    assert forked.ledger.commits[:cut] == parent.ledger.commits[:cut]
    assert forked.origin.window_changed  # three turns of a long run: much left
    assert parent.checkpoint().model_dump_json() == saved
    check_all(forked, capture(forked))
    again = load_run(forked.save(tmp_path / "fork.json"))
    assert again.checkpoint().model_dump_json() == forked.checkpoint().model_dump_json()


# -- over the wire: the official SDKs against the loopback servers -----------------------------


@pytest.mark.parametrize("strategy", ["sliding-window", "token-budget", "none"])
def test_a_fork_asks_a_real_provider_through_its_sdk(
    wire: Callable[..., WireServer],  # noqa: F811 (the fixture imported above)
    strategy: str,
) -> None:
    parent = deploy_audit().run(STRATEGIES["sliding-window-3"]())
    server = wire(
        [
            Reply.tool_calls(
                [("read_log", {"deployment": "d5"}), ("read_log", {"deployment": "d6"})]
            ),
            Reply.tool_call("rollback", deployment="d4"),
            Reply.text("d4 failed; asked again over the wire"),
        ]
    )
    forked = fork(
        parent,
        at=4,
        strategy=STRATEGIES[strategy](),
        provider=provider_for(server),
        model=MODEL[server.kind],
    )
    forked.raise_for_error()
    assert server.rejections == []  # every window the fork sent was valid on the wire
    assert forked.status == "done" and forked.output == "d4 failed; asked again over the wire"
    own = [c for c in forked.calls if c.iteration >= 4]
    assert len(server.requests) == len(own) == 3
    assert all(c.usage is not None and c.usage.input_tokens > 0 for c in own)
    # the first request carried the window a replay under S sent at 4 (the system prompt
    # rides beside the messages on both wires)
    replayed = replay(parent, STRATEGIES[strategy]())
    first = forked.calls.index(own[0])
    assert _view(forked.window_sent(first)) == _view(replayed.window_sent(3))
    texts = str(server.requests[0])
    for message in replayed.window_sent(3):
        if message.content:
            assert message.content[:40] in texts
    # the parallel batch and the call to a tool not passed were answered, and sent back
    rollback = next(m for m in forked.ledger.messages if m.name == "rollback")
    assert rollback.content.startswith("error: tool 'rollback' was not passed to fork")
    assert "was not passed to fork" in str(server.requests[2])
    check_all(forked, capture(forked))


def test_the_root_face_serves_fork() -> None:
    assert footprint_lab.fork is fork
    assert "fork" in footprint_lab.__all__
    agent = Agent.create(provider=ScriptedProvider([Reply.text("a")])).build()
    run = agent.run("q")
    again = fork(run, at=1, strategy=None, provider=ScriptedProvider([Reply.text("b")]))
    assert again.output == "b"
    # Its own call is a new stage, numbered after every id the parent allocated: the parent's
    # call-llm#1 said "a", so it never names the fork's "b" (#37 item 1).
    assert again.calls[0].stage_id == f"call-llm#{run.ledger.stage_count}"


def test_a_fork_of_a_conversation_stands_in_the_request_of_its_boundary(tmp_path: Path) -> None:
    scenario = long_session()
    parent = scenario.run(scenario.strategies()["token-budget"])
    assert len(parent.requests) == 4
    second = next(c.iteration for c in parent.calls if c.sent_commit > _request_commit(parent, 1))
    forked = fork(parent, at=second + 1, strategy=sliding_window(2), provider=_answer())
    assert forked.requests == parent.requests[:2] and forked.request == parent.requests[1]
    assert forked.status == "done" and forked.iterations == second + 1
    again = load_run(forked.save(tmp_path / "fork.json"))  # the file checks the requests too
    assert again.requests == forked.requests


def _request_commit(run: Run, index: int) -> int:
    """The commit that appended request ``index`` (from 0) of a conversation."""
    seeds = [
        run.ledger.commit_of_message(p)
        for p, m in enumerate(run.ledger.messages)
        if m.role == "user" and (m.stage_id or "").startswith("seed#") and m.authored is None
    ]
    return seeds[index]


class _Raising:
    """A strategy whose plan raises on the parent's history."""

    name = "raises"

    def plan(self, given: object) -> object:
        raise RuntimeError("the strategy broke on this history")


def test_a_fork_whose_strategy_raises_is_a_run_with_status_error(tmp_path: Path) -> None:
    parent = parallel_tools().run(sliding_window(keep_recent_turns=2))
    saved = parent.checkpoint().model_dump_json()
    provider = ScriptedProvider([Reply.text("never asked")])
    forked = fork(parent, at=2, strategy=_Raising(), provider=provider)  # type: ignore[arg-type]
    assert forked.status == "error"
    assert isinstance(forked.error, RuntimeError)
    assert "the strategy broke on this history" in str(forked.error)
    assert provider.calls == 0  # the fork never reached its call
    assert forked.origin.kind == "fork" and forked.origin.at == 2
    assert parent.checkpoint().model_dump_json() == saved
    with pytest.raises(RuntimeError, match="the strategy broke"):
        forked.raise_for_error()
    forked.save(tmp_path / "fork.json")  # a run file like any other
    back = load_run(tmp_path / "fork.json")
    assert back.status == "error" and "the strategy broke" in str(back.error)
