"""Reading an OpenHands V1 conversation: the event files of a conversation folder in file-number
order (or the events of one JSON list), their ids, and the active branch of the conversation
tree.

Layer: importers (private to :mod:`footprint_lab.importers.openhands_v1`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    optional_str,
    read_json_file,
    short,
)
from footprint_lab.importers.openhands_v1._state import State

EVENTS_DIR = "events"
"""The folder of a conversation's event files."""
BASE_STATE = "base_state.json"
"""A conversation's state file."""
EVENT_FILE = re.compile(r"event-(\d+)-(.+)\.json")
"""An event file's name: ``event-<number>-<event id>.json`` (the SDK pads the number to 5)."""
ROOT = "__root__"
"""The ``parent_id`` of a tree root made after the HEAD was emptied."""
ARTIFACTS = frozenset({"ConversationStateUpdateEvent", "ConversationErrorEvent"})
"""Events that are not nodes of the conversation tree (never the HEAD)."""
UNIT = "event"
"""What an error's index counts: the event (its file number, or its place in a list)."""


@dataclass
class Events:
    """The events of one conversation, in order."""

    where: str
    """The conversation folder, or the list file."""
    indices: list[int] = field(default_factory=list)
    """Each event's index (its file number, or its place in the list)."""
    events: list[Mapping[str, Any]] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    paths: dict[int, str] = field(default_factory=dict)
    """Each event index's file (a folder's events)."""
    unrecognized: list[str] = field(default_factory=list)
    """Files in ``events/`` that are not event files."""


def _fail_in(path: Path, number: int, exc: TranscriptError, source: str) -> TranscriptError:
    """An event file's read error, naming the file and the event."""
    return TranscriptError(source, number, exc.field, exc.problem, path=str(path), unit=UNIT)


def read_folder(out: Events, folder: Path, source: str, problems: Problems) -> None:
    """Fill ``out`` with the events of a conversation folder's ``events/``, in file-number
    order (``out.paths`` names each event's file as soon as it is read).

    Raises:
        TranscriptError: the folder cannot be listed, two files have one number, or an event
            file is not JSON (naming the event file).
    """
    events_dir = folder / EVENTS_DIR
    try:
        entries = sorted(events_dir.iterdir(), key=lambda p: p.name) if events_dir.is_dir() else []
    except OSError as exc:
        raise TranscriptError(
            source, None, "path", f"cannot list events/: {exc.strerror or exc}", path=str(folder)
        ) from None
    numbered: dict[int, tuple[Path, str]] = {}
    for entry in entries:
        match = EVENT_FILE.fullmatch(entry.name)
        if match is None:
            if not entry.name.startswith("."):
                out.unrecognized.append(entry.name)
            continue
        number = int(match[1])
        if number in numbered:
            raise TranscriptError(
                source,
                number,
                "file",
                f"two event files have this number: {numbered[number][0].name} and {entry.name}",
                path=str(entry),
                unit=UNIT,
            )
        numbered[number] = (entry, match[2])
    expected = 0
    for number in sorted(numbered):
        path, named = numbered[number]
        out.paths[number] = str(path)
        if number != expected:
            problems.note(
                number,
                "file",
                f"event files {expected}..{number - 1} are missing (the numbers skip to "
                f"{number}); the events are read in number order",
            )
        expected = number + 1
        try:
            value = read_json_file(path, source, "an OpenHands V1 event (a JSON object)")
        except TranscriptError as exc:
            raise _fail_in(path, number, exc, source) from None
        _add(out, number, value, problems, named)


def read_list(path: Path, value: list[Any], problems: Problems) -> Events:
    """The events of a JSON list, in list order."""
    out = Events(str(path))
    for k, event in enumerate(value):
        _add(out, k, event, problems, None)
    return out


def _add(out: Events, index: int, event: Any, problems: Problems, named: str | None) -> None:
    """One event, checked: an object with a text ``id`` and ``kind``."""
    if not isinstance(event, Mapping):
        problems.fail(index, "event", f"expected an event object, got {short(event)}")
    event_id = event.get("id")
    if not isinstance(event_id, str):
        problems.fail(index, "id", f"expected the event's id (text), got {short(event_id)}")
    kind = event.get("kind")
    if not isinstance(kind, str):
        problems.fail(index, "kind", f"expected the event's kind (text), got {short(kind)}")
    optional_str(event.get("parent_id"), problems, index, "parent_id")
    if named is not None and named != event_id:
        problems.note(
            index, "id", f"the file name names event {named!r}, the event's id is {event_id!r}"
        )
    out.indices.append(index)
    out.events.append(event)
    out.ids.append(event_id)
    out.kinds.append(kind)


def branch(events: Events, state: State, problems: Problems, state_problems: Problems) -> list[int]:
    """The positions (in ``events``) of the active branch, root first: the path from the HEAD
    (``leaf_event_id``; else the last event that is a tree node) to the root, each event's
    parent its ``parent_id`` (an event written before the SDK's conversation tree, July 2026,
    has none: its parent is the event before it), as ``EventLog.path_to_root`` walks it.

    Raises:
        TranscriptError: the HEAD or a parent names no event, or the parents make a cycle.
    """
    by_id: dict[str, int] = {}
    for position, event_id in enumerate(events.ids):
        if event_id in by_id:
            problems.note(
                events.indices[position],
                "id",
                f"event id {event_id!r} is used by an earlier event too (the first is the "
                "one a condensation or a parent names)",
            )
        else:
            by_id.setdefault(event_id, position)
    if state.leaf is not None:
        head = by_id.get(state.leaf)
        if head is None:
            state_problems.fail(None, "leaf_event_id", f"names no event: {state.leaf!r}")
    elif state.head_is_empty:
        return []
    else:
        head = next(
            (p for p in range(len(events.ids) - 1, -1, -1) if events.kinds[p] not in ARTIFACTS),
            None,
        )
    chain: list[int] = []
    seen: set[int] = set()
    while head is not None:
        if head in seen:
            problems.fail(events.indices[head], "parent_id", "the parents make a cycle")
        seen.add(head)
        chain.append(head)
        parent = events.events[head].get("parent_id")
        if parent == ROOT:
            break
        if parent is None:
            head = head - 1 if head > 0 else None
            continue
        head = by_id.get(parent)
        if head is None:
            problems.fail(events.indices[chain[-1]], "parent_id", f"names no event: {parent!r}")
    chain.reverse()
    return chain
