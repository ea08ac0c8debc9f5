"""Load pi coding agent sessions (JSON lines) as runs, one per file.

Layer: importers (a format module of the registry). pi (``badlogic/pi-mono``, the
``pi-coding-agent`` package; its session format is ``docs/session.md`` and
``src/core/session-manager.ts``) writes one session a file under ``~/.pi/agent/sessions/``:
the first line is the session header (``{"type": "session", "version": 3, "id", "timestamp",
"cwd"}``, ``parentSession`` for a fork); every other line is an entry with a ``type``. In a
version 2 or 3 session each entry has an ``id`` and a ``parentId``: the entries form a tree,
the session stands on the last entry (the leaf) and the conversation is the path from the root
to it; a version 1 session (no ``version``) is a list, every entry on it. The mapping:

* ``message`` entries hold an ``AgentMessage``. ``user`` messages are the person's: each is a
  request. ``assistant`` messages are replies: ``text`` blocks their text, ``toolCall`` blocks
  their tool calls (id, name, arguments), ``thinking`` blocks thinking parts (the block kept
  whole, ``thinkingSignature`` too; a ``redacted`` one is counted by its signature), its
  ``usage`` the call's usage (``input_tokens`` is pi's ``input`` plus ``cacheRead`` plus
  ``cacheWrite``: pi's ``input`` is the uncached part), its ``model`` / ``provider`` the run's
  model; pi's own ``cost`` is summed into ``meta["reported_cost"]`` (as pi reported it).
  ``toolResult`` messages are tool results, named by their ``toolCallId`` (``isError`` written
  ``error: `` before the text, as the lab writes a failed tool's result; early pi's ``output``
  text read as the content). A tool call of a reply that ended in an error or was aborted that
  no result answers was never run (pi does not run it and never sends the reply again): it is
  kept as a part (kind ``toolCall``, the block whole) and listed in
  ``meta["unexecuted_tool_calls"]``.
* What pi or an extension wrote into the context is sent as a user message and committed as an
  **observation** (never a request): a ``bashExecution`` (a command the person ran with ``!``,
  as the text pi sends; one run with ``!!`` is not sent and is counted in
  ``meta["excluded_bash"]``), ``custom`` messages and ``custom_message`` entries (an
  extension's), ``branch_summary`` entries (the summary of the branch the conversation came back
  from, between pi's prefix and suffix), and the ``developer`` / ``system`` messages some pi
  builds write (counted in ``meta["harness_roles"]``). A message role pi does not send is
  counted in ``meta["unsent_roles"]``.
* ``compaction`` entries are pi's own compaction: from there on, each call is sent the summary
  (a user message between pi's prefix and suffix), the messages of the path from
  ``firstKeptEntryId`` (version 1: ``firstKeptEntryIndex``; newer pi: ``retainedTail``) up to
  the compaction, then what follows. The history keeps every message; the first call after a
  compaction is given that window, so the run holds an **observed record** with policy ``"pi"``
  naming exactly what left (everything before the first kept entry, and the previous summary).
  ``meta["compactions"]`` lists each (``line``, ``id``, ``firstKeptEntryId``, ``tokensBefore``,
  ``fromHook``, ``kept_messages``, ``details``, and ``observed``: whether a call followed it, so
  that a record names what it removed — a compaction at the end of a session, or one a later
  compaction replaced before any call, sent nothing); the summary's own usage is in
  ``meta["summarizer_usage"]``.
* Entries off the path are **abandoned branches**: never in a window, listed in
  ``meta["abandoned_branches"]`` (the entry each branched ``from``, its ``entry_ids`` and
  ``lines``, how many ``messages``).
* ``model_change`` (``meta["model_changes"]``), ``thinking_level_change``
  (``meta["thinking_levels"]``), ``session_info`` (its latest ``name``: ``meta["name"]``),
  ``label`` (``meta["labels"]``: target id to label) and ``custom`` entries
  (``meta["custom_entries"]`` by ``customType``) are the session's facts; entries of a type pi
  does not send and this reader does not know are counted in ``meta["ignored_entries"]``.
* pi's JSON event stream (``pi --mode json``: the header, then ``agent_start`` /
  ``message_end`` / ``tool_execution_*`` ... events, ``docs/json.md``) is read too: its
  conversation is the messages of its ``message_end`` events, mapped as above;
  ``meta["stream_events"]`` counts its events. A compaction there
  (``auto_compaction_end``) names its first kept entry by a session entry id the stream does not
  carry: it is listed in ``meta["compactions"]`` and as a problem (what left is not known).

``meta`` also holds ``session_id``, ``version``, ``cwd``, ``timestamp``, ``parentSession``,
``model`` / ``provider`` (``models`` / ``providers`` when several), ``stop_reasons``,
``ended_replies``, ``leaf``, ``log_file`` and a ``label`` (the name, else the session id). A
session whose last reply ended in an error, was aborted or hit the length limit is
``incomplete`` (``meta["ended"]`` says which); otherwise the status follows its last message.
pi records no system prompt (the earliest sessions' header ``systemPrompt`` is read).

Faults name the file, the line (from 1) and the field inside the entry: a file that is not
UTF-8, a line that is not JSON or not an entry object with a text ``type``, an entry of a tree
session without a text ``id``, and any message field of the wrong type raise
:class:`TranscriptError`. What pi would read but is wrong is kept and listed (``strict=True``
raises at the first): a file without the header, duplicate entry ids, a ``parentId`` naming
no entry or a cycle of links (the path stops there, as pi's does), a compaction whose first
kept entry is not on the path, orphan results, unanswered calls, negative usage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    Problems,
    files_in,
    optional_str,
    read_each,
    read_text_file,
)
from footprint_lab.importers._sniff import FileFormat, Shape, Sniff
from footprint_lab.importers.pi._convert import Converter
from footprint_lab.importers.pi._session import Walk, walk_path
from footprint_lab.importers.pi._stream import walk_stream
from footprint_lab.importers.pi._tree import (
    FORMAT,
    UNIT,
    Session,
    abandoned_branches,
    active_path,
    read_session,
)

__all__ = ["FILE_FORMAT", "POLICY", "SOURCE", "SUFFIX", "load_pi"]

SOURCE = "pi"
"""The importer's name, on its runs (``run.provider``), its errors and its problems."""
POLICY = "pi"
"""The name observed window records give pi's compaction."""
SUFFIX = ".jsonl"
"""The file names a folder is searched for."""

_INCOMPLETE = frozenset({"error", "aborted", "length"})
"""Stop reasons of a last reply that did not finish."""


def _header_facts(session: Session, problems: Problems) -> dict[str, Any]:
    """The header's facts for ``meta`` (its text fields must be text)."""
    header = session.header or {}
    line = 1
    facts: dict[str, Any] = {
        "session_id": header.get("id"),
        "version": session.version if session.header is not None else None,
    }
    for key in ("cwd", "timestamp", "parentSession", "branchedFrom"):
        value = optional_str(header.get(key), problems, line, key)
        if value is not None or key in ("cwd", "timestamp"):
            facts[key] = value
    return facts


def _entry_facts(session: Session, problems: Problems) -> dict[str, Any]:
    """The session's name and labels, read over every entry as pi reads them."""
    name: str | None = None
    labels: dict[str, str] = {}
    for entry in session.entries:
        if entry.kind == "session_info":
            given = optional_str(entry.raw.get("name"), problems, entry.line, "name")
            if given:
                name = given.strip()
        elif entry.kind == "label":
            target = optional_str(entry.raw.get("targetId"), problems, entry.line, "targetId")
            label = optional_str(entry.raw.get("label"), problems, entry.line, "label")
            if target is not None and label:
                labels[target] = label
            elif target is not None:
                labels.pop(target, None)
    return {"name": name, "labels": labels}


def _meta(
    session: Session,
    walk: Walk,
    replies: Converter,
    facts: dict[str, Any],
    path: list[int],
    branches: list[dict[str, Any]],
) -> dict[str, Any]:
    """The session's facts for ``meta`` (see the module docstring)."""
    entries = session.entries
    meta: dict[str, Any] = {**facts}
    meta["model"] = replies.models[0] if replies.models else None
    meta["provider"] = replies.providers[0] if replies.providers else None
    if len(replies.models) > 1:
        meta["models"] = replies.models
    if len(replies.providers) > 1:
        meta["providers"] = replies.providers
    meta["model_changes"] = walk.model_changes
    meta["thinking_levels"] = walk.thinking_levels
    meta["stop_reasons"] = dict(replies.stop_reasons)
    meta["ended_replies"] = replies.ended
    meta["unexecuted_tool_calls"] = replies.unexecuted
    meta["reported_cost"] = dict(replies.cost) or None
    meta["compactions"] = walk.compactions
    meta["branch_summaries"] = walk.branch_summaries
    if walk.summarizer_usage:
        meta["summarizer_usage"] = walk.summarizer_usage
    meta["leaf"] = entries[path[-1]].id if path else None
    meta["entries"] = len(entries)
    meta["path_entries"] = len(path)
    meta["abandoned_branches"] = branches
    meta["custom_entries"] = dict(walk.custom_entries)
    meta["custom_messages"] = dict(walk.custom_messages)
    if walk.ignored:
        meta["ignored_entries"] = dict(walk.ignored)
    if replies.excluded_bash:
        meta["excluded_bash"] = replies.excluded_bash
    if replies.unsent_roles:
        meta["unsent_roles"] = dict(replies.unsent_roles)
    if replies.harness_roles:
        meta["harness_roles"] = dict(replies.harness_roles)
    return meta


def _outcome(walk: Walk, replies: Converter) -> tuple[str | None, str | None]:
    """``incomplete`` and pi's word for it, when the file ends on a reply that did not finish."""
    last = replies.last_stop
    if (
        last is None
        or walk.last_reply is None
        or walk.last_reply != len(walk.messages) - 1
        or last[0] not in _INCOMPLETE
    ):
        return None, None
    stop, error = last
    return "incomplete", f"{stop}: {error}" if error else stop


def _load_file(path: Path, strict: bool) -> Run:
    """One session file (or event stream) as a run."""
    where = str(path)
    problems = Problems(SOURCE, strict=strict, unit=UNIT, path=where)
    session = read_session(read_text_file(path, SOURCE, FORMAT), where, problems)
    facts = _header_facts(session, problems)
    facts.update(_entry_facts(session, problems))
    if session.events is not None:
        walk, replies, events = walk_stream(session.events, problems)
        meta = _meta(session, walk, replies, facts, [], [])
        meta["stream_events"] = dict(events)
    else:
        on_path, by_id = active_path(session, problems)
        walk, replies = walk_path(session, on_path, problems)
        branches = abandoned_branches(session, on_path, by_id)
        meta = _meta(session, walk, replies, facts, on_path, branches)
    meta["log_file"] = where
    meta["label"] = meta["name"] or meta["session_id"] or path.stem
    header = session.header or {}
    system = header.get("systemPrompt") if isinstance(header.get("systemPrompt"), str) else None
    model = meta["model"] or _changed_model(walk) or _header_model(header)
    if not walk.messages:
        problems.note(
            None, "messages", "no messages: an empty transcript, imported as an empty run"
        )
    outcome, detail = _outcome(walk, replies)
    return build_run(
        walk.messages,
        replies.usages,
        system=system,
        source=SOURCE,
        meta=meta,
        problems=problems.found,
        model=model,
        sent=walk.sent if any(window is not None for window in walk.sent) else None,
        policy=POLICY,
        kinds=walk.kinds,
        outcome=outcome,  # type: ignore[arg-type]
        outcome_detail=detail,
        strict=strict,
    )


def _changed_model(walk: Walk) -> str | None:
    """The model of the last ``model_change`` on the path (for a session with no reply)."""
    if not walk.model_changes:
        return None
    return walk.model_changes[-1].rsplit("/", 1)[-1]


def _header_model(header: Mapping[str, Any]) -> str | None:
    """The ``model`` the earliest pi sessions name in their header."""
    model = header.get("model")
    return model if isinstance(model, str) and model else None


def load_pi(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per pi session file (see the module docstring for the mapping).

    Args:
        path: A session ``.jsonl`` file, or a folder: every ``.jsonl`` file directly in it, in
            name order.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Returns:
        The runs, one per file.

    Raises:
        TranscriptError: a file cannot be read, a line is not JSON or not an entry, a field has
            the wrong type, or (when ``strict``) a problem was found — naming the file, the line
            and the field.
    """
    files = files_in(path, (SUFFIX,), SOURCE)
    return read_each(files, SOURCE, lambda file: [_load_file(file, strict)])


_ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
"""The entry types of a pi session (beside the header)."""
_FOREIGN_LINKS = frozenset({"uuid", "parentUuid", "leafUuid", "sessionId"})
"""Fields of Claude Code's entries, which link by ``uuid`` / ``parentUuid``."""
_ANTHROPIC_BLOCKS = re.compile(r'"type"\s*:\s*"tool_(?:use|result)"')
"""A content block of Anthropic's types, which pi never writes."""


def _pi_entry(line: Shape) -> bool:
    """A line that is a pi entry: one of pi's types beside ``id`` and ``parentId`` (and none of
    Claude Code's link fields)."""
    return (
        line.kind == "object"
        and line.text("type") in _ENTRY_TYPES
        and {"id", "parentId"} <= line.keys
        and not line.keys & _FOREIGN_LINKS
    )


def _claims(sniff: Sniff) -> bool:
    """JSON lines whose first line is pi's session header (``type`` ``"session"`` with a text
    ``id`` beside ``cwd`` or ``version``); or, for a file whose header is gone, whose first line
    is a pi entry (:func:`_pi_entry`), every line one of pi's types, and no block of Anthropic's
    ``tool_use`` / ``tool_result`` types (pi writes ``toolCall`` blocks and ``toolResult``
    messages; Factory Droid's message lines, which also link by ``id`` / ``parentId``, do not)."""
    lines = sniff.lines
    if not lines:
        return False
    first = lines[0]
    if (
        first.kind == "object"
        and first.text("type") == "session"
        and first.text("id") is not None
        and bool(first.keys & {"cwd", "version"})
    ):
        return True
    return (
        _pi_entry(first)
        and all(line.kind == "object" and line.text("type") in _ENTRY_TYPES for line in lines)
        and _ANTHROPIC_BLOCKS.search(sniff.text or "") is None
    )


def _resembles(sniff: Sniff) -> str | None:
    """For a file no format claims with lines of pi's types: what it lacks, and what to do."""
    for line in sniff.lines:
        if line.kind == "object" and (
            line.text("type") == "session" or line.text("type") in _ENTRY_TYPES - {"message"}
        ):
            return (
                "it looks like a pi coding agent session (lines of pi's entry types), but its "
                'first line is no pi session header ({"type": "session", "id": ..., '
                '"cwd": ...}) and no entry links by id / parentId: pass the session file from '
                "~/.pi/agent/sessions/ whole"
            )
    return None


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by='pi coding agent session: JSON lines, a {"type": "session"} header, entries '
    "linked by id / parentId",
    loader=load_pi,
    claims=_claims,
    resembles=_resembles,
)
"""How the registry tells and reads a pi session."""
