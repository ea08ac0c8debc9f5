"""``clear_tool_results``: old tool results replaced in place, under the law's properties.

Properties (hypothesis, 1,000 histories): the window keeps its length and every position is the
same message or a placeholder of the same shape (role, call id, tool name, calls' ids and
names), so no pair is split; the request, unanswered and paused calls, the keep window, the
newest results and excluded tools stay; every cleared message is named; sizes are exact; and,
through replay, every cleared original is recoverable verbatim from the ledger.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Message,
    ToolCall,
    WindowConfigError,
    WindowStrategyError,
    apply_window,
    clear_tool_results,
    replay,
    sliding_window,
    window_chars,
)
from footprint_lab.evidence import losses
from footprint_lab.importers import from_openai
from footprint_lab.window import StrategyInput, WindowRecord, WindowResult
from footprint_lab.window.notice import cleared_result
from footprint_lab.window.turns import segment_turns
from tests.budget import examples
from tests.builders import EVIDENCE_TRANSCRIPT, tool_loop

from .test_properties import TOOLS, History, histories


def _same_shape(a: Message, b: Message) -> bool:
    return (
        a.role == b.role
        and a.tool_call_id == b.tool_call_id
        and a.name == b.name
        and [(c.id, c.name) for c in a.tool_calls] == [(c.id, c.name) for c in b.tool_calls]
    )


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=histories(),
    keep_turns=st.integers(1, 4),
    keep_results=st.integers(0, 4),
    at_least=st.sampled_from([0, 0, 50, 400]),
    excluded=st.lists(st.sampled_from(TOOLS), max_size=2),
    inputs=st.booleans(),
    keep_last=st.sampled_from([0, 1, 2]),
)
def test_clearing_keeps_every_rule(
    history: History,
    keep_turns: int,
    keep_results: int,
    at_least: int,
    excluded: list[str],
    inputs: bool,
    keep_last: int,
) -> None:
    before = list(history.messages)
    strategy = clear_tool_results(
        keep_recent_turns=keep_turns,
        keep_results=keep_results,
        clear_at_least_chars=at_least,
        exclude_tools=excluded,
        clear_tool_inputs=inputs,
    )
    out = apply_window(
        strategy,
        before,
        iteration=7,
        request=history.request,
        keep_last_tool_results=keep_last,
        paused_call_id=history.paused_call_id,
    )
    after = out.window
    assert before == history.messages  # pure
    if out.record is None:
        assert after == before
        return
    record = out.record
    turns = [r.turn_index for r in record.refusals]
    assert turns == sorted(turns)  # named in turn order
    assert len(after) == len(before)
    replaced = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a is not b]
    for i in replaced:
        assert after[i].authored == "cleared-result"
        assert _same_shape(before[i], after[i])  # so no pair is split
        assert after[i].chars < before[i].chars
    # Named exactly, in both lists; sizes exact.
    names = {before[i].stage_id for i in replaced}
    assert set(record.removed_stage_ids) == names == set(record.cleared_stage_ids)
    assert record.removed_message_count == len(replaced)
    assert record.window_chars_before == window_chars(before)
    assert record.window_chars_after == window_chars(after)
    if replaced:
        assert record.chars_saved >= max(1, at_least)
    # What must stay, stays.
    request = [m for m in before if m.role == "user" and m.content == history.request][-1]
    assert any(m is request for m in after)
    call_of = {c.id: m for m in before for c in m.tool_calls}
    for cid in history.unanswered:
        assert any(m is call_of[cid] for m in after)
    turns = segment_turns(before)
    keep_from = turns[max(0, len(turns) - keep_turns)].start if turns else 0
    assert all(i < keep_from for i in replaced)
    real_results = [i for i, m in enumerate(before) if m.role == "tool" and m.authored is None]
    for i in real_results[len(real_results) - keep_results :] if keep_results else []:
        assert after[i] is before[i]
    for i in replaced:
        if before[i].role == "tool":
            assert before[i].name not in excluded
        else:
            assert inputs and before[i].role == "assistant"


def _tool_loop(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": "the request"}]
    for k in range(n):
        out.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"c{k}",
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"path": "' + "p" * 80 + '"}'},
                    }
                ],
            }
        )
        out.append({"role": "tool", "tool_call_id": f"c{k}", "content": f"file {k} " + "z" * 400})
    out.append({"role": "assistant", "content": "done"})
    return out


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 12), keep=st.integers(1, 3), results=st.integers(0, 3), inputs=st.booleans()
)
def test_every_cleared_original_is_in_the_ledger_verbatim(
    n: int, keep: int, results: int, inputs: bool
) -> None:
    source = from_openai(_tool_loop(n))
    run = replay(
        source,
        clear_tool_results(keep_recent_turns=keep, keep_results=results, clear_tool_inputs=inputs),
        keep_last_tool_results=0,
    )

    # Replay numbers its own stages; an original is found by what it answers or calls.
    def key(m: Message) -> tuple[object, ...]:
        return (m.role, m.tool_call_id, tuple(c.id for c in m.tool_calls))

    originals = {key(m): m for m in source.ledger.messages}
    for record in run.records:
        for stage_id in record.cleared_stage_ids:
            for message in run.ledger.messages_of(stage_id):
                assert message.authored is None
                assert message.content == originals[key(message)].content
                assert message.tool_calls == originals[key(message)].tool_calls
    # What the last call was sent holds placeholders where results were cleared.
    last = run.ledger.window_at(run.calls[-1].sent_commit)
    cleared = [m for m in last if m.authored == "cleared-result"]
    assert all((m.stage_id or "").startswith("window#") for m in cleared)


def _history() -> list[Message]:
    return tool_loop(4, result_chars=600)


def test_threshold_engages_only_above_it() -> None:
    strategy = clear_tool_results(threshold_tokens=1000, keep_recent_turns=1, keep_results=1)
    below = apply_window(strategy, _history(), iteration=5, measured_input_tokens=900)
    assert below.record is None
    above = apply_window(
        strategy, _history(), iteration=5, measured_input_tokens=1001, keep_last_tool_results=0
    )
    assert above.record is not None and above.record.over_budget
    assert above.record.cleared_stage_ids == ["tool-calls#2", "tool-calls#4", "tool-calls#6"]
    placeholder = above.window[2]
    assert placeholder.content.startswith("[cleared tool result — ")
    assert "output of 'read'" in placeholder.content and "iteration 5" in placeholder.content


def test_clear_at_least_keeps_the_prefix_for_a_trifle() -> None:
    strategy = clear_tool_results(keep_recent_turns=1, keep_results=2, clear_at_least_chars=5000)
    out = apply_window(strategy, _history(), iteration=5, keep_last_tool_results=0)
    assert out.record is not None and not out.record.removed_anything
    assert out.window == _history()
    assert [r.reason for r in out.record.refusals].count("below-clear-at-least") == 2


def test_excluded_tools_and_inputs() -> None:
    history = _history()
    out = apply_window(
        clear_tool_results(keep_recent_turns=1, keep_results=0, exclude_tools=["read"]),
        history,
        iteration=5,
        keep_last_tool_results=0,
    )
    assert out.record is not None and out.record.cleared_stage_ids == []
    assert "excluded-tool" in out.record.refusal_reasons()
    big = [
        Message.user("the request", stage_id="seed#0"),
        Message.assistant(
            "",
            tool_calls=[ToolCall(id="c0", name="write", arguments={"text": "w" * 500})],
            stage_id="call-llm#1",
        ),
        Message.tool("c0", "write", "ok " * 100, stage_id="tool-calls#2"),
        Message.user("next", stage_id="seed#3"),
    ]
    out = apply_window(
        clear_tool_results(keep_recent_turns=1, keep_results=0, clear_tool_inputs=True),
        big,
        iteration=5,
        keep_last_tool_results=0,
    )
    assert out.record is not None
    assert out.record.cleared_stage_ids == ["call-llm#1", "tool-calls#2"]
    assert out.window[1].tool_calls[0].arguments == {"cleared": True}
    assert out.window[1].tool_calls[0].id == "c0"


def test_sliding_window_drops_cleared_turns_instead_of_stepping_over_them() -> None:
    cleared = apply_window(
        clear_tool_results(keep_recent_turns=1, keep_results=0, clear_tool_inputs=True),
        _history(),
        iteration=5,
        keep_last_tool_results=0,
    ).window
    out = apply_window(sliding_window(1), cleared, iteration=6, keep_last_tool_results=0)
    assert out.record is not None and out.record.removed_message_count == 6
    assert "only-existing-summary" not in out.record.refusal_reasons()


def test_a_cleared_result_does_not_carry_its_evidence() -> None:
    run = from_openai(EVIDENCE_TRANSCRIPT)
    replayed = replay(
        run, clear_tool_results(keep_recent_turns=1, keep_results=0), keep_last_tool_results=0
    )
    lost = losses(replayed)
    assert ("c4", "RES67890") in [(x.call_id, x.value) for x in lost]
    first = next(x for x in lost if x.call_id == "c4")
    assert first.removed_by_strategy == "clear-tool-results"


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"keep_results": -1}, "keep_results"),
        ({"clear_at_least_chars": 1.5}, "clear_at_least_chars"),
        ({"exclude_tools": "read"}, "exclude_tools"),
        ({"clear_tool_inputs": "yes"}, "clear_tool_inputs"),
        ({"keep_recent_turns": 0}, "keep_recent_turns"),
        ({"reserve_tokens": 10}, "reserve_tokens"),
    ],
)
def test_configuration_errors_say_what_to_change(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(WindowConfigError, match=fragment):
        clear_tool_results(**kwargs)


class _InPlace:
    """A hand-built in-place strategy that breaks one rule."""

    def __init__(self, breach: str) -> None:
        self.name = f"breaks-{breach}"
        self.breach = breach

    def plan(self, input: StrategyInput) -> WindowResult:
        window = list(input.messages)
        target = 2  # the first result
        original = window[target]
        named = [original.stage_id or ""]
        if self.breach == "call-id":
            window[target] = original.model_copy(
                update={"tool_call_id": "other", "content": "x", "authored": "cleared-result"}
            )
        elif self.breach == "request":
            target = 0
            window[0] = window[0].model_copy(update={"content": "", "authored": "cleared-result"})
            named = ["seed#0"]
        elif self.breach == "unnamed":
            # the library's own placeholder, but its original is not named
            window[target] = cleared_result(original, iteration=input.iteration, strategy=self.name)
            named = []
        elif self.breach == "not-authored":
            window[target] = original.model_copy(update={"content": "x"})
        elif self.breach == "open-call":
            target = len(window) - 1
            window[target] = window[target].model_copy(
                update={
                    "tool_calls": [ToolCall(id="open", name="read", arguments={})],
                    "authored": "cleared-result",
                }
            )
            named = [window[target].stage_id or ""]
        record = WindowRecord(
            strategy=self.name, iteration=input.iteration, removed_stage_ids=named
        )
        return WindowResult(window, record)


@pytest.mark.parametrize(
    ("breach", "rule"),
    [
        ("call-id", "rewritten-without-frame"),
        ("request", "lost-current-request"),
        ("unnamed", "unnamed-removal"),
        ("not-authored", "split-tool-pair"),  # not a placeholder: the result left
        ("open-call", "unresolved-call-left"),
    ],
)
def test_in_place_breaches_are_refused(breach: str, rule: str) -> None:
    history = _history()
    history.append(
        Message.assistant(
            "",
            tool_calls=[ToolCall(id="open", name="read", arguments={"k": 9})],
            stage_id="call-llm#9",
        )
    )
    with pytest.raises(WindowStrategyError) as caught:
        apply_window(_InPlace(breach), history, iteration=5, request="the request")
    assert caught.value.rule == rule
