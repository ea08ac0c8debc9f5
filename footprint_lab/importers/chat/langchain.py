"""Import a LangChain message dump (``messages_to_dict``). Layer: importers.

Works on the plain dicts, so LangChain itself need not be installed. Nothing is dropped: text
in a content list (plain strings and ``text`` blocks) becomes the message text; images, files,
audio, thinking and other blocks, and each of an AI message's ``invalid_tool_calls`` (kept as
an ``invalid-tool-call`` part sized by its name and argument text), become
:class:`~footprint_lab.messages.ContentPart` s, so they count in sizes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    TEXT_TYPES,
    CallIds,
    Problems,
    TranscriptError,
    arguments_of,
    content_part,
    json_value,
    message_list,
    optional_str,
    text_of,
    usage_by_keys,
)
from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.usage import Usage

SOURCE = "langchain"

__all__ = ["SOURCE", "TranscriptError", "from_langchain"]


def _content(
    data: Mapping[str, Any], problems: Problems, index: int
) -> tuple[str, list[ContentPart]]:
    content = data.get("content", "")
    if isinstance(content, str):
        return content, []
    if content is None:
        problems.note(index, "data.content", "null content, imported as empty text")
        return "", []
    if not isinstance(content, list):
        problems.fail(index, "data.content", "expected text or a list of parts")
    texts: list[str] = []
    parts: list[ContentPart] = []
    for k, item in enumerate(content):
        field = f"data.content[{k}]"
        if isinstance(item, str):
            texts.append(item)
        elif not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
            problems.fail(index, field, "a part must be text or an object with a type")
        elif item["type"] in TEXT_TYPES:
            texts.append(text_of(item.get("text"), problems, index, f"{field}.text"))
        else:
            parts.append(content_part(item, problems, index, field))
    return "".join(texts), parts


def _calls(data: Mapping[str, Any], problems: Problems, ids: CallIds, index: int) -> list[ToolCall]:
    raw_calls = data.get("tool_calls")
    if raw_calls is not None and not isinstance(raw_calls, list):
        problems.fail(index, "data.tool_calls", "expected a list of calls")
    calls: list[ToolCall] = []
    for k, call in enumerate(raw_calls or []):
        field = f"data.tool_calls[{k}]"
        if not isinstance(call, Mapping):
            problems.fail(index, field, "expected an object")
        name = ids.name(index, f"{field}.name", call.get("name"))
        call_id = optional_str(call.get("id"), problems, index, f"{field}.id")
        arguments = arguments_of(
            call.get("args"),
            problems,
            index,
            f"{field}.args",
            missing="args" not in call,
            object_only=True,
        )
        # LangChain allows a call without an id; it gets one from its position.
        calls.append(ToolCall(id=call_id or f"lc_{index}_{k}", name=name, arguments=arguments))
    ids.asked(calls, index, "data.tool_calls")
    return calls


def _invalid_calls(data: Mapping[str, Any], problems: Problems, index: int) -> list[ContentPart]:
    invalid = data.get("invalid_tool_calls")
    if invalid is None:
        return []
    if not isinstance(invalid, list):
        problems.fail(index, "data.invalid_tool_calls", "expected a list")
    parts: list[ContentPart] = []
    for k, call in enumerate(invalid):
        field = f"data.invalid_tool_calls[{k}]"
        if not isinstance(call, Mapping):
            problems.fail(index, field, "expected an object")
        json_value(call, problems, index, field)
        name = optional_str(call.get("name"), problems, index, f"{field}.name") or ""
        args = optional_str(call.get("args"), problems, index, f"{field}.args") or ""
        parts.append(
            ContentPart(kind="invalid-tool-call", data_chars=len(name) + len(args), original=call)
        )
    return parts


_USAGE_KEYS = {"input_tokens": "input_tokens", "output_tokens": "output_tokens"}
"""``Usage`` field -> its key in an AI message's ``usage_metadata``."""


def from_langchain(dicts: Sequence[Mapping[str, Any]], *, strict: bool = False, **meta: Any) -> Run:
    """Import ``langchain_core.messages.messages_to_dict(...)`` output as a run.

    Args:
        dicts: The dumped messages.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.
        **meta: Extra facts for ``run.meta`` (JSON values).

    Raises:
        TranscriptError: naming the message index and field that is malformed (or, when
            ``strict``, that has a problem).
    """
    problems = Problems(SOURCE, strict=strict)
    message_list(dicts, problems, "message dicts")
    out: list[Message] = []
    usages: list[Usage | None] = []
    system: str | None = None
    ids = CallIds(problems)
    for index, raw in enumerate(dicts):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("data"), Mapping):
            problems.fail(index, "data", "expected {'type': ..., 'data': {...}}")
        kind = raw.get("type")
        data = raw["data"]
        if kind not in ("system", "human", "chat", "ai", "AIMessageChunk", "tool"):
            problems.fail(index, "type", f"unknown message type {kind!r}")
        text, parts = _content(data, problems, index)
        if kind == "system":
            if not out and system is None and not parts:
                system = text
            else:
                out.append(Message.system(text, parts=parts))
        elif kind in ("human", "chat"):
            out.append(Message.user(text, parts=parts))
        elif kind in ("ai", "AIMessageChunk"):
            calls = _calls(data, problems, ids, index)
            parts.extend(_invalid_calls(data, problems, index))
            out.append(Message.assistant(text, tool_calls=calls, parts=parts))
            usages.append(
                usage_by_keys(
                    data.get("usage_metadata"), _USAGE_KEYS, problems, index, "data.usage_metadata"
                )
            )
        else:
            call_id = data.get("tool_call_id")
            if not isinstance(call_id, str):
                problems.fail(index, "data.tool_call_id", "missing")
            name = ids.result_name(
                call_id, data.get("name"), index, "data.tool_call_id", "data.name"
            )
            out.append(Message.tool(call_id, name, text, parts=parts))
    return build_run(out, usages, system=system, source=SOURCE, meta=meta, problems=problems.found)
