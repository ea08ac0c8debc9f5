"""The session a Claude Code file's entries make, before its messages are parsed together:
its turns, and its compactions with the windows they decided.

Layer: importers (the private half of :mod:`footprint_lab.importers.claude_code`, whose
docstring gives the mapping). A ``compact_boundary`` opens a compacted part; its stand-in is
the ``isCompactSummary`` user entry after it, or else a ``summary`` entry that follows it
(linked into the chain, or carrying a message) before the next turn. Each reply in a compacted
part was sent the stand-in, the messages the compaction kept verbatim
(``compactMetadata.preservedSegment``: before the stand-in when its anchor is the boundary) and
the messages since the boundary.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._parts import Problems, TranscriptError, json_value
from footprint_lab.importers.chat.anthropic import parse_anthropic
from footprint_lab.messages import Message

__all__ = ["Session", "Turn", "add_summary", "open_boundary", "summary_entry", "windows"]

_BLOCK = re.compile(r"content\[(\d+)\]")


@dataclass
class Turn:
    """One message of the conversation as entries gave it (an assistant reply may span
    several entries)."""

    role: str
    """'user' or 'assistant'."""
    line: int
    """The line of its first entry."""
    segment: int
    """How many compactions came before it."""
    content: Any
    """The content as given (a user entry), or the merged block list (an assistant reply)."""
    count: int
    """How many messages it becomes."""
    block_lines: list[tuple[int, int]] = field(default_factory=list)
    """For each block of ``content``: the line that held it and its index there."""
    message_id: str | None = None
    """The assistant reply's ``message.id``."""
    usage: Any = None
    """The reply's usage as given (the last entry's that has one)."""
    usage_line: int = 0
    """The line ``usage`` came from."""
    uuids: list[str] = field(default_factory=list)
    """The ``uuid`` of each of its entries."""

    def raw(self) -> dict[str, Any]:
        """The turn as an Anthropic message."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.role == "assistant":
            out["usage"] = self.usage
        return out

    def place(self, where: str) -> tuple[int, str]:
        """The line and the entry field of ``where``, a field of :meth:`raw`."""
        if where.startswith("usage"):
            return self.usage_line, f"message.{where}"
        block = _BLOCK.match(where)
        if block is not None and int(block[1]) < len(self.block_lines):
            line, local = self.block_lines[int(block[1])]
            return line, f"message.content[{local}]{where[block.end() :]}"
        return self.line, f"message.{where}"


@dataclass
class Session:
    """What the entries of one file said, before the messages are parsed together."""

    turns: list[Turn] = field(default_factory=list)
    summaries: dict[int, list[Message]] = field(default_factory=dict)
    """The summary stand-in of each compacted part (by segment)."""
    segment: int = 0
    compactions: list[dict[str, Any]] = field(default_factory=list)
    titles: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    session_ids: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    sidechain: int = 0
    ignored: Counter[str] = field(default_factory=Counter)
    preserved: dict[int, tuple[list[str], bool]] = field(default_factory=dict)
    """The uuids each compacted part kept verbatim, by segment (and whether before the
    summary)."""
    boundary_turns: int = 0
    """How many turns there were at the latest boundary."""
    from_entry: bool = False
    """Whether the latest stand-in is a ``summary`` entry's (an ``isCompactSummary`` entry
    before the next turn replaces it)."""


def open_boundary(
    entry: Mapping[str, Any],
    session: Session,
    notes: Problems,
    line: int,
    preserved: Mapping[int, tuple[list[str], bool]],
) -> None:
    """A ``compact_boundary``: a new compacted part, with the segment it kept verbatim."""
    metadata = entry.get("compactMetadata")
    if not isinstance(metadata, Mapping):
        metadata = {}
    session.segment += 1
    session.boundary_turns, session.from_entry = len(session.turns), False
    compaction: dict[str, Any] = {
        "boundary_line": line,
        "trigger": json_value(metadata.get("trigger"), notes, line, "compactMetadata.trigger"),
        "preTokens": json_value(
            metadata.get("preTokens"), notes, line, "compactMetadata.preTokens"
        ),
        "summary_line": None,
    }
    if line in preserved:
        session.preserved[session.segment] = preserved[line]
        compaction["preserved_uuids"] = preserved[line][0]
    session.compactions.append(compaction)


def add_summary(parsed: list[Message], session: Session, line: int, *, entry: bool = False) -> None:
    """A compact summary: the stand-in of the latest boundary (or of a new compacted part). A
    ``summary`` entry (``entry``) stands in until an ``isCompactSummary`` entry comes before
    the next turn."""
    latest = session.compactions[-1] if session.compactions else None
    replaces = session.from_entry and len(session.turns) == session.boundary_turns
    if latest is None or (latest["summary_line"] is not None and not replaces):
        session.segment += 1
        session.boundary_turns = len(session.turns)
        latest = {"boundary_line": None, "trigger": None, "preTokens": None, "summary_line": None}
        session.compactions.append(latest)
    latest["summary_line"] = line
    if entry:
        latest["summary_type"] = "summary"
    else:
        latest.pop("summary_type", None)
    session.from_entry = entry
    session.summaries[session.segment] = parsed


def _stands_in(entry: Mapping[str, Any], session: Session, linked: bool) -> bool:
    """Whether a ``summary`` entry is the stand-in of the compaction before it: it follows a
    boundary that has none yet, with no turn between, and it is conversation (linked into the
    chain, or carrying a message), not a session title."""
    latest = session.compactions[-1] if session.compactions else None
    return (
        latest is not None
        and latest["boundary_line"] is not None
        and latest["summary_line"] is None
        and len(session.turns) == session.boundary_turns
        and ((linked and isinstance(entry.get("uuid"), str)) or "message" in entry)
    )


def summary_entry(
    entry: Mapping[str, Any], session: Session, notes: Problems, line: int, linked: bool
) -> None:
    """A ``summary`` entry: a compaction's stand-in (see :func:`_stands_in`), else a title."""
    if _stands_in(entry, session, linked):
        message = entry.get("message")
        content = message.get("content") if isinstance(message, Mapping) else entry.get("summary")
        try:
            parsed = parse_anthropic([{"role": "user", "content": content}])[0]
        except TranscriptError as exc:
            where = "message" if isinstance(message, Mapping) else "summary"
            notes.note(line, f"{where}.{exc.field}", f"{exc.problem}; the entry is skipped")
            return
        add_summary(parsed, session, line, entry=True)
        return
    session.titles.append(
        {
            "summary": json_value(entry.get("summary"), notes, line, "summary"),
            "leafUuid": json_value(entry.get("leafUuid"), notes, line, "leafUuid"),
            "line": line,
        }
    )


def windows(session: Session, messages: list[Message]) -> list[list[Message] | None] | None:
    """What each assistant reply was sent, where a compaction decided it (else None): the
    summary, the messages the compaction kept (before the summary when it kept them so), and
    the messages since its boundary."""
    if not session.compactions:
        return None
    sent: list[list[Message] | None] = []
    since: dict[int, list[Message]] = {}
    by_uuid: dict[str, tuple[int, list[Message]]] = {}
    at = 0
    for turn in session.turns:
        produced = messages[at : at + turn.count]
        at += turn.count
        if turn.role == "assistant":
            if turn.segment == 0:
                sent.append(None)
            else:
                uuids, first = session.preserved.get(turn.segment, ([], False))
                kept = _kept(by_uuid, uuids, turn.segment)
                summary = session.summaries.get(turn.segment, [])
                head = [*kept, *summary] if first else [*summary, *kept]
                sent.append([*head, *since.get(turn.segment, [])])
        since.setdefault(turn.segment, []).extend(produced)
        for uuid in turn.uuids:
            by_uuid.setdefault(uuid, (turn.segment, produced))
    return sent


def _kept(
    by_uuid: Mapping[str, tuple[int, list[Message]]], uuids: list[str], segment: int
) -> list[Message]:
    """The messages of earlier parts a compaction kept verbatim (each turn once, in order)."""
    out: list[Message] = []
    seen: set[int] = set()
    for uuid in uuids:
        found = by_uuid.get(uuid)
        if found is None or found[0] >= segment or id(found[1]) in seen:
            continue
        seen.add(id(found[1]))
        out.extend(found[1])
    return out
