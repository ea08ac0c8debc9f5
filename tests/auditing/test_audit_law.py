"""The auditor reports only what the policy did, and hands a compact(ctx) policy the real
context (messages, provider, model, an abort signal)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Agent,
    Message,
    Reply,
    ScriptedProvider,
    apply_window,
    audit,
    sliding_window,
    token_budget,
    tool,
)
from footprint_lab.auditing import AbortSignal, CompactionContext, keep_last_messages
from tests.budget import examples
from tests.window.test_properties import histories


@st.composite
def broken_windows(draw: st.DrawFn) -> tuple[list[Message], str]:
    """Windows that already break rules before any policy runs: orphan results, a head that is
    not a user message, a call id reused by a later call."""
    history = draw(histories())
    messages = list(history.messages)
    for _ in range(draw(st.integers(1, 3))):
        move = draw(st.sampled_from(["orphan", "head", "reuse", "stray"]))
        callers = [i for i, m in enumerate(messages) if m.tool_calls]
        if move == "orphan" and callers:
            del messages[draw(st.sampled_from(callers))]
        elif move == "head":
            messages.insert(0, Message.assistant("left over", stage_id="call-llm#900"))
        elif move == "reuse" and callers:
            first = messages[callers[0]].tool_calls[0]
            messages.append(
                Message.assistant("", tool_calls=[first.model_copy()], stage_id="call-llm#901")
            )
            messages.append(Message.tool(first.id, first.name, "again", stage_id="tool-calls#902"))
        else:
            at = draw(st.integers(0, len(messages)))
            messages.insert(at, Message.tool("nobody", "ghost", "stray", stage_id="tool-calls#903"))
    return messages, history.request


def _violations(policy: object, window: Sequence[Message], request: str) -> list[str]:
    out = apply_window(
        audit(policy),
        window,
        iteration=5,
        request=request,
        measured_input_tokens=50,
        on_breach="record",
    )
    if out.record is None:
        return []
    return [v.kind for v in out.record.violations or []]


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    case=broken_windows(),
    policy=st.sampled_from(
        [
            lambda ms: list(ms),
            sliding_window(1),
            sliding_window(3),
            token_budget(1, keep_recent_turns=2),
        ]
    ),
)
def test_breaks_already_in_the_given_window_are_not_reported(
    case: tuple[list[Message], str], policy: object
) -> None:
    window, request = case
    # An identity policy did nothing; our strategies obey the law: neither broke anything.
    assert _violations(policy, window, request) == []


def _pairs(window: Sequence[Message]) -> list[tuple[int, int]]:
    """(call index, result index) pairs by position: a result answers the latest earlier call."""
    call_at: dict[str, int] = {}
    out = []
    for i, m in enumerate(window):
        for c in m.tool_calls:
            call_at[c.id] = i
        if m.role == "tool" and m.tool_call_id in call_at:
            out.append((call_at[m.tool_call_id], i))
    return out


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=list(HealthCheck))
@given(case=broken_windows(), n=st.integers(1, 8))
def test_a_naive_trimmer_is_charged_only_with_the_pairs_it_split(
    case: tuple[list[Message], str], n: int
) -> None:
    window, request = case
    kept = {id(m) for m in window[-n:]}
    split = {
        (j, i) for j, i in _pairs(window) if (id(window[j]) in kept) != (id(window[i]) in kept)
    }
    kinds = _violations(keep_last_messages(n), window, request)
    reported = kinds.count("split-tool-pair")
    # One report per kept result whose call left, one per kept call whose result(s) left.
    results_orphaned = sum(1 for j, i in split if id(window[i]) in kept)
    calls_cut = len({(j, window[i].tool_call_id) for j, i in split if id(window[j]) in kept})
    assert reported == results_orphaned + calls_cut
    head_before = next((m for m in window if m.role != "system"), None)
    if head_before is not None and head_before.role != "user":
        assert "window-opens-on-non-user" not in kinds


def test_a_compact_policy_gets_the_real_provider_model_and_a_signal() -> None:
    seen: list[CompactionContext] = []

    class Spy:
        id = "spy"

        def compact(self, ctx: CompactionContext) -> list[Message]:
            seen.append(ctx)
            return ctx.messages

    @tool
    def look() -> str:
        """Look."""
        return "seen " * 40

    provider = ScriptedProvider(
        [Reply.tool_call("look"), Reply.tool_call("look"), Reply.text("ok")]
    )
    run = (
        Agent.create(provider=provider, model="gpt-4o-mini", max_iterations=4)
        .tool(look)
        .window(audit(Spy()))
        .build()
        .run("look twice")
    )
    assert run.status == "done" and seen
    ctx = seen[-1]
    assert ctx.provider is provider and ctx.model == "gpt-4o-mini"
    assert isinstance(ctx.signal, AbortSignal) and ctx.signal.aborted is False
    assert ctx.messages and ctx.messages[0].content == "look twice"
