"""Codex response items, one at a time: message text and parts, calls, results, hosted tools.

Layer: importers (private to :mod:`footprint_lab.importers.codex`). Each function reads one
``ResponseItem`` (the payload of a ``response_item`` line, a bare line of an early rollout, or
an entry of a ``compacted`` line's ``replacement_history``) as Codex's
``codex-rs/protocol/src/models.rs`` defines it, and fails with a :class:`TranscriptError`
naming the line and the field (``at`` is the field prefix: ``payload.`` or empty) when a field
has a type the item cannot have.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    arguments_of,
    blocks_of,
    json_value,
    object_of,
    optional_str,
    short,
    text_and_parts,
    text_of,
)
from footprint_lab.messages import ContentPart, Message, ToolCall, arguments_json

__all__ = [
    "CALL_TYPES",
    "HOSTED_TYPES",
    "OPAQUE_TYPES",
    "RESULT_TYPES",
    "SUMMARY_PREFIX",
    "call_of",
    "hosted_part",
    "is_contextual",
    "message_of",
    "reasoning_parts",
    "result_of",
]

CALL_TYPES = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"}
)
"""Output items that are tool calls Codex runs (their results are separate items)."""
RESULT_TYPES = frozenset(
    {
        "function_call_output",
        "custom_tool_call_output",
        "local_shell_call_output",
        "tool_search_output",
    }
)
"""Items that answer a call by its ``call_id``."""
HOSTED_TYPES = {"web_search_call": "web-search", "image_generation_call": "image"}
"""Output items of tools the provider runs itself (no result item: kept as parts)."""
OPAQUE_TYPES = frozenset({"compaction", "compaction_summary", "context_compaction"})
"""Items holding only an encrypted summary (kept as parts: their size counted)."""

SUMMARY_PREFIX = "Another language model started to solve this problem"
"""How the summary message starts that Codex puts in place of a compacted history
(``templates/compact/summary_prefix.md``)."""
_BRIDGE = "You were originally given instructions from a user over one or more turns."
"""How the history bridge of early compactions starts (``compact/history_bridge.md``)."""
_MARKERS = (
    "<environment_context>",
    "<user_instructions>",
    "# agents.md instructions for",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<subagents>",
    "<context_update>",
    "<user_action>",
    "<hook_prompt",
    SUMMARY_PREFIX.lower(),
    _BRIDGE.lower(),
)
"""How the user-role text starts that Codex writes itself (its contextual fragments: the
environment, AGENTS.md and user instructions, skills, a shell command the person ran, an
aborted turn, sub-agent notices, hook prompts, compaction summaries), matched case-blind."""


def is_contextual(text: str) -> bool:
    """Whether a user-role text part is one Codex wrote (see :data:`_MARKERS`)."""
    return text.lstrip()[:80].lower().startswith(_MARKERS)


def message_of(
    item: Mapping[str, Any], problems: Problems, line: int, at: str
) -> tuple[str, str, list[ContentPart], bool]:
    """A ``message`` item: (its role, its text, its typed parts, whether it is Codex's own
    contextual text). Text parts (``input_text``, ``output_text``) are joined; images and other
    parts are kept as parts.

    Raises:
        TranscriptError: the role is not text, the content is not a list of typed parts, or a
            text part's text is not text.
    """
    role = item.get("role")
    if not isinstance(role, str):
        problems.fail(line, f"{at}role", f"a message needs a role, got {short(role)}")
    blocks = blocks_of(item.get("content"), problems, line, f"{at}content")
    text, parts = text_and_parts(blocks, problems, line, f"{at}content")
    contextual = any(
        b["type"] == "input_text" and isinstance(b.get("text"), str) and is_contextual(b["text"])
        for b in blocks
    )
    return role, text, parts, contextual


def _texts(value: Any, problems: Problems, line: int, field: str) -> list[str]:
    """The ``text`` of each entry of a reasoning ``summary`` or ``content`` list."""
    if value is None:
        return []
    if not isinstance(value, list):
        problems.fail(line, field, f"expected a list, got {short(value)}")
    out: list[str] = []
    for k, entry in enumerate(value):
        if not isinstance(entry, Mapping):
            problems.fail(line, f"{field}[{k}]", f"expected an object, got {short(entry)}")
        out.append(text_of(entry.get("text"), problems, line, f"{field}[{k}].text"))
    return out


def reasoning_parts(
    item: Mapping[str, Any], problems: Problems, line: int, at: str
) -> list[ContentPart]:
    """A ``reasoning`` item: a ``thinking`` part with its summary (and any plain reasoning
    content) when it has text, and a ``redacted-thinking`` part sized by its
    ``encrypted_content`` (no readable text) when it has one."""
    summary = _texts(item.get("summary"), problems, line, f"{at}summary")
    content = _texts(item.get("content"), problems, line, f"{at}content")
    encrypted = optional_str(
        item.get("encrypted_content"), problems, line, f"{at}encrypted_content"
    )
    parts: list[ContentPart] = []
    if summary or content:
        shown = {k: json_value(v, problems, line, f"{at}{k}") for k, v in item.items()}
        shown.pop("encrypted_content", None)
        parts.append(
            ContentPart(kind="thinking", text="\n\n".join(summary + content), original=shown)
        )
    if encrypted:
        original = {"type": "reasoning", "encrypted_content": encrypted}
        parts.append(
            ContentPart(kind="redacted-thinking", data_chars=len(encrypted), original=original)
        )
    return parts


def hosted_part(
    kind: str, item: Mapping[str, Any], problems: Problems, line: int, at: str
) -> ContentPart:
    """A provider-run tool's item (a web search, a generated image, a tool search) or an
    encrypted compaction item, kept whole as a part: sized by its encrypted content or image
    data, else by the compact JSON of what it did (its ``action``, else the item)."""
    original = dict(json_value(dict(item), problems, line, at.rstrip(".") or "line"))
    data = item.get("encrypted_content") if kind in OPAQUE_TYPES else item.get("result")
    if isinstance(data, str):
        chars = len(data)
    else:
        chars = len(arguments_json(item.get("action", original)))
    name = "compaction" if kind in OPAQUE_TYPES else HOSTED_TYPES.get(kind, kind.replace("_", "-"))
    return ContentPart(kind=name, data_chars=chars, original=original)


def _call_id(item: Mapping[str, Any], problems: Problems, line: int, at: str, key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        problems.fail(line, f"{at}{key}", f"a call needs a call id (text), got {short(value)}")
    return value


def call_of(
    kind: str, item: Mapping[str, Any], ids: CallIds, problems: Problems, line: int, at: str
) -> ToolCall | None:
    """A tool call item as a :class:`ToolCall` (None for a ``tool_search_call`` the provider
    ran itself: it has no call id). ``function_call`` arguments are JSON text (kept as given
    when they are not an object); a ``custom_tool_call``'s free-form ``input`` is the argument
    ``input``; a ``local_shell_call``'s ``action`` is its arguments (tool ``local_shell``)."""
    if kind == "function_call":
        name = ids.name(line, f"{at}name", item.get("name"))
        call_id = _call_id(item, problems, line, at, "call_id")
        arguments = arguments_of(item.get("arguments"), problems, line, f"{at}arguments")
        return ToolCall(id=call_id, name=name, arguments=arguments)
    if kind == "custom_tool_call":
        name = ids.name(line, f"{at}name", item.get("name"))
        call_id = _call_id(item, problems, line, at, "call_id")
        given = text_of(item.get("input"), problems, line, f"{at}input")
        return ToolCall(id=call_id, name=name, arguments={"input": given})
    if kind == "local_shell_call":
        key = "call_id" if item.get("call_id") is not None else "id"
        call_id = _call_id(item, problems, line, at, key)
        action = object_of(item.get("action"), problems, line, f"{at}action")
        arguments = dict(json_value(dict(action), problems, line, f"{at}action"))
        return ToolCall(id=call_id, name="local_shell", arguments=arguments)
    if item.get("call_id") is None:
        return None
    call_id = _call_id(item, problems, line, at, "call_id")
    arguments = arguments_of(item.get("arguments"), problems, line, f"{at}arguments")
    return ToolCall(id=call_id, name="tool_search", arguments=arguments)


def _output(value: Any, problems: Problems, line: int, field: str) -> tuple[str, list[ContentPart]]:
    """A call's output: text; a list of content items (``input_text`` joined, images kept as
    parts); or an object carrying either as ``content`` (early rollouts)."""
    if isinstance(value, Mapping) and "content" in value:
        value, field = value["content"], f"{field}.content"
    if isinstance(value, str) or value is None:
        return text_of(value, problems, line, field), []
    if isinstance(value, list):
        return text_and_parts(blocks_of(value, problems, line, field), problems, line, field)
    problems.fail(line, field, f"expected text or a list of content items, got {short(value)}")


def result_of(
    kind: str, item: Mapping[str, Any], ids: CallIds, problems: Problems, line: int, at: str
) -> Message:
    """A result item as a tool message answering its ``call_id`` (named after the call it
    answers; an orphan is kept and listed). A ``tool_search_output``'s content is the compact
    JSON of the tools it found."""
    call_id = _call_id(item, problems, line, at, "call_id")
    if kind == "tool_search_output":
        tools = json_value(item.get("tools"), problems, line, f"{at}tools")
        text, parts = arguments_json(tools if tools is not None else []), list[ContentPart]()
    else:
        text, parts = _output(item.get("output"), problems, line, f"{at}output")
    name = ids.result_name(call_id, item.get("name"), line, f"{at}call_id", f"{at}name")
    return Message.tool(call_id, name, text, parts=parts)
