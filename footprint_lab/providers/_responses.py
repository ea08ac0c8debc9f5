"""The OpenAI Responses API wire for ``OpenAIProvider(api="responses")``: request building,
``context_management`` checking, and the accumulator of one streamed response.

Layer: providers (private to :mod:`footprint_lab.providers.openai`, which owns the client, the
error translation and the reply checks). The Responses API is the only OpenAI API with
server-side compaction (``context_management=[{"type": "compaction", "compact_threshold":
N}]``): when the rendered input crosses ``N`` tokens the server compacts it and the stream
carries an opaque ``compaction`` output item before the reply. Requests are stateless
(``store=False``, the whole window sent as the ``input`` array, reasoning kept as
``encrypted_content``), so a compaction or reasoning item a reply carried rides in that
message's :attr:`~footprint_lab.messages.Message.parts` and is sent back verbatim, before the
message's own text and calls, on every later request. Items before the latest compaction item
are still sent when the window still holds them: the API ignores them (its docs call dropping
them a latency tip, not a rule), and what the window holds is the window strategy's business.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.providers._common import parse_arguments
from footprint_lab.providers.base import ProviderRequest, ToolSpec
from footprint_lab.usage import Usage
from footprint_lab.window.records import ServerEdit

RESENT_ITEM_TYPES = ("compaction", "reasoning")
"""Responses output item types a reply keeps as parts and sends back verbatim (compaction
first)."""

INCLUDE = ["reasoning.encrypted_content"]
"""``include`` of every Responses request: with ``store=False`` the server keeps no reasoning,
so its encrypted content must come back to be sent again."""

TERMINAL_EVENTS = frozenset({"response.completed", "response.incomplete"})
"""Events that end a response normally (``incomplete``: stopped early, e.g. by the output
cap)."""

FAILURE_EVENTS = frozenset({"response.failed", "error"})
"""Events that report the response failed."""


def check_context_management(value: object) -> list[dict[str, Any]]:
    """``context_management`` as sent: a non-empty list of ``{"type": "compaction",
    "compact_threshold": N}`` entries, ``N`` an integer >= 1 (copied, so later changes to the
    caller's list do not reach the requests).

    Raises:
        ValueError: anything else, naming the expected shape.
    """
    example = '[{"type": "compaction", "compact_threshold": 200_000}]'
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ValueError(f"context_management must be a list of entries such as {example}")
    entries = [dict(entry) if isinstance(entry, Mapping) else entry for entry in value]
    if not entries:
        raise ValueError(f"context_management is empty: pass None, or entries such as {example}")
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValueError(f"context_management[{i}] must be an object such as {example}")
        if entry.get("type") != "compaction":
            raise ValueError(
                f"context_management[{i}].type must be 'compaction' (the only kind the "
                f"Responses API has), got {entry.get('type')!r}; use {example}"
            )
        unknown = sorted(str(key) for key in entry if key not in ("type", "compact_threshold"))
        if unknown:
            raise ValueError(
                f"context_management[{i}] has unknown field(s) {', '.join(unknown)}; a "
                f"compaction entry has only 'type' and 'compact_threshold': {example}"
            )
        threshold = entry.get("compact_threshold")
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
            raise ValueError(
                f"context_management[{i}].compact_threshold must be an integer >= 1 (the "
                f"input tokens at which the server compacts), got {threshold!r}; use {example}"
            )
    return entries


def choose_api(
    context_management: Sequence[Mapping[str, Any]] | None,
    api: Literal["chat", "responses"] | None,
) -> tuple[list[dict[str, Any]] | None, Literal["chat", "responses"]]:
    """The checked ``context_management`` and the API it and ``api`` select.

    Raises:
        ValueError: ``api`` is neither ``'chat'`` nor ``'responses'``; ``context_management``
            is malformed; or it is given with ``api="chat"``.
    """
    if api not in (None, "chat", "responses"):
        raise ValueError(f"api must be 'chat' or 'responses', got {api!r}")
    if context_management is None:
        return None, api or "chat"
    if api == "chat":
        raise ValueError(
            "context_management needs the Responses API: Chat Completions has no server-side "
            'compaction. Use api="responses" (or leave api unset).'
        )
    return check_context_management(context_management), "responses"


def resent_items(message: Message) -> list[dict[str, Any]]:
    """The Responses items ``message``'s parts carry (compaction first, then reasoning, each
    in its order), exactly as received. An Anthropic compaction or thinking block is not one:
    a Responses compaction item has ``encrypted_content``, a reasoning item is ``reasoning``."""
    found: dict[str, list[dict[str, Any]]] = {kind: [] for kind in RESENT_ITEM_TYPES}
    for part in message.parts:
        item = part.original
        kind = item.get("type")
        if kind == "compaction" and "encrypted_content" in item:
            found["compaction"].append(item)
        elif kind == "reasoning":
            found["reasoning"].append(item)
    return [dict(item) for kind in RESENT_ITEM_TYPES for item in found[kind]]


def to_responses_input(messages: list[Message]) -> list[dict[str, Any]]:
    """Our window as a Responses ``input`` array.

    System and user messages (library-authored ones included) are ``{"role", "content"}``
    messages; an assistant message is its resent compaction / reasoning items, then its text
    as an assistant message (when it has text), then a ``function_call`` per call (arguments
    as JSON text); a tool result is a ``function_call_output``. The Responses API has no
    participant ``name``, so :attr:`Message.name` is not sent.
    """
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            wire.extend(resent_items(message))
            if message.content:
                wire.append({"role": "assistant", "content": message.content})
            wire.extend(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                }
                for call in message.tool_calls
            )
        elif message.role == "tool":
            wire.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id or "",
                    "output": message.content,
                }
            )
        else:
            wire.append({"role": message.role, "content": message.content})
    return wire


def to_responses_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Our tool specs as Responses function tools (flat: no ``function`` wrapper)."""
    return [
        {
            "type": "function",
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        }
        for spec in tools
    ]


def build_responses_request(
    request: ProviderRequest,
    *,
    context_management: list[dict[str, Any]] | None,
    extra_body: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The keyword arguments of ``responses.create`` for ``request``: stateless (``store=False``,
    encrypted reasoning included), streamed, the system prompt as ``instructions``."""
    kwargs: dict[str, Any] = {
        "model": request.model,
        "input": to_responses_input(request.messages),
        "store": False,
        "include": list(INCLUDE),
        "stream": True,
    }
    if request.system:
        kwargs["instructions"] = request.system
    if request.tools:
        kwargs["tools"] = to_responses_tools(request.tools)
    if context_management:
        kwargs["context_management"] = [dict(entry) for entry in context_management]
    if request.max_output_tokens is not None:
        kwargs["max_output_tokens"] = request.max_output_tokens
    if extra_body:
        kwargs["extra_body"] = dict(extra_body)
    return kwargs


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """``obj.name`` or ``obj[name]``: events arrive as SDK models, nested values may be dicts."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def plain(item: Any) -> dict[str, Any]:
    """An SDK model as the JSON object the API sent (only the fields it set, API names)."""
    if isinstance(item, Mapping):
        return dict(item)
    to_dict = getattr(item, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict(mode="json"))
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dict(dump(mode="json", by_alias=True, exclude_unset=True))
    return {}


@dataclass
class _Item:
    """One output item as it streams in: its deltas, and the whole item once it is done."""

    type: str = ""
    text: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)
    added: dict[str, Any] = field(default_factory=dict)
    done: dict[str, Any] | None = None

    @property
    def item(self) -> dict[str, Any]:
        """The done item when it came (the added one's encrypted content may be partial)."""
        return self.done if self.done is not None else self.added


@dataclass
class ResponsesStream:
    """Assembles one streamed Responses API response.

    Output items are kept by ``output_index`` and read from their ``response.output_item.done``
    event (falling back on the ``added`` item plus the text and argument deltas when a server
    sends no ``done``). ``response.completed`` / ``response.incomplete`` end it and carry the
    usage; ``response.failed`` and ``error`` are kept as :attr:`failure` for the provider to
    raise.
    """

    items: dict[int, _Item] = field(default_factory=dict)
    usage: Any = None
    status: str | None = None
    incomplete_reason: str | None = None
    terminated: bool = False
    failure: dict[str, Any] | None = None

    def feed(self, event: Any) -> None:
        """Take one stream event (an SDK model or a dict)."""
        kind = _get(event, "type")
        index = _get(event, "output_index")
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = plain(_get(event, "item"))
            pending = self._item(index)
            pending.type = str(item.get("type") or pending.type)
            if kind.endswith(".added"):
                pending.added = item
            else:
                pending.done = item
        elif kind == "response.output_text.delta":
            self._item(index).text.append(str(_get(event, "delta") or ""))
        elif kind == "response.function_call_arguments.delta":
            self._item(index).arguments.append(str(_get(event, "delta") or ""))
        elif kind in TERMINAL_EVENTS:
            self._finish(_get(event, "response"))
        elif kind in FAILURE_EVENTS and self.failure is None:
            self.failure = self._failure_body(event)

    def _item(self, index: Any) -> _Item:
        key = index if isinstance(index, int) else max(self.items, default=-1)
        return self.items.setdefault(key, _Item())

    def _finish(self, response: Any) -> None:
        self.terminated = True
        self.usage = _get(response, "usage")
        status = _get(response, "status")
        self.status = None if status is None else str(status)
        reason = _get(_get(response, "incomplete_details"), "reason")
        self.incomplete_reason = None if reason is None else str(reason)

    @staticmethod
    def _failure_body(event: Any) -> dict[str, Any]:
        """The API's error as ``{message, type, code}`` (a failed response's ``error``, or the
        ``error`` event's own fields)."""
        error = _get(event, "error") or _get(_get(event, "response"), "error") or event
        fields = {name: _get(error, name) for name in ("message", "type", "code")}
        if fields["type"] == "error":  # the event's own type, not the error's kind
            fields["type"] = None
        return {k: v for k, v in fields.items() if v is not None}

    def message(self) -> tuple[Message, list[ServerEdit]]:
        """The reply (compaction part first, then reasoning parts, text, calls) and the
        server's edits.

        A compaction item becomes ``ServerEdit(type="compaction")`` with no token counts: the
        Responses API reports none for the compaction step itself (the response's ``usage``
        is the only usage it sends).
        """
        text: list[str] = []
        calls: list[ToolCall] = []
        compactions: list[ContentPart] = []
        reasoning: list[ContentPart] = []
        for _, pending in sorted(self.items.items()):
            item = pending.item
            if pending.type == "message":
                text.append(_message_text(item) if pending.done else "".join(pending.text))
            elif pending.type == "function_call":
                raw = item.get("arguments") if pending.done else "".join(pending.arguments)
                call_id = item.get("call_id") or item.get("id") or f"call_{len(calls) + 1}"
                calls.append(
                    ToolCall(
                        id=str(call_id),
                        name=str(item.get("name") or ""),
                        arguments=parse_arguments(raw if isinstance(raw, str) else None),
                    )
                )
            elif pending.type == "compaction":
                compactions.append(compaction_part(item))
            elif pending.type == "reasoning":
                reasoning.append(reasoning_part(item))
        edits = [ServerEdit(type="compaction") for _ in compactions]
        message = Message.assistant("".join(text), tool_calls=calls, parts=compactions + reasoning)
        return message, edits

    def finish_reason(self, has_calls: bool) -> str | None:
        """``'tool_calls'`` / ``'stop'`` for a completed response, the ``incomplete_details``
        reason (``'max_output_tokens'``, ...) for an incomplete one, None before the end."""
        if not self.terminated:
            return None
        if self.status == "incomplete":
            return self.incomplete_reason or "incomplete"
        return "tool_calls" if has_calls else "stop"

    @property
    def truncated(self) -> bool:
        """True when the output cap stopped the response."""
        return self.status == "incomplete" and self.incomplete_reason == "max_output_tokens"

    def reported_usage(self) -> Usage:
        """The response's usage: ``input_tokens`` (cached ones included), ``output_tokens``,
        and ``input_tokens_details.cached_tokens`` as the cache reads; zeros when none came."""
        usage = self.usage
        if usage is None:
            return Usage()
        cached = _get(_get(usage, "input_tokens_details"), "cached_tokens")
        return Usage(
            input_tokens=int(_get(usage, "input_tokens") or 0),
            output_tokens=int(_get(usage, "output_tokens") or 0),
            cache_read_tokens=None if cached is None else int(cached),
        )


def _message_text(item: Mapping[str, Any]) -> str:
    """The ``output_text`` of an output message item, joined."""
    content = item.get("content") or []
    return "".join(
        str(part.get("text") or "")
        for part in content
        if isinstance(part, Mapping) and part.get("type") == "output_text"
    )


def compaction_part(item: dict[str, Any]) -> ContentPart:
    """A compaction item as a message part: opaque, sized by its encrypted content."""
    encrypted = item.get("encrypted_content")
    size = len(encrypted) if isinstance(encrypted, str) else 0
    return ContentPart(kind="compaction", text=None, data_chars=size, original=item)


def reasoning_part(item: dict[str, Any]) -> ContentPart:
    """A reasoning item as a ``thinking`` part: its summary text (None when it has none), sized
    by its encrypted content otherwise."""
    summaries = [
        str(entry.get("text") or "")
        for entry in item.get("summary") or []
        if isinstance(entry, Mapping) and entry.get("text")
    ]
    encrypted = item.get("encrypted_content")
    return ContentPart(
        kind="thinking",
        text="\n\n".join(summaries) if summaries else None,
        data_chars=len(encrypted) if isinstance(encrypted, str) else 0,
        original=item,
    )
