"""A pi session file's lines as entries, and the path through their tree the session stands on.

Layer: importers (private to :mod:`footprint_lab.importers.pi`). As pi's ``SessionManager``
reads a file (``packages/coding-agent/src/core/session-manager.ts``): the first line is the
session header; a version 2 or 3 session links every other entry to its parent by ``id`` /
``parentId``, and the session stands on the **leaf**, the last entry of the file; the
conversation is the path from the root to it (``getBranch``). Entries on no path to the leaf
are abandoned branches. A version 1 session (no ``version``) is a linear list: every entry is
on the path, in file order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from footprint_lab.importers._parts import Problems, TranscriptError, parse_json_text, short

__all__ = [
    "STREAM_TYPES",
    "Entry",
    "Session",
    "abandoned_branches",
    "active_path",
    "read_session",
]

UNIT = "line"
"""What an error's index counts: the line of the file (from 1)."""
FORMAT = "a pi coding agent session (JSON lines: a session header, then one entry a line)"
"""The format the loader reads, as its errors name it."""
MESSAGE_TYPES = frozenset({"message", "custom_message", "branch_summary"})
"""Entry types that put a message into the model's context."""
STREAM_TYPES = frozenset(
    {
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "auto_compaction_start",
        "auto_compaction_end",
        "compaction_start",
        "compaction_end",
        "auto_retry_start",
        "auto_retry_end",
    }
)
"""The event types pi prints in JSON mode (``pi --mode json``) after the session header."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the session (any line but the header)."""

    line: int
    """Its line in the file (from 1)."""
    kind: str
    """Its ``type``."""
    raw: Mapping[str, Any]
    """The entry as written."""
    id: str | None
    """Its ``id`` (None in a version 1 session)."""
    parent: str | None
    """Its ``parentId`` (None for a root, and in a version 1 session)."""


@dataclass
class Session:
    """A session file read into its header and entries."""

    header: Mapping[str, Any] | None
    """The session header (None when the file has none)."""
    version: int
    """The header's ``version`` (1 when it names none)."""
    entries: list[Entry]
    """Every other entry, in file order."""
    events: list[tuple[int, Mapping[str, Any]]] | None = None
    """The lines after the header of a JSON event stream (``pi --mode json``), with their line
    numbers (None for a session file)."""

    @property
    def linear(self) -> bool:
        """Whether the entries are a list, not a tree (version 1)."""
        return self.header is not None and self.version < 2


def _lines(text: str, where: str) -> list[tuple[int, Any]]:
    """Each non-blank line's JSON value, with its line number."""
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, parse_json_text(line, "pi", where, "line", FORMAT)))
        except TranscriptError as exc:
            raise TranscriptError(
                "pi", number, "line", exc.problem, path=where, unit=UNIT
            ) from None
    return out


def _link(value: Any, problems: Problems, line: int, field: str) -> str | None:
    """A ``parentId``: an entry id, or None for a root."""
    if value is None or isinstance(value, str):
        return value
    problems.fail(line, field, f"expected an entry id (text) or null, got {short(value)}")


def read_session(text: str, where: str, problems: Problems) -> Session:
    """The header and entries of a session file's text.

    Raises:
        TranscriptError: a line is not JSON, an entry is not an object with a text ``type``,
            the header's ``id`` is not text or its ``version`` not an integer, or (version 2
            and later) an entry's ``id`` is not text or its ``parentId`` neither text nor null.
    """
    lines = _lines(text, where)
    header: Mapping[str, Any] | None = None
    version = 3
    for k, (line, value) in enumerate(lines):
        if not isinstance(value, dict):
            problems.fail(line, "entry", f"expected an entry object, got {short(value)}")
        if not isinstance(value.get("type"), str):
            problems.fail(
                line, "type", f"an entry needs a text type, got {short(value.get('type'))}"
            )
        if k == 0 and value["type"] == "session":
            header = value
    if header is None:
        if lines:
            problems.note(
                lines[0][0],
                "type",
                "no session header on the first line (pi refuses such a file); its entries are "
                "read as a version 3 session",
            )
    else:
        if not isinstance(header.get("id"), str):
            problems.fail(
                lines[0][0],
                "id",
                f"a session header needs a text id, got {short(header.get('id'))}",
            )
        given = header.get("version")
        given = 1 if given is None else given  # pi: ``header.version ?? 1``
        if isinstance(given, bool) or not isinstance(given, int):
            problems.fail(lines[0][0], "version", f"expected an integer, got {short(given)}")
        version = given
    body = lines[1:] if header is not None else lines
    if any(value["type"] in STREAM_TYPES for _, value in body) and not any(
        value["type"] != "session" and "id" in value for _, value in body
    ):
        return Session(header, version, [], body)
    linear = header is not None and version < 2
    entries: list[Entry] = []
    for k, (line, value) in enumerate(lines):
        if k == 0 and header is not None:
            continue
        if value["type"] == "session":
            problems.note(line, "type", "a second session header; ignored, as pi ignores it")
            continue
        if linear:
            entries.append(Entry(line, value["type"], value, None, None))
            continue
        entry_id = value.get("id")
        if not isinstance(entry_id, str):
            problems.fail(
                line,
                "id",
                f"an entry of a version {version} session needs a text id, got {short(entry_id)}",
            )
        if "parentId" not in value:
            problems.note(line, "parentId", "no parentId: read as a root entry, as pi reads it")
        parent = _link(value.get("parentId"), problems, line, "parentId")
        entries.append(Entry(line, value["type"], value, entry_id, parent))
    return Session(header, version, entries)


def _index(entries: list[Entry], problems: Problems) -> dict[str, int]:
    """Each id's entry (the last one with it, as pi's index keeps it)."""
    by_id: dict[str, int] = {}
    for k, entry in enumerate(entries):
        if entry.id is None:
            continue
        if entry.id in by_id:
            problems.note(
                entry.line,
                "id",
                f"duplicate entry id {entry.id!r} (also on line {entries[by_id[entry.id]].line}); "
                "links to it reach this entry, as pi's index does",
            )
        by_id[entry.id] = k
    return by_id


def active_path(session: Session, problems: Problems) -> tuple[list[int], dict[str, int]]:
    """The entries (by index) from the root to the leaf, and each id's entry.

    A ``parentId`` naming no entry ends the walk there (pi's path starts at that entry); a
    cycle of links ends it where it repeats; both are listed as problems.
    """
    entries = session.entries
    if session.linear:
        return list(range(len(entries))), {}
    by_id = _index(entries, problems)
    if not entries:
        return [], by_id
    path: list[int] = []
    seen: set[int] = set()
    k = len(entries) - 1
    while True:
        if k in seen:
            problems.note(
                entries[k].line, "parentId", "the parentId links form a cycle; the path stops here"
            )
            break
        seen.add(k)
        path.append(k)
        parent = entries[k].parent
        if parent is None:
            break
        above = by_id.get(parent)
        if above is None:
            problems.note(
                entries[k].line,
                "parentId",
                f"parentId {parent!r} names no entry: the path starts at this entry, as pi's does",
            )
            break
        k = above
    path.reverse()
    return path, by_id


def abandoned_branches(
    session: Session, path: list[int], by_id: dict[str, int]
) -> list[dict[str, Any]]:
    """The entries on no path to the leaf, grouped by the branch they hang on: for each, the
    entry it branched from (``from``: an entry of the path, or None), its entry ids in file
    order, and how many of them carry a message."""
    entries = session.entries
    on_path = set(path)
    top: dict[int, int] = {}  # entry -> the first entry of its branch
    for k in range(len(entries)):
        if k in on_path or k in top:
            continue
        chain: list[int] = []
        members: set[int] = set()
        j = k
        while True:
            if j in top:
                root = top[j]
                break
            chain.append(j)
            members.add(j)
            parent = entries[j].parent
            above = by_id.get(parent) if parent is not None else None
            if above is None or above in on_path or above in members:
                root = j
                break
            j = above
        for c in chain:
            top[c] = root
    groups: dict[int, list[int]] = {}
    for k in sorted(top):
        groups.setdefault(top[k], []).append(k)
    out: list[dict[str, Any]] = []
    for root, members_of in sorted(groups.items(), key=lambda item: item[1][0]):
        parent = entries[root].parent
        out.append(
            {
                "from": parent if parent is not None and by_id.get(parent) in on_path else None,
                "entry_ids": [entries[m].id for m in members_of],
                "lines": [entries[m].line for m in members_of],
                "messages": sum(entries[m].kind in MESSAGE_TYPES for m in members_of),
            }
        )
    return out
