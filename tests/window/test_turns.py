"""segment_turns, the current request, and plan_removal's span walk."""

from __future__ import annotations

from footprint_lab import Message, apply_window, segment_turns, sliding_window
from footprint_lab.window.request import current_request_index
from tests.builders import call, calls, result, user


def test_every_non_tool_message_starts_a_turn_and_tools_join() -> None:
    window = [
        user("go"),
        calls([("a", "x"), ("b", "y")]),
        result("a", "x", "1"),
        result("b", "y", "2"),
        Message.assistant("thinking"),
        user("more"),
    ]
    turns = segment_turns(window)
    assert [(t.start, t.end) for t in turns] == [(0, 1), (1, 4), (4, 5), (5, 6)]
    assert [t.index for t in turns] == [0, 1, 2, 3]


def test_leading_tool_message_starts_its_own_turn() -> None:
    window = [result("a", "x", "orphan"), result("b", "x", "orphan2"), user("go")]
    assert [(t.start, t.end) for t in segment_turns(window)] == [(0, 2), (2, 3)]


def test_empty_window_has_no_turns() -> None:
    assert segment_turns([]) == []


def test_current_request_matches_run_request_else_last_user() -> None:
    window = [user("first"), call("a", "x"), result("a", "x", "r"), user("second")]
    assert current_request_index(window, "first") == 0
    assert current_request_index(window, "unknown") == 3
    assert current_request_index(window) == 3


def test_library_authored_messages_never_anchor() -> None:
    notice = Message(role="user", content="[dropped history — x]", authored="drop-notice")
    frame = Message(role="user", content="summary", authored="compaction-frame")
    injected = Message(role="user", content="standing instructions", authored="injection")
    window = [user("ask"), notice, frame, injected]
    assert current_request_index(window) == 0
    assert current_request_index([notice, frame]) is None


def test_refused_turns_before_span_are_stepped_over_and_first_refusal_after_ends_it() -> None:
    # turn0 request, turn1 unresolved call (stepped over), turn2+3 removable,
    # turn4 unresolved (ends span), turn5.. keep window.
    window = [
        user("req"),
        call("u1", "slow", stage="s1"),
        call("a", "x", stage="s2"),
        result("a", "x", "ra" * 50, stage="s3"),
        call("b", "y", stage="s4"),
        result("b", "y", "rb" * 50, stage="s5"),
        call("u2", "slow", stage="s6"),
        Message.assistant("k1", stage_id="s7"),
        Message.assistant("k2", stage_id="s8"),
    ]
    out = apply_window(
        sliding_window(2), window, iteration=3, request="req", keep_last_tool_results=0
    )
    record = out.record
    assert record is not None
    assert [(r.reason, r.turn_index) for r in record.refusals] == [
        ("current-request", 0),
        ("unresolved-tool-call", 1),
        ("unresolved-tool-call", 4),
        ("inside-keep-window", 5),  # every kept turn is named, not only the first
        ("inside-keep-window", 6),
    ]
    assert record.removed_stage_ids == ["s2", "s3", "s4", "s5"]
    # Not at the front (an unresolved turn precedes it): no notice is written.
    assert record.notice is None
    assert [m.stage_id for m in out.window] == [None, "s1", "s6", "s7", "s8"]


def test_nothing_removable_keeps_window_and_names_every_refusal() -> None:
    window = [user("req"), call("u", "slow"), Message.assistant("k")]
    out = apply_window(sliding_window(1), window, iteration=2, request="req")
    assert out.record is not None
    assert out.window == window
    assert out.record.removed_message_count == 0
    assert out.record.refusal_reasons() == [
        "current-request",
        "unresolved-tool-call",
        "inside-keep-window",
    ]
