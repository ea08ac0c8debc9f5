"""Parsing GenAI messages of a chat span into Messages.

Layer: otlp (reading the format; :mod:`footprint_lab.otlp.genai` writes it). A chat span's input
and output as ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON text or structured
values in the GenAI message schema) or as the older per-message span events
(``gen_ai.user.message``, ``gen_ai.choice`` ...), its usage, finish reason and system
instructions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from footprint_lab.messages import ContentPart, Message, ToolCall, arguments_json
from footprint_lab.otlp.names import (
    COMPACTION_PART,
    EVENT_CONTENT,
    FINISH_REASONS,
    INPUT_MESSAGES,
    LEGACY_CHOICE,
    LEGACY_ROLES,
    OUTPUT_MESSAGES,
    ROLE_ALIASES,
    SYSTEM_INSTRUCTIONS,
    USAGE_KEYS,
)
from footprint_lab.otlp.read import (
    OtelSpan,
    SpanEvent,
    attr_where,
    fail,
    json_attr,
    object_value,
    parse_json,
)
from footprint_lab.reading.content import content_part
from footprint_lab.reading.problems import Problems, short
from footprint_lab.reading.tool_calls import CallIds, arguments_of
from footprint_lab.reading.usage import usage_from
from footprint_lab.reading.values import json_problem, text_of
from footprint_lab.usage import Usage

__all__ = [
    "ChatCall",
    "MessageReader",
    "instructions",
    "read_chat",
    "text_value",
    "typed_parts",
]


def typed_parts(
    parts: list[Any], index: int, where: str
) -> Iterator[tuple[int, dict[str, Any], str]]:
    """Each GenAI message part with its position and field, checked (as it is reached, so
    faults are met in part order) to be an object with a text ``type``."""
    for k, part in enumerate(parts):
        at = f"{where}.parts[{k}]"
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            fail(index, at, "a part needs a type")
        yield k, part, at


def text_value(value: Any) -> str:
    """A tool result as text: text as it is, any other JSON value as its compact JSON (a
    GenAI ``response`` may be any value; not a validator, so not
    :mod:`footprint_lab.reading.values`' kind)."""
    return value if isinstance(value, str) else arguments_json(value)


class MessageReader:
    """Turns GenAI message objects into Messages, each distinct object once (a message
    repeated in every later input is read, and its problems listed, once)."""

    def __init__(self, problems: Problems) -> None:
        self.problems = problems
        # Inputs repeat earlier messages (not always byte for byte): no check across messages.
        self.ids = CallIds(problems, across=False)
        self._seen: dict[str, list[Message]] = {}

    def read(self, raw: Any, index: int, where: str) -> list[Message]:
        """The messages one GenAI message object stands for (a tool message with several
        responses is one message per response)."""
        key = arguments_json(raw)
        known = self._seen.get(key)
        if known is None:
            known = self._seen[key] = self._read(raw, index, where)
        return [m.model_copy() for m in known]

    def _read(self, raw: Any, index: int, where: str) -> list[Message]:
        problems = self.problems
        item = object_value(raw, index, where)
        role = item.get("role")
        if not isinstance(role, str):
            fail(index, f"{where}.role", f"expected a role, got {short(role)}")
        role = ROLE_ALIASES.get(role, role)
        if role not in ("system", "user", "assistant", "tool"):
            fail(index, f"{where}.role", f"unknown role {role!r}")
        parts = item.get("parts")
        if parts is None and isinstance(item.get("content"), str):
            parts = [{"type": "text", "content": item["content"]}]  # before parts were named
        if not isinstance(parts, list):
            fail(index, f"{where}.parts", f"expected a list of parts, got {short(parts)}")
        name = item.get("name")
        if name is not None and not isinstance(name, str):
            fail(index, f"{where}.name", f"expected text, got {short(name)}")
        texts: list[str] = []
        calls: list[ToolCall] = []
        positions: list[int] = []  # each call's part, so a duplicate id names its part
        typed: list[ContentPart] = []
        results: list[Message] = []
        for k, part, at in typed_parts(parts, index, where):
            kind = part["type"]
            if kind == "text":
                texts.append(text_of(part.get("content"), problems, index, f"{at}.content"))
            elif kind == "tool_call" and role == "assistant":
                calls.append(self._call(part, index, at, k))
                positions.append(k)
            elif kind == "tool_call_response":
                results.append(self._result(part, name, index, at))
            elif kind == "reasoning":
                text = text_of(part.get("content"), problems, index, f"{at}.content")
                typed.append(ContentPart(kind="thinking", text=text, original=dict(part)))
            elif kind == COMPACTION_PART and part.get("content") is not None:
                # A readable summary standing in for what left: the message's text.
                texts.append(text_of(part.get("content"), problems, index, f"{at}.content"))
            elif kind == COMPACTION_PART:
                # An encrypted compaction: opaque, sized by nothing the trace holds.
                typed.append(ContentPart(kind=COMPACTION_PART, original=dict(part)))
            else:
                if kind == "tool_call":
                    problems.note(index, at, f"a tool call in a {role} message; kept as a part")
                typed.append(content_part(part, problems, index, at))
        text = "".join(texts)
        if role == "assistant":
            self.ids.asked(calls, index, f"{where}.parts", positions)
            return [Message.assistant(text, tool_calls=calls, parts=typed, name=name)]
        if role == "tool" and not results:
            problems.note(index, where, "a tool message without a tool_call_response part")
            return [Message(role="tool", content=text, name=name, parts=typed)]
        if results:
            # A user message may carry tool results (Anthropic's tool_result blocks).
            rest = [Message(role=role, content=text, parts=typed)] if text or typed else []
            if role == "tool" and rest:
                results[-1] = results[-1].model_copy(
                    update={
                        "content": results[-1].content + text,
                        "parts": [*results[-1].parts, *typed],
                    }
                )
                rest = []
            return [*results, *rest]
        return [Message(role=role, content=text, parts=typed, name=name)]

    def _call(self, part: Mapping[str, Any], index: int, at: str, k: int) -> ToolCall:
        call_id = part.get("id")
        if call_id is None:
            call_id = f"otel-{index}-{k}"
            self.problems.note(
                index, f"{at}.id", f"tool call without an id; imported as {call_id!r}"
            )
        elif not isinstance(call_id, str):
            fail(index, f"{at}.id", f"expected text, got {short(call_id)}")
        name = self.ids.name(index, f"{at}.name", part.get("name"))
        arguments = arguments_of(
            part.get("arguments"),
            self.problems,
            index,
            f"{at}.arguments",
            missing=part.get("arguments") is None,
        )
        return ToolCall(id=call_id, name=name, arguments=arguments)

    def _result(self, part: Mapping[str, Any], name: str | None, index: int, at: str) -> Message:
        call_id = part.get("id")
        if call_id is None:
            self.problems.note(index, f"{at}.id", "tool result without a call id")
            call_id = ""
        elif not isinstance(call_id, str):
            fail(index, f"{at}.id", f"expected text, got {short(call_id)}")
        response = part.get("response", part.get("result"))
        why = json_problem(response)
        if why is not None:
            fail(index, f"{at}.response", f"holds {why}")
        if response is None:
            self.problems.note(index, f"{at}.response", "null response, imported as empty text")
        content = "" if response is None else text_value(response)
        known = self.ids.answered(call_id, index, f"{at}.id") if call_id else None
        return Message.tool(call_id, name or known or "unknown", content)


def _legacy_body(span: OtelSpan, event: SpanEvent, k: int) -> Mapping[str, Any]:
    """A per-message event's body: ``gen_ai.event.content`` (JSON text) when present, else
    its attributes (nested fields given as JSON text are parsed)."""
    where = f"events[{k}].attributes"
    content = event.attributes.get(EVENT_CONTENT)
    if isinstance(content, str):
        body = parse_json(content, span.index, f"{where}[{EVENT_CONTENT!r}]")
        return object_value(body, span.index, f"{where}[{EVENT_CONTENT!r}]")
    out = dict(event.attributes)
    for key in ("tool_calls", "message"):
        value = out.get(key)
        if isinstance(value, str) and value.lstrip().startswith(("[", "{")):
            out[key] = parse_json(value, span.index, f"{where}[{key!r}]")
    return out


def _legacy_message(body: Mapping[str, Any], role: str, index: int, where: str) -> dict[str, Any]:
    """An old per-message event body as a GenAI message object."""
    given = body.get("role")
    role = given if isinstance(given, str) else role
    content = body.get("content")
    parts: list[Any] = []
    if role == "tool":
        parts.append(
            {"type": "tool_call_response", "id": body.get("id"), "response": content or ""}
        )
    elif isinstance(content, str):
        parts.append({"type": "text", "content": content})
    elif isinstance(content, list) and all(isinstance(b, dict) and "type" in b for b in content):
        parts.extend(content)
    elif content is not None:
        parts.append({"type": "text", "content": arguments_json(content)})
    calls = body.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        fail(index, f"{where}.tool_calls", f"expected a list of calls, got {short(calls)}")
    for k, call in enumerate(calls or []):
        if not isinstance(call, dict):
            fail(index, f"{where}.tool_calls[{k}]", "expected a call object")
        fn = call.get("function")
        if fn is None:
            fn = call
        if not isinstance(fn, dict):
            fail(index, f"{where}.tool_calls[{k}].function", "expected an object")
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": fn.get("name"),
                "arguments": fn.get("arguments"),
            }
        )
    return {"role": role, "parts": parts}


@dataclass
class ChatCall:
    """One foreign chat span, read."""

    span: OtelSpan
    inputs: list[Message] | None
    output: Message | None
    usage: Usage | None
    finish_reason: str | None


def _messages_attr(span: OtelSpan, key: str) -> list[Any] | None:
    value = json_attr(span, key, list, required=False)
    return None if value is None else list(value)


def _usage(span: OtelSpan, problems: Problems) -> Usage | None:
    counts: dict[str, tuple[Any, str]] = {}
    raw: dict[str, Any] = {}
    for name, keys in USAGE_KEYS.items():
        key = next((k for k in keys if k in span.attributes), keys[0])
        value = span.attributes.get(key)
        counts[name] = (value, attr_where(key))
        if value is not None:
            raw[key] = value
    if not raw:
        return None
    return usage_from(raw, counts, problems, span.index, "attributes")


def _finish(span: OtelSpan, raw_output: Any) -> str | None:
    reasons = span.attributes.get(FINISH_REASONS)
    if isinstance(reasons, list) and reasons and isinstance(reasons[0], str):
        return reasons[0]
    if isinstance(reasons, str):
        return reasons
    if isinstance(raw_output, dict) and isinstance(raw_output.get("finish_reason"), str):
        return str(raw_output["finish_reason"])
    return None


def read_chat(span: OtelSpan, reader: MessageReader) -> ChatCall:
    problems = reader.problems
    inputs_raw = _messages_attr(span, INPUT_MESSAGES)
    outputs_raw = _messages_attr(span, OUTPUT_MESSAGES)
    fields_in = [f"{attr_where(INPUT_MESSAGES)}[{i}]" for i in range(len(inputs_raw or []))]
    fields_out = [f"{attr_where(OUTPUT_MESSAGES)}[{i}]" for i in range(len(outputs_raw or []))]
    if inputs_raw is None and outputs_raw is None:
        legacy_in: list[Any] = []
        legacy_out: list[Any] = []
        for k, event in enumerate(span.events):
            role = LEGACY_ROLES.get(event.name)
            if role is None and event.name != LEGACY_CHOICE:
                continue
            body = _legacy_body(span, event, k)
            where = f"events[{k}]"
            if role is not None:
                legacy_in.append(_legacy_message(body, role, span.index, where))
                fields_in.append(where)
                continue
            message = body.get("message", {})
            message = object_value(
                {} if message is None else message, span.index, f"{where}.message"
            )
            raw = _legacy_message(message, "assistant", span.index, f"{where}.message")
            if isinstance(body.get("finish_reason"), str):
                raw["finish_reason"] = body["finish_reason"]
            legacy_out.append(raw)
            fields_out.append(f"{where}.message")
        inputs_raw = legacy_in if legacy_in else None
        outputs_raw = legacy_out
    inputs = None
    if inputs_raw is not None:
        inputs = [
            m
            for raw, where in zip(inputs_raw, fields_in, strict=True)
            for m in reader.read(raw, span.index, where)
        ]
    output: Message | None = None
    outputs_raw = outputs_raw or []
    for raw, where in zip(outputs_raw, fields_out, strict=True):
        replies = [m for m in reader.read(raw, span.index, where) if m.role == "assistant"]
        if replies:
            output = replies[0]
            break
    if len(outputs_raw) > 1:
        problems.note(
            span.index,
            attr_where(OUTPUT_MESSAGES),
            f"{len(outputs_raw)} output messages (choices); the first reply is imported",
        )
    first = outputs_raw[0] if outputs_raw else None
    return ChatCall(span, inputs, output, _usage(span, problems), _finish(span, first))


def instructions(span: OtelSpan | None) -> str | None:
    if span is None or SYSTEM_INSTRUCTIONS not in span.attributes:
        return None
    value = span.attributes[SYSTEM_INSTRUCTIONS]
    if isinstance(value, str) and not value.lstrip().startswith("["):
        return value  # plain text, as some sources write it
    parts = json_attr(span, SYSTEM_INSTRUCTIONS, list)
    texts = []
    for k, part in enumerate(parts):
        if not isinstance(part, dict):
            fail(span.index, f"{attr_where(SYSTEM_INSTRUCTIONS)}[{k}]", "expected a part object")
        if part.get("type") == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
    return "\n".join(texts)
