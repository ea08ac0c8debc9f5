"""Writing the GenAI conventions: messages in the GenAI message schema (:func:`genai_message`:
a role and parts of type ``text``, ``tool_call`` and ``tool_call_response``, footprint_lab's own
fields under the ``footprint_lab`` key), usage as ``gen_ai.usage.*`` attributes, system
instructions, finish reasons, and the JSON text the spans' attributes carry.

Layer: otlp. Used by :mod:`footprint_lab.export.otel`, which re-exports :func:`genai_message`.
"""

from __future__ import annotations

import json
from typing import Any

from footprint_lab.messages import ContentPart, Message
from footprint_lab.otlp.names import (
    CACHE_READ_TOKENS,
    CACHE_WRITE_TOKENS,
    COMPACTION_PART,
    EXTENSION,
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    JsonDict,
)
from footprint_lab.usage import Usage


def json_text(value: Any) -> str:
    """Compact JSON text, non-ASCII kept (as the run file writes it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- GenAI messages ---------------------------------------------------------------------------


def _genai_part(part: ContentPart) -> JsonDict:
    """A typed part as a GenAI part: ``reasoning`` for a thinking block, else a generic part
    named by its kind (its whole block rides in the message's ``footprint_lab`` fields)."""
    kind = "reasoning" if part.kind == "thinking" else part.kind
    out: JsonDict = {"type": kind}
    if part.text is not None:
        out["content"] = part.text
    provider_id = part.original.get("id")
    if kind == COMPACTION_PART and isinstance(provider_id, str):
        out["id"] = provider_id  # an encrypted compaction: the provider's id, no content
    return out


def genai_message(
    message: Message, position: int | None = None, *, finish_reason: str | None = None
) -> JsonDict:
    """``message`` as a GenAI message object (``gen_ai.input.messages`` item), with its ledger
    ``position`` and what the schema has no field for under the ``footprint_lab`` key.

    Text is one ``text`` part (none for empty text); a tool result is a ``tool_call_response``
    part (``id``, ``response``); each tool call a ``tool_call`` part (``id``, ``name``,
    ``arguments``); each typed part a GenAI part after them. The message's ``name`` is the
    schema's participant ``name``.

    Args:
        message: The message.
        position: Its position in the ledger's message store (None: not a ledger message).
        finish_reason: For an output message, why the reply ended.
    """
    parts: list[JsonDict] = []
    if message.role == "tool":
        parts.append(
            {"type": "tool_call_response", "id": message.tool_call_id, "response": message.content}
        )
    elif message.authored == "compaction-frame" and message.content:
        # A summary standing in for what left: the conventions' compaction part.
        parts.append({"type": COMPACTION_PART, "content": message.content})
    elif message.content:
        parts.append({"type": "text", "content": message.content})
    for call in message.tool_calls:
        parts.append(
            {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
        )
    parts.extend(_genai_part(p) for p in message.parts)
    out: JsonDict = {"role": message.role, "parts": parts}
    if message.name is not None:
        out["name"] = message.name
    if finish_reason is not None:
        out["finish_reason"] = finish_reason
    ext: JsonDict = {"position": position, "stage_id": message.stage_id}
    if message.authored is not None:
        ext["authored"] = message.authored
    if message.role != "tool" and message.tool_call_id is not None:
        ext["tool_call_id"] = message.tool_call_id
    if message.parts:
        ext["parts"] = [p.model_dump(mode="json") for p in message.parts]
    out[EXTENSION] = ext
    return out


def finish_reason(message: Message, given: str | None) -> str:
    """Why a reply ended: the reason the provider gave, else ``tool_call`` when it asked for
    tools, else ``stop``."""
    if given is not None:
        return given
    return "tool_call" if message.tool_calls else "stop"


def system_instructions_json(system: str | None) -> str | None:
    """``gen_ai.system_instructions``: the system prompt as one text part, in JSON text (None
    without one)."""
    return None if system is None else json_text([{"type": "text", "content": system}])


def usage_attributes(usage: Usage | None) -> JsonDict:
    """A call's (or a run's) usage as ``gen_ai.usage.*`` attributes (none without usage)."""
    if usage is None:
        return {}
    return {
        INPUT_TOKENS: usage.input_tokens,
        OUTPUT_TOKENS: usage.output_tokens,
        CACHE_READ_TOKENS: usage.cache_read_tokens,
        CACHE_WRITE_TOKENS: usage.cache_write_tokens,
    }
