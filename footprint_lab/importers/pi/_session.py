"""The path of a pi session as a run: its messages, what each call after a compaction was
sent, and the session's own facts.

Layer: importers (private to :mod:`footprint_lab.importers.pi`). The context of a call is
pi's ``buildSessionContext`` at that point of the path: every message of the path, or — once a
compaction is on it — the latest compaction's summary (a user message between pi's prefix and
suffix), then the messages of the path from its ``firstKeptEntryId`` (version 1:
``firstKeptEntryIndex``; newer pi: the messages of its ``retainedTail``) up to it, then those
after it. The history keeps every message; the first call after each compaction is given that
window as ``sent``, so the run files an observed record of what left.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._build import UserKind
from footprint_lab.importers._parts import Problems, json_problem, optional_str, short, text_of
from footprint_lab.importers.pi._convert import (
    BRANCH_PREFIX,
    BRANCH_SUFFIX,
    Converter,
    compaction_text,
)
from footprint_lab.importers.pi._tree import Entry, Session
from footprint_lab.messages import Message

__all__ = ["Walk", "safe", "walk_path"]


@dataclass
class Walk:
    """What the path of a session holds."""

    messages: list[Message] = field(default_factory=list)
    kinds: dict[int, UserKind] = field(default_factory=dict)
    sent: list[list[Message] | None] = field(default_factory=list)
    """One per assistant message: the window of the first call after a compaction, else None."""
    compactions: list[dict[str, Any]] = field(default_factory=list)
    branch_summaries: list[dict[str, Any]] = field(default_factory=list)
    summarizer_usage: list[dict[str, Any]] = field(default_factory=list)
    model_changes: list[str] = field(default_factory=list)
    thinking_levels: list[str] = field(default_factory=list)
    custom_entries: Counter[str] = field(default_factory=Counter)
    custom_messages: Counter[str] = field(default_factory=Counter)
    ignored: Counter[str] = field(default_factory=Counter)
    last_reply: int | None = None
    """The index of the last assistant message."""


class _Walker:
    """Walks the path once, in order (time linear in the path and the windows it sends)."""

    def __init__(self, session: Session, path: list[int], problems: Problems) -> None:
        """Prepare to walk ``path`` (entry indices, root first) of ``session``."""
        self.session = session
        self.path = path
        self.problems = problems
        entries = session.entries
        self.position = {entries[k].id: p for p, k in enumerate(path) if entries[k].id is not None}
        self.converter = Converter(problems, _answered(session, path))
        self.out = Walk()
        self.starts: list[int] = []
        self.pending: list[Message] | None = None
        """The window the next call is sent: a compaction's stand-in and what it kept."""
        self.after = 0
        """Where the messages after the latest compaction start."""

    def run(self) -> Walk:
        """Walk every entry of the path, in order."""
        for p, k in enumerate(self.path):
            self.starts.append(len(self.out.messages))
            self.entry(p, self.session.entries[k])
        return self.out

    def add(self, message: Message, kind: UserKind | None) -> None:
        """Append one message of the history; a reply after a compaction is given the
        compaction's window."""
        out = self.out
        if message.role == "assistant":
            if self.pending is not None:
                out.sent.append([*self.pending, *out.messages[self.after :]])
                out.compactions[-1]["observed"] = True
                self.pending = None
            else:
                out.sent.append(None)
            out.last_reply = len(out.messages)
        if kind is not None:
            out.kinds[len(out.messages)] = kind
        out.messages.append(message)

    def entry(self, p: int, entry: Entry) -> None:
        """Read the entry at path position ``p``."""
        raw, line, kind = entry.raw, entry.line, entry.kind
        problems = self.problems
        if kind == "message":
            got = self.converter.message(raw.get("message"), line, "message")
            if got is not None:
                self.add(*got)
        elif kind == "custom_message":
            custom = optional_str(raw.get("customType"), problems, line, "customType")
            self.out.custom_messages[custom or ""] += 1
            content = raw.get("content")
            text, parts = self.converter.content(
                [] if content is None else content, line, "content"
            )
            self.add(Message.user(text, parts=parts), "observation")
        elif kind == "branch_summary":
            summary = text_of(raw.get("summary"), problems, line, "summary")
            self.out.branch_summaries.append(
                {"line": line, "id": entry.id, "fromId": safe(raw.get("fromId"))}
            )
            self._side_usage(raw, line, "branch_summary")
            if summary:  # pi sends a branch summary only when it has text
                self.add(Message.user(BRANCH_PREFIX + summary + BRANCH_SUFFIX), "observation")
        elif kind == "compaction":
            self.compaction(p, entry)
        elif kind == "model_change":
            provider = optional_str(raw.get("provider"), problems, line, "provider")
            model = optional_str(raw.get("modelId"), problems, line, "modelId")
            older = optional_str(raw.get("model"), problems, line, "model")  # pi before v1 trees
            named = f"{provider}/{model}" if provider and model else model or older
            if named:
                self.out.model_changes.append(named)
        elif kind == "thinking_level_change":
            level = optional_str(raw.get("thinkingLevel"), problems, line, "thinkingLevel")
            if level is not None:
                self.out.thinking_levels.append(level)
        elif kind == "custom":
            custom = optional_str(raw.get("customType"), problems, line, "customType")
            self.out.custom_entries[custom or ""] += 1
        elif kind not in ("label", "session_info"):
            self.out.ignored[kind] += 1

    def _side_usage(self, raw: Mapping[str, Any], line: int, kind: str) -> None:
        """Usage a summary's own LLM call reported (not a call of the run): kept as given."""
        usage = raw.get("usage")
        if usage is not None:
            self.out.summarizer_usage.append({"line": line, "kind": kind, "usage": safe(usage)})

    def compaction(self, p: int, entry: Entry) -> None:
        """A compaction: the next call is sent its summary, what it kept, and what follows."""
        raw, line = entry.raw, entry.line
        summary = text_of(raw.get("summary"), self.problems, line, "summary")
        kept, facts = self._kept(p, entry)
        self.pending = [Message.user(compaction_text(summary)), *kept]
        self.after = len(self.out.messages)
        self._side_usage(raw, line, "compaction")
        self.out.compactions.append(
            {
                "line": line,
                "id": entry.id,
                **facts,
                "tokensBefore": safe(raw.get("tokensBefore")),
                "fromHook": raw.get("fromHook") if isinstance(raw.get("fromHook"), bool) else None,
                "kept_messages": len(kept),
                "observed": False,
                "details": safe(raw.get("details")),
            }
        )

    def _kept(self, p: int, entry: Entry) -> tuple[list[Message], dict[str, Any]]:
        """What a compaction kept of the messages before it, and the field that says so."""
        raw, line, problems = entry.raw, entry.line, self.problems
        tail = raw.get("retainedTail")
        if tail is not None:
            if not isinstance(tail, list):
                problems.fail(
                    line, "retainedTail", f"expected a list of messages, got {short(tail)}"
                )
            side = Converter(Problems("pi", unit=problems.unit, path=problems.path), set())
            kept = [
                got[0]
                for i, item in enumerate(tail)
                if (got := side.message(item, line, f"retainedTail[{i}]")) is not None
            ]
            return kept, {"retainedTail": len(tail)}
        if self.session.linear:
            index = raw.get("firstKeptEntryIndex")
            at = index - 1 if isinstance(index, int) and not isinstance(index, bool) else None
            found = at if at is not None and 0 <= at < p else None
            facts: dict[str, Any] = {"firstKeptEntryIndex": safe(index)}
            said = "firstKeptEntryIndex"
        else:
            kept_id = raw.get("firstKeptEntryId")
            if kept_id is not None and not isinstance(kept_id, str):
                problems.fail(
                    line, "firstKeptEntryId", f"expected an entry id, got {short(kept_id)}"
                )
            if kept_id is not None and kept_id == entry.id:
                return [], {"firstKeptEntryId": kept_id}  # a compaction that keeps nothing
            at = self.position.get(kept_id) if kept_id is not None else None
            found = at if at is not None and at < p else None
            facts = {"firstKeptEntryId": kept_id}
            said = "firstKeptEntryId"
        if found is None:
            problems.note(
                line,
                said,
                f"{short(raw.get(said))} names no entry before the compaction on the path: "
                "pi keeps nothing from before it",
            )
            return [], facts
        return self.out.messages[self.starts[found] :], facts


def _answered(session: Session, path: list[int]) -> set[str]:
    """The ids of the tool calls a result on the path answers."""
    out: set[str] = set()
    for k in path:
        entry = session.entries[k]
        message = entry.raw.get("message") if entry.kind == "message" else None
        if isinstance(message, Mapping) and message.get("role") == "toolResult":
            call_id = message.get("toolCallId")
            if isinstance(call_id, str):
                out.add(call_id)
    return out


def safe(value: Any) -> Any:
    """A fact for ``meta`` as given, or None when JSON cannot carry it exactly."""
    return value if json_problem(value) is None else None


def walk_path(session: Session, path: list[int], problems: Problems) -> tuple[Walk, Converter]:
    """The messages of the path (see the module docstring) and what its replies reported.

    Raises:
        TranscriptError: an entry on the path is malformed.
    """
    walker = _Walker(session, path, problems)
    walk = walker.run()
    _check_costs(walker.converter.cost, problems)
    return walk, walker.converter


def _check_costs(cost: dict[str, float], problems: Problems) -> None:
    """Costs whose sum is not a finite number are left out (listed)."""
    for key in [k for k, v in cost.items() if not math.isfinite(v)]:
        problems.note(None, f"usage.cost.{key}", "the costs sum to no finite number; not summed")
        del cost[key]
