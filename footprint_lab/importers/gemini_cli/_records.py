"""One Gemini CLI message record read on its own: what it is in the conversation.

Layer: importers (private to :mod:`footprint_lab.importers.gemini_cli`). A ``gemini`` record
is a reply with its calls and their results; a ``user`` record a message and the results its
``functionResponse`` parts carry; a notice is text for the person (see the package docstring).
The parts are read by :mod:`._content`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    arguments_of,
    json_value,
    optional_str,
    short,
)
from footprint_lab.importers.gemini_cli._content import (
    BINARY_ACK,
    MESSAGE_TYPES,
    NOTICE_TYPES,
    Call,
    Converted,
    Result,
    Version,
    content_of,
    injected,
    parts_of,
    result_of,
    span_of,
    text_of_content,
    tool_name,
    typed_part,
    usage_of,
)
from footprint_lab.messages import ContentPart, Message, ToolCall

__all__ = ["convert"]

_STATUS_RESULTS = frozenset({"error", "cancelled"})
"""The statuses that are a call's result when it has none recorded."""


def _thoughts(v: Version, problems: Problems) -> list[ContentPart]:
    """The thought summaries of a reply (``thoughts``), as thinking parts."""
    raw = v.raw.get("thoughts")
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.fail(v.index, v.at("thoughts"), f"expected a list, got {short(raw)}")
    out: list[ContentPart] = []
    for k, thought in enumerate(raw):
        where = f"thoughts[{k}]"
        if not isinstance(thought, Mapping):
            problems.fail(v.index, v.at(where), f"expected an object, got {short(thought)}")
        json_value(dict(thought), problems, v.index, v.at(where))
        subject = optional_str(thought.get("subject"), problems, v.index, v.at(f"{where}.subject"))
        about = optional_str(
            thought.get("description"), problems, v.index, v.at(f"{where}.description")
        )
        text = f"**{subject}** {about or ''}" if subject else about or ""
        out.append(ContentPart(kind="thinking", text=text, original=dict(thought)))
    return out


def _status_result(
    record: Mapping[str, Any], call: ToolCall, v: Version, at: str, problems: Problems
) -> Result | None:
    """The result of a call recorded without one: its ``status`` when that is error or
    cancelled (with its ``resultDisplay`` text when it has one), else none."""
    status = optional_str(record.get("status"), problems, v.index, v.at(f"{at}.status"))
    if status not in _STATUS_RESULTS:
        return None
    shown = record.get("resultDisplay")
    text = f"{status}: {shown}" if isinstance(shown, str) and shown else str(status)
    return Result(call.id, call.name, text, [], v.index, v.at(f"{at}.status"), from_status=True)


def _record_calls(v: Version, converted: Converted, problems: Problems) -> None:
    """The calls of a reply's ``toolCalls`` records, with their results."""
    records = v.raw.get("toolCalls")
    if records is not None and not isinstance(records, list):
        problems.fail(v.index, v.at("toolCalls"), f"expected a list, got {short(records)}")
    for k, record in enumerate(records or []):
        at = f"toolCalls[{k}]"
        if not isinstance(record, Mapping):
            problems.fail(v.index, v.at(at), f"expected a tool call object, got {short(record)}")
        call_id = record.get("id")
        if not isinstance(call_id, str):
            problems.fail(v.index, v.at(f"{at}.id"), f"a call needs an id, got {short(call_id)}")
        name = tool_name(record.get("name"), problems, v, f"{at}.name")
        arguments = arguments_of(
            record.get("args"),
            problems,
            v.index,
            v.at(f"{at}.args"),
            missing="args" not in record,
            object_only=True,
        )
        call = ToolCall(id=call_id, name=name, arguments=arguments)
        converted.calls.append(Call(call, v.at(f"{at}.id")))
        result = record.get("result")
        if result is None:
            made = _status_result(record, call, v, at, problems)
            if made is not None:
                converted.results.append(made)
            continue
        listed = parts_of(result, problems, v, f"{at}.result")
        span = span_of(listed, call.id, call.name)
        converted.results.append(
            result_of(listed, span, problems, v, f"{at}.result", (call.id, call.name))
        )


def _content_calls(
    v: Version,
    converted: Converted,
    problems: Problems,
    found: list[tuple[int, Mapping[str, Any]]],
) -> None:
    """The ``functionCall`` parts of a reply's content the records do not already hold (by
    id; an id-less part by the name of a record not yet matched), each a call (an id-less one
    named after the record and the part)."""
    known = {c.call.id for c in converted.calls}
    spare: dict[str, int] = {}
    for c in converted.calls:
        spare[c.call.name] = spare.get(c.call.name, 0) + 1
    for _, part in found:
        given = part.get("id")
        if isinstance(given, str) and given in known and isinstance(part.get("name"), str):
            spare[part["name"]] = spare.get(part["name"], 0) - 1
    owner = v.id if v.id is not None else str(v.index)
    for j, part in found:
        at = f"content[{j}].functionCall"
        call_id = optional_str(part.get("id"), problems, v.index, v.at(f"{at}.id"))
        name = tool_name(part.get("name"), problems, v, f"{at}.name")
        if call_id in known:
            continue
        if call_id is None and spare.get(name, 0) > 0:
            spare[name] -= 1
            continue
        arguments = arguments_of(
            part.get("args"), problems, v.index, v.at(f"{at}.args"), object_only=True
        )
        made = ToolCall(id=call_id or f"{owner}:content[{j}]", name=name, arguments=arguments)
        converted.calls.append(Call(made, v.at(f"{at}.id")))


def _reply(v: Version, converted: Converted, problems: Problems) -> None:
    """A ``gemini`` record: one assistant message, its calls and their results."""
    text, parts, content_calls = content_of(v, problems)
    if not any(p.kind == "thinking" for p in parts):
        parts = [*_thoughts(v, problems), *parts]
    _record_calls(v, converted, problems)
    _content_calls(v, converted, problems, content_calls)
    converted.usage = usage_of(v, problems)
    converted.model = optional_str(v.raw.get("model"), problems, v.index, v.at("model"))
    synthetic = (  # the model turn Gemini CLI writes itself (no model named: no call made)
        not converted.calls
        and not text
        and [p.text for p in parts if p.kind == "thinking"] == [BINARY_ACK]
        and converted.model is None
    )
    if synthetic:
        converted.kind, converted.why = "skipped", "binary-ack"
        return
    converted.text = text
    converted.message = Message.assistant(text, [c.call for c in converted.calls], parts=parts)


def _user(v: Version, converted: Converted, problems: Problems, *, binary: bool) -> None:
    """A ``user`` record (or an ``info`` record holding binary tool output Gemini CLI sent):
    the results of its ``functionResponse`` parts, and a user message for the parts before
    them."""
    parts = parts_of(v.raw.get("content"), problems, v, "content")
    starts = [k for k, p in enumerate(parts) if isinstance(p.get("functionResponse"), Mapping)]
    for n, k in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(parts)
        converted.results.append(result_of(parts, (k, end), problems, v, "content", (None, None)))
    first = starts[0] if starts else len(parts)
    text, kept, calls = content_of(Version({"content": parts[:first]}, v.index, v.prefix), problems)
    kept.extend(typed_part({"functionCall": c}, problems, v, f"content[{j}]") for j, c in calls)
    if not text and not kept:
        if not converted.results:
            converted.kind, converted.why = "skipped", "empty"
        return
    converted.text = text
    converted.message = Message.user(text, parts=kept)
    if binary or injected(text):
        converted.user_kind = "observation"


def convert(v: Version, problems: Problems) -> Converted:
    """What the record ``v`` is in the conversation (see the package docstring).

    Raises:
        TranscriptError: a field is malformed (naming the place in the record).
    """
    raw = v.raw
    kind = raw.get("type")
    if not isinstance(kind, str):
        problems.fail(
            v.index,
            v.at("type"),
            f"expected one of {', '.join(sorted(MESSAGE_TYPES))}, got {short(kind)}",
        )
    converted = Converted(v, kind)
    if kind == "gemini":
        _reply(v, converted, problems)
    elif kind == "user":
        _user(v, converted, problems, binary=False)
    elif kind in NOTICE_TYPES:
        content = raw.get("content")
        binary = (
            kind == "info"
            and isinstance(content, list)
            and any(
                isinstance(p, Mapping) and ("inlineData" in p or "fileData" in p) for p in content
            )
        )
        if binary:  # the binary tool output Gemini CLI sends the model as a user turn
            converted.kind = "user"
            _user(v, converted, problems, binary=True)
        else:
            json_value(content, problems, v.index, v.at("content"))
            converted.text = text_of_content(v)
    else:
        converted.kind, converted.why = "skipped", f"type {kind!r}"
        problems.note(
            v.index,
            v.at("type"),
            f"message type {kind!r} is not one Gemini CLI records "
            f"({', '.join(sorted(MESSAGE_TYPES))}); not imported",
        )
    return converted
