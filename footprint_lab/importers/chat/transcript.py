"""A transcript held in memory, whichever chat format it is in, as a run.

Layer: importers. ``footprint_lab.replay`` (and ``sweep``) accept a transcript as well as a
run; this is where a transcript becomes one: our own :class:`~footprint_lab.messages.Message`
list, or OpenAI Chat Completions, Anthropic Messages or LangChain ``messages_to_dict`` dicts,
told apart by their shape and read by the matching importer of this family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import TranscriptError, build_run
from footprint_lab.importers.chat.anthropic import from_anthropic
from footprint_lab.importers.chat.langchain import from_langchain
from footprint_lab.importers.chat.openai import from_openai
from footprint_lab.messages import Message

__all__ = ["Transcript", "as_run"]

Transcript = Sequence[Message] | Sequence[Mapping[str, Any]]
"""A recorded conversation: our messages, OpenAI Chat Completions dicts, Anthropic Messages
dicts, or LangChain ``messages_to_dict`` dicts."""

_NOT_A_TRANSCRIPT = "expected a Run or a list of messages"


def as_run(source: Run | Transcript, *, strict: bool = False) -> Run:
    """A run for ``source``: a run as it is; a transcript through the matching importer.

    Args:
        source: A run, or a transcript (our messages, or OpenAI / Anthropic / LangChain dicts).
        strict: Passed to the importer: raise at the first problem instead of listing it in
            ``run.import_problems``.

    Raises:
        TranscriptError: the transcript's shape is not one of the known ones, or malformed.
    """
    if isinstance(source, Run):
        return source
    if isinstance(source, (str, bytes, Mapping)) or not hasattr(source, "__iter__"):
        raise TranscriptError("replay", None, "source", _NOT_A_TRANSCRIPT)
    items = list(source)
    if all(isinstance(m, Message) for m in items):
        messages = [m for m in items if isinstance(m, Message)]
        system = next((m.content for m in messages[:1] if m.role == "system"), None)
        body = messages[1:] if system is not None else messages
        replies = sum(1 for m in body if m.role == "assistant")
        return build_run(body, [None] * replies, system=system, source="messages")
    first = items[0] if items else None
    if isinstance(first, Mapping) and "data" in first and "type" in first:
        return from_langchain(items, strict=strict)  # type: ignore[arg-type]
    if any(
        isinstance(m, Mapping)
        and isinstance(m.get("content"), list)
        and any(
            isinstance(b, Mapping) and b.get("type") in ("tool_use", "tool_result")
            for b in m["content"]
        )
        for m in items
    ):
        return from_anthropic(items, strict=strict)  # type: ignore[arg-type]
    if all(isinstance(m, Mapping) and "role" in m for m in items):
        return from_openai(items, strict=strict)  # type: ignore[arg-type]
    raise TranscriptError("replay", None, "source", _NOT_A_TRANSCRIPT)
