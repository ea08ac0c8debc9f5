"""Slack: drop strategies that leave the window's prefix alone until a removal is worth it."""

from __future__ import annotations

import pytest

from footprint_lab import (
    Message,
    WindowConfigError,
    apply_window,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from footprint_lab.agent import Agent, tool
from footprint_lab.providers import Reply, ScriptedProvider
from tests.builders import tool_loop


def _turns(n: int) -> list[Message]:
    return tool_loop(n)


def test_slack_zero_is_todays_behaviour() -> None:
    window = _turns(5)
    plain = apply_window(sliding_window(2), window, iteration=6, keep_last_tool_results=0)
    same = apply_window(
        sliding_window(2, slack_turns=0), window, iteration=6, keep_last_tool_results=0
    )
    assert plain.window == same.window and plain.record == same.record


def test_slack_waits_then_drops_at_once() -> None:
    strategy = sliding_window(2, slack_turns=2)
    # 1 request turn + 3 tool turns: 4 turns, within keep 2 + slack 2 -> not engaged.
    assert apply_window(strategy, _turns(3), iteration=4, keep_last_tool_results=0).record is None
    # 5 turns: the span (2 turns after the request) is within the slack: named, not dropped.
    out = apply_window(strategy, _turns(4), iteration=5, keep_last_tool_results=0)
    assert out.record is not None and not out.record.removed_anything
    assert out.record.refusal_reasons().count("within-slack") == 2
    assert out.record.slack_turns == 2
    # 6 turns: three may leave, more than the slack: they go together.
    out = apply_window(strategy, _turns(5), iteration=6, keep_last_tool_results=0)
    assert out.record is not None and out.record.removed_message_count == 6


def test_slack_keeps_the_prefix_stable_over_a_run() -> None:
    @tool
    def read(k: int) -> str:
        """Read part k."""
        return "r" * 300

    def drops(slack: int) -> int:
        script = [Reply.tool_call("read", k=k) for k in range(12)] + [Reply.text("done")]
        run = (
            Agent.create(
                provider=ScriptedProvider(script), max_iterations=20, keep_last_tool_results=0
            )
            .window(sliding_window(2, slack_turns=slack))
            .tool(read)
            .build()
            .run("the request")
        )
        assert run.status == "done"
        return sum(1 for r in run.records if r.removed_anything)

    assert drops(3) < drops(0)


def test_token_strategies_skip_a_trifle() -> None:
    window = _turns(4)
    small = token_budget(10, keep_recent_turns=2, clear_at_least_chars=5000)
    out = apply_window(
        small, window, iteration=5, measured_input_tokens=100, keep_last_tool_results=0
    )
    assert out.record is not None and not out.record.removed_anything
    assert "below-clear-at-least" in out.record.refusal_reasons()
    assert out.record.clear_at_least_chars == 5000
    enough = small.with_knobs(clear_at_least_chars=100)
    out = apply_window(
        enough, window, iteration=5, measured_input_tokens=100, keep_last_tool_results=0
    )
    assert out.record is not None and out.record.removed_anything
    folded = summarize_oldest(10, lambda span: "s", keep_recent_turns=2, clear_at_least_chars=5000)
    out = apply_window(
        folded, window, iteration=5, measured_input_tokens=100, keep_last_tool_results=0
    )
    assert out.record is not None and not out.record.removed_anything
    # A forced visit (the provider refused the request) takes whatever can go.
    out = apply_window(
        small,
        window,
        iteration=5,
        measured_input_tokens=100,
        forced=True,
        keep_last_tool_results=0,
    )
    assert out.record is not None and out.record.removed_anything


@pytest.mark.parametrize(
    "build",
    [
        lambda: sliding_window(2, slack_turns=-1),
        lambda: sliding_window(2, slack_turns=True),
        lambda: token_budget(10, clear_at_least_chars=-5),
        lambda: summarize_oldest(10, lambda s: "s", clear_at_least_chars="many"),
    ],
)
def test_bad_slack_is_a_configuration_error(build: object) -> None:
    with pytest.raises(WindowConfigError, match=r"slack_turns|clear_at_least_chars"):
        build()  # type: ignore[operator]
