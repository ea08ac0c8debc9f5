"""Load Gemini CLI chat recordings (``~/.gemini/tmp/<project>/chats/session-*.json[l]``) as
runs, one per file.

Layer: importers (a format module of the registry). Learned from Gemini CLI's own source
(``packages/core/src/services/chatRecordingService.ts``, ``chatRecordingTypes.ts``,
``core/geminiChat.ts``, ``core/client.ts``, ``utils/sessionUtils.ts``, v0.4 to v0.56).

**Two forms.** Up to v0.38 the recording is one JSON object (``sessionId``, ``projectHash``,
``startTime``, ``lastUpdated``, ``messages``; later ``summary``, ``directories``, ``kind``,
``memoryScratchpad``), rewritten whole on each change. From v0.39 it is JSON lines, a log
replayed as Gemini CLI replays it (:mod:`._log`): a header line with the session fields (also
absent: lines may start with a message), message records (a record with an ``id`` seen
again replaces the earlier version: a reply gains its usage and calls that way),
``{"$set": {...}}`` updates of the session fields, ``{"$set": {"messages": [...]}}``
checkpoints that replace the whole list, and ``{"$rewindTo": id}`` rewinds. Faults name the
file and the place: the line (from 1) of the JSON-lines form, the position in ``messages``
(from 0) of the object, and the field inside the record (``$set.messages[2].content[0]``...).

**Messages** (each record read by :mod:`._content`, threaded by :mod:`._thread`):

* ``user`` records are requests (their ``content``, as sent: ``@file`` expansions included;
  ``displayContent`` is what the person typed), except the text Gemini CLI writes into the
  conversation itself, committed as ``observation`` (sent, never the request): its
  ``<session_context>`` and ``<hook_context>`` turns, the ``Please continue.`` / ``System:
  Please continue.`` it sends when its next-speaker check (or an empty reply) says the model
  should go on (a person typing exactly that is read as the CLI), the IDE editor context,
  the workspace directory context, the report of a ``!`` shell command the person ran,
  plan-mode and background-task notes. ``functionResponse`` parts are tool results (Gemini
  CLI from v0.44 records the turn that sends them as a ``user`` record too), not user text.
* ``gemini`` records are one assistant message each: the text of the content (text parts
  joined; ``thought`` parts and, when the content has none, the ``thoughts`` summaries
  ``**subject** description`` are thinking parts: what the model generated, which Gemini CLI
  strips from what it sends back), its calls (``toolCalls``, and any
  ``functionCall`` part of the content they do not hold), and the tool results of those calls
  right after it: the call's own ``functionResponse`` in its ``result`` (its
  ``response.output`` text, else the response's compact JSON; parts after it, such as the
  image a file read returned, belong to it). A call recorded without a result is answered by
  none (listed as unanswered when a later reply comes), except that an ``error`` or
  ``cancelled`` ``status`` is its result (``cancelled: <resultDisplay>``: what the call
  returned is not recorded). A result recorded twice (on the call and in a later ``user``
  record) is one result (``meta["duplicate_results"]``). Older versions (before v0.32) put a
  reply that called tools without text or thoughts into the previous reply's record: its
  calls join that message, as Gemini CLI's own resume reads them.
* ``info``, ``error`` and ``warning`` records are the CLI's notices to the person, never sent
  to the model (Gemini CLI drops them when it resumes a session): kept in ``meta["notices"]``
  (the place, type and text), not in the conversation. One ``info`` record is sent: the
  binary output of a tool (an image or PDF a tool read) that Gemini CLI from v0.44 sends as a
  user turn, after a model turn it writes itself (the thought ``Binary content received.``,
  not a model call, counted in ``meta["skipped"]``); it is an observation. A record of
  another type is listed as a problem and counted in ``meta["skipped"]``.

**Usage.** A reply's ``tokens`` are Gemini's ``usageMetadata`` as recorded: ``input`` =
``promptTokenCount`` (the whole prompt, cached part included), ``cached`` =
``cachedContentTokenCount`` (part of ``input``), ``output`` = ``candidatesTokenCount`` (the
reply, thoughts excluded), ``thoughts`` = ``thoughtsTokenCount``, ``tool`` =
``toolUsePromptTokenCount`` and ``total`` = ``totalTokenCount`` = input + output + thoughts +
tool. So :class:`~footprint_lab.usage.Usage` has ``input_tokens = input + tool`` (every prompt
token), ``cache_read_tokens = cached`` and ``output_tokens = output + thoughts`` (every
generated token, as Gemini bills them); its total is ``total``. ``tokens: null`` (a reply
whose usage never arrived) is no usage.

**Compression and other edits of the window.** Gemini CLI's compression (``/compress``, or
automatic past its threshold) replaces the oldest part of the history with a summary turn
(user) and the model turn ``Got it. Thanks for the additional context!``. From v0.44 the
recorder writes the new history as a ``$set.messages`` checkpoint: the summary pair (and a
fresh ``<session_context>``) are new records, the turns it kept come back under new ids. The
first reply recorded after the log changed its list other than by appending (a checkpoint, a
rewind, a reply re-recorded with another text for a result it had: Gemini CLI masking a tool
output) is given the list Gemini CLI held just before it as its ``sent`` window (later replies
carry on from it), with policy ``"gemini-cli"``: the run holds an **observed** record naming
exactly what left (the compressed turns; the messages a ``/rewind`` dropped; a masked tool
output, a ``cleared-result`` stand-in in its place), and the summary pair is a stand-in, never
history. A checkpoint's new records are history only where nothing the history holds follows
them (the ``<session_context>`` a new session starts with); kept turns under new ids are
matched by content, and a reply a checkpoint writes as the parts sent is the recorded reply
when the texts differ only as the recorder cleans its text (trimmed, zero-width characters and
HTML comments removed). ``meta["compressions"]`` lists each checkpoint that holds a summary
(its line, the summary record's id and length), ``meta["checkpoints"]`` and ``meta["rewinds"]``
every checkpoint and rewind, ``meta["rewritten_results"]`` each masked re-recording.

Before v0.44 the recording holds **no** compression: the summary is never recorded, nor what
was kept (and a tool output masked before v0.39 (from v0.29) is only in the file masked). Only
the notice Gemini CLI showed may be there (from v0.18): an ``info`` record ``IMPORTANT: This
conversation exceeded the compress threshold ...`` or ``Context compressed from N% to M%.``
(from v0.33; automatic), or an empty ``info`` record (``/compress``, whose item has no text).
Those are listed in ``meta["compression_notices"]``; no observed record is made, and
``run.origin.recorded.inputs`` is false: the windows after it are not known. Before v0.25 a
compressed session went on in a new file, which starts after the summary.

**Meta**: the session fields as the file last set them (``sessionId``, ``projectHash``,
``startTime``, ``lastUpdated``, ``kind``, ``summary`` — a one-line title Gemini CLI
generates, not a compaction —, ``directories``, ``memoryScratchpad``), ``model`` (the first
reply's; ``models`` when there are several), ``form`` (``json`` or ``json-lines``),
``notices``, ``compressions``, ``compression_notices``, ``checkpoints``, ``rewinds``,
``rewritten_results``, ``skipped``, ``duplicate_results``, ``results_from_status``,
``ignored_lines`` (lines of no record kind, counted), ``log_file`` and ``label`` (the session
id, else the file name). The recording holds no system prompt and no tool declarations.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    EMPTY_TRANSCRIPT,
    Problems,
    TranscriptError,
    files_in,
    message_list,
    parse_json_text,
    read_each,
    read_text_file,
)
from footprint_lab.importers._sniff import FileFormat, Shape, Sniff
from footprint_lab.importers.gemini_cli._content import (
    MESSAGE_TYPES,
    NOTICE_TYPES,
    Converted,
    Version,
    reply_key,
)
from footprint_lab.importers.gemini_cli._log import META_KEYS, Recording, fold_lines, fold_object
from footprint_lab.importers.gemini_cli._records import convert
from footprint_lab.importers.gemini_cli._thread import thread
from footprint_lab.importers.recorded import note_recorded
from footprint_lab.messages import Message

__all__ = ["FILE_FORMAT", "POLICY", "SOURCE", "SUFFIXES", "load_gemini_cli"]

SOURCE = "gemini-cli"
"""The importer's name, on its runs (``run.provider``) and its problems."""
POLICY = "gemini-cli"
"""The name observed window records give Gemini CLI's own edits of its window."""
SUFFIXES = (".json", ".jsonl")
"""The file names a folder is searched for."""
FORMAT = "a Gemini CLI chat recording (a JSON object with sessionId and messages, or JSON lines)"
"""The format this loader reads, as its errors name it."""
_COMPRESSED = re.compile(
    r"^(IMPORTANT: This conversation exceeded the compress threshold|Context compressed from)"
)


def _json_lines(text: str, where: str) -> list[tuple[int, Any]] | None:
    """Each non-blank line's JSON with its number, when the first one is JSON on its own (the
    JSON-lines form); None for the object form (also when written on one line)."""
    rows = text.split("\n")
    first = next((row for row in rows if row.strip()), None)
    if first is None:
        return []
    try:
        value = parse_json_text(first, SOURCE, where)
    except TranscriptError:
        return None
    if isinstance(value, dict) and "messages" in value and first.strip() == text.strip():
        return None  # the object form, written on one line
    out: list[tuple[int, Any]] = []
    for number, row in enumerate(rows, start=1):
        if row.strip():
            try:
                out.append((number, parse_json_text(row, SOURCE, where, "line", FORMAT)))
            except TranscriptError as exc:
                raise TranscriptError(
                    SOURCE, number, "line", exc.problem, path=where, unit="line"
                ) from None
    return out


class _Quiet:
    """Records read with problems discarded (for comparing and for windows), each once."""

    def __init__(self, problems: Problems) -> None:
        """Read with ``problems`` (never strict)."""
        self.problems = problems
        self.done: dict[Version, Converted] = {}

    def __call__(self, v: Version) -> Converted:
        """The record ``v`` read (once)."""
        found = self.done.get(v)
        if found is None:
            found = self.done[v] = convert(v, self.problems)
        return found


def _recording(
    text: str, where: str, strict: bool, quiet: _Quiet
) -> tuple[Recording, Problems, str]:
    """The file read and replayed (see :mod:`._log`), with its problems and its form."""
    rows = _json_lines(text, where)
    if rows is not None:
        problems = Problems(SOURCE, strict=strict, unit="line", path=where)
        quiet.problems = Problems(SOURCE, unit="line", path=where)
        recording = fold_lines(rows, problems, quiet)
        if rows and not recording.records:
            raise TranscriptError(
                SOURCE,
                None,
                "file",
                "not a Gemini CLI chat recording: no line is a session header, a message "
                "record (with an id), a $set update or a $rewindTo",
                path=where,
            )
        return recording, problems, "json-lines"
    value = parse_json_text(text, SOURCE, where, "file", FORMAT)
    if not isinstance(value, dict) or "sessionId" not in value:
        raise TranscriptError(
            SOURCE,
            None,
            "file",
            f"not a Gemini CLI chat recording: expected {FORMAT}",
            path=where,
        )
    problems = Problems(SOURCE, strict=strict, unit="message", path=where)
    listed = message_list(value["messages"], problems) if "messages" in value else []
    if "messages" not in value:
        problems.note(None, "messages", EMPTY_TRANSCRIPT)
    return fold_object(value, list(listed), problems), problems, "json"


def _meta(
    recording: Recording,
    converted: list[Converted],
    models: list[str],
    unit: str,
    path: Path,
) -> dict[str, Any]:
    """The file's own facts (see the module docstring)."""
    facts = recording.facts
    meta: dict[str, Any] = {key: facts[key] for key in META_KEYS if key in facts}
    session = facts.get("sessionId")
    meta["sessionId"] = session if isinstance(session, str) else None
    meta["model"] = models[0] if models else None
    if len(models) > 1:
        meta["models"] = models
    notices: list[dict[str, Any]] = []
    compressed: list[dict[str, Any]] = []
    for c in converted:
        if c.kind in NOTICE_TYPES:
            notices.append({unit: c.version.index, "type": c.kind, "text": c.text})
            if c.kind == "info" and (not c.text or _COMPRESSED.match(c.text)):
                compressed.append(notices[-1])
    meta["notices"] = notices
    meta["compression_notices"] = compressed
    meta["checkpoints"] = recording.checkpoints
    meta["rewinds"] = recording.rewinds
    meta["rewritten_results"] = recording.rewritten
    meta["skipped"] = dict(Counter(c.why for c in converted if c.why is not None))
    if recording.ignored:
        meta["ignored_lines"] = dict(recording.ignored)
    meta["log_file"] = str(path)
    meta["label"] = meta["sessionId"] or path.stem
    return meta


def _windows(
    recording: Recording, history: list[Message], replies: list[int], quiet: _Quiet
) -> list[list[Message] | None]:
    """What each reply was sent, where the log changed its list before it (else None). A
    reply a checkpoint holds as its parts reads as the history's reply (see
    :func:`._content.reply_key`)."""
    twins: dict[tuple[object, ...], str] = {}
    for message in history:
        if message.role == "assistant":
            twins.setdefault(reply_key(message), message.content)
    made: dict[tuple[int, str, str], Message] = {}
    sent: list[list[Message] | None] = []
    for position in replies:
        listed = recording.windows.get(position)
        if listed is None:
            sent.append(None)
            continue
        window = thread([quiet(v) for v in listed], quiet.problems, made).messages
        for k, message in enumerate(window):
            text = twins.get(reply_key(message)) if message.role == "assistant" else None
            if text is not None and text != message.content:
                window[k] = message.model_copy(update={"content": text})
        sent.append(window)
    return sent


def _load_file(path: Path, strict: bool) -> Run:
    """One recording as one run."""
    where = str(path)
    quiet = _Quiet(Problems(SOURCE, unit="message", path=where))
    text = read_text_file(path, SOURCE, FORMAT)
    recording, problems, form = _recording(text, where, strict, quiet)
    if not recording.history and recording.records:
        problems.note(None, "messages", EMPTY_TRANSCRIPT)
    converted = [convert(v, problems) for v in recording.history]
    threaded = thread(converted, problems)
    models: list[str] = []
    for c in converted:
        if c.model and c.model not in models:
            models.append(c.model)
    sent: list[list[Message] | None] | None = None
    if recording.windows:
        sent = _windows(recording, threaded.messages, [*threaded.replies], quiet)
    meta = _meta(recording, converted, models, problems.unit, path)
    meta["form"] = form
    meta["compressions"] = [
        {"line": c["line"], "summary_id": c["summary_id"], "summary_chars": c["summary_chars"]}
        for c in recording.checkpoints
        if c["compression"]
    ]
    meta["duplicate_results"] = threaded.duplicates
    meta["results_from_status"] = threaded.from_status
    run = build_run(
        threaded.messages,
        threaded.usages,
        system=None,
        source=SOURCE,
        meta=meta,
        problems=problems.found,
        model=models[0] if models else None,
        sent=sent,
        policy=POLICY,
        kinds=threaded.kinds,
    )
    if meta["compression_notices"] and not meta["compressions"]:
        # Gemini CLI compressed and the file did not record it: later windows are not known.
        note_recorded(run, inputs=False)
    return run


def load_gemini_cli(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per Gemini CLI chat recording (see the module docstring for the mapping).

    Args:
        path: A recording (``.json`` or ``.jsonl``), or a folder: every such file directly in
            it, in name order.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Returns:
        The runs, one per file.

    Raises:
        TranscriptError: a file cannot be read, is not JSON (a line of the JSON-lines form is
            not), is not a Gemini CLI recording, or a record is malformed (or, when
            ``strict``, has a problem) — naming the file, the line or message, and the field.
    """
    files = files_in(path, SUFFIXES, SOURCE)
    return read_each(files, SOURCE, lambda file: [_load_file(file, strict)])


_FOREIGN = frozenset({"uuid", "parentUuid", "leafUuid", "parentId", "payload", "message", "role"})
"""Keys of other stacks' JSON lines (Claude Code, pi, Codex ...) no Gemini CLI record has."""


def _header(line: Shape) -> bool:
    """A session header line: ``sessionId`` with ``projectHash`` or ``startTime``."""
    keys = line.keys
    return (
        line.kind == "object"
        and "sessionId" in keys
        and bool(keys & {"projectHash", "startTime"})
        and "type" not in keys
        and not keys & _FOREIGN
    )


def _message(line: Shape) -> bool:
    """A message record line: ``id``, ``timestamp`` and one of Gemini CLI's message types."""
    return (
        line.kind == "object"
        and {"id", "timestamp", "type"} <= line.keys
        and line.text("type") in MESSAGE_TYPES
        and not line.keys & _FOREIGN
    )


def _claims(sniff: Sniff) -> bool:
    """An object with ``sessionId`` and ``messages`` (and ``projectHash`` or ``startTime``),
    or JSON lines whose first line is the session header or a message record."""
    first = sniff.first
    if (
        first.kind == "object"
        and {"sessionId", "messages"} <= first.keys
        and bool(first.keys & {"projectHash", "startTime"})
    ):
        return True
    lines = sniff.lines
    return bool(lines) and (_header(lines[0]) or _message(lines[0]))


def _resembles(sniff: Sniff) -> str | None:
    """For a file no format claims: whether it looks like a Gemini CLI recording, and why it
    is not one."""
    first = sniff.first
    if first.kind == "list" and {"role", "parts"} <= first.keys:
        return (
            "it looks like a chat Gemini CLI saved with /chat save (a list of Gemini API "
            "contents with role and parts), not its chat recording: load the session's "
            "recording from ~/.gemini/tmp/<project>/chats/ (gemini-cli)"
        )
    if first.kind == "object" and {"sessionId", "messages"} <= first.keys:
        return (
            "it has a Gemini CLI chat recording's sessionId and messages but neither "
            "projectHash nor startTime: if Gemini CLI wrote it, restore those fields "
            "(gemini-cli)"
        )
    lines = sniff.lines
    if lines and lines[0].kind == "object" and lines[0].keys & {"$set", "$rewindTo"}:
        return (
            "it looks like a Gemini CLI JSON-lines recording that lost its first lines (it "
            "starts with a $set or $rewindTo update): restore the session header line "
            "(sessionId, projectHash, startTime) (gemini-cli)"
        )
    if any(line.text("type") == "gemini" and "id" in line.keys for line in lines):
        return (
            "some of its lines are Gemini CLI message records, but its first line is neither "
            "the session header nor a message record (gemini-cli)"
        )
    return None


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="Gemini CLI chat recording: an object with sessionId, projectHash and messages, "
    "or JSON lines of its session header and message records",
    loader=load_gemini_cli,
    claims=_claims,
    resembles=_resembles,
)
"""How the registry tells and reads a Gemini CLI chat recording."""
