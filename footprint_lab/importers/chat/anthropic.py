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

**Server-side context management** (:func:`read_anthropic`, used by :func:`from_anthropic`;
the rules, and which parts are documented and which reported, are in
:mod:`._anthropic_context`): a ``compaction`` block in an assistant message (the
``compact_20260112`` edit) drops every earlier message from the window of later calls — it is
read as a ``user`` stand-in holding its summary, not as a part of its message, and the run
holds an observed record (policy :data:`POLICY`) naming every message that left; an assistant
message's ``context_management.applied_edits`` (``clear_tool_uses_20250919``,
``clear_thinking_20251015``) is an observed record at that call naming the tool results it
cleared (replaced in place by a placeholder) and the replies it sent without their thinking.
``meta['compactions']`` and ``meta['context_edits']`` carry what the responses reported
(summary size and ``usage.iterations``; the cleared counts and ``cleared_input_tokens``) and
what the import named. :func:`parse_anthropic` keeps every block on its message (a
``compaction`` block as a part) and rebuilds no window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
    json_value,
    message_list,
    short,
    text_and_parts,
    text_of,
    usage_by_keys,
)
from footprint_lab.importers.chat._anthropic_context import Reply, windows
from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.usage import Usage

SOURCE = "anthropic"
POLICY = "anthropic-context-management"
"""The name observed records give the API's server-side compaction and context editing."""

__all__ = [
    "POLICY",
    "SOURCE",
    "AnthropicRead",
    "TranscriptError",
    "from_anthropic",
    "parse_anthropic",
    "read_anthropic",
]


def _blocks(content: Any, problems: Problems, index: int) -> list[Mapping[str, Any]]:
    """A message's content as blocks (text is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return blocks_of(content, problems, index, "content")


def _result(
    block: Mapping[str, Any], problems: Problems, ids: CallIds, index: int, field: str
) -> Message:
    """The tool message of a ``tool_result`` block."""
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
    blocks: list[Mapping[str, Any]],
    problems: Problems,
    ids: CallIds,
    index: int,
    skip: int | None = None,
    first: int = 0,
) -> Message:
    """The assistant message of ``blocks[first:]``, without the block ``skip`` (a compaction
    block read as a stand-in)."""
    texts: list[str] = []
    parts: list[ContentPart] = []
    calls: list[ToolCall] = []
    positions: list[int] = []  # each call's block, so a duplicate id names its block
    for k, block in enumerate(blocks):
        field = f"content[{k}]"
        if k < first or k == skip:
            continue
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
    """The tool messages and the user message of a user message's blocks."""
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


def _compaction(
    blocks: list[Mapping[str, Any]], problems: Problems, index: int
) -> tuple[int, Message] | None:
    """The last compaction block that compacted (its index, its summary as a ``user``
    stand-in), or None. A block with ``null`` content is a failed compaction and one with
    empty content is refused by the API: both are kept as parts (see
    :mod:`._anthropic_context`).

    Raises:
        TranscriptError: a compaction block's ``content`` or ``encrypted_content`` is neither
            text nor ``null``.
    """
    found: tuple[int, Message] | None = None
    for k, block in enumerate(blocks):
        if block["type"] != "compaction":
            continue
        summary, opaque = block.get("content"), block.get("encrypted_content")
        for key, value in (("content", summary), ("encrypted_content", opaque)):
            if value is not None and not isinstance(value, str):
                problems.fail(
                    index, f"content[{k}].{key}", f"expected text or null, got {short(value)}"
                )
        if summary == "":
            problems.note(
                index,
                f"content[{k}].content",
                "empty compaction summary; kept, not read as a compaction",
            )
        if not summary:
            continue
        parts = (
            [ContentPart(kind="compaction", data_chars=len(opaque), original=dict(block))]
            if opaque
            else []
        )
        json_value(dict(block), problems, index, f"content[{k}]")
        found = (k, Message.user(summary, parts=parts))
    return found


def _parse(
    messages: Sequence[Mapping[str, Any]], *, strict: bool, context: bool
) -> tuple[list[Message], list[Usage | None], Problems, list[Reply]]:
    """Messages, per-reply usage, problems and (when ``context``) what each reply said about
    its call's context (compaction blocks become stand-ins, not parts)."""
    problems = Problems(SOURCE, strict=strict)
    message_list(messages, problems)
    out: list[Message] = []
    usages: list[Usage | None] = []
    replies: list[Reply] = []
    ids = CallIds(problems)
    for index, raw in enumerate(messages):
        if not isinstance(raw, Mapping):
            problems.fail(index, "message", f"expected an object, got {type(raw).__name__}")
        role = raw.get("role")
        if role not in ("assistant", "user"):
            problems.fail(index, "role", f"unknown role {role!r}")
        blocks = _blocks(raw.get("content"), problems, index)
        if role != "assistant":
            out.extend(_user(blocks, problems, ids, index))
            continue
        found = _compaction(blocks, problems, index) if context else None
        reply = Reply(index, len(out))
        out.append(_assistant(blocks, problems, ids, index, skip=found[0] if found else None))
        if found is not None:
            reply.block, reply.summary = found
            if reply.block > 0:  # later calls received only what came after the block
                spare = Problems(SOURCE)
                reply.head = _assistant(blocks, spare, CallIds(spare), index, first=reply.block + 1)
        usage = raw.get("usage")
        usages.append(usage_by_keys(usage, _USAGE_KEYS, problems, index, "usage"))
        if context:
            if isinstance(usage, Mapping) and usage.get("iterations") is not None:
                reply.iterations = json_value(
                    usage["iterations"], problems, index, "usage.iterations"
                )
            managed = raw.get("context_management")
            if managed is not None and not isinstance(managed, Mapping):
                problems.fail(
                    index, "context_management", f"expected an object, got {short(managed)}"
                )
            reply.context = managed
            replies.append(reply)
    return out, usages, problems, replies


def parse_anthropic(
    messages: Sequence[Mapping[str, Any]], *, strict: bool = False
) -> tuple[list[Message], list[Usage | None], Problems]:
    """Messages, per-reply usage and the problems of an Anthropic Messages list, every block
    kept on its message (a ``compaction`` block too: read it with :func:`read_anthropic`).

    Raises:
        TranscriptError: the list is malformed (or, when ``strict``, has a problem).
    """
    out, usages, problems, _ = _parse(messages, strict=strict, context=False)
    return out, usages, problems


@dataclass(frozen=True)
class AnthropicRead:
    """An Anthropic Messages list read with the API's server-side context management."""

    messages: list[Message]
    """The history (a compaction block is not on its message: it is a window stand-in)."""
    usages: list[Usage | None]
    """Each reply's usage."""
    problems: Problems
    """What was found wrong."""
    sent: list[list[Message] | None] | None
    """Each call's window where the API compacted or edited it (``build_run(sent=...)``)."""
    facts: dict[str, Any]
    """``compactions`` and ``context_edits``, for ``meta`` (only those there are)."""


def read_anthropic(messages: Sequence[Mapping[str, Any]], *, strict: bool = False) -> AnthropicRead:
    """An Anthropic Messages list with the windows its server-side context management sent:
    ``compaction`` blocks and ``context_management.applied_edits`` (see
    :mod:`._anthropic_context`). A loader that carries Anthropic messages passes ``sent`` and
    ``facts`` on to :func:`~footprint_lab.importers._build.build_run`.

    Raises:
        TranscriptError: the list is malformed (or, when ``strict``, has a problem).
    """
    out, usages, problems, replies = _parse(messages, strict=strict, context=True)
    sent, facts = windows(out, replies, problems)
    return AnthropicRead(out, usages, problems, sent, facts)


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
    read = read_anthropic(messages, strict=strict)
    if blocks is not None:
        meta = {**meta, "system_blocks": blocks}
    meta = {**meta, **read.facts}
    sent = None if read.sent is None else [w if w is None else [*leading, *w] for w in read.sent]
    return build_run(
        [*leading, *read.messages],
        read.usages,
        system=prompt,
        source=SOURCE,
        meta=meta,
        problems=[*problems.found, *read.problems.found],
        sent=sent,
        policy=POLICY,
    )
