"""The fake Anthropic server's reading of Anthropic's server-side window policies: context
editing (``clear_tool_uses_20250919``, ``clear_thinking_20251015``), compaction
(``compact_20260112``) and the extended-thinking config, as pure functions over the request's
wire JSON.

Layer: tests (the fake API in :mod:`tests.providers.servers` enforces and applies these).
Written from Anthropic's documentation (build-with-claude/context-editing and
build-with-claude/compaction), independently of the provider's own checks, so the tests hold
the provider to the API and not to itself. Where the documentation is silent, the choice made
here is named in a comment. Token counts come from the counter the server hands in (its
ceil(chars / 4) rule), so every number reported is one the tests can recompute.
"""

from __future__ import annotations

import copy
import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"
"""The beta header value the clearing edits need."""

COMPACTION_BETA = "compact-2026-01-12"
"""The beta header value compaction needs."""

CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
EDIT_TYPES = (CLEAR_TOOL_USES, CLEAR_THINKING, COMPACT)
"""The edit types the fake knows."""

BETA_OF = {
    CLEAR_TOOL_USES: CONTEXT_MANAGEMENT_BETA,
    CLEAR_THINKING: CONTEXT_MANAGEMENT_BETA,
    COMPACT: COMPACTION_BETA,
}
"""The beta header each edit type needs."""

DEFAULT_TOOL_TRIGGER = 100_000
"""clear_tool_uses' default trigger, in input tokens."""

DEFAULT_KEEP_TOOL_USES = 3
"""clear_tool_uses' default ``keep``: the most recent tool uses that stay."""

DEFAULT_COMPACTION_TRIGGER = 150_000
"""Compaction's default trigger, in input tokens."""

MIN_COMPACTION_TRIGGER = 50_000
"""The least compaction trigger Anthropic accepts."""

MIN_THINKING_BUDGET = 1024
"""The least ``budget_tokens`` Anthropic accepts."""

CLEARED_RESULT_PLACEHOLDER = "[Tool result cleared to save context]"
"""What a cleared ``tool_result`` holds. Anthropic says only that a placeholder text replaces
it; this wording is ours."""

THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
"""Block types that are the model's thinking."""

SIGNATURE_PREFIX = "fakesig_"
"""Signatures this fake mints start so; only those are checked against their text."""

_EDIT_FIELDS = {
    CLEAR_TOOL_USES: {
        "type",
        "trigger",
        "keep",
        "clear_at_least",
        "exclude_tools",
        "clear_tool_inputs",
    },
    CLEAR_THINKING: {"type", "keep"},
    COMPACT: {"type", "trigger", "pause_after_compaction", "instructions"},
}

Counter = Callable[[dict[str, Any]], int]
"""Counts a request body's input tokens."""


def text_tokens(text: str) -> int:
    """ceil(chars / 4), at least 1: the fake's rule for a piece of text."""
    return max(1, math.ceil(len(text) / 4))


def sign_thinking(text: str) -> str:
    """The signature this fake gives a thinking block: a digest of its text, so a block sent
    back changed in any byte is caught."""
    return SIGNATURE_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- checking ----------------------------------------------------------------------------


def thinking_enabled(body: dict[str, Any]) -> bool:
    """Whether the request turned extended thinking on."""
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") == "enabled"


def thinking_error(body: dict[str, Any]) -> str | None:
    """What is wrong with the request's ``thinking`` (None when absent or right)."""
    thinking = body.get("thinking")
    if thinking is None:
        return None
    if not isinstance(thinking, dict):
        return "thinking: Input should be a valid dictionary"
    kind = thinking.get("type")
    if kind not in ("enabled", "disabled"):
        return (
            f"thinking: Input tag {kind!r} found using 'type' does not match any of the "
            "expected tags: 'enabled', 'disabled'"
        )
    allowed = {"type", "budget_tokens"} if kind == "enabled" else {"type"}
    for key in sorted(set(thinking) - allowed):
        return f"thinking.{kind}.{key}: Extra inputs are not permitted"
    if kind == "disabled":
        return None
    budget = thinking.get("budget_tokens")
    if not _whole(budget):
        return f"thinking.enabled.budget_tokens: Field required (an integer), got {budget!r}"
    if budget < MIN_THINKING_BUDGET:
        return (
            "thinking.enabled.budget_tokens: Input should be greater than or equal to "
            f"{MIN_THINKING_BUDGET}"
        )
    if budget >= body.get("max_tokens", 0):
        return "`max_tokens` must be greater than `thinking.budget_tokens`"
    return None


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _counter_error(value: Any, where: str, types: tuple[str, ...], minimum: int) -> str | None:
    """What is wrong with a ``{"type": ..., "value": N}`` field (None when right)."""
    if not isinstance(value, dict):
        return f"{where}: Input should be a valid dictionary"
    if value.get("type") not in types:
        expected = ", ".join(repr(t) for t in types)
        return (
            f"{where}: Input tag {value.get('type')!r} found using 'type' does not match any "
            f"of the expected tags: {expected}"
        )
    for key in sorted(set(value) - {"type", "value"}):
        return f"{where}.{key}: Extra inputs are not permitted"
    number = value.get("value")
    if not _whole(number):
        return f"{where}.value: Input should be a valid integer"
    if number < minimum:
        return f"{where}.value: Input should be greater than or equal to {minimum}"
    return None


def _names_error(value: Any, where: str) -> str | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return None
    return f"{where}: Input should be a valid list of strings"


def _tool_uses_edit_error(edit: dict[str, Any], where: str) -> str | None:
    checks = [
        ("trigger", ("input_tokens", "tool_uses"), 1),
        ("keep", ("tool_uses",), 0),
        ("clear_at_least", ("input_tokens",), 0),
    ]
    for key, types, minimum in checks:
        if edit.get(key) is not None:
            problem = _counter_error(edit[key], f"{where}.{key}", types, minimum)
            if problem:
                return problem
    if edit.get("exclude_tools") is not None:
        problem = _names_error(edit["exclude_tools"], f"{where}.exclude_tools")
        if problem:
            return problem
    inputs = edit.get("clear_tool_inputs")
    if inputs is not None and not isinstance(inputs, bool):
        return _names_error(inputs, f"{where}.clear_tool_inputs")
    return None


def _edit_error(edit: Any, where: str) -> str | None:
    """What is wrong with one edit's shape (None when right)."""
    if not isinstance(edit, dict):
        return f"{where}: Input should be a valid dictionary"
    kind = edit.get("type")
    if kind not in EDIT_TYPES:
        expected = ", ".join(repr(t) for t in EDIT_TYPES)
        return (
            f"{where}: Input tag {kind!r} found using 'type' does not match any of the "
            f"expected tags: {expected}"
        )
    for key in sorted(set(edit) - _EDIT_FIELDS[kind]):
        return f"{where}.{kind}.{key}: Extra inputs are not permitted"
    if kind == CLEAR_TOOL_USES:
        return _tool_uses_edit_error(edit, where)
    if kind == CLEAR_THINKING:
        keep = edit.get("keep")
        if keep is None or keep == "all" or keep == {"type": "all"}:
            return None
        return _counter_error(keep, f"{where}.keep", ("thinking_turns",), 1)
    if edit.get("trigger") is not None:
        problem = _counter_error(
            edit["trigger"], f"{where}.trigger", ("input_tokens",), MIN_COMPACTION_TRIGGER
        )
        if problem:
            return problem
    if not isinstance(edit.get("pause_after_compaction", False), bool):
        return f"{where}.pause_after_compaction: Input should be a valid boolean"
    instructions = edit.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        return f"{where}.instructions: Input should be a valid string"
    return None


def context_management_error(body: dict[str, Any], betas: set[str]) -> str | None:
    """What is wrong with the request's ``context_management`` (None when absent or right):
    its shape, each edit's, the order (clear_thinking first), clear_thinking without thinking,
    a repeated edit type (our reading: the docs show each type once) and a missing beta."""
    config = body.get("context_management")
    if config is None:
        return None
    if not isinstance(config, dict):
        return "context_management: Input should be a valid dictionary"
    for key in sorted(set(config) - {"edits"}):
        return f"context_management.{key}: Extra inputs are not permitted"
    edits = config.get("edits", [])
    if not isinstance(edits, list):
        return "context_management.edits: Input should be a valid list"
    seen: set[str] = set()
    for i, edit in enumerate(edits):
        where = f"context_management.edits.{i}"
        problem = _edit_error(edit, where)
        if problem:
            return problem
        kind = edit["type"]
        if kind in seen:
            return f"{where}: duplicate context management strategy type {kind!r}"
        seen.add(kind)
        if kind == CLEAR_THINKING and i != 0:
            return (
                f"{where}: clear_thinking_20251015 strategy must be listed first in "
                "context_management.edits"
            )
        if kind == CLEAR_THINKING and not thinking_enabled(body):
            return f"{where}: clear_thinking_20251015 strategy requires thinking to be enabled"
        if BETA_OF[kind] not in betas:
            return (
                f"{where}: the {kind} strategy requires the beta header "
                f"'anthropic-beta: {BETA_OF[kind]}'"
            )
    return None


def kept_block_error(block: dict[str, Any], role: str, where: str) -> str | None:
    """What is wrong with a ``thinking``, ``redacted_thinking`` or ``compaction`` block sent
    in ``messages`` (None when right): only assistant turns hold them; a thinking block needs
    its text and signature (and one this fake minted must match its text byte for byte); a
    compaction block's content is a string or null, never the empty string."""
    kind = block.get("type")
    if role != "assistant":
        return f"{where}: {kind} blocks are only allowed in assistant messages"
    if kind == "thinking":
        text, signature = block.get("thinking"), block.get("signature")
        if not isinstance(text, str):
            return f"{where}.thinking.thinking: Field required"
        if not isinstance(signature, str) or not signature:
            return f"{where}.thinking.signature: Field required"
        if signature.startswith(SIGNATURE_PREFIX) and signature != sign_thinking(text):
            return f"{where}: Invalid `signature` in `thinking` block"
    elif kind == "redacted_thinking":
        if not isinstance(block.get("data"), str):
            return f"{where}.redacted_thinking.data: Field required"
    elif kind == "compaction":
        content = block.get("content")
        if content is not None and not isinstance(content, str):
            return f"{where}.compaction.content: Input should be a valid string"
        if content == "":
            return f"{where}.compaction.content: Empty string content is not allowed"
    return None


# -- applying ----------------------------------------------------------------------------


def drop_before_compaction(messages: list[Any]) -> list[Any]:
    """The messages the model sees: everything before the LATEST compaction block dropped.

    Our reading of "the API drops all message blocks prior to the compaction block": the
    message holding that block is kept from the block on (so the request may begin with an
    assistant turn whose first block is the compaction), every earlier message is dropped,
    and the system prompt and tools stay. ``messages`` itself is returned when there is no
    compaction block.
    """
    latest: tuple[int, int] | None = None
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for j, block in enumerate(content):
                if isinstance(block, dict) and block.get("type") == "compaction":
                    latest = (i, j)
    if latest is None:
        return messages
    i, j = latest
    return [{**messages[i], "content": messages[i]["content"][j:]}, *messages[i + 1 :]]


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def clear_thinking(
    body: dict[str, Any], edit: dict[str, Any], count: Counter
) -> tuple[dict[str, Any], int, int]:
    """``clear_thinking_20251015``: the thinking of all but the ``keep`` most recent assistant
    turns that hold thinking (default 1; ``"all"`` keeps all) removed.

    Returns:
        ``(body, turns cleared, input tokens cleared)``; ``body`` itself when none cleared.
    """
    keep = edit.get("keep")
    if keep == "all" or keep == {"type": "all"}:
        return body, 0, 0
    kept = 1 if keep is None else int(keep["value"])
    holders = [
        i
        for i, m in enumerate(body["messages"])
        if m.get("role") == "assistant"
        and any(b.get("type") in THINKING_BLOCKS for b in _blocks(m))
    ]
    older = holders[: max(0, len(holders) - kept)]
    if not older:
        return body, 0, 0
    edited = copy.deepcopy(body)
    for i in older:
        message = edited["messages"][i]
        message["content"] = [b for b in _blocks(message) if b.get("type") not in THINKING_BLOCKS]
    return edited, len(older), count(body) - count(edited)


def _tool_uses(body: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    """Every tool_use block of the request, oldest first, with where it sits."""
    return [
        (i, j, block)
        for i, message in enumerate(body["messages"])
        if message.get("role") == "assistant"
        for j, block in enumerate(_blocks(message))
        if block.get("type") == "tool_use"
    ]


def clear_tool_uses(
    body: dict[str, Any], edit: dict[str, Any], count: Counter
) -> tuple[dict[str, Any], list[str], int]:
    """``clear_tool_uses_20250919`` over one request (the client keeps its full history).

    Over the trigger (input tokens, default 100,000, or tool uses; "over" read as strictly
    more), the candidates are the tool uses older than the ``keep`` most recent ones (default
    3; ``keep`` counts every tool use, excluded tools included), oldest first, minus those of
    ``exclude_tools``. Every candidate is cleared (the docs say the oldest are cleared; that
    all candidates go at once is our reading): its ``tool_result`` content becomes
    :data:`CLEARED_RESULT_PLACEHOLDER`, and with ``clear_tool_inputs`` (True, or naming the
    tool) its input becomes ``{}``. With ``clear_at_least``, a clearing that would remove
    fewer input tokens than that clears nothing.

    Returns:
        ``(body, ids of the tool uses cleared, input tokens cleared)``; ``body`` itself when
        nothing was cleared.
    """
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": DEFAULT_TOOL_TRIGGER}
    uses = _tool_uses(body)
    measured = count(body) if trigger["type"] == "input_tokens" else len(uses)
    if measured <= trigger["value"]:
        return body, [], 0
    keep = (edit.get("keep") or {"value": DEFAULT_KEEP_TOOL_USES})["value"]
    excluded = set(edit.get("exclude_tools") or [])
    chosen = [u for u in uses[: max(0, len(uses) - keep)] if u[2].get("name") not in excluded]
    if not chosen:
        return body, [], 0
    inputs = edit.get("clear_tool_inputs") or False
    edited = copy.deepcopy(body)
    for i, j, block in chosen:
        if inputs is True or (isinstance(inputs, list) and block.get("name") in inputs):
            _blocks(edited["messages"][i])[j]["input"] = {}
    ids = [block.get("id") for _, _, block in chosen]
    for message in edited["messages"]:
        for block in _blocks(message):
            if block.get("type") == "tool_result" and block.get("tool_use_id") in ids:
                block["content"] = CLEARED_RESULT_PLACEHOLDER
    saved = count(body) - count(edited)
    least = (edit.get("clear_at_least") or {"value": 0})["value"]
    if saved < least:
        return body, [], 0
    return edited, [str(i) for i in ids], saved


def default_summary(body: dict[str, Any]) -> str:
    """The fake's compaction summary when none is scripted: deterministic, naming how much it
    stands for and the latest user text."""
    messages = body["messages"]
    latest = ""
    for message in reversed(messages):
        if message.get("role") == "user":
            texts = [b.get("text", "") for b in _blocks(message) if b.get("type") == "text"]
            content = message.get("content")
            latest = content if isinstance(content, str) else " ".join(texts)
            if latest:
                break
    return f"Summary of {len(messages)} messages. Latest request: {latest[:200]}"


@dataclass
class Compaction:
    """A compaction the fake performed for one request."""

    block: dict[str, Any]
    """The compaction block streamed first in the reply."""
    input_tokens: int
    """The compaction iteration's input: the request it summarised."""
    output_tokens: int
    """The compaction iteration's output: the summary."""
    context_tokens: int
    """The message iteration's input: the system prompt and the compaction block (our
    reading: the summary stands for every message, the latest request included)."""
    pause: bool
    """``pause_after_compaction``: the reply ends after the block (stop_reason
    ``compaction``)."""


def compact(
    body: dict[str, Any],
    edit: dict[str, Any],
    count: Counter,
    summarize: Callable[[dict[str, Any]], str],
) -> Compaction | None:
    """``compact_20260112``: when the request is over the trigger (input tokens, default
    150,000; strictly more), its summary as a compaction block; else None."""
    trigger = (edit.get("trigger") or {"value": DEFAULT_COMPACTION_TRIGGER})["value"]
    tokens = count(body)
    if tokens <= trigger:
        return None
    summary = summarize(body)
    block = {"type": "compaction", "content": summary}
    after = {"system": body.get("system"), "messages": [{"role": "assistant", "content": [block]}]}
    return Compaction(
        block=block,
        input_tokens=tokens,
        output_tokens=text_tokens(summary),
        context_tokens=count(after),
        pause=bool(edit.get("pause_after_compaction")),
    )


@dataclass
class Outcome:
    """What the fake's policies did to one request."""

    body: dict[str, Any]
    """The request as the model sees it: blocks before the latest compaction dropped, edits
    applied."""
    applied: list[dict[str, Any]] | None = None
    """``context_management.applied_edits`` to report (None when the request sent no
    ``context_management``)."""
    cleared_ids: list[str] = field(default_factory=list)
    """Ids of the tool_use blocks clear_tool_uses cleared."""
    compaction: Compaction | None = None
    """The compaction performed, if any."""


def apply_policies(
    body: dict[str, Any], count: Counter, summarize: Callable[[dict[str, Any]], str]
) -> Outcome:
    """Apply the request's edits in the order listed (clear_thinking is first, as checked;
    compaction measures the request as the edits before it left it: our reading)."""
    seen = {**body, "messages": drop_before_compaction(body["messages"])}
    config = body.get("context_management")
    outcome = Outcome(body=seen, applied=None if config is None else [])
    for edit in (config or {}).get("edits", []):
        if edit["type"] == CLEAR_THINKING:
            outcome.body, turns, saved = clear_thinking(outcome.body, edit, count)
            if turns:
                assert outcome.applied is not None
                outcome.applied.append(
                    {
                        "type": CLEAR_THINKING,
                        "cleared_thinking_turns": turns,
                        "cleared_input_tokens": saved,
                    }
                )
        elif edit["type"] == CLEAR_TOOL_USES:
            outcome.body, ids, saved = clear_tool_uses(outcome.body, edit, count)
            if ids:
                assert outcome.applied is not None
                outcome.cleared_ids = ids
                outcome.applied.append(
                    {
                        "type": CLEAR_TOOL_USES,
                        "cleared_tool_uses": len(ids),
                        "cleared_input_tokens": saved,
                    }
                )
        else:
            outcome.compaction = compact(outcome.body, edit, count, summarize)
    return outcome
