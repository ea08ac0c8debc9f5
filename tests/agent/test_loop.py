"""The ReAct loop: stages, tools, faults, events, and running inside an event loop."""

from __future__ import annotations

import asyncio

import pytest

from footprint_lab import (
    Agent,
    CompactionUnmeasurableError,
    ContextLengthError,
    Message,
    ProviderError,
    Reply,
    ScriptedProvider,
    sliding_window,
    token_budget,
    tool,
)
from footprint_lab.scenarios import deploy_audit


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def explode() -> str:
    """Always fails."""
    raise RuntimeError("kaboom")


@tool
async def slow_echo(text: str) -> str:
    """Echo after yielding to the loop."""
    await asyncio.sleep(0)
    return text


def _agent(replies: list[Reply], **kw: object) -> Agent:
    strategy = kw.pop("strategy", None)
    builder = Agent.create(provider=ScriptedProvider(replies, **kw), max_iterations=6)  # type: ignore[arg-type]
    builder = builder.tools(add, explode, slow_echo)
    if strategy is not None:
        builder = builder.window(strategy)
    agent: Agent = builder.build()
    return agent


def test_stages_commit_in_order_and_output_is_final_text() -> None:
    run = _agent([Reply.tool_call("add", a=2, b=3), Reply.text("5")]).run("sum")
    assert run.status == "done" and run.output == "5"
    stages = [c.stage_id for c in run.ledger.commits]
    assert stages[0] == "seed#0"
    assert [s.split("#")[0] for s in dict.fromkeys(stages)] == [
        "seed",
        "call-llm",
        "tool-calls",
        "call-llm",
    ]
    assert run.ledger.message("tool-calls#2").content == "5"
    keys = set(run.ledger.keys())
    assert "window" not in keys and "record" not in keys


def test_tool_errors_become_results_the_model_sees() -> None:
    run = _agent(
        [
            Reply.tool_calls(
                [
                    ("add", {"a": "x", "b": 1}),
                    ("explode", {}),
                    ("nope", {}),
                    ("slow_echo", {"text": "hi"}),
                ]
            ),
            Reply.text("ok"),
        ]
    ).run("try")
    assert run.status == "done"
    results = [m for m in run.window_sent(1) if m.role == "tool"]  # the window: call order
    assert [m.tool_call_id for m in results] == ["call_1", "call_2", "call_3", "call_4"]
    assert {m.stage_id for m in results} == {"tool-calls#2"}
    assert results[0].content.startswith("error: invalid arguments") and "a:" in results[0].content
    assert results[1].content == "error: RuntimeError: kaboom"
    assert "unknown tool 'nope'" in results[2].content
    assert results[3].content == "hi"
    ends = {e.call_id: e.error for e in run.events if e.type == "tool.end"}  # finish order
    assert ends == {"call_1": True, "call_2": True, "call_3": True, "call_4": False}


def test_max_iterations() -> None:
    run = _agent([Reply.tool_call("add", a=1, b=1)] * 10).run("loop")
    assert run.status == "max-iterations" and run.iterations == 6 and run.output is None


def test_provider_fault_returns_the_run_with_ledger_intact() -> None:
    run = _agent([Reply.tool_call("add", a=1, b=1), Reply.fail("upstream 500")]).run("x")
    assert run.status == "error"
    assert isinstance(run.error, ProviderError) and run.error.status == 500
    assert len(run.ledger.messages) == 3  # request, call, result: nothing lost
    assert run.events[-1].type == "run.error"
    with pytest.raises(ProviderError, match="upstream 500"):
        run.raise_for_error()


def test_unmeasurable_usage_stops_token_strategies_but_not_sliding_window() -> None:
    replies = [Reply.tool_call("add", a=1, b=1)] * 3 + [Reply.text("done")]
    ok = _agent(replies, report_usage=False, strategy=sliding_window(1)).run("x")
    assert ok.status == "done" and ok.records
    bad = _agent(replies, report_usage=False, strategy=token_budget(10, keep_recent_turns=1)).run(
        "x"
    )
    assert bad.status == "error" and isinstance(bad.error, CompactionUnmeasurableError)
    assert "'scripted'" in str(bad.error)
    assert len(bad.ledger.messages) == 3


def test_events_evicted_per_message_and_budget_pressure_only_for_token_strategies() -> None:
    scenario = deploy_audit()
    strategies = scenario.strategies()
    slide = scenario.run(strategies["sliding-window"])
    evicted = [e for e in slide.events if e.type == "context.evicted"]
    assert len(evicted) == sum(r.removed_message_count for r in slide.records)
    assert {e.stage_id for e in evicted} == {s for r in slide.records for s in r.removed_stage_ids}
    assert not [e for e in slide.events if e.type == "context.budget_pressure"]
    budget = scenario.run(strategies["token-budget"])
    pressure = [e for e in budget.events if e.type == "context.budget_pressure"]
    assert len(pressure) == sum(1 for r in budget.records if r.over_budget) >= 1
    ends = [e for e in budget.events if e.type == "llm.end"]
    assert [e.usage for e in ends] == [c.usage for c in budget.calls]  # type: ignore[union-attr]


async def test_run_works_inside_a_running_event_loop_and_arun_too() -> None:
    agent = _agent([Reply.text("a")])
    assert agent.run("sync inside loop").output == "a"
    agent2 = _agent([Reply.text("b")])
    assert (await agent2.arun("async")).output == "b"


def test_no_strategy_sends_the_full_history_every_call() -> None:
    provider = ScriptedProvider([Reply.tool_call("add", a=1, b=2)] * 3 + [Reply.text("6")])
    run = Agent.create(provider=provider).tool(add).build().run("go")
    history = run.ledger.messages
    for i, request in enumerate(provider.requests):
        assert request.messages == list(history[: 1 + 2 * i])
    assert run.records == [] and not [
        c for c in run.ledger.commits if c.stage_id.startswith("window")
    ]


def test_context_length_error_forces_one_visit_and_one_retry() -> None:
    big = "x" * 2000

    @tool
    def dump() -> str:
        return big

    provider = ScriptedProvider(
        [Reply.tool_call("dump")] * 3 + [Reply.text("done")], context_window=1100
    )
    run = (
        Agent.create(provider=provider, max_iterations=6, keep_last_tool_results=0)
        .tool(dump)
        .window(token_budget(100_000, keep_recent_turns=1))  # never engages proactively
        .build()
        .run("go")
    )
    assert run.status == "done", run.error
    forced = [r for r in run.records if r.forced]
    assert len(forced) == 1 and forced[0].removed_message_count > 0
    assert forced[0].over_budget is False  # the trigger was ignored, not met
    assert any(c.retry for c in run.calls)
    assert any(e.type == "context.compaction" and e.forced for e in run.events)  # type: ignore[union-attr]


def test_context_length_error_raised_when_forced_visit_removes_nothing() -> None:
    provider = ScriptedProvider([Reply.text("never")], context_window=2)
    run = Agent.create(provider=provider).window(sliding_window(1)).build().run("a long request")
    assert run.status == "error" and isinstance(run.error, ContextLengthError)
    assert len([c for c in run.calls if c.retry]) == 0


def test_window_sent_matches_what_the_provider_received() -> None:
    scenario = deploy_audit()
    provider = scenario.provider()
    run = scenario.agent(scenario.strategies()["sliding-window"], provider=provider).run(
        scenario.request
    )
    for i, request in enumerate(provider.requests):
        assert run.window_sent(i) == request.messages
        assert run.calls[i].chars == sum(m.chars for m in request.messages)


def test_default_provider_echoes() -> None:
    run = Agent.create().build().run("hello")
    assert run.output == "(scripted) hello"
    assert isinstance(run.window[-1], Message)


def test_compaction_event_has_the_seed_shape_and_no_op_visits_emit_none() -> None:
    scenario = deploy_audit()
    run = scenario.run(scenario.strategies()["sliding-window"])
    compactions = [e for e in run.events if e.type == "context.compaction"]
    changed = [r for r in run.records if r.removed_message_count]
    assert len(compactions) == len(changed) < len(run.records)  # iteration 4 changed nothing
    for event, record in zip(compactions, changed, strict=True):
        assert event.iteration == record.iteration  # type: ignore[union-attr]
        assert event.strategy == "sliding-window"  # type: ignore[union-attr]
        assert event.tokens_after is None  # type: ignore[union-attr]
        call_before = [c for c in run.calls if c.iteration == record.iteration - 1][-1]
        assert event.tokens_before == call_before.usage.input_tokens  # type: ignore[union-attr]
        sent = run.window_sent(run.calls.index(call_before) + 1)
        assert event.messages_after == len(sent)  # type: ignore[union-attr]
        assert event.messages_before > event.messages_after  # type: ignore[union-attr]


def test_a_long_run_shares_fields_sets_across_its_committed_messages_and_records() -> None:
    replies = [Reply.tool_call("add", a=i, b=1) for i in range(30)] + [Reply.text("done")]
    agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=40)
        .tool(add)
        .window(sliding_window(2))
        .build()
    )
    run = agent.run("add them up")
    assert run.status == "done" and len(run.records) > 20
    # Sets of field names are few; a set per committed object would outweigh the records.
    record_sets = {id(r.__pydantic_fields_set__) for r in run.records}
    message_sets = {id(m.__pydantic_fields_set__) for m in run.ledger.messages}
    assert len(record_sets) <= 3 and len(message_sets) <= 8
    assert all(r.commit is not None for r in run.records)
