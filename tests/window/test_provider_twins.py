"""The offline twins of the providers' own policies, at one boundary: the documented rule,
held to the law (``apply_window`` checks every result and raises on a breach).

The rule each twin must follow is written here a second time, plainly, over the window (the
oldest tool results beyond ``keep``, never an excluded tool's; the newest thinking replies keep
their thinking; a compaction folds everything but the request), and generated windows —
parallel batches, thinking, excluded tools — are checked against it. That the rule is the
server's is checked against the fake servers, through the SDK, in
``tests/providers/test_twins_match_server.py``.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Message,
    ToolCall,
    anthropic_compaction,
    anthropic_context_editing,
    clear_thinking,
    openai_compaction,
)
from footprint_lab.messages import ContentPart, has_thinking
from footprint_lab.window import WindowConfigError, apply_window
from footprint_lab.window.notice import is_compaction_frame
from tests.budget import examples
from tests.builders import TWIN_TOOLS, thinking_part, tool_histories

TOOLS = TWIN_TOOLS


def _thinking(text: str) -> ContentPart:
    return thinking_part(text, "sig-" + text[:4])


windows = tool_histories


def _chars_counter(messages: object) -> int:
    return max(1, math.ceil(sum(m.chars for m in messages) / 4))  # type: ignore[attr-defined]


@settings(max_examples=examples(1000), deadline=None)
@given(windows(), st.integers(0, 4), st.sets(st.sampled_from(TOOLS), max_size=1))
def test_context_editing_clears_the_oldest_results_beyond_keep(
    window: list[Message], keep: int, excluded: set[str]
) -> None:
    twin = anthropic_context_editing(trigger=1, keep=keep, exclude_tools=sorted(excluded))
    result = apply_window(
        twin, window, iteration=9, keep_last_tool_results=0, count_window=_chars_counter
    )
    results = [m for m in window if m.role == "tool"]
    older = results[: max(0, len(results) - keep)]
    expected = [m.stage_id for m in older if m.name not in excluded]
    expected = list(dict.fromkeys(expected))
    if not expected:
        assert result.record is None or not result.record.cleared_stage_ids
        return
    assert result.record is not None
    assert result.record.cleared_stage_ids == expected
    assert result.record.tokens_from == "counted" and result.record.measured_request
    kept_ids = {m.tool_call_id for m in result.window if m.role == "tool" and m.authored is None}
    assert kept_ids == {m.tool_call_id for m in results} - {
        m.tool_call_id for m in older if m.name not in excluded
    }
    # every call keeps its result, every turn stays
    assert len(result.window) == len(window)


def test_context_editing_waits_for_its_trigger_and_its_clear_at_least() -> None:
    window = _loop(6)
    tokens = _chars_counter(window)
    under = anthropic_context_editing(trigger=tokens, keep=1)
    assert apply_window(under, window, iteration=7, count_window=_chars_counter).record is None
    over = anthropic_context_editing(trigger=tokens - 1, keep=1, clear_at_least=10**6)
    result = apply_window(
        over, window, iteration=7, keep_last_tool_results=0, count_window=_chars_counter
    )
    assert result.record is not None and not result.record.cleared_stage_ids
    assert {r.reason for r in result.record.refusals} >= {"below-clear-at-least"}
    assert result.record.clear_at_least_tokens == 10**6


def test_without_a_counter_the_twin_estimates_and_says_so() -> None:
    result = apply_window(
        anthropic_context_editing(trigger=1, keep=1),
        _loop(4),
        iteration=5,
        keep_last_tool_results=0,
    )
    assert result.record is not None and result.record.tokens_from == "estimated"


def test_pins_and_the_request_are_the_law_and_are_named() -> None:
    result = apply_window(
        anthropic_context_editing(trigger=1, keep=0),
        _loop(4),
        iteration=5,
        keep_last_tool_results=2,
    )
    assert result.record is not None
    assert "last-tool-result" in {r.reason for r in result.record.refusals}


def test_clear_tool_inputs_for_named_tools_only() -> None:
    window = [
        Message.user("go", stage_id="seed#0"),
        Message.assistant(
            "",
            tool_calls=[
                ToolCall(id="a", name="read", arguments={"path": "x" * 80}),
                ToolCall(id="b", name="grep", arguments={"q": "y" * 80}),
            ],
            stage_id="call-llm#1",
        ),
        Message.tool("a", "read", "r" * 300, stage_id="tool-calls#2"),
        Message.tool("b", "grep", "g" * 300, stage_id="tool-calls#2"),
        Message.assistant("", tool_calls=[ToolCall(id="c", name="read")], stage_id="call-llm#3"),
        Message.tool("c", "read", "r" * 300, stage_id="tool-calls#4"),
    ]
    twin = anthropic_context_editing(trigger=1, keep=1, clear_tool_inputs=["grep"])
    result = apply_window(twin, window, iteration=5, keep_last_tool_results=0)
    head = result.window[1]
    assert [c.arguments for c in head.tool_calls] == [{"path": "x" * 80}, {"cleared": True}]


@settings(max_examples=examples(1000), deadline=None)
@given(windows(), st.integers(1, 3))
def test_clear_thinking_keeps_the_newest_thinking_replies(window: list[Message], keep: int) -> None:
    result = apply_window(clear_thinking(keep_turns=keep), window, iteration=9)
    thinking = [m for m in window if m.role == "assistant" and has_thinking(m)]
    after = [m for m in result.window if m.role == "assistant" and has_thinking(m)]
    assert [m.stage_id for m in after] == [m.stage_id for m in thinking[-keep:]]
    # the replies keep their text, calls and place; only the thinking left
    assert [(m.role, m.call_ids, m.content) for m in result.window] == [
        (m.role, m.call_ids, m.content) for m in window
    ]
    if result.record is not None:
        assert result.record.cleared_stage_ids == [m.stage_id for m in thinking[:-keep]]


def test_clear_thinking_all_keeps_everything() -> None:
    window = [Message.user("q", stage_id="seed#0")] + [
        Message.assistant(f"a{k}", parts=[_thinking(f"t{k}")], stage_id=f"call-llm#{k}")
        for k in range(1, 4)
    ]
    assert apply_window(clear_thinking("all"), window, iteration=4).record is None


@settings(max_examples=examples(500), deadline=None)
@given(windows())
def test_compaction_folds_all_but_the_request_once_over(window: list[Message]) -> None:
    tokens = _chars_counter(window)
    for twin in (openai_compaction(compact_threshold=tokens - 1), openai_compaction(tokens)):
        result = apply_window(
            twin, window, iteration=9, keep_last_tool_results=0, count_window=_chars_counter
        )
        if twin.threshold_tokens >= tokens:
            assert result.record is None
            continue
        assert result.record is not None and result.record.measured_tokens == tokens
        if result.record.removed_message_count:
            assert result.window[0] is window[0]  # the request stays (the law)
            assert is_compaction_frame(result.window[1]) and len(result.window) == 2


def test_anthropic_compaction_has_the_apis_floor() -> None:
    with pytest.raises(WindowConfigError, match="50,000"):
        anthropic_compaction(trigger=10_000)
    assert anthropic_compaction().knobs() == {"trigger": 150_000}
    assert anthropic_compaction().with_knobs(trigger=60_000).threshold_tokens == 60_000


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: anthropic_context_editing(trigger=0), "trigger"),
        (lambda: anthropic_context_editing(keep=-1), "keep"),
        (lambda: anthropic_context_editing(trigger={"type": "turns", "value": 3}), "trigger"),
        (lambda: anthropic_context_editing(exclude_tools="memory"), "exclude_tools"),
        (lambda: anthropic_context_editing(clear_tool_inputs="read"), "clear_tool_inputs"),
        (lambda: clear_thinking(0), "keep_turns"),
        (lambda: openai_compaction(compact_threshold=True), "compact_threshold"),
    ],
)
def test_bad_knobs_fail_at_build_time_saying_what_to_give(build: object, message: str) -> None:
    with pytest.raises(WindowConfigError, match=message):
        build()  # type: ignore[operator]


def test_the_twins_speak_the_apis_own_configuration() -> None:
    twin = anthropic_context_editing(
        trigger={"type": "tool_uses", "value": 5},
        keep=2,
        clear_at_least=3000,
        exclude_tools=["memory"],
        clear_tool_inputs=True,
    )
    assert twin.edit() == {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "tool_uses", "value": 5},
        "keep": {"type": "tool_uses", "value": 2},
        "clear_at_least": {"type": "input_tokens", "value": 3000},
        "exclude_tools": ["memory"],
        "clear_tool_inputs": True,
    }
    assert twin.with_knobs(keep=4).keep == 4
    assert clear_thinking(2).edit() == {
        "type": "clear_thinking_20251015",
        "keep": {"type": "thinking_turns", "value": 2},
    }


def _loop(rounds: int) -> list[Message]:
    out = [Message.user("the request", stage_id="seed#0")]
    for k in range(rounds):
        out.append(
            Message.assistant(
                "", tool_calls=[ToolCall(id=f"c{k}", name="read")], stage_id=f"call-llm#{2 * k + 1}"
            )
        )
        out.append(Message.tool(f"c{k}", "read", "x" * 600, stage_id=f"tool-calls#{2 * k + 2}"))
    return out
