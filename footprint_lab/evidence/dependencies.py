"""Which tool calls depend on evidence only an earlier tool result carried.

Layer: evidence (pure: messages in, facts out; no pandas). A call *depends on tool evidence*
when one of its argument leaves — a string or integer whose text has at least ``min_chars``
characters — occurs as a substring in the content of an earlier ``tool`` message and in no
earlier ``user`` or ``system`` message (the system prompt included).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import BaseModel

from footprint_lab.agent.run import Run

# transcript and in_call_order live in the agent layer (replay reads them); this was their home.
from footprint_lab.agent.transcript import in_call_order as in_call_order
from footprint_lab.agent.transcript import transcript as transcript
from footprint_lab.evidence._text_index import TextIndex
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


def dependencies_in(
    messages: Sequence[Message], system: str | None = None, min_chars: int = DEFAULT_MIN_CHARS
) -> list[Dependency]:
    """Dependencies in a message list (see the module docstring).

    Linear in the text of ``messages`` plus the size of the answer: the tool texts and the
    user/system texts are each indexed once (:class:`TextIndex`), so a value is checked only
    against texts that can contain it instead of against every earlier one.
    """
    out: list[Dependency] = []
    tool_at = [i for i, m in enumerate(messages) if m.role == "tool"]
    # The system prompt counts as said before the first message (index -1).
    said_at = ([-1] if system else []) + [
        i for i, m in enumerate(messages) if m.role in ("user", "system")
    ]
    said_texts = ([system] if system else []) + [messages[i].content for i in said_at if i >= 0]
    # Every value that will be looked up, so each index resolves them in one pass.
    values = {
        value
        for message in messages
        for call in message.tool_calls
        for value in argument_leaves(call.arguments)
        if len(value) >= min_chars
    }
    tools = TextIndex([messages[i].content for i in tool_at], values)
    said = TextIndex(said_texts, values)
    for index, message in enumerate(messages):
        if not message.tool_calls:
            continue
        # Tool messages strictly before this one: the prefix tool_at[:tools_before].
        tools_before = bisect.bisect_left(tool_at, index)
        for call in message.tool_calls:
            seen_values: set[str] = set()
            for value in argument_leaves(call.arguments):
                if len(value) < min_chars or value in seen_values:
                    continue
                seen_values.add(value)
                first_said = said.containing(value)
                if first_said and said_at[first_said[0]] < index:
                    continue
                hits = tools.containing(value)
                earlier = hits[: bisect.bisect_left(hits, tools_before)]
                if earlier:
                    carriers = [messages[tool_at[h]].stage_id or "" for h in earlier]
                    out.append(
                        Dependency(
                            call_id=call.id,
                            tool_name=call.name,
                            value=value,
                            source_stage_ids=list(dict.fromkeys(carriers)),
                            message_index=index,
                        )
                    )
    return out


def dependencies(run: Run, min_chars: int = DEFAULT_MIN_CHARS) -> list[Dependency]:
    """Every (call, value) by which a tool call of ``run`` depends on earlier tool evidence."""
    return dependencies_in(transcript(run), run.system, min_chars)


def tool_calls_in(run: Run) -> int:
    """How many tool calls the run's transcript holds."""
    return sum(len(m.tool_calls) for m in transcript(run))
