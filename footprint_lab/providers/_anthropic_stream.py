"""Assembles one streamed Anthropic Messages API reply: text, tool calls, thinking, compaction,
usage and the server's window edits.

Layer: providers (private to :mod:`footprint_lab.providers.anthropic`). Events are read by
attribute, so the SDK's typed events (GA and beta alike) and plain namespaces both work. Blocks
that must go back to the API untouched (``thinking``, ``redacted_thinking``, ``compaction``)
are kept as plain dicts exactly as the stream delivered them: the block from
``content_block_start`` with its deltas applied the way the SDK's own accumulator applies them
(``thinking_delta`` appended, ``signature_delta`` replacing, ``compaction_delta`` replacing
the fields it carries).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.providers._common import parse_arguments
from footprint_lab.usage import Usage
from footprint_lab.window.records import ServerEdit

COMPACTION_EDIT = "compact_20260112"
"""The edit type a compaction is reported under in ``ProviderResponse.server_edits``."""

KEPT_BLOCKS = frozenset({"thinking", "redacted_thinking", "compaction"})
"""Block types carried whole in ``Message.parts`` and sent back verbatim."""

_PART_KINDS = {
    "thinking": "thinking",
    "redacted_thinking": "redacted-thinking",
    "compaction": "compaction",
}


def as_plain(value: Any) -> Any:
    """``value`` as plain JSON-like data: an SDK model as the fields the API sent
    (``to_dict()``, unset fields left out), a namespace as its attributes, mappings and
    lists recursively."""
    if isinstance(value, dict):
        return {str(k): as_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_plain(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return as_plain(to_dict(mode="json"))
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: as_plain(v) for k, v in vars(value).items() if not k.startswith("_")}
    return value


def _block_dict(block: Any) -> dict[str, Any]:
    """A content block as a dict with ``type`` first (as the API writes it)."""
    plain = as_plain(block)
    plain = plain if isinstance(plain, dict) else {}
    return {"type": plain.get("type", getattr(block, "type", "")), **plain}


@dataclass
class _Block:
    type: str
    text: list[str] = field(default_factory=list)
    id: str = ""
    name: str = ""
    start_input: dict[str, Any] | None = None
    partial_json: list[str] = field(default_factory=list)
    original: dict[str, Any] | None = None
    """For a kept block (thinking, redacted thinking, compaction): the start block."""
    signature: str | None = None
    """A thinking block's ``signature_delta`` (the last one wins, as in the SDK)."""

    def kept(self) -> dict[str, Any]:
        """A kept block as received: the start block with its deltas applied."""
        block = dict(self.original or {"type": self.type})
        if self.type == "thinking":
            block["thinking"] = str(block.get("thinking") or "") + "".join(self.text)
            if self.signature is not None:
                block["signature"] = self.signature
        return block


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _count(value: Any) -> int | None:
    """A reported count, or None when absent or not a whole number >= 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _part(block: dict[str, Any]) -> ContentPart:
    kind = _PART_KINDS[block["type"]]
    if block["type"] == "thinking":
        return ContentPart(kind=kind, text=str(block.get("thinking") or ""), original=block)
    if block["type"] == "compaction":
        content = block.get("content")
        opaque = block.get("encrypted_content")
        return ContentPart(
            kind=kind,
            text=content if isinstance(content, str) else None,
            data_chars=len(opaque) if content is None and isinstance(opaque, str) else 0,
            original=block,
        )
    data = block.get("data")
    return ContentPart(
        kind=kind, text=None, data_chars=len(data) if isinstance(data, str) else 0, original=block
    )


@dataclass
class _MessageStream:
    """Assembles one streamed Messages API reply."""

    blocks: dict[int, _Block] = field(default_factory=dict)
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    stop_reason: str | None = None
    stopped: bool = False
    applied_edits: list[dict[str, Any]] = field(default_factory=list)
    """``context_management.applied_edits`` of the last ``message_delta`` that had them."""
    iterations: list[dict[str, Any]] = field(default_factory=list)
    """``usage.iterations`` of the last event that reported them."""

    def _usage(self, usage: Any) -> None:
        if usage is None:
            return
        for attr, key in (
            ("input_tokens", "input_tokens"),
            ("output_tokens", "output_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
        ):
            value = _int(getattr(usage, key, None))
            if value is not None:  # message_delta's counts are cumulative: latest wins
                setattr(self, attr, value)
        iterations = getattr(usage, "iterations", None)
        if isinstance(iterations, list):
            self.iterations = [i for i in as_plain(iterations) if isinstance(i, dict)]

    def feed(self, event: Any) -> None:
        """Take one stream event."""
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._usage(getattr(getattr(event, "message", None), "usage", None))
        elif kind == "message_delta":
            self._usage(getattr(event, "usage", None))
            reason = getattr(getattr(event, "delta", None), "stop_reason", None)
            if reason:
                self.stop_reason = str(reason)
            edits = getattr(getattr(event, "context_management", None), "applied_edits", None)
            if isinstance(edits, list):
                self.applied_edits = [e for e in as_plain(edits) if isinstance(e, dict)]
        elif kind == "message_stop":
            self.stopped = True
        elif kind == "content_block_start":
            self._start(event)
        elif kind == "content_block_delta":
            self._delta(event)

    def _start(self, event: Any) -> None:
        block = getattr(event, "content_block", None)
        btype = getattr(block, "type", "")
        entry = _Block(type=btype)
        if btype == "text":
            text = getattr(block, "text", "") or ""
            entry.text.append(text)
        elif btype == "tool_use":
            entry.id = getattr(block, "id", "") or ""
            entry.name = getattr(block, "name", "") or ""
            start = getattr(block, "input", None)
            entry.start_input = start if isinstance(start, dict) else None
        elif btype in KEPT_BLOCKS:
            entry.original = _block_dict(block)
        self.blocks[int(getattr(event, "index", len(self.blocks)))] = entry

    def _delta(self, event: Any) -> None:
        index = int(getattr(event, "index", 0))
        delta = getattr(event, "delta", None)
        dtype = getattr(delta, "type", "")
        block = self.blocks.setdefault(
            index, _Block(type="tool_use" if dtype == "input_json_delta" else "text")
        )
        if dtype == "text_delta":
            block.text.append(getattr(delta, "text", "") or "")
        elif dtype == "input_json_delta":
            block.partial_json.append(getattr(delta, "partial_json", "") or "")
        elif dtype == "thinking_delta":
            block.text.append(getattr(delta, "thinking", "") or "")
        elif dtype == "signature_delta":
            block.signature = str(getattr(delta, "signature", "") or "")
        elif dtype == "compaction_delta" and block.type == "compaction":
            # As the SDK does: a compaction_delta carries the block's fields whole.
            fields = as_plain(delta)
            original = block.original if block.original is not None else {"type": "compaction"}
            for key, value in (fields if isinstance(fields, dict) else {}).items():
                if key != "type":
                    original[key] = value
            block.original = original

    def message(self) -> Message:
        """The reply: its text, its tool calls, and its kept blocks as parts (compaction
        first, then thinking and redacted thinking in stream order)."""
        texts: list[str] = []
        calls: list[ToolCall] = []
        compactions: list[ContentPart] = []
        thoughts: list[ContentPart] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if block.type == "text":
                text = "".join(block.text)
                if text:
                    texts.append(text)
            elif block.type == "tool_use":
                raw = "".join(block.partial_json)
                arguments = parse_arguments(raw) if raw.strip() else dict(block.start_input or {})
                calls.append(ToolCall(id=block.id, name=block.name, arguments=arguments))
            elif block.type in KEPT_BLOCKS:
                part = _part(block.kept())
                (compactions if block.type == "compaction" else thoughts).append(part)
        parts = compactions + thoughts
        return Message.assistant("\n\n".join(texts), tool_calls=calls, parts=parts)

    def server_edits(self) -> list[ServerEdit]:
        """The applied edits as reported, then one compaction edit per compaction iteration
        (or one with no counts when a compaction block came without an iteration)."""
        edits = [
            ServerEdit(
                type=str(edit.get("type", "")),
                cleared_tool_uses=_count(edit.get("cleared_tool_uses")),
                cleared_thinking_turns=_count(edit.get("cleared_thinking_turns")),
                cleared_input_tokens=_count(edit.get("cleared_input_tokens")),
            )
            for edit in self.applied_edits
        ]
        compacting = [i for i in self.iterations if i.get("type") == "compaction"]
        edits.extend(
            ServerEdit(
                type=COMPACTION_EDIT,
                input_tokens=_count(i.get("input_tokens")),
                output_tokens=_count(i.get("output_tokens")),
            )
            for i in compacting
        )
        if not compacting and any(b.type == "compaction" for b in self.blocks.values()):
            edits.append(ServerEdit(type=COMPACTION_EDIT))
        return edits

    def usage(self) -> Usage:
        """The top-level usage (a compaction iteration is not in it, as Anthropic reports)."""
        uncached = self.input_tokens or 0
        cache_read = self.cache_read
        cache_write = self.cache_write
        return Usage(
            input_tokens=uncached + (cache_read or 0) + (cache_write or 0),
            output_tokens=self.output_tokens or 0,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
        )
