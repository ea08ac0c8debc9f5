"""Each guard of the refusal engine, and their order (first match wins)."""

from __future__ import annotations

from footprint_lab import Message, apply_window, sliding_window
from tests.builders import call, result, user


def _reasons(window: list[Message], **kw: object) -> list[str]:
    out = apply_window(sliding_window(1), window, iteration=5, request="req", **kw)  # type: ignore[arg-type]
    assert out.record is not None
    return out.record.refusal_reasons()


def test_system_envelope_refuses() -> None:
    window = [Message.system("rules"), user("req"), Message.assistant("a"), Message.assistant("b")]
    out = apply_window(sliding_window(1), window, iteration=2, request="req")
    assert out.record is not None
    assert out.record.refusal_reasons()[:2] == ["system-envelope", "current-request"]
    assert out.window[0].role == "system"
    assert out.record.removed_message_count == 1


def test_paused_tool_and_pending_check_in() -> None:
    window = [user("req"), call("p", "ask_human"), Message.assistant("k")]
    assert _reasons(window, paused_call_id="p")[1] == "paused-tool"
    assert _reasons(window, paused_call_id="p", paused_check_in=True)[1] == "pending-check-in"
    assert _reasons(window)[1] == "unresolved-tool-call"


def test_paused_turn_is_reported_between_request_and_keep_window() -> None:
    window = [user("req"), call("p", "ask_human"), Message.assistant("k")]
    reasons = _reasons(window, paused_call_id="p")
    assert reasons == ["current-request", "paused-tool", "inside-keep-window"]


def test_unresolved_parallel_batch_with_one_missing_result() -> None:
    batch = Message.assistant(
        "",
        tool_calls=[
            *call("a", "x").tool_calls,
            *call("b", "y").tool_calls,
        ],
    )
    window = [user("req"), batch, result("a", "x", "done"), Message.assistant("k")]
    assert _reasons(window)[1] == "unresolved-tool-call"


def test_last_tool_result_pin_refuses_and_off_switch_releases() -> None:
    window = [
        user("req"),
        call("a", "whats_here"),
        result("a", "whats_here", "ids " * 100),
        Message.assistant("k"),
    ]
    assert _reasons(window)[1] == "last-tool-result"
    out = apply_window(
        sliding_window(1), window, iteration=5, request="req", keep_last_tool_results=0
    )
    assert out.record is not None and out.record.removed_message_count == 2
    assert out.record.observations is None
    out = apply_window(
        sliding_window(1), window, iteration=5, request="req", keep_last_tool_results=False
    )
    assert out.record is not None and out.record.removed_message_count == 2
