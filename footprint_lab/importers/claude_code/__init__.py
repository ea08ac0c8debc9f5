"""Load Claude Code session transcripts (JSONL, one entry a line) as runs, one per file.

Layer: importers. A session file is a log Claude Code appends to as the session runs; each
line is one JSON entry with a ``type``:

* ``user`` / ``assistant`` entries carry ``message``, an Anthropic Messages message whose
  content blocks (``text``, ``tool_use``, ``tool_result``, ``thinking``, ``image`` ...) are read
  by :func:`~footprint_lab.importers.chat.anthropic.parse_anthropic`: ``tool_result`` blocks in a
  user entry become tool messages, other typed blocks are kept as parts, ``message.usage`` is
  the reply's usage. Claude Code writes one assistant reply as several consecutive entries
  sharing one ``message.id`` (a content block each); they are merged into one assistant
  message, whose usage is that of the last of them that reports one. Entries flagged
  ``isSidechain`` belong to a sub-agent's own conversation, not this one: they are counted
  in ``meta['sidechain_entries']`` and not imported. ``isMeta`` entries were sent and are
  kept.
* **Requests.** A prompt the person typed (a slash command they invoked included:
  ``<command-name>`` text, and the command prompt Claude Code expands it to) is a request; a
  ``tool_result`` block is a tool result, so an entry holding only such blocks adds no user
  message at all. Text Claude Code wrote itself is committed as an ``observation``
  (:func:`~footprint_lab.messages.is_observation`: sent, never the request), told by its text
  because these files flag it inconsistently (``isMeta`` marks caveats and expanded command
  prompts alike, and is absent in older logs): the caveat it writes before a local command
  (:data:`CAVEAT`; newer versions wrap it in ``<local-command-caveat>``) and the messages of
  that command after it (``<command-name>`` / ``<command-args>`` /
  ``<local-command-stdout>`` ... text only: the model is told not to
  respond to them), a message holding nothing but ``<system-reminder>``,
  ``<local-command-stdout|stderr>`` or ``<bash-stdout|stderr>`` elements, and the
  ``[Request interrupted by user ...]`` notice. A message with typed text beside such
  elements, or with an image, stays a request.
* ``summary`` entries are the titles Claude Code writes for a session (``summary``,
  ``leafUuid``): they go to ``meta['summaries']``, except a ``summary`` entry that follows a
  compaction, before any turn, with no ``isCompactSummary`` entry standing in for it, and
  that is conversation (linked into the chain, or carrying a ``message``): that is the
  compaction's stand-in (its message, else its ``summary`` text).
* ``system`` entries are notices the model never sees, except ``subtype:
  "compact_boundary"``: Claude Code compacted the conversation there. The user entry flagged
  ``isCompactSummary`` that follows (else a ``summary`` entry, as above) holds the summary that
  replaced everything before the boundary. The history (``messages``) keeps every message
  before the boundary and never the summary; each assistant reply after the boundary was sent
  the summary, the messages the compaction kept verbatim (``compactMetadata.preservedSegment``)
  and the messages since the boundary, which is passed as its ``sent`` window with policy
  ``"claude-code"``, so the run holds an observed record naming exactly what the compaction
  removed. ``meta['compactions']`` lists each one (``boundary_line``, ``trigger``,
  ``preTokens``, ``summary_line``; ``summary_type: "summary"`` when a ``summary`` entry stood
  in, ``preserved_uuids`` when it kept a segment). A summary with no boundary before it starts
  a compacted part the same way.
* Entries of other types (``file-history-snapshot``, ...) are counted in
  ``meta['ignored_entries']``.

**Branches.** Entries are linked by ``uuid`` / ``parentUuid``; a rewind or an edited prompt
starts a new branch from an earlier entry and the old branch stays in the file. The
conversation is the chain Claude Code itself resumes (:mod:`._chain`): from the
newest leaf up its parents, across each boundary's ``logicalParentUuid``, with the sibling
entries of a split reply and their tool results. Only its entries are imported, in file order;
every other ``user`` / ``assistant`` entry is on an abandoned branch, never sent to a later
call, and is listed in ``meta['abandoned_branches']`` (each: ``leafUuid``, ``fork_uuid``,
``uuids``, ``lines``, ``message_count``, ``reason``). A file whose entries are not linked
(older logs) is read in file order. ``meta['order']`` says which (``"parentUuid chain"`` or
``"file order"``), ``meta['leaf_uuid']`` the leaf followed, ``meta['duplicate_lines']`` the
lines a later copy of their uuid replaced.

``meta`` holds ``sessionId`` (and ``session_ids`` when a file holds more than one), ``model``
(the first ``message.model`` of an assistant entry that is not ``<synthetic>``; ``models`` when
there are several), ``cwd``, ``version`` and ``gitBranch`` where present, ``log_file`` and a
``label``.

Faults name the file (``path``), the line number (``index``, from 1) and the field inside the
entry. A file that cannot be read or is not UTF-8, and a line that is not JSON (field
``"line"``), raise :class:`TranscriptError`. A session log is read entry by entry, as Claude
Code writes it and as claude-code-log reads it, so one unreadable entry does not make the rest
unreadable: a line that holds JSON but no entry (not an object, no ``type``) and a
``user`` / ``assistant`` entry whose ``message`` cannot be read (not an object, no content,
a block without a type, a ``tool_use`` without an id ...) are skipped and listed as problems
(``strict=True`` raises at the first). What a readable message has wrong (an orphan result,
``null`` text, negative usage ...) is kept and listed, as for every importer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import UserKind, build_run
from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    files_in,
    nested,
    parse_json_text,
    read_each,
    read_text_file,
    short,
)
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.chat.anthropic import parse_anthropic
from footprint_lab.importers.claude_code._chain import Chain, conversation, preserved_segments
from footprint_lab.importers.claude_code._session import (
    Session,
    Turn,
    add_summary,
    open_boundary,
    summary_entry,
    windows,
)
from footprint_lab.messages import Message

SOURCE = "claude-code"
"""The importer's name, on its runs (``run.provider``) and its problems."""
POLICY = "claude-code"
"""The name observed window records give Claude Code's compaction."""
SUFFIX = ".jsonl"
"""The file names a folder is searched for."""
UNIT = "line"
"""What an error's index counts: the line of the file (from 1)."""
FORMAT = "a Claude Code session (JSON lines: one entry object a line)"
"""The format this loader reads, as its errors name it."""
SYNTHETIC_MODEL = "<synthetic>"
"""The model Claude Code names on replies it wrote itself (API errors, interruptions)."""

__all__ = ["CAVEAT", "FILE_FORMAT", "POLICY", "SOURCE", "SUFFIX", "load_claude_code"]

_FACTS = ("sessionId", "cwd", "version", "gitBranch")
CAVEAT = "Caveat: The messages below were generated by the user while running local commands."
"""How the notice starts that Claude Code writes before the messages of a local command."""
_OUTPUT_TAGS = (
    "system-reminder",
    "local-command-stdout",
    "local-command-stderr",
    "bash-stdout",
    "bash-stderr",
)
"""Tags of text Claude Code writes into a user message: reminders it injects, and the output
of a local command or of a shell command the person ran (``!`` mode)."""
_LOCAL_TAGS = (
    *_OUTPUT_TAGS,
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "bash-input",
)
"""Tags of the messages a local command writes after its caveat (the command as typed too)."""
_INTERRUPTED = re.compile(r"\s*\[Request interrupted by user[^\]]*\]\s*")
"""The notice Claude Code writes where the person interrupted a reply."""


def _entries(text: str, where: str) -> list[tuple[int, Any]]:
    """Each non-blank line's JSON, with its line number (from 1)."""
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, parse_json_text(line, SOURCE, where, "line", FORMAT)))
        except TranscriptError as exc:
            raise TranscriptError(
                SOURCE, number, "line", exc.problem, path=where, unit=UNIT
            ) from None
    return out


def _kind_of(value: Any) -> str:
    """What a JSON value that is no entry is, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a list"


def _facts(entry: Mapping[str, Any], session: Session) -> None:
    """Note the session facts an entry carries (the first of each wins)."""
    for key in _FACTS:
        value = entry.get(key)
        if isinstance(value, str) and key not in session.facts:
            session.facts[key] = value
    session_id = entry.get("sessionId")
    if isinstance(session_id, str) and session_id not in session.session_ids:
        session.session_ids.append(session_id)


def _message(
    entry: Mapping[str, Any], role: str, session: Session, notes: Problems, line: int
) -> None:
    """Read one user or assistant entry into the session (or skip it, with a problem)."""
    message = entry.get("message")
    if not isinstance(message, Mapping):
        notes.note(
            line,
            "message",
            f"expected a message object, got {short(message)}; the entry is skipped",
        )
        return
    raw: dict[str, Any] = {"role": role, "content": message.get("content")}
    if role == "assistant":
        raw["usage"] = message.get("usage")
    try:  # the entry alone: does it read? (its problems are listed by the whole-file parse)
        parsed = parse_anthropic([raw])[0]
    except TranscriptError as exc:
        notes.note(line, f"message.{exc.field}", f"{exc.problem}; the entry is skipped")
        return
    content = raw["content"]
    uuid = entry.get("uuid")
    uuids = [uuid] if isinstance(uuid, str) else []
    if role == "user":
        if entry.get("isCompactSummary") is True:
            add_summary(parsed, session, line)
            return
        lines = [(line, k) for k in range(len(content))] if isinstance(content, list) else []
        turn = Turn("user", line, session.segment, content, len(parsed), lines, uuids=uuids)
        session.turns.append(turn)
        return
    model = message.get("model")
    if isinstance(model, str) and model != SYNTHETIC_MODEL and model not in session.models:
        session.models.append(model)
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    message_id = message.get("id") if isinstance(message.get("id"), str) else None
    last = session.turns[-1] if session.turns else None
    if (
        last is not None
        and last.role == "assistant"
        and message_id is not None
        and last.message_id == message_id
        and last.segment == session.segment
    ):
        last.content.extend(blocks)
        last.block_lines.extend((line, k) for k in range(len(blocks)))
        last.uuids.extend(uuids)
        if raw["usage"] is not None:
            last.usage, last.usage_line = raw["usage"], line
        return
    session.turns.append(
        Turn(
            "assistant",
            line,
            session.segment,
            blocks,
            1,
            [(line, k) for k in range(len(blocks))],
            message_id,
            raw["usage"],
            line,
            uuids,
        )
    )


def _read(entries: list[tuple[int, Any]], notes: Problems, chain: Chain | None) -> Session:
    """The session the entries hold: in file order, and only the conversation's entries when
    the file is linked (``chain``)."""
    session = Session()
    preserved = preserved_segments(entries)
    for line, entry in entries:
        if not isinstance(entry, dict):
            notes.note(line, "entry", f"not a session entry ({_kind_of(entry)}); skipped")
            continue
        _facts(entry, session)
        kind = entry.get("type")
        off = chain is not None and line not in chain.keep
        if not isinstance(kind, str):
            notes.note(line, "type", f"an entry needs a type, got {short(kind)}; skipped")
        elif kind == "summary":
            if not (off and isinstance(entry.get("uuid"), str)):
                summary_entry(entry, session, notes, line, chain is not None)
        elif kind == "system" and entry.get("subtype") == "compact_boundary":
            if not off:
                open_boundary(entry, session, notes, line, preserved)
        elif kind in ("user", "assistant"):
            if entry.get("isSidechain") is True:
                session.sidechain += 1
            elif not off:
                _message(entry, kind, session, notes, line)
        else:
            session.ignored[kind] += 1
    return session


def _only_tagged(text: str, tags: tuple[str, ...]) -> bool:
    """Whether ``text`` is nothing but elements with these tags (and white space), read in
    one pass."""
    rest = text.lstrip()
    if not rest:
        return False
    while rest:
        end = rest.find(">")
        tag = rest[1:end] if rest.startswith("<") and end > 0 else ""
        close = rest.find(f"</{tag}>", end) if tag in tags else -1
        if close < 0:
            return False
        rest = rest[close + len(tag) + 3 :].lstrip()
    return True


def _kinds(messages: list[Message]) -> dict[int, UserKind]:
    """The user messages Claude Code wrote, not the person: observations (see the module
    docstring), by index."""
    kinds: dict[int, UserKind] = {}
    local = False  # inside the messages a local command's caveat introduced
    for i, message in enumerate(messages):
        if message.role != "user" or message.parts:
            local = False
            continue
        text = message.content
        if text.lstrip().startswith(CAVEAT) or _only_tagged(text, ("local-command-caveat",)):
            kinds[i], local = "observation", True
        elif local and _only_tagged(text, _LOCAL_TAGS):
            kinds[i] = "observation"
        else:
            local = False
            if _only_tagged(text, _OUTPUT_TAGS) or _INTERRUPTED.fullmatch(text):
                kinds[i] = "observation"
    return kinds


def _meta(session: Session, where: str, path: Path, chain: Chain | None) -> dict[str, Any]:
    """The run's ``meta`` (see the module docstring)."""
    meta: dict[str, Any] = {
        "sessionId": session.session_ids[0] if session.session_ids else None,
        "model": session.models[0] if session.models else None,
    }
    meta.update({k: v for k, v in session.facts.items() if k != "sessionId"})
    if len(session.session_ids) > 1:
        meta["session_ids"] = session.session_ids
    if len(session.models) > 1:
        meta["models"] = session.models
    meta["summaries"] = session.titles
    meta["compactions"] = session.compactions
    meta["sidechain_entries"] = session.sidechain
    if session.ignored:
        meta["ignored_entries"] = dict(session.ignored)
    meta["order"] = "parentUuid chain" if chain is not None else "file order"
    meta["leaf_uuid"] = chain.leaf if chain is not None else None
    meta["abandoned_branches"] = chain.abandoned if chain is not None else []
    if chain is not None and chain.duplicates:
        meta["duplicate_lines"] = chain.duplicates
    meta["log_file"] = where
    meta["label"] = meta["sessionId"] or path.stem
    return meta


_ENTRY_TYPES = frozenset({"user", "assistant", "system", "summary"})
"""The entry types a Claude Code session file is made of (other types are skipped, noted)."""


def _load_file(path: Path, strict: bool) -> Run:
    """The run of one session file."""
    where = str(path)
    notes = Problems(SOURCE, strict=strict, unit=UNIT, path=where)
    entries = _entries(read_text_file(path, SOURCE, FORMAT), where)
    ours = sum(
        1
        for _, entry in entries
        if isinstance(entry, dict)
        and isinstance(entry.get("type"), str)
        and entry["type"] in _ENTRY_TYPES
    )
    if entries and not ours:
        # Another format's JSON lines: refused by name, never imported as an empty session.
        raise TranscriptError(
            SOURCE,
            None,
            "file",
            "not a Claude Code session: no line is an entry of type "
            f"{', '.join(sorted(_ENTRY_TYPES))}",
            path=where,
        )
    chain = conversation(entries)
    session = _read(entries, notes, chain)
    turns = session.turns

    def place(k: int | None, field: str) -> tuple[int | None, str]:
        # The k-th Anthropic message is the k-th turn: its line and the field in its entry.
        if k is None or not 0 <= k < len(turns):
            return None, field
        return turns[k].place(field)

    try:
        messages, usages, found = parse_anthropic([t.raw() for t in turns], strict=strict)
    except TranscriptError as exc:
        raise nested(exc, SOURCE, place, unit=UNIT, path=where) from None
    problems = [*notes.found, *nested(found.found, SOURCE, place, unit=UNIT, path=where)]
    return build_run(
        messages,
        usages,
        system=None,
        source=SOURCE,
        meta=_meta(session, where, path, chain),
        problems=problems,
        model=session.models[0] if session.models else None,
        sent=windows(session, messages),
        policy=POLICY,
        kinds=_kinds(messages),
    )


def load_claude_code(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per Claude Code session file (see the module docstring for the mapping).

    Args:
        path: A session ``.jsonl`` file, or a folder: every ``.jsonl`` file directly in it, in
            name order.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Returns:
        The runs, one per file.

    Raises:
        TranscriptError: a file cannot be read, a line is not JSON, or (when ``strict``) an
            entry is skipped or has a problem — naming the file, the line and the field.
    """
    files = files_in(path, (SUFFIX,), SOURCE)
    return read_each(files, SOURCE, lambda file: [_load_file(file, strict)])


_LINE_KEYS = frozenset({"uuid", "parentUuid", "leafUuid"})
"""Fields only Claude Code's entries carry (pi links entries by ``id`` / ``parentId``)."""


def _claims(sniff: Sniff) -> bool:
    """JSON lines of which one of the first is a Claude Code entry: a ``type`` beside
    ``uuid`` / ``parentUuid`` / ``leafUuid``, or beside ``sessionId`` and ``message``. Lines
    with ``type`` and ``message`` alone are not enough: other stacks' JSON lines (pi) have
    them too."""
    return any(
        line.kind == "object"
        and "type" in line.keys
        and (bool(line.keys & _LINE_KEYS) or {"sessionId", "message"} <= line.keys)
        for line in sniff.lines
    )


def _resembles(sniff: Sniff) -> str | None:
    """What to say of JSON lines that look like Claude Code's but are not."""
    if any(line.kind == "object" and {"type", "message"} <= line.keys for line in sniff.lines):
        return (
            "its lines have type and message as Claude Code's entries do, but none carries "
            "Claude Code's uuid / parentUuid / sessionId: it is not a Claude Code session"
        )
    return None


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="Claude Code session: JSON lines, each an entry with type and uuid / parentUuid",
    loader=load_claude_code,
    claims=_claims,
    resembles=_resembles,
)
"""How the registry tells and reads a Claude Code session."""
