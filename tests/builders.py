"""Message builders for hand-made windows in tests."""

from __future__ import annotations

from footprint_lab import Message, ToolCall


def user(text: str, stage: str | None = None) -> Message:
    return Message.user(text, stage_id=stage)


def call(call_id: str, name: str, stage: str | None = None, **args: object) -> Message:
    return Message.assistant(
        "", tool_calls=[ToolCall(id=call_id, name=name, arguments=args)], stage_id=stage
    )


def calls(pairs: list[tuple[str, str]], stage: str | None = None) -> Message:
    return Message.assistant(
        "", tool_calls=[ToolCall(id=i, name=n, arguments={}) for i, n in pairs], stage_id=stage
    )


def result(call_id: str, name: str, content: str, stage: str | None = None) -> Message:
    return Message.tool(call_id, name, content, stage_id=stage)
