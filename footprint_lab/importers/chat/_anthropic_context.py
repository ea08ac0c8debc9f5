"""Anthropic's server-side context management, read back from a stored message list: what each
call was sent once the API compacted or edited its context.

Layer: importers (the private half of :mod:`footprint_lab.importers.chat.anthropic`). Two
kinds of edit are read, each as the window later calls received (``build_run(sent=...)``):

* **Compaction** (the ``compact_20260112`` edit; shape and rule from
  https://platform.claude.com/docs/en/build-with-claude/compaction and ``.../compaction-threshold``,
  and the SDK's ``BetaCompactionBlock``): a response that compacted holds a
  ``{"type": "compaction", "content": <summary>}`` block, first in its content, and "the API
  automatically drops all message blocks prior to the compaction block" on every later request.
  Each later call is sent the summary (a ``user`` stand-in: the observed record names every
  message before the reply as removed), then that reply (without the compaction block; when
  blocks came before it in the reply, a stand-in of the blocks after it), then what followed.
  A block whose ``content`` is ``null`` is a failed compaction (the server treats it as a no-op)
  and an empty one is refused by the API: both are kept as parts and change nothing. The
  latest compaction wins.
* **Context editing** (``context_management.applied_edits`` of a stored response; shapes from
  https://platform.claude.com/docs/en/build-with-claude/context-editing and the SDK's
  ``BetaClearToolUses20250919EditResponse`` / ``BetaClearThinking20251015EditResponse``): the
  API edited that call's own request before the model saw it (each request afresh: the
  client keeps its full history). *Reported* (carried as given in ``meta['context_edits']``):
  the edit's type, ``cleared_tool_uses`` / ``cleared_thinking_turns`` and
  ``cleared_input_tokens``. *Determined by the documented rule* ("the API automatically clears
  the oldest tool results in chronological order", each "replaced with placeholder text";
  thinking clearing keeps the most recent turns): which messages — the N oldest tool results
  of the call's window, each replaced in place by a placeholder tool message (the record's
  ``cleared_stage_ids``), and the K oldest replies holding thinking, sent without it. The
  request's own configuration (``exclude_tools``, ``clear_tool_inputs``) is not in a message
  list: cleared tool inputs are not rebuilt, and an excluded tool's results would shift which
  results were the oldest cleared. The placeholder's wording is not documented: ours is
  :data:`CLEARED_RESULT`. A later response that reports no ``context_management`` is taken to
  have had the same messages cleared; one that reports ``applied_edits: []`` had none.

An edit of another type is listed as a problem (its effect is not rebuilt).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._parts import Problems, json_value, short
from footprint_lab.messages import Message, without_thinking
from footprint_lab.window.server_rules import oldest_results, oldest_thinking_replies

__all__ = ["CLEARED_RESULT", "Reply", "windows"]

CLEARED_RESULT = "[tool result cleared by the API (clear_tool_uses_20250919)]"
"""The text of the placeholder standing for a tool result the API cleared."""

_COUNTS = {
    "clear_tool_uses_20250919": "cleared_tool_uses",
    "clear_thinking_20251015": "cleared_thinking_turns",
}


@dataclass
class Reply:
    """What one assistant message of the list said about its call's context."""

    index: int
    """Its index in the message list."""
    position: int
    """Its index in the parsed messages."""
    summary: Message | None = None
    """The stand-in of its compaction block (None: it compacted nothing)."""
    block: int = 0
    """The compaction block's index in its content."""
    head: Message | None = None
    """What later calls received of it, when blocks came before the compaction block."""
    iterations: Any = None
    """Its ``usage.iterations`` as given (the compaction's own sampling step)."""
    context: Mapping[str, Any] | None = None
    """Its ``context_management`` as given (None: absent)."""


@dataclass
class _Cleared:
    """What one call's edits cleared, by identity that survives from call to call."""

    call_ids: list[str] = field(default_factory=list)
    thinking: list[int] = field(default_factory=list)
    """Positions (in the parsed messages) of the replies sent without their thinking."""


def _count(edit: Mapping[str, Any], key: str, problems: Problems, index: int, at: str) -> int:
    """A reported count: an integer (a negative one is listed and read as 0).

    Raises:
        TranscriptError: it is not an integer.
    """
    value = edit.get(key)
    if value is None:
        problems.note(index, f"{at}.{key}", "missing; read as 0")
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        problems.fail(index, f"{at}.{key}", f"expected an integer, got {short(value)}")
    if value < 0:
        problems.note(index, f"{at}.{key}", f"negative count {value}; read as 0")
        return 0
    return value


def _edits(
    context: Mapping[str, Any], problems: Problems, index: int
) -> list[tuple[str, int, int, str]]:
    """(type, count, cleared input tokens, field) of each applied edit.

    Raises:
        TranscriptError: the field is not an object, ``applied_edits`` not a list, an edit not
            a typed object or a count not an integer.
    """
    applied = context.get("applied_edits", [])
    if not isinstance(applied, list):
        problems.fail(
            index, "context_management.applied_edits", f"expected a list, got {short(applied)}"
        )
    out: list[tuple[str, int, int, str]] = []
    for k, edit in enumerate(applied):
        at = f"context_management.applied_edits[{k}]"
        if not isinstance(edit, Mapping) or not isinstance(edit.get("type"), str):
            problems.fail(index, at, "an applied edit needs a type")
        json_value(edit, problems, index, at)
        kind = edit["type"]
        if kind not in _COUNTS:
            problems.note(
                index, f"{at}.type", f"edit {kind!r} is not known; its effect is not rebuilt"
            )
            continue
        tokens = _count(edit, "cleared_input_tokens", problems, index, at)
        out.append((kind, _count(edit, _COUNTS[kind], problems, index, at), tokens, at))
    return out


def _clear(
    window: list[Message],
    edits: list[tuple[str, int, int, str]],
    position: Mapping[int, int],
    problems: Problems,
    index: int,
) -> _Cleared:
    """Which messages of ``window`` each edit cleared (the oldest first)."""
    cleared = _Cleared()
    for kind, count, _, at in edits:
        if kind == "clear_tool_uses_20250919":
            results, available = oldest_results(window, count, taken=set(cleared.call_ids))
            cleared.call_ids.extend(m.tool_call_id or "" for m in results)
            key = "cleared_tool_uses"
        else:
            known = [m for m in window if id(m) in position]
            taken = {id(m) for m in known if position[id(m)] in cleared.thinking}
            replies, available = oldest_thinking_replies(known, count, taken=taken)
            cleared.thinking.extend(position[id(m)] for m in replies)
            key = "cleared_thinking_turns"
        if count > available:
            problems.note(
                index,
                f"{at}.{key}",
                f"reports {count} cleared, but the call's window holds {available}",
            )
    return cleared


def _apply(window: list[Message], messages: Sequence[Message], cleared: _Cleared) -> list[Message]:
    """``window`` with the cleared results replaced by placeholders and the cleared replies'
    thinking taken out."""
    ids = set(cleared.call_ids)
    thinking = {id(messages[k]) for k in cleared.thinking}
    out: list[Message] = []
    for m in window:
        if m.role == "tool" and m.authored is None and m.tool_call_id in ids:
            out.append(Message.tool(m.tool_call_id or "", m.name or "unknown", CLEARED_RESULT))
        elif id(m) in thinking:
            out.append(
                m.model_copy(update={"parts": without_thinking(m), "authored": "cleared-result"})
            )
        else:
            out.append(m)
    return out


def windows(
    messages: Sequence[Message], replies: Sequence[Reply], problems: Problems
) -> tuple[list[list[Message] | None] | None, dict[str, Any]]:
    """Each call's window (None where it was the full history, or all None) and the facts
    for ``meta`` (``compactions``, ``context_edits``: only those there are)."""
    sent: list[list[Message] | None] = []
    compactions: list[dict[str, Any]] = []
    context_edits: list[dict[str, Any]] = []
    position = {id(m): k for k, m in enumerate(messages)}
    calls = {id(m): k for k, m in enumerate(m for m in messages if m.role == "assistant")}
    head: list[Message] = []
    start: int | None = None  # where the messages after the latest compaction's head begin
    cleared = _Cleared()
    edited_before = False  # whether the previous call's window was not the plain history
    for call, reply in enumerate(replies, 1):
        base = (
            list(messages[: reply.position])
            if start is None
            else [
                *head,
                *messages[start : reply.position],
            ]
        )
        if reply.context is not None:
            edits = _edits(reply.context, problems, reply.index)
            cleared = _clear(base, edits, position, problems, reply.index)
            context_edits.extend(
                _facts(
                    call,
                    reply.index,
                    edits,
                    cleared,
                    [calls[id(messages[k])] + 1 for k in cleared.thinking],
                )
            )
        edited = start is not None or bool(cleared.call_ids or cleared.thinking)
        window = _apply(base, messages, cleared)
        sent.append(window if edited or edited_before else None)
        edited_before = edited
        if reply.summary is not None:
            head = [reply.summary, reply.head] if reply.head is not None else [reply.summary]
            start = reply.position + (1 if reply.head is not None else 0)
            compaction: dict[str, Any] = {
                "message": reply.index,
                "call": call,
                "block": reply.block,
                "summary_chars": len(reply.summary.content),
            }
            if reply.iterations is not None:
                compaction["iterations"] = reply.iterations
            compactions.append(compaction)
    facts: dict[str, Any] = {}
    if compactions:
        facts["compactions"] = compactions
    if context_edits:
        facts["context_edits"] = context_edits
    if all(w is None for w in sent):
        return None, facts
    return sent, facts


def _facts(
    call: int,
    index: int,
    edits: list[tuple[str, int, int, str]],
    cleared: _Cleared,
    thinking_calls: list[int],
) -> list[dict[str, Any]]:
    """One ``meta['context_edits']`` item per applied edit: as reported, with what it named."""
    out: list[dict[str, Any]] = []
    for kind, count, tokens, _ in edits:
        item: dict[str, Any] = {"message": index, "call": call, "type": kind}
        item[_COUNTS[kind]] = count
        item["cleared_input_tokens"] = tokens
        if kind == "clear_tool_uses_20250919":
            item["cleared_tool_call_ids"] = list(cleared.call_ids)
        else:
            item["cleared_calls"] = thinking_calls
        out.append(item)
    return out
