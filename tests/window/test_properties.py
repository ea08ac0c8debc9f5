"""Hypothesis properties of the window core over random tool-loop histories.

For all three strategies, at any boundary: no tool result without its call, no removed call
whose result stays, no unanswered call leaves, the current request never leaves, the window
still opens on a user (or system) message, the removal is one contiguous span, every removed
stage id is named, and the record's sizes are exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Message,
    ToolCall,
    apply_window,
    is_compaction_frame,
    sliding_window,
    summarize_oldest,
    token_budget,
    window_chars,
)
from footprint_lab.window.records import Refusal, WindowRecord
from tests.budget import examples

TOOLS = ["whats_here", "focus", "pan_view", "read_log", "bad name!"]


@dataclass
class History:
    messages: list[Message]
    request: str
    paused_call_id: str | None
    unanswered: list[str]


@st.composite
def histories(draw: st.DrawFn) -> History:
    messages: list[Message] = []
    stage = 0

    def sid(kind: str) -> str:
        nonlocal stage
        stage += 1
        return f"{kind}#{stage}"

    request = "the request"
    if draw(st.booleans()):
        messages.append(Message.user("an older request", stage_id=sid("seed")))
        messages.append(Message.assistant("done before", stage_id=sid("call-llm")))
    messages.append(Message.user(request, stage_id=sid("seed")))
    unanswered: list[str] = []
    call_no = 0
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["batch", "batch", "batch", "text", "notice", "frame", "user"]))
        if kind == "batch":
            size = draw(st.integers(1, 3))
            ids = []
            for _ in range(size):
                call_no += 1
                ids.append(f"c{call_no}")
            names = [draw(st.sampled_from(TOOLS)) for _ in ids]
            messages.append(
                Message.assistant(
                    draw(st.sampled_from(["", "thinking"])),
                    tool_calls=[ToolCall(id=i, name=n) for i, n in zip(ids, names, strict=True)],
                    stage_id=sid("call-llm"),
                )
            )
            answered = draw(st.lists(st.booleans(), min_size=size, max_size=size))
            tool_stage = sid("tool-calls")
            for cid, name, ok in zip(ids, names, answered, strict=True):
                if ok:
                    body = draw(st.text(alphabet="abc xyz", min_size=0, max_size=300))
                    messages.append(Message.tool(cid, name, body, stage_id=tool_stage))
                else:
                    unanswered.append(cid)
        elif kind == "text":
            messages.append(
                Message.assistant("note " * draw(st.integers(0, 30)), stage_id=sid("call-llm"))
            )
        elif kind == "notice":
            messages.append(
                Message(
                    role="user",
                    content="[dropped history — 2 earlier]",
                    authored="drop-notice",
                    stage_id=sid("window"),
                )
            )
        elif kind == "frame":
            messages.append(
                Message(
                    role="user",
                    content="[compacted history — x]\n\nsum",
                    authored="compaction-frame",
                    stage_id=sid("window"),
                )
            )
        else:
            messages.append(
                Message.user("a follow-up " * draw(st.integers(1, 4)), stage_id=sid("seed"))
            )
    paused = draw(st.sampled_from([None, *unanswered])) if unanswered else None
    return History(messages, request, paused, unanswered)


def _summarizer(kind: str):  # type: ignore[no-untyped-def]
    def summarize(span: Sequence[Message]) -> str:
        if kind == "fail":
            raise RuntimeError("summarizer down")
        if kind == "verbose":
            return "v" * 5000
        return "s"

    return summarize


strategies = st.one_of(
    st.builds(sliding_window, st.integers(1, 6)),
    st.builds(
        lambda t, k: token_budget(t, keep_recent_turns=k), st.integers(1, 50), st.integers(1, 6)
    ),
    st.builds(
        lambda t, k, s: summarize_oldest(t, _summarizer(s), keep_recent_turns=k),
        st.integers(1, 50),
        st.integers(1, 6),
        st.sampled_from(["ok", "ok", "fail", "verbose"]),
    ),
)


def _prior(draw_blocked: bool) -> list[WindowRecord]:
    if not draw_blocked:
        return []
    blocked = WindowRecord(
        strategy="x",
        iteration=1,
        refusals=[Refusal(reason="last-tool-result", turn_index=1, message_index=1)],
        over_budget=True,  # above its floor: the pins blocked it (see blocked_by_pins)
    )
    return [blocked, blocked]


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=histories(),
    strategy=strategies,
    keep_last=st.sampled_from([0, 1, 2, 3]),
    stand_down=st.booleans(),
    measured=st.integers(1, 200),
)
def test_window_invariants(
    history: History, strategy: object, keep_last: int, stand_down: bool, measured: int
) -> None:
    before = history.messages
    out = apply_window(
        strategy,  # type: ignore[arg-type]
        before,
        iteration=7,
        request=history.request,
        measured_input_tokens=measured,
        measured_output_tokens=5,
        keep_last_tool_results=keep_last,
        prior_records=_prior(stand_down),
        paused_call_id=history.paused_call_id,
    )
    after = out.window
    assert before == history.messages  # pure: input untouched
    if out.record is None:
        assert after == before
        return
    record = out.record
    kept_ids = {id(m) for m in after}
    removed = [i for i, m in enumerate(before) if id(m) not in kept_ids]
    inserted = [m for m in after if id(m) not in {id(b) for b in before}]

    # One contiguous span, and at most one library-authored replacement.
    if removed:
        assert removed == list(range(removed[0], removed[-1] + 1))
    assert len(inserted) <= 1
    assert all(m.authored in ("drop-notice", "compaction-frame") for m in inserted)
    if inserted:
        assert removed, "a notice or frame only stands in for a removal"

    # Tool pairs are never split: a kept result keeps its call, a kept call keeps its results.
    call_of = {c.id: m for m in before for c in m.tool_calls}
    for m in before:
        if m.role == "tool" and m.tool_call_id in call_of:
            assert (id(m) in kept_ids) == (id(call_of[m.tool_call_id]) in kept_ids)

    # An unanswered call never leaves: its answer may still arrive.
    for cid in history.unanswered:
        assert id(call_of[cid]) in kept_ids

    # The current request never leaves.
    request = [m for m in before if m.role == "user" and m.content == history.request][-1]
    assert id(request) in kept_ids

    # The paused turn never leaves.
    if history.paused_call_id is not None:
        assert id(call_of[history.paused_call_id]) in kept_ids

    # The window still opens on a user (or system) message.
    assert after[0].role in ("user", "system")

    # Every removed message's stage id is named, and nothing else is.
    assert set(record.removed_stage_ids) == {before[i].stage_id for i in removed}
    assert record.removed_message_count == len(removed)

    # Sizes are exact.
    assert record.window_chars_before == window_chars(before)
    assert record.window_chars_after == window_chars(after)

    # A summary only ever replaces something strictly larger.
    for m in inserted:
        assert m.chars < sum(before[i].chars for i in removed)
        if is_compaction_frame(m):
            assert record.summary_chars == m.chars
