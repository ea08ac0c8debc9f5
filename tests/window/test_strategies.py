"""The three shipped strategies: triggers, facts, summaries and configuration errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from footprint_lab import (
    CompactionUnmeasurableError,
    Message,
    SummaryResult,
    WindowConfigError,
    WindowRecord,
    apply_window,
    is_compaction_frame,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from tests.builders import call, result, user


def _loop(n: int, size: int = 400) -> list[Message]:
    window: list[Message] = [user("req", stage="seed#0")]
    for i in range(n):
        window += [
            call(f"c{i}", f"tool{i}", stage=f"call-llm#{2 * i + 1}"),
            result(f"c{i}", f"tool{i}", "r" * size, stage=f"tool-calls#{2 * i + 2}"),
        ]
    return window


# -- configuration -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3", None, True])
def test_sliding_window_rejects_bad_keep(bad: object) -> None:
    with pytest.raises(WindowConfigError, match="keep_recent_turns must be a whole number"):
        sliding_window(bad)  # type: ignore[arg-type]


def test_sliding_window_keep_is_required() -> None:
    with pytest.raises(WindowConfigError, match="required and has no default"):
        sliding_window()


def test_token_strategies_need_exactly_one_threshold() -> None:
    with pytest.raises(WindowConfigError, match="exactly one of threshold_tokens"):
        token_budget()
    with pytest.raises(WindowConfigError, match="exactly one of threshold_tokens"):
        token_budget(1000, threshold_fraction=0.8)
    with pytest.raises(WindowConfigError, match="threshold_fraction must be"):
        token_budget(threshold_fraction=1.5)
    with pytest.raises(WindowConfigError, match="threshold_tokens must be"):
        token_budget(0)
    with pytest.raises(WindowConfigError, match="reserve_tokens= only applies"):
        token_budget(1000, reserve_tokens=10)
    with pytest.raises(WindowConfigError, match="needs summarizer="):
        summarize_oldest(1000)
    with pytest.raises(WindowConfigError, match="retain must be"):
        summarize_oldest(1000, summarizer=lambda m: "s", retain="keep")  # type: ignore[arg-type]


# -- sliding_window ------------------------------------------------------------------------


def test_sliding_window_engages_only_above_keep_and_needs_no_usage() -> None:
    assert apply_window(sliding_window(3), _loop(2), iteration=3).record is None
    out = apply_window(sliding_window(3), _loop(4), iteration=5, request="req")
    record = out.record
    assert record is not None
    assert record.measured_tokens is None and record.over_budget is None
    assert (record.keep_recent_turns, record.turns_before) == (3, 5)
    assert record.turns_after == len(__import__("footprint_lab").segment_turns(out.window))


# -- token_budget --------------------------------------------------------------------------


def test_token_budget_waits_for_first_call_and_engages_only_above_threshold() -> None:
    strategy = token_budget(1000, keep_recent_turns=2)
    window = _loop(5)
    assert apply_window(strategy, window, iteration=1).record is None
    assert apply_window(strategy, window, iteration=2, measured_input_tokens=1000).record is None
    out = apply_window(
        strategy,
        window,
        iteration=2,
        request="req",
        measured_input_tokens=1001,
        keep_last_tool_results=0,
    )
    record = out.record
    assert record is not None
    assert (record.measured_tokens, record.threshold_tokens, record.over_budget) == (
        1001,
        1000,
        True,
    )
    assert record.removed_stage_ids == [
        f"{k}#{i}" for i in range(1, 7) for k in (["call-llm"] if i % 2 else ["tool-calls"])
    ]


def test_token_budget_zero_usage_raises_naming_provider_and_fix() -> None:
    with pytest.raises(CompactionUnmeasurableError) as info:
        apply_window(
            token_budget(100),
            _loop(3),
            iteration=2,
            measured_input_tokens=0,
            measured_output_tokens=0,
            provider_name="acme",
        )
    message = str(info.value)
    assert "'acme'" in message and "counted, not guessed" in message
    assert "sliding_window" in message and "include_usage" in message


def test_relative_threshold_uses_context_window_and_reserve() -> None:
    strategy = token_budget(threshold_fraction=0.5, reserve_tokens=100, keep_recent_turns=1)
    # 0.5 * 1000 = 500; engage when measured + 100 >= 500.
    kw = {"iteration": 2, "request": "req", "context_window": 1000}
    assert apply_window(strategy, _loop(3), measured_input_tokens=399, **kw).record is None
    record = apply_window(strategy, _loop(3), measured_input_tokens=400, **kw).record
    assert record is not None and record.over_budget
    assert (record.threshold_fraction, record.reserve_tokens, record.context_window) == (
        0.5,
        100,
        1000,
    )
    # Default reserve: the agent's max output tokens, else 32,768.
    default = token_budget(threshold_fraction=0.8)
    assert (
        apply_window(
            default, _loop(3), iteration=2, measured_input_tokens=47_231, context_window=100_000
        ).record
        is None
    )
    assert (
        apply_window(
            default, _loop(3), iteration=2, measured_input_tokens=47_232, context_window=100_000
        ).record
        is not None
    )
    assert (
        apply_window(
            default,
            _loop(3),
            iteration=2,
            measured_input_tokens=79_000,
            context_window=100_000,
            max_output_tokens=1_000,
        ).record
        is not None
    )
    assert (
        apply_window(
            default,
            _loop(3),
            iteration=2,
            measured_input_tokens=78_999,
            context_window=100_000,
            max_output_tokens=1_000,
        ).record
        is None
    )


# -- summarize_oldest ----------------------------------------------------------------------


def test_summary_replaces_span_with_frame_and_keeps_folded_originals() -> None:
    seen: list[Sequence[Message]] = []

    def summarizer(span: Sequence[Message]) -> SummaryResult:
        seen.append(span)
        return SummaryResult(text="short", input_tokens=10, output_tokens=3)

    window = _loop(4)
    out = apply_window(
        summarize_oldest(500, summarizer, keep_recent_turns=2),
        window,
        iteration=5,
        request="req",
        measured_input_tokens=900,
        keep_last_tool_results=0,
    )
    record = out.record
    assert record is not None
    assert [m.stage_id for m in seen[0]] == [
        "call-llm#1",
        "tool-calls#2",
        "call-llm#3",
        "tool-calls#4",
    ]
    frame = out.window[1]
    assert is_compaction_frame(frame) and frame.authored == "compaction-frame"
    assert record.summary_chars == frame.chars and record.summarizer_tokens == 13
    assert record.summarizer_skipped is False
    assert len(out.folded) == 1 and out.folded[0].originals == list(seen[0])
    assert out.folded[0].removed_stage_ids == record.removed_stage_ids


async def test_async_summarizer_is_awaited() -> None:
    async def summarizer(span: Sequence[Message]) -> str:
        return "async summary"

    from footprint_lab import aapply_window

    out = await aapply_window(
        summarize_oldest(10, summarizer, keep_recent_turns=1),
        _loop(3),
        iteration=4,
        request="req",
        measured_input_tokens=50,
        keep_last_tool_results=0,
    )
    assert out.record is not None and "async summary" in out.window[1].content


def test_summarizer_failure_keeps_window_and_records_it() -> None:
    def boom(span: Sequence[Message]) -> str:
        raise TimeoutError("model unavailable")

    window = _loop(3)
    out = apply_window(
        summarize_oldest(10, boom, keep_recent_turns=1),
        window,
        iteration=4,
        request="req",
        measured_input_tokens=50,
        keep_last_tool_results=0,
    )
    assert out.window == window
    record = out.record
    assert record is not None and "summarizer-failed" in record.refusal_reasons()
    assert record.error == "TimeoutError: model unavailable"
    assert record.removed_message_count == 0


def _verbose(calls_made: list[int]) -> Callable[[Sequence[Message]], str]:
    """A summarizer whose summary is never smaller than the span; counts its calls."""

    def verbose(span: Sequence[Message]) -> str:
        calls_made.append(1)
        return "v" * 10_000

    return verbose


def test_summary_not_smaller_is_latched_on_the_span() -> None:
    calls_made: list[int] = []
    strategy = summarize_oldest(10, _verbose(calls_made), keep_recent_turns=1)
    window = _loop(3)
    first = apply_window(
        strategy,
        window,
        iteration=4,
        request="req",
        measured_input_tokens=50,
        keep_last_tool_results=0,
    )
    assert first.record is not None
    assert "replacement-not-smaller" in first.record.refusal_reasons()
    assert first.window == window and len(calls_made) == 1
    second = apply_window(
        strategy,
        window,
        iteration=5,
        request="req",
        measured_input_tokens=50,
        keep_last_tool_results=0,
        prior_records=[first.record],
    )
    assert second.record is not None and second.record.summarizer_skipped is True
    assert len(calls_made) == 1  # not called again on the same span
    # A different span is summarized again.
    grown = _loop(4)
    apply_window(
        strategy,
        grown,
        iteration=6,
        request="req",
        measured_input_tokens=50,
        keep_last_tool_results=0,
        prior_records=[first.record],
    )
    assert len(calls_made) == 2


def test_only_existing_summary_is_not_summarized_again() -> None:
    frame = Message(
        role="user",
        content="[compacted history — x]\n\nold",
        authored="compaction-frame",
        stage_id="window#3",
    )
    window = [
        user("req"),
        frame,
        call("c", "x"),
        result("c", "x", "r" * 50),
        Message.assistant("k"),
    ]
    out = apply_window(
        summarize_oldest(10, lambda s: "s", keep_recent_turns=2),
        window,
        iteration=5,
        request="req",
        measured_input_tokens=50,
        keep_last_tool_results=0,
    )
    assert out.record is not None
    assert "only-existing-summary" in out.record.refusal_reasons()
    assert out.window == window


def test_knobs_round_trip() -> None:
    s = sliding_window(3)
    assert s.with_knobs(keep_recent_turns=5).keep_recent_turns == 5
    t = token_budget(100, keep_recent_turns=2).with_knobs(threshold_tokens=300)
    assert t.knobs() == {"threshold_tokens": 300, "keep_recent_turns": 2}
    with pytest.raises(WindowConfigError):
        t.with_knobs(keep_recent_turns=0)


def test_existing_summary_before_a_new_request_is_stepped_over_not_a_dead_end() -> None:
    """A frame, then the new request: the walk steps over both and folds what follows."""
    frame = Message(
        role="user",
        content="[compacted history — x]\n\nold",
        authored="compaction-frame",
        stage_id="window#3",
    )
    window = [
        frame,
        user("req", stage="seed#4"),
        call("c1", "x", stage="call-llm#5"),
        result("c1", "x", "r" * 300, stage="tool-calls#6"),
        call("c2", "y", stage="call-llm#7"),
        result("c2", "y", "r" * 300, stage="tool-calls#8"),
        Message.assistant("k", stage_id="call-llm#9"),
    ]
    out = apply_window(
        summarize_oldest(10, lambda s: "s", keep_recent_turns=1),
        window,
        iteration=9,
        request="req",
        measured_input_tokens=50,
        keep_last_tool_results=0,
    )
    record = out.record
    assert record is not None
    assert record.refusal_reasons() == [
        "only-existing-summary",
        "current-request",
        "inside-keep-window",
    ]
    assert record.removed_stage_ids == ["call-llm#5", "tool-calls#6", "call-llm#7", "tool-calls#8"]
    assert out.window[0] is frame and out.window[1].content == "req"
    assert is_compaction_frame(out.window[2])


def test_the_latch_is_found_in_a_growing_list_of_records_as_in_a_new_one() -> None:
    """A running loop hands every visit the same growing list of records: a latch filed at any
    point of it is found, and a list that is not the one read before is read whole."""
    calls_made: list[int] = []
    strategy = summarize_oldest(10, _verbose(calls_made), keep_recent_turns=1)
    window = _loop(3)
    kw: dict[str, Any] = {"request": "req", "measured_input_tokens": 50}
    kw["keep_last_tool_results"] = 0
    records: list[WindowRecord] = []
    first = apply_window(strategy, window, iteration=4, prior_records=records, **kw)
    assert first.record is not None and len(calls_made) == 1
    records.append(first.record)
    for i in range(5):  # unrelated records after the latch, the same list growing
        other = apply_window(
            sliding_window(1), _loop(2), iteration=5 + i, prior_records=records, request="req"
        )
        assert other.record is not None
        records.append(other.record)
        again = apply_window(strategy, window, iteration=5 + i, prior_records=records, **kw)
        assert again.record is not None and again.record.summarizer_skipped is True
    fresh = apply_window(strategy, window, iteration=20, prior_records=list(records[1:]), **kw)
    assert fresh.record is not None and fresh.record.summarizer_skipped is False
    assert len(calls_made) == 2  # only the list without the latch called the summarizer
