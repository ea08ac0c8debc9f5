"""mini-swe-agent's messages read one by one: each becomes the OpenAI Chat Completions
message it stands for (what :func:`~footprint_lab.importers.chat.openai.parse_openai` reads),
with what that parser does not read beside it — the reply's usage, cost and model (from its
``extra``), thinking kept as parts, the text-mode actions mini-swe-agent parsed, and how the
environment or a person wrote a user message (see :mod:`footprint_lab.importers.mini_swe_agent`,
whose docstring states the rules).

Layer: importers (a private part of the mini-swe-agent loader).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    blocks_of,
    content_part,
    json_value,
    object_of,
    optional_str,
    short,
    text_and_parts,
    usage_from,
)
from footprint_lab.messages import ContentPart
from footprint_lab.usage import Usage

__all__ = ["CHAT_ROLES", "Exit", "Item", "exit_of", "item_of", "number_of", "usage_of"]

CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
"""The roles of a Chat Completions message (``function``: the legacy result)."""
_WIRE_KEYS = (
    "role",
    "content",
    "name",
    "tool_calls",
    "function_call",
    "tool_call_id",
    "refusal",
    "audio",
)
"""The keys of a message that :func:`parse_openai` reads."""


@dataclass
class Item:
    """One message of the file, as the Chat Completions message it stands for."""

    index: int
    """Its place in the file's ``messages``."""
    wire: dict[str, Any]
    """The Chat Completions message."""
    parts: list[ContentPart] = field(default_factory=list)
    """Typed parts :func:`parse_openai` does not read (thinking, reasoning items)."""
    usage: Usage | None = None
    """The usage the reply's provider reported."""
    cost: int | float | None = None
    """The cost mini-swe-agent recorded for the reply (``extra.cost``)."""
    model: str | None = None
    """The model the reply's response names."""
    actions: list[str] | None = None
    """The text-mode commands mini-swe-agent parsed from it (``extra.actions`` without a
    ``tool_call_id``); None where the file does not say."""
    interrupt: str | None = None
    """``extra.interrupt_type`` (``FormatError``, ``UserInterruption``, ``UserNewTask`` ...)."""
    submission: bool = False
    """The submission of an ``exit`` message, read as the result of the call that submitted."""
    renames: tuple[tuple[str, str], ...] = ()
    """(field prefix in ``wire``, the field prefix it came from in the file)."""

    def field(self, name: str) -> str:
        """The file's name for the field ``name`` of ``wire``."""
        for old, new in self.renames:
            if name == old or name.startswith(old):
                return new + name[len(old) :]
        return name


@dataclass(frozen=True)
class Exit:
    """The ``exit`` message that ends a 2.x trajectory (or its documented user-role form)."""

    index: int
    status: str | None
    """``extra.exit_status``."""
    content: str
    """Its text: the submission, the exception, or the status's name."""


def number_of(value: Any, problems: Problems, index: int | None, at: str) -> int | float | None:
    """A finite number as given (absent: None).

    Raises:
        TranscriptError: present and not a finite number.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.fail(index, at, f"expected a number, got {short(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        problems.fail(index, at, f"expected a finite number, got {value!r}")
    return value


def usage_of(raw: Any, problems: Problems, index: int, at: str) -> Usage | None:
    """A reported usage object: Chat Completions' (``prompt_tokens``, ``completion_tokens``,
    ``prompt_tokens_details.cached_tokens``), the Responses API's (``input_tokens``,
    ``output_tokens``, ``input_tokens_details.cached_tokens``) or LiteLLM's Anthropic counts
    (``cache_read_input_tokens``, ``cache_creation_input_tokens``)."""
    if not isinstance(raw, Mapping):
        return usage_from(raw, {}, problems, index, at)
    prompt = "prompt_tokens" if "prompt_tokens" in raw else "input_tokens"
    completion = "completion_tokens" if "completion_tokens" in raw else "output_tokens"
    details_key = (
        "prompt_tokens_details" if "prompt_tokens_details" in raw else "input_tokens_details"
    )
    details = object_of(raw.get(details_key), problems, index, f"{at}.{details_key}")
    cached: tuple[Any, str] = (details.get("cached_tokens"), f"{at}.{details_key}.cached_tokens")
    if cached[0] is None and "cache_read_input_tokens" in raw:
        cached = (raw.get("cache_read_input_tokens"), f"{at}.cache_read_input_tokens")
    counts = {
        "input_tokens": (raw.get(prompt), f"{at}.{prompt}"),
        "output_tokens": (raw.get(completion), f"{at}.{completion}"),
        "cache_read_tokens": cached,
        "cache_write_tokens": (
            raw.get("cache_creation_input_tokens"),
            f"{at}.cache_creation_input_tokens",
        ),
    }
    return usage_from(raw, counts, problems, index, at)


def _actions(extra: Mapping[str, Any], problems: Problems, index: int) -> list[str] | None:
    """The text-mode commands in ``extra.actions`` (None: the file does not list them, or
    they are native tool calls, named by ``tool_call_id``)."""
    actions = extra.get("actions")
    if actions is None:
        return None
    if not isinstance(actions, list):
        problems.fail(index, "extra.actions", f"expected a list of actions, got {short(actions)}")
    commands: list[str] = []
    native = False
    for k, action in enumerate(actions):
        at = f"extra.actions[{k}]"
        if not isinstance(action, Mapping):
            problems.fail(index, at, f"expected an action object, got {short(action)}")
        command = action.get("command")
        if not isinstance(command, str):
            problems.fail(index, f"{at}.command", f"expected text, got {short(command)}")
        native = native or action.get("tool_call_id") is not None
        commands.append(command)
    return None if native else commands


def _thinking(raw: Mapping[str, Any], problems: Problems, index: int) -> list[ContentPart]:
    """The thinking a 2.x assistant message carries beside its text (``thinking_blocks``,
    else ``reasoning_content``): mini-swe-agent sends the message back as it is, less
    ``extra``."""
    blocks = raw.get("thinking_blocks")
    if blocks is not None:
        return [
            content_part(block, problems, index, f"thinking_blocks[{k}]")
            for k, block in enumerate(blocks_of(blocks, problems, index, "thinking_blocks"))
        ]
    reasoning = optional_str(raw.get("reasoning_content"), problems, index, "reasoning_content")
    if not reasoning:
        return []
    return [ContentPart(kind="thinking", text=reasoning, original={"reasoning_content": reasoning})]


def _reasoning(item: Mapping[str, Any], problems: Problems, index: int, at: str) -> ContentPart:
    """A Responses API ``reasoning`` output item: its summary text as a thinking part, else
    the item kept whole."""
    json_value(item, problems, index, at)
    summary = item.get("summary")
    texts: list[str] = []
    if isinstance(summary, list):
        texts = [
            s["text"] for s in summary if isinstance(s, Mapping) and isinstance(s.get("text"), str)
        ]
    if texts:
        return ContentPart(kind="thinking", text="\n\n".join(texts), original=dict(item))
    return content_part(item, problems, index, at)


def _text(content: Any, problems: Problems, index: int, at: str) -> tuple[str, list[ContentPart]]:
    """Text content (``None``: empty), or a list of blocks (text blocks joined, others kept)."""
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    return text_and_parts(blocks_of(content, problems, index, at), problems, index, at)


def _response(raw: Mapping[str, Any], problems: Problems, index: int) -> Item:
    """A Responses API response (``object: "response"``) as the assistant message it is: the
    text of its ``message`` items, its ``function_call`` items as calls, its ``reasoning``
    and other items as parts, its ``usage``."""
    output = raw.get("output")
    if not isinstance(output, list):
        problems.fail(index, "output", f"expected a list of output items, got {short(output)}")
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    parts: list[ContentPart] = []
    renames: list[tuple[str, str]] = []
    for j, out in enumerate(output):
        at = f"output[{j}]"
        if not isinstance(out, Mapping) or not isinstance(out.get("type"), str):
            problems.fail(index, at, "expected an output item with a type")
        kind = out["type"]
        if kind == "message":
            text, more = _text(out.get("content"), problems, index, f"{at}.content")
            texts.append(text)
            parts.extend(more)
        elif kind == "function_call":
            call_id = out.get("call_id") or out.get("id")
            if not isinstance(call_id, str):
                problems.fail(index, f"{at}.call_id", "a function call needs a call_id")
            k = len(calls)
            function = {"name": out.get("name")}
            if "arguments" in out:
                function["arguments"] = out["arguments"]
            calls.append({"id": call_id, "type": "function", "function": function})
            renames += [(f"tool_calls[{k}].function.", f"{at}."), (f"tool_calls[{k}]", at)]
        elif kind == "reasoning":
            parts.append(_reasoning(out, problems, index, at))
        else:
            parts.append(content_part(out, problems, index, at))
    wire: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        wire["tool_calls"] = calls
    item = Item(index, wire, parts=parts, renames=tuple(renames))
    if raw.get("usage") is not None:
        item.usage = usage_of(raw["usage"], problems, index, "usage")
    item.model = optional_str(raw.get("model"), problems, index, "model")
    return item


def _chat(raw: Mapping[str, Any], extra: Mapping[str, Any], problems: Problems, index: int) -> Item:
    """A Chat Completions message (or a Responses API ``message`` item) as it is, with what
    its ``extra`` records: the raw response's usage and model (an assistant's), its thinking."""
    wire = {key: raw[key] for key in _WIRE_KEYS if key in raw}
    item = Item(index, wire)
    if raw["role"] == "assistant":
        item.parts = _thinking(raw, problems, index)
        response = extra.get("response")
        if isinstance(response, Mapping):
            if response.get("usage") is not None:
                at = "extra.response.usage"
                item.usage = usage_of(response["usage"], problems, index, at)
            item.model = optional_str(
                response.get("model"), problems, index, "extra.response.model"
            )
        elif response is not None and not isinstance(response, str):  # text: its repr
            problems.fail(index, "extra.response", f"expected an object, got {short(response)}")
    return item


def item_of(raw: Mapping[str, Any], problems: Problems, index: int) -> Item | None:
    """The message at ``index`` (None: neither a chat message nor a Responses API item this
    format writes; the caller lists it).

    Raises:
        TranscriptError: a field it reads is malformed.
    """
    extra = object_of(raw.get("extra"), problems, index, "extra")
    role = raw.get("role")
    if raw.get("object") == "response":
        item = _response(raw, problems, index)
    elif raw.get("type") == "function_call_output":
        call_id = raw.get("call_id")
        if not isinstance(call_id, str):
            problems.fail(
                index, "call_id", f"a function call output needs a call_id, got {short(call_id)}"
            )
        wire = {"role": "tool", "tool_call_id": call_id, "content": raw.get("output")}
        item = Item(index, wire, renames=(("tool_call_id", "call_id"), ("content", "output")))
    elif isinstance(role, str) and role in CHAT_ROLES:
        item = _chat(raw, extra, problems, index)
    else:
        return None
    item.actions = _actions(extra, problems, index)
    item.cost = number_of(extra.get("cost"), problems, index, "extra.cost")
    item.interrupt = optional_str(
        extra.get("interrupt_type"), problems, index, "extra.interrupt_type"
    )
    return item


def exit_of(raw: Mapping[str, Any], problems: Problems, index: int) -> Exit:
    """The ``exit`` message at ``index``: its status and text.

    Raises:
        TranscriptError: its ``extra``, status or content is malformed.
    """
    extra = object_of(raw.get("extra"), problems, index, "extra")
    status = optional_str(extra.get("exit_status"), problems, index, "extra.exit_status")
    text, _ = _text(raw.get("content"), problems, index, "content")
    return Exit(index, status, text)
