"""Import an OpenAI Chat Completions message list. Layer: importers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import TranscriptError, build_run
from footprint_lab.messages import Message, ToolCall
from footprint_lab.usage import Usage

SOURCE = "openai"


def _text(content: Any, index: int) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if not isinstance(part, Mapping):
                raise TranscriptError(SOURCE, index, "content", "parts must be objects")
            if part.get("type") in ("text", "input_text", "output_text"):
                parts.append(str(part.get("text", "")))
        return "".join(parts)
    raise TranscriptError(SOURCE, index, "content", f"expected a string or parts, got {content!r}")


def _usage(raw: Any, index: int) -> Usage | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise TranscriptError(SOURCE, index, "usage", "expected an object")
    details = raw.get("prompt_tokens_details") or {}
    return Usage(
        input_tokens=int(raw.get("prompt_tokens", raw.get("input_tokens", 0)) or 0),
        output_tokens=int(raw.get("completion_tokens", raw.get("output_tokens", 0)) or 0),
        cache_read_tokens=details.get("cached_tokens") if isinstance(details, Mapping) else None,
    )


def parse_openai(
    messages: Sequence[Mapping[str, Any]],
) -> tuple[list[Message], list[Usage | None], str | None]:
    """Messages, per-reply usage and the system prompt of a Chat Completions list."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TranscriptError(SOURCE, None, "messages", "expected a list of message objects")
    out: list[Message] = []
    usages: list[Usage | None] = []
    system: str | None = None
    for index, raw in enumerate(messages):
        if not isinstance(raw, Mapping):
            raise TranscriptError(SOURCE, index, "message", f"expected an object, got {raw!r}")
        role = raw.get("role")
        if role in ("system", "developer"):
            text = _text(raw.get("content"), index)
            if not out and system is None:
                system = text
            else:
                out.append(Message.system(text))
        elif role == "user":
            out.append(Message.user(_text(raw.get("content"), index)))
        elif role == "assistant":
            calls = []
            for k, call in enumerate(raw.get("tool_calls") or []):
                fn = call.get("function") if isinstance(call, Mapping) else None
                if not isinstance(fn, Mapping) or not isinstance(call.get("id"), str):
                    raise TranscriptError(
                        SOURCE, index, f"tool_calls[{k}]", "needs an id and a function object"
                    )
                arguments = fn.get("arguments") or "{}"
                try:
                    parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
                except json.JSONDecodeError as exc:
                    raise TranscriptError(
                        SOURCE, index, f"tool_calls[{k}].function.arguments", f"not JSON: {exc}"
                    ) from None
                if not isinstance(parsed, dict):
                    raise TranscriptError(
                        SOURCE, index, f"tool_calls[{k}].function.arguments", "not an object"
                    )
                if not isinstance(fn.get("name"), str):
                    raise TranscriptError(
                        SOURCE, index, f"tool_calls[{k}].function.name", "missing"
                    )
                calls.append(ToolCall(id=call["id"], name=fn["name"], arguments=parsed))
            out.append(Message.assistant(_text(raw.get("content"), index), tool_calls=calls))
            usages.append(_usage(raw.get("usage"), index))
        elif role == "tool":
            call_id = raw.get("tool_call_id")
            if not isinstance(call_id, str):
                raise TranscriptError(SOURCE, index, "tool_call_id", "missing on a tool message")
            name = raw.get("name")
            if not isinstance(name, str):
                name = next(
                    (c.name for m in reversed(out) for c in m.tool_calls if c.id == call_id),
                    "unknown",
                )
            out.append(Message.tool(call_id, name, _text(raw.get("content"), index)))
        else:
            raise TranscriptError(SOURCE, index, "role", f"unknown role {role!r}")
    return out, usages, system


def from_openai(messages: Sequence[Mapping[str, Any]], **meta: Any) -> Run:
    """Import a Chat Completions message list (``usage`` on assistant messages is read when
    present) as a run that ``replay`` and ``capture`` accept.

    Raises:
        TranscriptError: naming the message index and field that is malformed.
    """
    parsed, usages, system = parse_openai(messages)
    return build_run(parsed, usages, system=system, source=SOURCE, meta=meta)
