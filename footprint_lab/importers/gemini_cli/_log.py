"""A Gemini CLI chat recording read into its history, the message list each model call was
given, and the recorder's own facts.

Layer: importers (private to :mod:`footprint_lab.importers.gemini_cli`). The JSON-lines form
is a log, replayed as Gemini CLI's own ``loadConversationRecord`` replays it: a record with an
``id`` adds a message or replaces the one with that id in place; ``{"$rewindTo": id}`` drops
that message and every later one (all of them when the id is unknown); ``{"$set": {...}}``
updates the session's fields, and when it holds ``messages`` replaces the whole list (a
checkpoint); a line with ``sessionId`` and ``projectHash`` is the session header (a whole
legacy record when it holds ``messages``). Unlike Gemini CLI, nothing is forgotten: the
history keeps every message any line recorded, in the order it first appeared, and the list
Gemini CLI held when each model reply was recorded is that call's window.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._parts import Problems, TranscriptError, json_value, short
from footprint_lab.importers.gemini_cli._content import (
    COMPRESSION_ACK,
    MESSAGE_TYPES,
    Converted,
    Version,
)

__all__ = ["META_KEYS", "Recording", "fold_lines", "fold_object"]

META_KEYS = (
    "sessionId",
    "projectHash",
    "startTime",
    "lastUpdated",
    "kind",
    "summary",
    "directories",
    "memoryScratchpad",
)
"""The session fields kept in ``meta`` (as the file gives them)."""

Convert = Callable[[Version], Converted]
"""What a record is, read quietly (for comparing content)."""


@dataclass
class Recording:
    """What a recording holds, before its messages are read."""

    facts: dict[str, Any] = field(default_factory=dict)
    """The session fields (:data:`META_KEYS`), as last set."""
    history: list[Version] = field(default_factory=list)
    """Every message record, in the order it first appeared; its latest version, except
    that a version rewriting a result already recorded (Gemini CLI masking a tool output)
    goes to the windows only."""
    windows: dict[int, list[Version]] = field(default_factory=dict)
    """For the first reply recorded after the log changed its list other than by appending
    (a checkpoint, a rewind, a rewritten result): its history position -> the list Gemini CLI
    held just before it. Every later reply was sent that list and what came since, as the
    run's own windows carry on."""
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    rewinds: list[dict[str, Any]] = field(default_factory=list)
    rewritten: list[dict[str, Any]] = field(default_factory=list)
    ignored: Counter[str] = field(default_factory=Counter)
    records: int = 0
    """How many lines (or messages) are Gemini CLI records of a kind it writes (a header, a
    message of one of its types, an update, a rewind)."""


class _Fold:
    """The JSON-lines replay (see the module docstring)."""

    def __init__(self, problems: Problems, quiet: Convert) -> None:
        """Start with nothing read; ``quiet`` reads a record for comparing."""
        self.problems = problems
        self.quiet = quiet
        self.out = Recording()
        self.state: list[Version] = []
        self.at: dict[str, int] = {}  # id -> place in the list
        self.position: dict[str, int] = {}  # id -> history position
        self.stand_ins: set[str] = set()  # ids only ever in windows (summaries ...)
        self.changed = False  # the list changed other than by appending since the last reply

    def _place(self, message_id: str) -> int | None:
        """Where the message ``message_id`` is in the list (None: not there)."""
        return self.at.get(message_id)

    def _list(self, versions: list[Version]) -> None:
        """The list Gemini CLI holds becomes ``versions``."""
        self.state = versions
        self.at = {v.id: k for k, v in enumerate(versions) if v.id is not None}

    def _append(self, v: Version) -> None:
        """Add ``v`` at the end of the list."""
        if v.id is not None:
            self.at[v.id] = len(self.state)
        self.state.append(v)

    def message(self, v: Version) -> None:
        """A message line: a new message, or a new version of one."""
        message_id = v.id
        assert message_id is not None
        kind = v.raw.get("type")
        self.out.records += isinstance(kind, str) and kind in MESSAGE_TYPES
        at = self.position.get(message_id)
        if at is None and message_id not in self.stand_ins:
            if self.changed and v.raw.get("type") == "gemini":
                self.out.windows[len(self.out.history)] = list(self.state)
                self.changed = False
            self.position[message_id] = len(self.out.history)
            self.out.history.append(v)
            self._append(v)
            return
        if at is not None and self._rewrites(self.out.history[at], v):
            self.changed = True
            self.out.rewritten.append({"line": v.index, "id": message_id})
        elif at is not None:
            self.out.history[at] = v
        place = self._place(message_id)
        if place is None:
            self._append(v)
        else:
            self.state[place] = v

    def _rewrites(self, old: Version, new: Version) -> bool:
        """Whether ``new`` changes the text of a tool result ``old`` already recorded (Gemini
        CLI masking a tool output it will no longer send whole)."""
        if not isinstance(old.raw.get("toolCalls"), list):
            return False
        try:
            before = {r.call_id: r.text for r in self.quiet(old).results if not r.from_status}
            after = {r.call_id: r.text for r in self.quiet(new).results if not r.from_status}
        except TranscriptError:
            return False  # the history reads the latest version, and names its fault
        return any(key in after and after[key] != text for key, text in before.items())

    def rewind(self, line: int, target: str) -> None:
        """``$rewindTo``: the message and every later one leave the list."""
        self.out.records += 1
        place = self._place(target)
        cut = 0 if place is None else place
        self.out.rewinds.append(
            {"line": line, "to": target, "found": place is not None, "left": len(self.state) - cut}
        )
        self._list(self.state[:cut])
        self.changed = True

    def checkpoint(self, line: int, listed: list[Any]) -> None:
        """``$set.messages``: the list replaced whole (see the package docstring for how its
        new messages are told from stand-ins)."""
        versions: list[Version] = []
        for k, raw in enumerate(listed):
            if isinstance(raw, Mapping) and isinstance(raw.get("id"), str):
                versions.append(Version(raw, line, f"$set.messages[{k}]."))
            else:
                self.problems.note(
                    line,
                    f"$set.messages[{k}]",
                    f"not a message record (no id), got {short(raw)}; skipped, as Gemini CLI "
                    "skips it",
                )
        known = self._known(versions)
        ack = max(
            (k for k, v in enumerate(versions) if self._is_ack(v, versions[k - 1] if k else None)),
            default=-1,
        )
        last_known = max((k for k, flag in enumerate(known) if flag), default=-1)
        tail = max(ack, last_known) + 1
        for k, v in enumerate(versions):
            assert v.id is not None
            if v.id in self.position or v.id in self.stand_ins:
                continue
            if known[k]:
                self.stand_ins.add(v.id)  # a kept turn's new id: its content is history
            elif k >= tail:
                self.position[v.id] = len(self.out.history)
                self.out.history.append(v)
            else:
                self.stand_ins.add(v.id)
        self.out.records += 1
        summary = versions[ack - 1] if ack > 0 else None
        self.out.checkpoints.append(
            {
                "line": line,
                "messages": len(versions),
                "compression": summary is not None,
                "summary_id": None if summary is None else summary.id,
                "summary_chars": None if summary is None else self._chars(summary),
            }
        )
        self._list(versions)
        self.changed = True

    def _is_ack(self, v: Version, before: Version | None) -> bool:
        """Whether ``v`` is the model turn Gemini CLI writes after a compression summary."""
        if before is None or before.raw.get("type") != "user" or v.raw.get("type") != "gemini":
            return False
        if v.id in self.position or before.id in self.position:
            return False
        content = v.raw.get("content")
        texts = [content] if isinstance(content, str) else content
        return (
            isinstance(texts, list)
            and len(texts) == 1
            and (texts[0] == COMPRESSION_ACK or texts[0] == {"text": COMPRESSION_ACK})
            and not v.raw.get("toolCalls")
        )

    def _known(self, versions: list[Version]) -> list[bool]:
        """For each checkpoint message: whether the history already holds it (by id, or by
        content — every message and result it sends is one the history holds: Gemini CLI
        gives the turns it keeps new ids)."""
        flags = [v.id in self.position or v.id in self.stand_ins for v in versions]
        if all(flags):
            return flags
        held: set[tuple[object, ...]] = set()
        for old in self.out.history:
            held.update(self._keys(old))
        out: list[bool] = []
        for flag, v in zip(flags, versions, strict=True):
            keys = self._keys(v)
            out.append(flag or (bool(keys) and all(key in held for key in keys)))
        return out

    def _keys(self, v: Version) -> list[tuple[object, ...]]:
        """What the record sends (nothing when it does not read)."""
        try:
            return self.quiet(v).keys()
        except TranscriptError:
            return []

    def _chars(self, v: Version) -> int | None:
        """The length of a record's text (None when it does not read)."""
        try:
            return len(self.quiet(v).text)
        except TranscriptError:
            return None


def _header(record: Mapping[str, Any]) -> bool:
    """A session header (or a whole legacy record on one line): ``sessionId`` with
    ``projectHash`` or ``startTime``, and no message ``type``."""
    return (
        isinstance(record.get("sessionId"), str)
        and any(isinstance(record.get(k), str) for k in ("projectHash", "startTime"))
        and "type" not in record
    )


def _facts(
    out: Recording, record: Mapping[str, Any], problems: Problems, line: int, prefix: str = ""
) -> None:
    """The session fields a header or a ``$set`` update gives (the last given wins)."""
    for key in META_KEYS:
        if key in record:
            out.facts[key] = json_value(record[key], problems, line, f"{prefix}{key}")


def fold_lines(lines: list[tuple[int, Any]], problems: Problems, quiet: Convert) -> Recording:
    """Replay the JSON lines of a recording (each with its line number)."""
    fold = _Fold(problems, quiet)
    out = fold.out
    for line, record in lines:
        if not isinstance(record, Mapping):
            out.ignored["not an object"] += 1
            continue
        if isinstance(record.get("$rewindTo"), str):
            fold.rewind(line, record["$rewindTo"])
        elif isinstance(record.get("id"), str):
            fold.message(Version(record, line))
        elif isinstance(record.get("$set"), Mapping):
            update = record["$set"]
            _facts(out, update, problems, line, "$set.")
            listed = update.get("messages")
            if isinstance(listed, list):
                fold.checkpoint(line, listed)
            else:
                out.records += 1
                if listed is not None:
                    problems.note(
                        line, "$set.messages", f"expected a list, got {short(listed)}; ignored"
                    )
        elif _header(record):
            out.records += 1
            _facts(out, record, problems, line)
            listed = record.get("messages")
            if isinstance(listed, list):
                for k, raw in enumerate(listed):
                    if isinstance(raw, Mapping) and isinstance(raw.get("id"), str):
                        fold.message(Version(raw, line, f"messages[{k}]."))
                    else:
                        out.ignored["message without an id"] += 1
        else:
            if "type" in record and "content" in record:
                problems.note(
                    line,
                    "id",
                    "a message record needs an id (text); skipped, as Gemini CLI skips it",
                )
            out.ignored[",".join(sorted(record)[:3]) or "{}"] += 1
    return out


def fold_object(record: Mapping[str, Any], listed: list[Any], problems: Problems) -> Recording:
    """A recording written as one JSON object: its messages in order, its session fields."""
    out = Recording()
    for key in META_KEYS:
        if key in record:
            out.facts[key] = json_value(record[key], problems, None, key)
    for k, raw in enumerate(listed):
        if not isinstance(raw, Mapping):
            problems.fail(k, "message", f"expected a message object, got {short(raw)}")
        out.history.append(Version(raw, k))
        out.records += 1
    return out
