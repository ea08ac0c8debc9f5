"""Import an Anthropic Messages list (content blocks, tool_use / tool_result).

Layer: importers. A user message carrying tool_result blocks becomes one ``tool`` message per
block (named after the tool_use it answers), followed by a user message for any text blocks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import TranscriptError, build_run
from footprint_lab.messages import Message, ToolCall
from footprint_lab.usage import Usage

SOURCE = "anthropic"


def _blocks(content: Any, index: int) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise TranscriptError(SOURCE, index, "content", "expected a string or a list of blocks")
    for k, block in enumerate(content):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            raise TranscriptError(SOURCE, index, f"content[{k}]", "a block needs a type")
    return content


def _result_text(content: Any, index: int, k: int) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
    raise TranscriptError(SOURCE, index, f"content[{k}].content", "expected text or blocks")


def _usage(raw: Any, index: int) -> Usage | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise TranscriptError(SOURCE, index, "usage", "expected an object")
    return Usage(
        input_tokens=int(raw.get("input_tokens", 0) or 0),
        output_tokens=int(raw.get("output_tokens", 0) or 0),
        cache_read_tokens=raw.get("cache_read_input_tokens"),
        cache_write_tokens=raw.get("cache_creation_input_tokens"),
    )


def parse_anthropic(
    messages: Sequence[Mapping[str, Any]],
) -> tuple[list[Message], list[Usage | None]]:
    """Messages and per-reply usage of an Anthropic Messages list."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TranscriptError(SOURCE, None, "messages", "expected a list of message objects")
    out: list[Message] = []
    usages: list[Usage | None] = []
    names: dict[str, str] = {}
    for index, raw in enumerate(messages):
        if not isinstance(raw, Mapping):
            raise TranscriptError(SOURCE, index, "message", f"expected an object, got {raw!r}")
        role = raw.get("role")
        blocks = _blocks(raw.get("content"), index)
        if role == "assistant":
            text = "".join(str(b.get("text", "")) for b in blocks if b["type"] == "text")
            calls = []
            for k, block in enumerate(blocks):
                if block["type"] != "tool_use":
                    continue
                if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                    raise TranscriptError(
                        SOURCE, index, f"content[{k}]", "tool_use needs an id and a name"
                    )
                arguments = block.get("input") or {}
                if not isinstance(arguments, dict):
                    raise TranscriptError(SOURCE, index, f"content[{k}].input", "not an object")
                names[block["id"]] = block["name"]
                calls.append(ToolCall(id=block["id"], name=block["name"], arguments=arguments))
            out.append(Message.assistant(text, tool_calls=calls))
            usages.append(_usage(raw.get("usage"), index))
        elif role == "user":
            texts = []
            for k, block in enumerate(blocks):
                if block["type"] == "tool_result":
                    call_id = block.get("tool_use_id")
                    if not isinstance(call_id, str):
                        raise TranscriptError(SOURCE, index, f"content[{k}].tool_use_id", "missing")
                    text = _result_text(block.get("content"), index, k)
                    if block.get("is_error"):
                        text = f"error: {text}"
                    out.append(Message.tool(call_id, names.get(call_id, "unknown"), text))
                elif block["type"] == "text":
                    texts.append(str(block.get("text", "")))
            if texts:
                out.append(Message.user("".join(texts)))
        else:
            raise TranscriptError(SOURCE, index, "role", f"unknown role {role!r}")
    return out, usages


def from_anthropic(
    messages: Sequence[Mapping[str, Any]], system: str | None = None, **meta: Any
) -> Run:
    """Import an Anthropic Messages list (``usage`` on assistant messages is read when
    present) as a run that ``replay`` and ``capture`` accept.

    Raises:
        TranscriptError: naming the message index and field that is malformed.
    """
    parsed, usages = parse_anthropic(messages)
    return build_run(parsed, usages, system=system, source=SOURCE, meta=meta)
