"""Converting Inspect chat messages (``ChatMessageSystem/User/Assistant/Tool``) to
:class:`~footprint_lab.messages.Message` objects: their content items as text and typed parts,
assistants' tool calls, and tool results (with their recorded error).

Layer: importers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    arguments_of,
    blocks_of,
    content_part,
    json_problem,
    optional_str,
    short,
    text_of,
)
from footprint_lab.messages import ContentPart, Message, ToolCall, arguments_json

_DATA_FIELDS = {"image": "image", "audio": "audio", "video": "video", "document": "document"}


def _part(block: Mapping[str, Any], problems: Problems, index: int, field: str) -> ContentPart:
    """A content item that is not plain text, kept whole as a part."""
    kind = block["type"]
    if kind in _DATA_FIELDS or kind == "reasoning" or kind == "text":
        why = json_problem(block)
        if why is not None:
            problems.fail(index, field, f"item holds {why}")
    original = dict(block)
    if kind == "text":  # a refusal
        text = text_of(block.get("text"), problems, index, f"{field}.text")
        return ContentPart(kind="refusal", text=text, original=original)
    if kind == "reasoning":
        reasoning = text_of(block.get("reasoning"), problems, index, f"{field}.reasoning")
        if block.get("redacted") is True:
            return ContentPart(
                kind="redacted-thinking", data_chars=len(reasoning), original=original
            )
        return ContentPart(kind="thinking", text=reasoning, original=original)
    if kind in _DATA_FIELDS:
        data = block.get(_DATA_FIELDS[kind])
        chars = len(data) if isinstance(data, str) else len(arguments_json(block))
        return ContentPart(kind=kind, data_chars=chars, original=original)
    return content_part(block, problems, index, field)


def _content(
    raw: Mapping[str, Any], problems: Problems, index: int, field: str
) -> tuple[str, list[ContentPart]]:
    """The text and the typed parts of a message's ``content``."""
    content = raw.get("content")
    if isinstance(content, str):
        return content, []
    if content is None:
        problems.note(index, f"{field}.content", "null content, imported as empty text")
        return "", []
    texts: list[str] = []
    parts: list[ContentPart] = []
    for k, block in enumerate(blocks_of(content, problems, index, f"{field}.content")):
        at = f"{field}.content[{k}]"
        if block["type"] == "text" and block.get("refusal") is not True:
            texts.append(text_of(block.get("text"), problems, index, f"{at}.text"))
        else:
            parts.append(_part(block, problems, index, at))
    return "".join(texts), parts


def _tool_calls(
    raw: Mapping[str, Any], problems: Problems, ids: CallIds, index: int, field: str
) -> list[ToolCall]:
    listed = raw.get("tool_calls")
    if listed is None:
        ids.asked([], index, f"{field}.tool_calls")
        return []
    if not isinstance(listed, list):
        problems.fail(index, f"{field}.tool_calls", "expected a list of calls")
    calls: list[ToolCall] = []
    for k, call in enumerate(listed):
        at = f"{field}.tool_calls[{k}]"
        if not isinstance(call, Mapping):
            problems.fail(index, at, "expected a tool call object")
        call_id = call.get("id")
        if not isinstance(call_id, str):
            problems.fail(index, f"{at}.id", f"a tool call needs an id, got {short(call_id)}")
        name = ids.name(index, f"{at}.function", call.get("function"))
        arguments = arguments_of(
            call.get("arguments"),
            problems,
            index,
            f"{at}.arguments",
            missing="arguments" not in call,
            object_only=True,
        )
        parse_error = optional_str(call.get("parse_error"), problems, index, f"{at}.parse_error")
        if parse_error is not None:
            problems.note(
                index,
                f"{at}.parse_error",
                f"the model's arguments did not parse ({short(parse_error)}); kept as given",
            )
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
    ids.asked(calls, index, f"{field}.tool_calls")
    return calls


def _tool_result(
    raw: Mapping[str, Any],
    text: str,
    parts: list[ContentPart],
    problems: Problems,
    ids: CallIds,
    index: int,
    field: str,
) -> Message:
    call_id = optional_str(raw.get("tool_call_id"), problems, index, f"{field}.tool_call_id")
    if call_id is None:
        problems.note(index, f"{field}.tool_call_id", "a tool message without a call id")
        call_id, known = "", None
    else:
        known = ids.answered(call_id, index, f"{field}.tool_call_id")
    given = optional_str(raw.get("function"), problems, index, f"{field}.function")
    if given is not None:
        ids.name(index, f"{field}.function", given)
    error = raw.get("error")
    if error is not None:
        if not isinstance(error, Mapping) or not isinstance(error.get("message"), str):
            problems.fail(index, f"{field}.error", "expected an object with a message")
        said = error["message"]
        text = f"error: {said}" if text in ("", said) else f"error: {said}\n{text}"
    name = given if given is not None else known or "unknown"
    return Message.tool(call_id, name, text, parts=parts)


def _message(
    raw: Any, problems: Problems, ids: CallIds, index: int, field: str
) -> tuple[Message, Mapping[str, Any]]:
    """One Inspect chat message as a :class:`Message` (and the raw object, checked)."""
    if not isinstance(raw, Mapping):
        problems.fail(index, field, f"expected a message object, got {short(raw)}")
    role = raw.get("role")
    if role not in ("system", "user", "assistant", "tool"):
        problems.fail(index, f"{field}.role", f"unknown role {short(role)}")
    text, parts = _content(raw, problems, index, field)
    if role == "system":
        return Message.system(text, parts=parts), raw
    if role == "user":
        return Message.user(text, parts=parts), raw
    if role == "assistant":
        calls = _tool_calls(raw, problems, ids, index, field)
        return Message.assistant(text, tool_calls=calls, parts=parts), raw
    return _tool_result(raw, text, parts, problems, ids, index, field), raw
