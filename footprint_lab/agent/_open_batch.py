"""The open tool batch of a window: its assistant message, and which of its calls have a
result yet — derived from the window itself, so a checkpoint needs no field to say it.

Layer: agent (private; :mod:`footprint_lab.agent.run` re-exports both functions).
"""

from __future__ import annotations

from collections.abc import Sequence

from footprint_lab.messages import Message

__all__ = ["batch_progress", "open_batch"]


def open_batch(window: Sequence[Message]) -> tuple[Message | None, list[str]]:
    """The last assistant message of ``window`` and the ids of its calls that have a result
    after it, in call order. Derived from the window itself, so a checkpoint needs no extra
    field to say which calls of a batch were answered."""
    for index in range(len(window) - 1, -1, -1):
        message = window[index]
        if message.role != "assistant":
            continue
        results = {m.tool_call_id for m in window[index + 1 :] if m.role == "tool"}
        return message, [c.id for c in message.tool_calls if c.id in results]
    return None, []


def batch_progress(window: Sequence[Message]) -> tuple[list[str], list[str]]:
    """``(answered, pending)``: ids of the open tool batch's calls that have a committed
    result, and those that have none yet, in call order (both empty when no batch is open)."""
    assistant, answered = open_batch(window)
    if assistant is None:
        return [], []
    done = set(answered)
    return answered, [c.id for c in assistant.tool_calls if c.id not in done]
