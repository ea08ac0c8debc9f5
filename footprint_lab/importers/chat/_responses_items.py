"""One Responses item read into the run's pieces: message text and parts, a tool call, a tool
result, reasoning and compaction as typed parts, a response's usage.

Layer: importers (private to :mod:`footprint_lab.importers.chat.responses`; the walk over a
whole list is :mod:`._responses_read`). Every place is named as the file names it: ``index``
is the item's (or the Response object's) position in its unit, ``field`` the path inside it,
under ``prefix`` for an item inside a Response's ``output``. Malformed values raise through
``problems.fail``; what is accepted but wrong is noted (the shared readers of
:mod:`footprint_lab.importers._parts` do both).
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
    json_value,
    object_of,
    short,
    text_and_parts,
    text_of,
    usage_from,
)
from footprint_lab.importers.chat._responses_shape import (
    CALL_NAMES,
    CALL_TYPES,
    OUTPUT_ANSWERS,
    ROLES,
)
from footprint_lab.messages import ContentPart, Message, ToolCall, arguments_json
from footprint_lab.usage import Usage

__all__ = [
    "COMPACTION_KIND",
    "ENCRYPTED_REASONING_KIND",
    "call_of",
    "compaction_stand_in",
    "content_of",
    "hosted_part",
    "place",
    "reasoning_parts",
    "response_facts",
    "result_of",
    "unfinished",
    "usage_of",
    "window_copy",
]

COMPACTION_KIND = "compaction"
"""The part kind of a compaction item's encrypted content (opaque: size, no readable text)."""
ENCRYPTED_REASONING_KIND = "redacted-thinking"
"""The part kind of a reasoning item's ``encrypted_content`` (opaque, as Anthropic's redacted
thinking is)."""

_CALL_META = frozenset({"type", "id", "call_id", "status", "created_by", "caller"})
"""Fields of a built-in tool call that are not its arguments."""
_PART_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_UNFINISHED = frozenset({"incomplete", "failed", "cancelled", "in_progress", "queued"})
"""The statuses of a Response that did not complete."""
"""Outputs that are text or a list of content parts (``input_text``, ``input_image`` ...)."""


def place(prefix: str, name: str) -> str:
    """The field ``name`` of an item whose own place is ``prefix`` (empty for a top item)."""
    return f"{prefix}.{name}" if prefix else name


def content_of(
    item: Mapping[str, Any], problems: Problems, index: int, prefix: str
) -> tuple[str, list[ContentPart]]:
    """A message's text and typed parts: text content as given, or its ``input_text`` /
    ``output_text`` parts joined, every other part (image, file, audio, refusal, a type we do
    not know) kept as a part.

    Raises:
        TranscriptError: the content is missing, or neither text nor a list of typed parts.
    """
    field = place(prefix, "content")
    if "content" not in item:
        problems.fail(index, field, "a message needs content")
    content = item["content"]
    if content is None:
        problems.note(index, field, "null content, imported as empty text")
        return "", []
    if isinstance(content, str):
        return content, []
    return text_and_parts(blocks_of(content, problems, index, field), problems, index, field)


def reasoning_parts(
    item: Mapping[str, Any], problems: Problems, index: int, prefix: str
) -> list[ContentPart]:
    """A reasoning item as parts: its summary (and reasoning text, where given) as one
    readable ``thinking`` part, and its ``encrypted_content`` as an opaque part that counts
    its characters but holds no text.

    Raises:
        TranscriptError: ``summary`` or ``content`` is not a list of objects, a text is not
            text, or ``encrypted_content`` is not text.
    """
    texts: list[str] = []
    for key in ("summary", "content"):
        parts = item.get(key)
        if parts is None:
            continue
        if not isinstance(parts, list):
            problems.fail(index, place(prefix, key), f"expected a list, got {short(parts)}")
        for k, part in enumerate(parts):
            at = place(prefix, f"{key}[{k}]")
            if not isinstance(part, Mapping):
                problems.fail(index, at, f"expected an object, got {short(part)}")
            texts.append(text_of(part.get("text"), problems, index, f"{at}.text"))
    encrypted = item.get("encrypted_content")
    if encrypted is not None and not isinstance(encrypted, str):
        problems.fail(index, place(prefix, "encrypted_content"), "expected text")
    visible = {k: v for k, v in item.items() if k != "encrypted_content"}
    json_value(visible, problems, index, prefix or "item")
    out: list[ContentPart] = []
    if texts or encrypted is None:
        out.append(ContentPart(kind="thinking", text="\n\n".join(texts), original=visible))
    if encrypted is not None:
        opaque = {k: item[k] for k in ("type", "id") if isinstance(item.get(k), str)}
        opaque["encrypted_content"] = encrypted
        out.append(
            ContentPart(
                kind=ENCRYPTED_REASONING_KIND,
                text=None,
                data_chars=len(encrypted),
                original=opaque,
            )
        )
    return out


def compaction_stand_in(
    item: Mapping[str, Any], problems: Problems, index: int, prefix: str
) -> tuple[Message, int]:
    """The stand-in a compaction item puts in the window, and its encrypted characters: a
    ``user`` message with no readable text carrying one opaque ``compaction`` part (its
    characters counted as size, never as text).

    Raises:
        TranscriptError: ``encrypted_content`` is not text, or the item is not JSON.
    """
    field = place(prefix, "encrypted_content")
    encrypted = item.get("encrypted_content")
    if encrypted is None:
        problems.note(
            index, field, "a compaction item without encrypted_content (kept: 0 characters)"
        )
        encrypted = ""
    if not isinstance(encrypted, str):
        problems.fail(index, field, f"expected text, got {short(encrypted)}")
    original = dict(json_value(dict(item), problems, index, prefix or "item"))
    part = ContentPart(
        kind=COMPACTION_KIND, text=None, data_chars=len(encrypted), original=original
    )
    return Message.user("", parts=[part]), len(encrypted)


def hosted_part(
    item: Mapping[str, Any], kind: str, problems: Problems, index: int, prefix: str
) -> ContentPart:
    """A built-in tool call the API ran inside the response (web search, file search, code
    interpreter, MCP, image generation ...), or an item of a type we do not know, kept whole
    as a part of the reply, at the length of its compact JSON.

    Raises:
        TranscriptError: the item cannot be carried as JSON.
    """
    return content_part(item, problems, index, prefix or "item", kind_of=kind)


def call_of(
    item: Mapping[str, Any], kind: str, problems: Problems, ids: CallIds, index: int, prefix: str
) -> ToolCall:
    """The tool call a call item makes: ``function_call`` with its ``arguments`` JSON text
    parsed, ``custom_tool_call`` with its free-text ``input`` as ``{"input": ...}``, an MCP
    approval request named by its tool, a built-in tool's call (computer, shell, apply patch
    ...) named by the tool with the item's own fields as arguments.

    Raises:
        TranscriptError: the call id or the name is missing or not text, or a value is not
            JSON.
    """
    key = "id" if kind == "mcp_approval_request" else "call_id"
    call_id = item.get(key)
    if not isinstance(call_id, str):
        problems.fail(index, place(prefix, key), f"a call needs a call id, got {short(call_id)}")
    name_field = place(prefix, "name")
    arguments_field = place(prefix, "arguments")
    if kind in ("function_call", "mcp_approval_request"):
        name = ids.name(index, name_field, item.get("name"))
        arguments = arguments_of(
            item.get("arguments"),
            problems,
            index,
            arguments_field,
            missing="arguments" not in item,
        )
    elif kind == "custom_tool_call":
        name = ids.name(index, name_field, item.get("name"))
        given = text_of(item.get("input"), problems, index, place(prefix, "input"))
        arguments = {"input": given}
    else:
        name = CALL_NAMES.get(kind, kind)
        fields = {k: v for k, v in item.items() if k not in _CALL_META}
        arguments = dict(json_value(fields, problems, index, prefix or "item"))
    return ToolCall(id=call_id, name=name, arguments=arguments)


def result_of(
    item: Mapping[str, Any], kind: str, problems: Problems, ids: CallIds, index: int, prefix: str
) -> Message:
    """The tool result an output item gives: text output as given, a list of content parts
    as text and parts, a computer screenshot as an image part, other structured output
    (shell output chunks, an MCP approval) as its compact JSON text.

    Raises:
        TranscriptError: the call id is missing or not text, or the output is of the wrong
            type.
    """
    key = OUTPUT_ANSWERS.get(kind, "call_id")
    if kind == "local_shell_call_output" and "call_id" not in item:
        key = "id"  # the API's own shape; the Agents SDK writes call_id
    call_id = item.get(key)
    if not isinstance(call_id, str):
        problems.fail(index, place(prefix, key), f"a result needs a call id, got {short(call_id)}")
    name = ids.result_name(
        call_id, item.get("name"), index, place(prefix, key), place(prefix, "name")
    )
    field = place(prefix, "output")
    output = item.get("output")
    parts: list[ContentPart] = []
    if kind == "mcp_approval_response":
        rest = {k: v for k, v in item.items() if k not in ("type", "id", key)}
        text = arguments_json(json_value(rest, problems, index, prefix or "item"))
    elif kind == "computer_call_output":
        screenshot = object_of(output, problems, index, field)
        parts.append(content_part(screenshot, problems, index, field, kind_of="input_image"))
        text = ""
    elif kind == "tool_search_output":
        tools = item.get("tools")
        text = arguments_json(json_value(tools, problems, index, place(prefix, "tools")))
    elif output is None and kind == "apply_patch_call_output":
        text = text_of(item.get("status"), problems, index, place(prefix, "status"))
    elif output is None or isinstance(output, str):
        text = text_of(output, problems, index, field)
    elif kind in _PART_OUTPUTS:
        blocks = blocks_of(output, problems, index, field)
        text, parts = text_and_parts(blocks, problems, index, field)
    else:
        text = arguments_json(json_value(output, problems, index, field))
    return Message.tool(call_id, name, text, parts=parts)


def _details(raw: Mapping[str, Any], key: str, problems: Problems, index: int, prefix: str) -> Any:
    return object_of(raw.get(key), problems, index, place(prefix, f"usage.{key}"))


def usage_of(raw: Any, problems: Problems, index: int, prefix: str = "") -> Usage | None:
    """A Response's ``usage``: ``input_tokens`` (cached ones included, as the API counts
    them), ``output_tokens`` (reasoning ones included), ``input_tokens_details``'
    ``cached_tokens`` and ``cache_write_tokens`` (Chat Completions' names are read too, as
    some proxies write them). None when it reports none.

    Raises:
        TranscriptError: the report or a count is malformed.
    """
    field = place(prefix, "usage")
    if not isinstance(raw, Mapping):
        return usage_from(raw, {}, problems, index, field)
    if "input_tokens" not in raw and "prompt_tokens" in raw:
        inputs, outputs, name = "prompt_tokens", "completion_tokens", "prompt_tokens_details"
    else:
        inputs, outputs, name = "input_tokens", "output_tokens", "input_tokens_details"
    details = _details(raw, name, problems, index, prefix)
    counts = {
        "input_tokens": (raw.get(inputs), f"{field}.{inputs}"),
        "output_tokens": (raw.get(outputs), f"{field}.{outputs}"),
        "cache_read_tokens": (details.get("cached_tokens"), f"{field}.{name}.cached_tokens"),
        "cache_write_tokens": (
            details.get("cache_write_tokens"),
            f"{field}.{name}.cache_write_tokens",
        ),
    }
    return usage_from(raw, counts, problems, index, field)


def window_copy(
    item: Mapping[str, Any],
    kind: str,
    problems: Problems,
    scratch: CallIds,
    index: int,
    prefix: str,
) -> Message:
    """An item of a compacted window (``responses.compact``'s output) as the message the
    window sends: matched to the history by the observed window, or else a stand-in of the
    compaction's own. ``scratch`` takes its calls (a window's copy makes no new call).

    Raises:
        TranscriptError: the item is malformed.
    """
    role = item.get("role")
    if kind == "message" and isinstance(role, str) and role in ROLES:
        text, parts = content_of(item, problems, index, prefix)
        if role in ("system", "developer"):
            return Message.system(text, parts=parts)
        if role == "assistant":
            return Message.assistant(text, parts=parts)
        return Message.user(text, parts=parts)
    if kind in CALL_TYPES:
        call = call_of(item, kind, problems, scratch, index, prefix)
        return Message.assistant("", tool_calls=[call])
    return Message.user("", parts=[content_part(item, problems, index, prefix, kind_of=kind)])


def response_facts(raw: Mapping[str, Any], problems: Problems, index: int) -> dict[str, Any]:
    """What ``meta["responses"]`` says of a Response: where it is, its ``id``, ``model``,
    ``status``, ``previous_response_id``, ``created_at`` and, where reported, its
    ``reasoning_tokens``.

    Raises:
        TranscriptError: a value cannot be carried as JSON.
    """
    facts: dict[str, Any] = {"item": index}
    for key in ("id", "model", "status", "previous_response_id", "created_at"):
        facts[key] = json_value(raw.get(key), problems, index, key)
    reported = raw.get("usage")
    details = reported.get("output_tokens_details") if isinstance(reported, Mapping) else None
    if isinstance(details, Mapping) and "reasoning_tokens" in details:
        at = "usage.output_tokens_details.reasoning_tokens"
        facts["reasoning_tokens"] = json_value(details["reasoning_tokens"], problems, index, at)
    return facts


def unfinished(raw: Mapping[str, Any], problems: Problems, index: int) -> str | None:
    """A Response's own word when it did not complete (``response incomplete: {"reason":
    "max_output_tokens"}``), else None.

    Raises:
        TranscriptError: its details cannot be carried as JSON.
    """
    status = raw.get("status")
    if not isinstance(status, str) or status not in _UNFINISHED:
        return None
    reason = raw.get("incomplete_details") or raw.get("error")
    if not reason:
        return f"response {status}"
    return f"response {status}: {arguments_json(json_value(reason, problems, index, 'status'))}"
