"""Replay sends what a live run would have sent: for a scripted run (whose replies do not
depend on the window), ``replay(unmanaged, S)`` sends call by call the windows a live run
under ``S`` sends and files the same records, for every strategy family and knob."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Agent,
    Reply,
    ScriptedProvider,
    clear_tool_results,
    replay,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)
from footprint_lab.agent.run import Run
from footprint_lab.messages import Message
from footprint_lab.window.strategies import WindowStrategy
from tests.budget import examples
from tests.builders import by_content

REQUEST = "Audit every deployment and report what you find."
CONTEXT_WINDOW = 1_000_000  # never exceeded: a live run's forced retry has no replay twin


@tool
def read_log(deployment: str, lines: int) -> str:
    """Read a deployment log."""
    return f"DEPLOY {deployment} status=OK\n" + "step ok.\n" * lines


@tool
def list_hosts(region: str, lines: int) -> str:
    """List the hosts of a region."""
    return f"REGION {region}\n" + "host-x up\n" * lines


@tool
def check(target: str, lines: int) -> str:
    """Check one target."""
    return f"CHECK {target}: " + "fine " * lines


def _summary(messages: list[Message]) -> str:
    return f"Summary: {len(messages)} messages about {messages[0].role} turns."


def _fail_on_long(messages: list[Message]) -> str:
    if len(messages) > 6:
        raise RuntimeError("summarizer overloaded")
    return _summary(messages)


_calls = st.tuples(
    st.sampled_from(["read_log", "list_hosts", "check"]),
    st.text("abcdefgh", min_size=1, max_size=3),
    st.integers(0, 40),
)
_replies = st.lists(st.lists(_calls, min_size=1, max_size=3), min_size=1, max_size=12)


def _script(batches: list[list[tuple[str, str, int]]]) -> list[Reply]:
    keys = {"read_log": "deployment", "list_hosts": "region", "check": "target"}
    replies = [
        Reply.tool_calls([(name, {keys[name]: arg, "lines": n}) for name, arg, n in batch])
        for batch in batches
    ]
    return [*replies, Reply.text("All audited.")]


def _agent(
    script: list[Reply], strategy: WindowStrategy | None, pins: int, name: str = "scripted"
) -> Agent:
    provider = ScriptedProvider(script, context_window=CONTEXT_WINDOW, name=name)
    builder = (
        Agent.create(provider=provider, max_iterations=len(script) + 1, keep_last_tool_results=pins)
        .system("You audit deployments.")
        .tool(read_log)
        .tool(list_hosts)
        .tool(check)
    )
    if strategy is not None:
        builder = builder.window(strategy)
    return builder.build()


def _family(draw: Any, family: str) -> WindowStrategy:
    keep = draw(st.integers(1, 4))
    if family == "sliding":
        return sliding_window(keep_recent_turns=keep, slack_turns=draw(st.integers(0, 3)))
    threshold = draw(st.integers(80, 1200))
    at_least = draw(st.sampled_from([0, 0, 200, 1500]))
    relative = draw(st.booleans())
    trigger: dict[str, Any] = (
        {"threshold_fraction": threshold / CONTEXT_WINDOW, "reserve_tokens": 0}
        if relative
        else {"threshold_tokens": threshold}
    )
    if family == "token":
        return token_budget(**trigger, keep_recent_turns=keep, clear_at_least_chars=at_least)
    if family == "summarize":
        summarizer = draw(st.sampled_from([_summary, _fail_on_long]))
        return summarize_oldest(**trigger, keep_recent_turns=keep, summarizer=summarizer)
    assert family == "clear"
    return clear_tool_results(
        threshold_tokens=draw(st.sampled_from([None, threshold])),
        keep_recent_turns=keep,
        keep_results=draw(st.integers(0, 3)),
        clear_at_least_chars=at_least,
        exclude_tools=draw(st.sampled_from([(), ("check",)])),
        clear_tool_inputs=draw(st.booleans()),
    )


def _sent(run: Run) -> list[list[tuple[str, str, tuple[str, ...], str | None, str | None]]]:
    return [
        [
            (m.role, m.content, tuple(c.name for c in m.tool_calls), m.tool_call_id, m.authored)
            for m in run.window_sent(i)
        ]
        for i in range(len(run.calls))
    ]


def _records(run: Run) -> list[dict[str, Any]]:
    # ``commit`` numbers the ledger, which keeps the order a parallel batch's tools finished in:
    # a result that finishes before an earlier call's is placed in call order by one more
    # window commit, so two live runs of one script can number the same record differently
    # (the window they send is the same: ``_sent``). ``tokens_from`` says how the replay got
    # its figure, which is the point. A replay keeps the unmanaged source's stage ids, so a
    # record is compared by what its ids name (``by_content``), not by their numbers (its
    # ``span_key`` hashes them).
    return [
        by_content(run, r.model_dump(exclude={"tokens_from", "commit", "given_commit", "span_key"}))
        for r in run.records
    ]


def _check_replay_equals_live(family: str, data: st.DataObject) -> None:
    batches = data.draw(_replies)
    strategy = _family(data.draw, family)
    pins = data.draw(st.integers(0, 3))
    script = _script(batches)
    live = _agent(script, strategy, pins).run(REQUEST)
    live.raise_for_error()
    unmanaged = _agent(script, None, pins).run(REQUEST)
    replayed = replay(unmanaged, strategy, keep_last_tool_results=pins)
    assert _sent(replayed) == _sent(live)
    assert _records(replayed) == _records(live)
    # Every figure a token strategy saw is the live one, and says how it was obtained.
    for ours, theirs in zip(replayed.records, live.records, strict=True):
        assert ours.measured_tokens == theirs.measured_tokens
        if ours.measured_tokens is not None:
            assert ours.tokens_from in ("reported", "counted")
    # The calls' input tokens are what the live provider reported for those windows.
    assert [c.usage for c in replayed.calls] == [c.usage for c in live.calls]


@pytest.mark.parametrize("family", ["sliding", "token", "summarize", "clear"])
@settings(max_examples=examples(500), deadline=None)
@given(data=st.data())
def test_replay_equals_live(family: str, data: st.DataObject) -> None:
    """500 generated scripted runs for each strategy family, with generated knobs."""
    _check_replay_equals_live(family, data)


def test_the_issue_case_token_budget_trims_where_the_live_run_trims() -> None:
    """token_budget(800, keep_recent_turns=2) over 15 calls: the replay used to hand the
    strategy the untrimmed window's usage, so it trimmed at every boundary past the first."""
    batches = [[("read_log", d, 30)] for d in "abcdefghijklmn"]
    script = _script(batches)
    live = _agent(script, token_budget(threshold_tokens=800, keep_recent_turns=2), 2).run(REQUEST)
    unmanaged = _agent(script, None, 2).run(REQUEST)
    replayed = replay(unmanaged, token_budget(threshold_tokens=800, keep_recent_turns=2))
    removing = [r.iteration for r in live.records if r.removed_message_count]
    assert removing and removing == [
        r.iteration for r in replayed.records if r.removed_message_count
    ]
    assert len(removing) < len(live.calls) - removing[0]  # not at every boundary after the first


def test_a_saved_scripted_run_is_still_counted(tmp_path: Any) -> None:
    """A scripted run saved and loaded (or shipped to a sweep's worker) has lost its agent,
    but the scripted provider's rule is a pure function of the request: the replay counts as
    the live provider would have reported."""
    from footprint_lab import load_run

    batches = [[("read_log", d, 30)] for d in "abcdefghij"]
    strategy = token_budget(threshold_tokens=300, keep_recent_turns=1)
    live = _agent(_script(batches), strategy, 2).run(REQUEST)
    unmanaged = _agent(_script(batches), None, 2).run(REQUEST)
    unmanaged.save(tmp_path / "run.json")
    replayed = replay(load_run(tmp_path / "run.json"), strategy)
    assert _sent(replayed) == _sent(live) and _records(replayed) == _records(live)
    assert "counted" in {r.tokens_from for r in replayed.records}


def test_a_saved_run_replays_on_scaled_tokens(tmp_path: Any) -> None:
    """Without a provider that counts (a run of another provider, loaded from disk), the
    original call's reported tokens are scaled by the requests' characters, and the record
    says so."""
    from footprint_lab import load_run

    batches = [[("read_log", d, 30)] for d in "abcdefghij"]
    unmanaged = _agent(_script(batches), None, 2, name="recorded-api").run(REQUEST)
    unmanaged.save(tmp_path / "run.json")
    loaded = load_run(tmp_path / "run.json")
    replayed = replay(loaded, token_budget(threshold_tokens=300, keep_recent_turns=1))
    froms = {r.tokens_from for r in replayed.records}
    assert "scaled" in froms
    assert {c.tokens_from for c in replayed.calls} <= {None, "scaled"}
    scaled = [c for c in replayed.calls if c.tokens_from == "scaled"]
    assert scaled
    system = len(loaded.system or "")
    for call in scaled:
        original = loaded.calls[replayed.calls.index(call)]
        assert original.usage is not None and call.usage is not None
        expected = round(
            original.usage.input_tokens * (system + call.chars) / (system + original.chars)
        )
        assert call.usage.input_tokens == max(1, expected)
        assert call.usage.output_tokens == original.usage.output_tokens
