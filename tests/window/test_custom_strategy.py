"""Custom strategies: the input's bound refusal engine, provenance, and the law's checks."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from footprint_lab import (
    Agent,
    Message,
    Reply,
    ScriptedProvider,
    StrategyInput,
    StrategyResult,
    WindowResult,
    WindowStrategyError,
    apply_window,
    tool,
)
from tests.builders import call, result, user


@dataclass
class EveryOther:
    """Drops the oldest allowed span on even iterations only (the trigger is the strategy's)."""

    keep: int = 1
    name: str = "every-other"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        if input.iteration % 2:
            return None
        plan = input.plan_removal(self.keep)
        return input.drop(self.name, plan)


def _window() -> list[Message]:
    return [
        user("req", stage="seed#0"),
        call("a", "x", stage="call-llm#1"),
        result("a", "x", "r" * 500, stage="tool-calls#2"),
        call("b", "y", stage="call-llm#3"),
        result("b", "y", "r" * 500, stage="tool-calls#4"),
    ]


def test_custom_strategy_inherits_every_rule() -> None:
    assert apply_window(EveryOther(), _window(), iteration=3).record is None
    out = apply_window(
        EveryOther(), _window(), iteration=4, request="req", keep_last_tool_results=0
    )
    record = out.record
    assert record is not None and record.strategy == "every-other"
    assert record.removed_stage_ids == ["call-llm#1", "tool-calls#2"]
    assert record.refusals[0].reason == "current-request"


def test_removal_facts_name_stages_and_tools() -> None:
    captured: list[object] = []

    class Probe:
        name = "probe"

        def plan(self, input: StrategyInput) -> None:
            captured.append(input.removal_facts([1, 2, 3]))
            return None

    apply_window(Probe(), _window(), iteration=1)
    facts = captured[0]
    assert facts.stage_ids == ["call-llm#1", "tool-calls#2", "call-llm#3"]  # type: ignore[attr-defined]
    assert facts.tool_names == ["x"] and facts.count == 3  # type: ignore[attr-defined]
    # Sizes count what the call sends: content plus each call's name and compact-JSON arguments.
    assert facts.chars == sum(m.chars for m in _window()[1:4]) == 506  # type: ignore[attr-defined]


class Sneaky:
    """Removes a message without naming it."""

    name = "sneaky"

    def plan(self, input: StrategyInput) -> StrategyResult:
        record = input.record(self.name)
        return WindowResult([input.messages[0], *input.messages[3:]], record)


class RequestEater:
    """Drops the request, naming it."""

    name = "request-eater"

    def plan(self, input: StrategyInput) -> StrategyResult:
        record = input.record(self.name, removed_stage_ids=["seed#0"])
        return WindowResult(list(input.messages[1:]), record)


def test_unnamed_removal_and_request_removal_are_refused_loudly() -> None:
    with pytest.raises(WindowStrategyError, match="without being named") as unnamed:
        apply_window(Sneaky(), _window(), iteration=1)
    assert unnamed.value.rule == "unnamed-removal"
    assert (unnamed.value.message_index, unnamed.value.stage_id) == (1, "call-llm#1")
    with pytest.raises(WindowStrategyError, match="lost-current-request") as lost:
        apply_window(RequestEater(), _window(), iteration=1, request="req")
    assert (lost.value.message_index, lost.value.stage_id) == (0, "seed#0")


def test_record_sizes_are_made_exact() -> None:
    class Liar:
        name = "liar"

        def plan(self, input: StrategyInput) -> StrategyResult:
            return WindowResult(list(input.messages), input.record(self.name, window_chars_after=1))

    out = apply_window(Liar(), _window(), iteration=1)
    assert out.record is not None
    assert out.record.window_chars_after == out.record.window_chars_before == 1009


def test_custom_strategy_runs_in_an_agent() -> None:
    @tool
    def x() -> str:
        return "r" * 300

    run = (
        Agent.create(provider=ScriptedProvider([Reply.tool_call("x")] * 5 + [Reply.text("k")]))
        .window(EveryOther())
        .tool(x)
        .build()
        .run("req")
    )
    assert run.status == "done"
    assert {r.iteration % 2 for r in run.records} == {0}
    assert all(r.strategy == "every-other" for r in run.records)
