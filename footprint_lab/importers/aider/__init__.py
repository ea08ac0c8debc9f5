"""Load Aider chat histories (``.aider.chat.history.md``) as runs, one per session.

Layer: importers. Aider appends every session to one Markdown file (``--chat-history-file``,
default ``.aider.chat.history.md``), so a file holds many sessions, each opened by a line
``# aider chat started at <time>``. This reader follows what Aider's own source writes and
sends (``aider/io.py``: ``append_chat_history``, ``user_input``, ``ai_output``,
``tool_output``, ``confirm_ask``; ``aider/coders/base_coder.py``: ``run_one``,
``send_message``, ``move_back_cur_messages``, ``show_usage_report``;
``aider/commands.py``; ``aider/coders/architect_coder.py``), v0.10 to v0.86; how the lines are
read back is in :mod:`._lines`.

**One run per session.** A session whose model never replied (only startup output, commands,
or an input with no answer) is no run: ``meta['skipped_sessions']`` of the file's first run
lists each (session number, header line, time, how many requests it held) and every run's
``meta['sessions_skipped']`` counts them. A file that starts inside a session (cut before its
header) reads those items as session 0, with a problem when it holds a reply.

**What becomes what** (Aider has no tool-call protocol: it sends the model plain user
messages, and edits are SEARCH/REPLACE blocks in the reply's text):

* a ``####`` block (consecutive ``####`` lines are one input) is the person's **request** —
  unless it is a command (text starting ``/`` or ``!``: Aider runs it, never sends it; counted
  in ``meta['commands']``), an empty input (``<blank>``) or a confirmation Aider answered
  itself (``... (Y)es/(N)o ... [Yes]: all``), which are not sent. ``/ask X`` (``/code``,
  ``/architect``, ``/context``, ``/help``) logs ``/ask X`` and then ``X`` (for ``/help``, the
  question with the docs Aider found) as a ``####`` block of its own: that block is the
  request;
* two ``####`` blocks are text Aider's own sub-coders send, each starting from an empty
  history: the linter's fix request (``# Fix any errors below, if possible.``, from
  ``/lint`` or ``--lint``) and the architect's answer handed to the editor model (the block
  equals the reply before it). Each is an **observation** (a user message never the request);
* the text between blank lines that is neither is the model's **reply** (an assistant message,
  SEARCH/REPLACE blocks and all); a leading ``<thinking-content-…>`` / ``<think>`` block is
  kept as a ``thinking`` part (Aider logs it but strips it from the history it sends back);
* ``>`` entries are Aider's output. Most is shown to the person only (startup lines, "Applied
  edit to ...", commits, warnings, questions): counted in ``meta['shown_only']``. What Aider
  *sent* is told by the replies: a reply that follows another reply or a command with no
  request between answers a message Aider sent itself — a reflection (lint or test errors, an
  edit that failed to apply, files the reply mentioned that were added), ``/run`` or ``/test``
  output the person chose to add (sent at once before v0.64), a ``/web`` page (before v0.63),
  the ``/undo`` note, an ``AI!`` comment under ``--watch-files``. That message is an
  **observation** whose text is Aider's output since the last reply or command *as the file
  shows it*: the text sent is built by Aider from it (a prompt template, the command's output,
  the linter's report) and is not in the file word for word. ``meta['observations']`` lists
  each (line, what preceded it); a watch-mode request, whose text the file never holds, is
  also in ``meta['unrecorded_requests']``. Two replies are not such answers: one after
  ``Retrying in ...`` retries the call whose partial reply the file logged before the error (a
  retry that starts the reply again was sent the window without the partial one;
  ``meta['retried_calls']``), and one after a command typed while it was on its way answers
  the request before that command. Bookkeeping pairs Aider adds without a call (the commit
  note and ``Ok.``; since v0.63 a ``/web`` page and since v0.64 ``/run`` output, each followed
  by ``Ok.``) are not in the file and not imported.

**Usage.** ``> Tokens: 2,431 sent, 120 received. Cost: $0.01 message, $0.05 session.`` (cache
writes and hits in between where the API reports them) is the usage of the reply it follows.
Aider prints counts of 1,000 and more rounded (``2.3k``, ``12k``) since v0.52, and
:class:`~footprint_lab.usage.Usage` has no way to say a count is rounded, so a report becomes
the reply's usage only when every count in it is printed whole (``sent`` as input tokens —
Aider adds cache writes to it —, ``received`` as output, ``cache hit`` / ``cached`` as cache
reads, ``cache write`` as cache writes); a rounded one leaves the reply without usage and is
listed in ``meta['rounded_usage']`` (iteration, line, the report as printed, its approximate
counts; ``meta['usage_note']`` says so). A whole count may still be Aider's own tokenizer
count where the API reported none: the file does not say. A report with no reply before it (a
failed or interrupted call) is in ``meta['calls_without_reply']``; the last printed session
cost is ``meta['cost_session']``.

**Windows.** The file does not record what each call was sent: Aider's system prompt, repo
map and file contents are never in it, and neither is its summarizing of old chat history
(``ChatSummary``, run in the background when the history grows, or when the edit format
changes; ``--restore-chat-history`` loads a summary of earlier sessions:
``meta['restored_history']``). So ``meta['recorded']['inputs']`` is False and each call's
window is the conversation up to it — except where Aider *removed* messages, filed as
observed records of policy ``"aider"`` naming what left: ``/clear`` and ``/reset`` (the
conversation since is all later calls get; ``meta['clears']``), and a sub-coder's calls (its
window is its own messages only; the conversation it interrupted resumes after it;
``meta['sub_coders']``).

**Meta.** ``session`` (from 1; 0 for a headless start), ``sessions_in_file``, ``started_at``
(the header's local time), ``header_line``, ``model`` (the first main model announced;
``models`` when ``/model`` changed it), ``aider_version``, ``edit_format``, ``weak_model``,
``editor_model``, ``repo_map``, ``git_repo``, ``command_line``, ``commands``, ``shown_only``,
``ignored_inputs``, ``observations``, ``clears``, ``sub_coders``, ``rounded_usage``,
``calls_without_reply``, ``cost_session``, ``log_file``, ``label``; where they apply
``usage_note``, ``unrecorded_requests``, ``retried_calls``, ``restored_history``, and
``mode_line`` when the file's first line is an Emacs mode line.

**Problems** (``unit`` ``line``, from 1): a reply with nothing before it in its session (two
Aider processes writing one file interleave their sessions), a reply Aider asked for with
nothing shown since the last one, a usage report with no count, a window that repeats earlier
messages word for word (no observed record can name the right ones), a file that starts inside
a session. A file that is not UTF-8, holds no session header, or ends inside a line (Aider
ends every write with a line break: a file cut mid-write) raises :class:`TranscriptError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    files_in,
    read_each,
    read_text_file,
)
from footprint_lab.importers._sniff import FileFormat, Sniff, sniff
from footprint_lab.importers.aider._lines import HEADER, read_items
from footprint_lab.importers.aider._session import Session, read_session, sessions_of
from footprint_lab.importers.recorded import note_recorded

__all__ = ["FILE_FORMAT", "POLICY", "SOURCE", "load_aider"]

SOURCE = "aider"
"""The importer's name, on its runs (``run.provider``) and its problems."""
POLICY = "aider"
"""The name of the observed records of what Aider removed (``/clear``, a sub-coder)."""
UNIT = "line"
"""What an error's index counts: the line of the file (from 1)."""
FORMAT = (
    "an Aider chat history (.aider.chat.history.md: sessions opened by '# aider chat started at')"
)
"""The format this loader reads, as its errors name it."""


def _skipped(session: Session) -> dict[str, Any]:
    """How ``meta['skipped_sessions']`` names a session the model never replied in."""
    requests = sum(1 for item in session.items if item.kind == "user")
    return {
        "session": session.number,
        "line": session.line,
        "started_at": session.started_at,
        "inputs": requests,
    }


def _load_file(path: Path, strict: bool) -> list[Run]:
    """The runs of one chat history file."""
    where = str(path)
    text = read_text_file(path, SOURCE, FORMAT)
    if text and not text.endswith("\n"):
        raise TranscriptError(
            SOURCE,
            text.count("\n") + 1,
            "line",
            "the file ends inside a line: Aider ends everything it appends with a line "
            "break (cut while it was written?)",
            path=where,
            unit=UNIT,
        )
    items, mode_line = read_items(text)
    sessions = sessions_of(items)
    total = sum(1 for s in sessions if s.started_at is not None)
    if total == 0:
        raise TranscriptError(
            SOURCE,
            None,
            "file",
            f"no line starts {HEADER.strip()!r}: not an Aider chat history",
            path=where,
        )
    runs: list[Run] = []
    skipped: list[dict[str, Any]] = []
    for session in sessions:
        notes = Problems(SOURCE, strict=strict, unit=UNIT, path=where)
        if session.started_at is None and any(i.kind == "reply" for i in session.items):
            notes.note(
                session.line,
                "header",
                f"the file starts inside a session: no {HEADER.strip()!r} line before it",
            )
        talk = read_session(session, notes)
        if not talk.usages:
            skipped.append(_skipped(session))
            continue
        meta = {**talk.meta, "sessions_in_file": total, "log_file": where}
        if mode_line is not None:
            meta["mode_line"] = mode_line
        meta["label"] = f"{path.name} #{session.number} {session.started_at or '(no header)'}"
        run = build_run(
            talk.messages,
            talk.usages,
            system=None,
            source=SOURCE,
            meta=meta,
            problems=notes.found,
            model=talk.model,
            sent=talk.sent if any(w is not None for w in talk.sent) else None,
            policy=POLICY,
            kinds=talk.kinds,
            strict=strict,
        )
        runs.append(note_recorded(run, inputs=False))
    for run in runs:
        run.meta["sessions_skipped"] = len(skipped)
    if runs:
        runs[0].meta["skipped_sessions"] = skipped
    return runs


def load_aider(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per session of an Aider chat history (see the module docstring for the
    mapping).

    Args:
        path: A chat history file (any name; ``.aider.chat.history.md`` by default), or a
            folder: every ``.md`` file directly in it that is an Aider chat history, in name
            order.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Returns:
        The runs: one per session the model replied in, in file order.

    Raises:
        TranscriptError: a file cannot be read, is not UTF-8 or holds no session header; a
            folder holds no chat history; or (when ``strict``) a problem — naming the file,
            the line and the field.
    """
    source = Path(path)
    files = files_in(source, (".md",), SOURCE)
    if source.is_dir():
        files = [f for f in files if _claimed(f)]
        if not files:
            raise TranscriptError(
                SOURCE, None, "path", "no Aider chat history in the folder", path=str(source)
            )
    return read_each(files, SOURCE, lambda file: _load_file(file, strict))


def _claimed(file: Path) -> bool:
    """Whether a file of a folder is an Aider chat history (one that cannot be read is kept,
    so its own error names it)."""
    try:
        return _claims(sniff(file))
    except OSError:
        return True


def _text(found: Sniff) -> str:
    """The sniffed start as text (bytes that are not UTF-8 replaced)."""
    if found.text is not None:
        return found.text
    return found.head.decode("utf-8", "replace")


def _claims(found: Sniff) -> bool:
    """A text whose first line (past an Emacs mode line) is a session header, an Aider
    entry (``>``) or input (``####``) — a history cut before its first header starts so —
    and that holds a session header in the part sniffed."""
    if found.is_dir:
        return False
    text = _text(found)
    if not (text.startswith(HEADER) or f"\n{HEADER}" in text):
        return False
    for line in text.split("\n", 64):
        stripped = line.strip()
        if not stripped or (stripped.startswith("-*-") and stripped.endswith("-*-")):
            continue
        return line.startswith((HEADER, ">", "####"))
    return False


def _resembles(found: Sniff) -> str | None:
    """What to say of an unclaimed file that looks like part of an Aider chat history."""
    if found.is_dir:
        return None
    text = _text(found)
    if text.startswith(HEADER) or f"\n{HEADER}" in text:
        return (
            f"it holds Aider's session header ({HEADER.strip()!r}) but starts with other "
            "text: if it is a chat history cut inside a reply, delete what comes before its "
            "first header line to read it"
        )
    if any(line.startswith("#### ") and line.endswith("  ") for line in text.split("\n", 400)):
        return (
            "it has '#### ' input lines like an Aider chat history, but no line starts "
            f"{HEADER.strip()!r}: Aider opens every session with that line (a history cut "
            "before its first one loses it); put the session's header line back to read it"
        )
    return None


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="Aider chat history: Markdown, sessions opened by '# aider chat started at <time>'",
    loader=load_aider,
    claims=_claims,
    resembles=_resembles,
)
"""How the registry tells and reads an Aider chat history."""
