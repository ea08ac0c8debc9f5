"""The builder: one strategy per agent through any door, and clear configuration errors."""

from __future__ import annotations

import pytest

from footprint_lab import (
    Agent,
    Reply,
    ScriptedProvider,
    WindowConfigError,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)


def _summ(span: object) -> str:
    return "s"


@pytest.mark.parametrize(
    "configure",
    [
        lambda b: b.window(sliding_window(2)).window(sliding_window(3)),
        lambda b: b.act(window=sliding_window(2)).window(token_budget(10)),
        lambda b: b.compaction(threshold_tokens=10, summarizer=_summ).act(window=sliding_window(1)),
    ],
)
def test_second_strategy_through_any_door_raises_at_build(configure: object) -> None:
    builder = configure(Agent.create())  # type: ignore[operator]
    with pytest.raises(WindowConfigError, match="exactly one window strategy"):
        builder.build()


def test_not_a_strategy() -> None:
    with pytest.raises(WindowConfigError, match="not a window strategy"):
        Agent.create().window(object()).build()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"max_iterations": 0}, "max_iterations"),
        ({"keep_last_tool_results": -1}, "keep_last_tool_results"),
        ({"max_output_tokens": 0}, "max_output_tokens"),
    ],
)
def test_bad_values_fail_at_build(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(WindowConfigError, match=match):
        Agent.create(**kwargs).build()  # type: ignore[arg-type]


def test_duplicate_tool_names() -> None:
    @tool
    def ping() -> str:
        return "pong"

    with pytest.raises(WindowConfigError, match="unique"):
        Agent.create().tool(ping).tool(ping).build()


def test_relative_threshold_needs_a_context_window() -> None:
    builder = Agent.create(provider=ScriptedProvider([Reply.text("x")])).window(
        token_budget(threshold_fraction=0.8)
    )
    with pytest.raises(WindowConfigError, match="context window"):
        builder.build()
    ok = Agent.create(provider=ScriptedProvider([Reply.text("x")], context_window=1000))
    assert ok.window(token_budget(threshold_fraction=0.8)).build().strategy is not None


def test_compaction_is_summarize_oldest_spelled_shorter() -> None:
    from footprint_lab.scenarios import deploy_audit, extractive_summarizer

    scenario = deploy_audit()

    def run(door: str) -> list[str]:
        provider = scenario.provider()
        builder = (
            Agent.create(provider=provider, max_iterations=scenario.max_iterations)
            .system(scenario.system)
            .tools(*scenario.tools)
        )
        if door == "compaction":
            builder = builder.compaction(
                threshold_tokens=1500, summarizer=extractive_summarizer, keep_recent_turns=3
            )
        else:
            builder = builder.window(
                summarize_oldest(1500, extractive_summarizer, keep_recent_turns=3)
            )
        builder.build().run(scenario.request)
        return [r.model_dump_json() for r in provider.requests]

    assert run("compaction") == run("window")
