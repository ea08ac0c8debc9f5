"""Anthropic's server-side window policies and extended thinking, as ``AnthropicProvider``
takes them: the ``context_management`` edits (``clear_tool_uses_20250919``,
``clear_thinking_20251015``, ``compact_20260112``) and the ``thinking`` config, checked at
construction as Anthropic documents them, and the beta headers they need.

Layer: providers (private to :mod:`footprint_lab.providers.anthropic`, which re-exports the
names). Shapes from https://platform.claude.com/docs/en/build-with-claude/context-editing,
.../compaction and the SDK's ``BetaContextManagementConfigParam``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "CLEAR_THINKING",
    "CLEAR_TOOL_USES",
    "COMPACT",
    "COMPACTION_BETA",
    "CONTEXT_MANAGEMENT_BETA",
    "EDIT_TYPES",
    "MIN_COMPACTION_TRIGGER",
    "MIN_THINKING_BUDGET",
    "betas_for",
    "check_context_management",
    "check_thinking",
]

CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"
"""The ``anthropic-beta`` value the clearing edits (tool uses, thinking) need."""

COMPACTION_BETA = "compact-2026-01-12"
"""The ``anthropic-beta`` value server-side compaction needs."""

CLEAR_TOOL_USES = "clear_tool_uses_20250919"
"""Context editing: replace old tool results with a placeholder."""

CLEAR_THINKING = "clear_thinking_20251015"
"""Context editing: drop thinking blocks of older assistant turns."""

COMPACT = "compact_20260112"
"""Server-side compaction: summarise the conversation into a ``compaction`` block."""

EDIT_TYPES = (CLEAR_TOOL_USES, CLEAR_THINKING, COMPACT)
"""The ``context_management`` edit types this provider sends."""

MIN_COMPACTION_TRIGGER = 50_000
"""The least input-token trigger Anthropic accepts for compaction."""

MIN_THINKING_BUDGET = 1024
"""The least ``budget_tokens`` Anthropic accepts for extended thinking."""

_EDIT_FIELDS: dict[str, frozenset[str]] = {
    CLEAR_TOOL_USES: frozenset(
        {"type", "trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs"}
    ),
    CLEAR_THINKING: frozenset({"type", "keep"}),
    COMPACT: frozenset({"type", "trigger", "pause_after_compaction", "instructions"}),
}


def _plain(value: Any, where: str) -> Any:
    """``value`` as plain JSON data (mappings as dicts, sequences as lists), so the provider
    keeps its own copy and pickles."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise ValueError(
        f"{where} must be plain JSON data (mappings, lists, str, numbers), got {value!r}"
    )


def _whole(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _check_counter(value: Any, where: str, types: tuple[str, ...], minimum: int) -> None:
    """Raise unless ``value`` is ``{"type": <one of types>, "value": <whole >= minimum>}``."""
    if (
        isinstance(value, dict)
        and set(value) == {"type", "value"}
        and value["type"] in types
        and _whole(value["value"], minimum)
    ):
        return
    kinds = " or ".join(repr(t) for t in types)
    raise ValueError(
        f"context_management: {where} must be {{'type': {kinds}, 'value': <whole number "
        f">= {minimum}>}}, got {value!r}"
    )


def _check_names(value: Any, where: str) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"context_management: {where} must be a list of tool names, got {value!r}")


def _check_edit(i: int, edit: Any, thinking_on: bool) -> None:
    """Raise ``ValueError`` unless ``edit`` (``edits[i]``) is a valid edit."""
    where = f"edits[{i}]"
    kind = edit.get("type") if isinstance(edit, dict) else None
    if kind not in EDIT_TYPES:
        raise ValueError(
            f"context_management: {where} must be a mapping whose 'type' is one of "
            f"{', '.join(EDIT_TYPES)}, got {edit!r}"
        )
    unknown = sorted(set(edit) - _EDIT_FIELDS[kind])
    if unknown:
        raise ValueError(
            f"context_management: {where} ({kind}) has unknown field(s) {', '.join(unknown)}; "
            f"it takes {', '.join(sorted(_EDIT_FIELDS[kind]))}"
        )
    given = {k: v for k, v in edit.items() if v is not None}  # None means "the default"
    if kind == CLEAR_THINKING:
        if i != 0:
            raise ValueError(
                f"context_management: {CLEAR_THINKING} must be the first edit, but it is "
                f"{where}: move it to the front of 'edits'"
            )
        if not thinking_on:
            raise ValueError(
                f"context_management: {CLEAR_THINKING} needs extended thinking: pass "
                "thinking={'type': 'enabled', 'budget_tokens': N}"
            )
        keep = given.get("keep", "all")
        if keep != "all" and keep != {"type": "all"}:
            _check_counter(keep, f"{where}.keep", ("thinking_turns",), 1)
    elif kind == CLEAR_TOOL_USES:
        if "trigger" in given:
            _check_counter(given["trigger"], f"{where}.trigger", ("input_tokens", "tool_uses"), 1)
        if "keep" in given:
            _check_counter(given["keep"], f"{where}.keep", ("tool_uses",), 0)
        if "clear_at_least" in given:
            _check_counter(given["clear_at_least"], f"{where}.clear_at_least", ("input_tokens",), 0)
        if "exclude_tools" in given:
            _check_names(given["exclude_tools"], f"{where}.exclude_tools")
        inputs = given.get("clear_tool_inputs", False)
        if not isinstance(inputs, bool):
            _check_names(inputs, f"{where}.clear_tool_inputs (a bool, or)")
    else:
        if "trigger" in given:
            _check_counter(
                given["trigger"], f"{where}.trigger", ("input_tokens",), MIN_COMPACTION_TRIGGER
            )
        if not isinstance(given.get("pause_after_compaction", False), bool):
            raise ValueError(
                f"context_management: {where}.pause_after_compaction must be True or False"
            )
        if not isinstance(given.get("instructions", ""), str):
            raise ValueError(f"context_management: {where}.instructions must be a string")


def check_thinking(thinking: Mapping[str, Any] | None, max_tokens: int) -> dict[str, Any] | None:
    """``thinking`` as a plain dict after checking it as Anthropic does (None stays None).

    Raises:
        ValueError: not ``{"type": "enabled", "budget_tokens": N}`` with ``1024 <= N <
            max_tokens``, nor ``{"type": "disabled"}``; the message says what to change.
    """
    if thinking is None:
        return None
    plain = _plain(thinking, "thinking")
    kind = plain.get("type") if isinstance(plain, dict) else None
    if kind == "disabled" and set(plain) == {"type"}:
        return dict(plain)
    if kind != "enabled" or set(plain) != {"type", "budget_tokens"}:
        raise ValueError(
            "thinking must be {'type': 'enabled', 'budget_tokens': N} or "
            f"{{'type': 'disabled'}}, got {thinking!r}"
        )
    budget = plain["budget_tokens"]
    if not _whole(budget, MIN_THINKING_BUDGET):
        raise ValueError(
            f"thinking: budget_tokens must be a whole number >= {MIN_THINKING_BUDGET} "
            f"(Anthropic's minimum), got {budget!r}"
        )
    if budget >= max_tokens:
        raise ValueError(
            f"thinking: budget_tokens ({budget}) must be less than max_tokens "
            f"(default_max_tokens={max_tokens}): raise default_max_tokens or lower the budget"
        )
    return dict(plain)


def check_context_management(
    context_management: Mapping[str, Any] | None, thinking: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """``context_management`` as a plain dict after checking it as Anthropic documents
    (None stays None); ``thinking`` is the checked thinking config.

    Raises:
        ValueError: not ``{"edits": [...]}`` with at least one edit; an unknown edit type,
            field, or a repeated type; a trigger, ``keep`` or ``clear_at_least`` of the wrong
            shape or value (a compaction trigger under 50,000 input tokens included);
            ``clear_thinking_20251015`` not first, or without thinking enabled. The message
            names the edit and says what to change.
    """
    if context_management is None:
        return None
    plain = _plain(context_management, "context_management")
    if not isinstance(plain, dict) or set(plain) != {"edits"}:
        raise ValueError(
            "context_management must be a mapping {'edits': [edit, ...]} and nothing else, "
            f"got {context_management!r}"
        )
    edits = plain["edits"]
    if not isinstance(edits, list) or not edits:
        raise ValueError(
            "context_management: 'edits' must be a non-empty list (pass "
            f"context_management=None for no server-side edits), got {edits!r}"
        )
    thinking_on = (thinking or {}).get("type") == "enabled"
    seen: set[str] = set()
    for i, edit in enumerate(edits):
        _check_edit(i, edit, thinking_on)
        if edit["type"] in seen:
            raise ValueError(
                f"context_management: edits[{i}] repeats {edit['type']}: give each edit type once"
            )
        seen.add(edit["type"])
    return plain


def betas_for(context_management: Mapping[str, Any] | None) -> list[str]:
    """The ``anthropic-beta`` values the edits of ``context_management`` need."""
    kinds = {e.get("type") for e in (context_management or {}).get("edits", [])}
    betas: list[str] = []
    if kinds & {CLEAR_TOOL_USES, CLEAR_THINKING}:
        betas.append(CONTEXT_MANAGEMENT_BETA)
    if COMPACT in kinds:
        betas.append(COMPACTION_BETA)
    return betas
