"""Which tool calls depend on evidence only an earlier tool result carried.

Layer: evidence (pure: messages in, facts out; no pandas). A call *depends on tool evidence*
when one of its argument leaves — a string or integer whose text has at least ``min_chars``
characters — occurs as a substring in the content of an earlier ``tool`` message and in no
earlier ``user`` or ``system`` message (the system prompt included).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import BaseModel

from footprint_lab.agent.run import Run
from footprint_lab.messages import Message

DEFAULT_MIN_CHARS = 5


class Dependency(BaseModel):
    """One value a tool call took from earlier tool evidence."""

    call_id: str
    """The dependent call."""
    tool_name: str
    """The tool it calls."""
    value: str
    """The argument value, as text."""
    source_stage_ids: list[str]
    """Stage ids of the earlier tool messages that carried it, oldest first."""
    message_index: int
    """Index, in the run's transcript, of the assistant message that made the call."""


def argument_leaves(arguments: Any) -> Iterator[str]:
    """Every string or integer leaf of a call's arguments, as text (booleans excluded)."""
    if isinstance(arguments, dict):
        for value in arguments.values():
            yield from argument_leaves(value)
    elif isinstance(arguments, list | tuple):
        for value in arguments:
            yield from argument_leaves(value)
    elif isinstance(arguments, bool):
        return
    elif isinstance(arguments, str | int):
        yield str(arguments)


def transcript(run: Run) -> list[Message]:
    """The recorded conversation, in order: every message except what a window stage wrote
    (notices, frames, an audited policy's rewrites) and library-authored injections."""
    return [
        m
        for m in run.ledger.messages
        if m.authored is None and not (m.stage_id or "").startswith("window#")
    ]


def dependencies_in(
    messages: Sequence[Message], system: str | None = None, min_chars: int = DEFAULT_MIN_CHARS
) -> list[Dependency]:
    """Dependencies in a message list (see the module docstring)."""
    out: list[Dependency] = []
    tool_seen: list[Message] = []
    user_text: list[str] = [system] if system else []
    for index, message in enumerate(messages):
        for call in message.tool_calls:
            seen_values: set[str] = set()
            for value in argument_leaves(call.arguments):
                if len(value) < min_chars or value in seen_values:
                    continue
                seen_values.add(value)
                if any(value in text for text in user_text):
                    continue
                carriers = [m.stage_id or "" for m in tool_seen if value in m.content]
                if carriers:
                    out.append(
                        Dependency(
                            call_id=call.id,
                            tool_name=call.name,
                            value=value,
                            source_stage_ids=list(dict.fromkeys(carriers)),
                            message_index=index,
                        )
                    )
        if message.role == "tool":
            tool_seen.append(message)
        elif message.role in ("user", "system"):
            user_text.append(message.content)
    return out


def dependencies(run: Run, min_chars: int = DEFAULT_MIN_CHARS) -> list[Dependency]:
    """Every (call, value) by which a tool call of ``run`` depends on earlier tool evidence."""
    return dependencies_in(transcript(run), run.system, min_chars)


def tool_calls_in(run: Run) -> int:
    """How many tool calls the run's transcript holds."""
    return sum(len(m.tool_calls) for m in transcript(run))
