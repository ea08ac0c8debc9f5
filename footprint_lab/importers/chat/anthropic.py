"""Import an Anthropic Messages list (content blocks, tool_use / tool_result).

Layer: importers. A user message carrying tool_result blocks becomes one ``tool`` message per
block (named after the tool_use it answers), followed by a user message for its other blocks.
Nothing is dropped: images, documents, thinking and redacted thinking, and block types we do
not know are kept as :class:`~footprint_lab.messages.ContentPart` s on their message (on the
tool message, for blocks inside a ``tool_result``), so they count in sizes.

``system=`` may be a string or Anthropic's list of blocks. The text blocks, joined, are the
run's system prompt; the list itself is kept in ``run.meta['system_blocks']`` (cache_control
and all); a block that is not text (the API accepts none) is kept as a part on a leading
``system`` message and listed as a problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    TranscriptError,
    arguments_of,
    blocks_of,
    content_part,
    json_problem,
    message_list,
    text_and_parts,
    text_of,
    usage_by_keys,
)
from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.usage import Usage

SOURCE = "anthropic"

__all__ = ["SOURCE", "TranscriptError", "from_anthropic", "parse_anthropic"]


def _blocks(content: Any, problems: Problems, index: int) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return blocks_of(content, problems, index, "content")


def _result(
    block: Mapping[str, Any], problems: Problems, ids: CallIds, index: int, field: str
) -> Message:
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str):
        problems.fail(index, f"{field}.tool_use_id", "missing")
    content = block.get("content")
    parts: list[ContentPart] = []
    if content is None:
        text = ""
    elif isinstance(content, str):
        text = content
    elif isinstance(content, list):
        inner = blocks_of(content, problems, index, f"{field}.content")
        text, parts = text_and_parts(inner, problems, index, f"{field}.content")
    else:
        problems.fail(index, f"{field}.content", "expected text or blocks")
    is_error = block.get("is_error")
    if is_error is not None and not isinstance(is_error, bool):
        problems.fail(index, f"{field}.is_error", "expected true or false")
    if is_error:
        text = f"error: {text}"
    name = ids.answered(call_id, index, f"{field}.tool_use_id")
    return Message.tool(call_id, name or "unknown", text, parts=parts)


_USAGE_KEYS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_tokens": "cache_read_input_tokens",
    "cache_write_tokens": "cache_creation_input_tokens",
}
"""``Usage`` field -> its key in a reply's ``usage``."""


def _assistant(
    blocks: list[Mapping[str, Any]], problems: Problems, ids: CallIds, index: int
) -> Message:
    texts: list[str] = []
    parts: list[ContentPart] = []
    calls: list[ToolCall] = []
    positions: list[int] = []  # each call's block, so a duplicate id names its block
    for k, block in enumerate(blocks):
        field = f"content[{k}]"
        if block["type"] == "text":
            texts.append(text_of(block.get("text"), problems, index, f"{field}.text"))
        elif block["type"] == "tool_use":
            call_id = block.get("id")
            if not isinstance(call_id, str):
                problems.fail(index, f"{field}.id", "tool_use needs an id")
            name = ids.name(index, f"{field}.name", block.get("name"))
            arguments = arguments_of(
                block.get("input"),
                problems,
                index,
                f"{field}.input",
                missing="input" not in block,
                object_only=True,
            )
            calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
            positions.append(k)
        else:
            parts.append(content_part(block, problems, index, field))
    ids.asked(calls, index, "content", positions)
    return Message.assistant("".join(texts), tool_calls=calls, parts=parts)


def _user(
    blocks: list[Mapping[str, Any]], problems: Problems, ids: CallIds, index: int
) -> list[Message]:
    out: list[Message] = []
    texts: list[str] = []
    parts: list[ContentPart] = []
    others = 0
    for k, block in enumerate(blocks):
        field = f"content[{k}]"
        if block["type"] == "tool_result":
            out.append(_result(block, problems, ids, index, field))
            continue
        others += 1
        if block["type"] == "text":
            texts.append(text_of(block.get("text"), problems, index, f"{field}.text"))
        else:
            parts.append(content_part(block, problems, index, field))
    if others or not out:
        out.append(Message.user("".join(texts), parts=parts))
    return out


def parse_system(
    system: Any, problems: Problems
) -> tuple[str | None, list[Message], list[Any] | None]:
    """The system prompt of ``system=`` (text or a list of blocks), a leading system message
    for blocks that are not text (empty when all are), and the block list as given.

    Raises:
        TranscriptError: ``system`` is neither text nor a list of typed blocks.
    """
    if system is None or isinstance(system, str):
        return system, [], None
    if not isinstance(system, list):
        problems.fail(None, "system", "expected text or a list of blocks")
    blocks = blocks_of(system, problems, None, "system")
    why = json_problem(system)
    if why is not None:
        problems.fail(None, "system", f"blocks hold {why}")
    texts: list[str] = []
    parts: list[ContentPart] = []
    for k, block in enumerate(blocks):
        if block["type"] == "text":
            texts.append(text_of(block.get("text"), problems, None, f"system[{k}].text"))
        else:
            problems.note(None, f"system[{k}]", "a system block that is not text; kept as a part")
            parts.append(content_part(block, problems, None, f"system[{k}]"))
    leading = [Message.system("", parts=parts)] if parts else []
    return "".join(texts), leading, list(system)


def parse_anthropic(
    messages: Sequence[Mapping[str, Any]], *, strict: bool = False
) -> tuple[list[Message], list[Usage | None], Problems]:
    """Messages, per-reply usage and the problems of an Anthropic Messages list.

    Raises:
        TranscriptError: the list is malformed (or, when ``strict``, has a problem).
    """
    problems = Problems(SOURCE, strict=strict)
    message_list(messages, problems)
    out: list[Message] = []
    usages: list[Usage | None] = []
    ids = CallIds(problems)
    for index, raw in enumerate(messages):
        if not isinstance(raw, Mapping):
            problems.fail(index, "message", f"expected an object, got {type(raw).__name__}")
        role = raw.get("role")
        if role not in ("assistant", "user"):
            problems.fail(index, "role", f"unknown role {role!r}")
        blocks = _blocks(raw.get("content"), problems, index)
        if role == "assistant":
            out.append(_assistant(blocks, problems, ids, index))
            usages.append(usage_by_keys(raw.get("usage"), _USAGE_KEYS, problems, index, "usage"))
        else:
            out.extend(_user(blocks, problems, ids, index))
    return out, usages, problems


def from_anthropic(
    messages: Sequence[Mapping[str, Any]],
    system: str | Sequence[Mapping[str, Any]] | None = None,
    *,
    strict: bool = False,
    **meta: Any,
) -> Run:
    """Import an Anthropic Messages list (``usage`` on assistant messages is read when
    present) as a run that ``replay`` and ``capture`` accept.

    Args:
        messages: The message list.
        system: The system prompt: text, or Anthropic's list of system blocks.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.
        **meta: Extra facts for ``run.meta`` (JSON values).

    Raises:
        TranscriptError: naming the message index and field that is malformed (or, when
            ``strict``, that has a problem).
    """
    problems = Problems(SOURCE, strict=strict)
    prompt, leading, blocks = parse_system(system, problems)
    parsed, usages, found = parse_anthropic(messages, strict=strict)
    if blocks is not None:
        meta = {**meta, "system_blocks": blocks}
    return build_run(
        [*leading, *parsed],
        usages,
        system=prompt,
        source=SOURCE,
        meta=meta,
        problems=[*problems.found, *found.found],
    )
