"""One Aider session's items, read into a conversation: requests, observations, replies,
their usage, and the windows a ``/clear`` or a fresh sub-coder started.

Layer: importers (private to :mod:`footprint_lab.importers.aider`; the mapping rules are in
the package docstring).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from footprint_lab.importers._build import UserKind
from footprint_lab.importers._observed import WireKey, wire_key
from footprint_lab.importers.aider._facts import (
    Startup,
    command_word,
    is_confirm_answer,
    printed_usage,
    split_reasoning,
)
from footprint_lab.importers.aider._lines import Item
from footprint_lab.messages import Message
from footprint_lab.reading.problems import Problems
from footprint_lab.usage import Usage

__all__ = ["Conversation", "Session", "read_session", "sessions_of"]

_CLEARED = frozenset({"All chat history cleared.", "All files dropped and chat history cleared."})
"""What ``/clear`` and ``/reset`` print (newer versions; older ones print nothing)."""
_NOT_RUN = ("Ambiguous command", "Invalid command", "Error: Command")
"""How Aider answers a command it did not run."""
_WATCH = "Processing your request..."
"""What ``--watch-files`` prints when an ``AI!`` / ``AI?`` comment sends a request it does not
log."""
USAGE_NOTE = (
    "Aider prints token counts of 1,000 and more rounded (2.3k, 12k) since v0.52: those "
    "reports are listed here with their approximate counts, not as reported usage; counts it "
    "printed whole are the replies' usage. Either may be Aider's own count where the API "
    "reported none."
)
"""Why ``meta['rounded_usage']`` holds reports and not usage."""

Last = Literal["none", "request", "observation", "reply", "command"]


@dataclass
class Session:
    """One session's items: those after one ``# aider chat started at`` header (or before the
    first header, for a file that starts inside a session: ``number`` 0)."""

    number: int
    line: int
    started_at: str | None
    items: list[Item] = field(default_factory=list)


def sessions_of(items: Sequence[Item]) -> list[Session]:
    """The items split into sessions, in file order."""
    sessions: list[Session] = []
    number = 0
    for item in items:
        if item.kind == "header":
            number += 1
            sessions.append(Session(number, item.line, item.text))
            continue
        if not sessions:
            sessions.append(Session(0, item.line, None))
        sessions[-1].items.append(item)
    return sessions


def _normal(text: str) -> str:
    """Text as both Aider's reply log and its input log keep it (each line's trailing space
    dropped, the whole stripped)."""
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


@dataclass
class Conversation:
    """What one session became."""

    messages: list[Message] = field(default_factory=list)
    usages: list[Usage | None] = field(default_factory=list)
    sent: list[list[Message] | None] = field(default_factory=list)
    kinds: dict[int, UserKind] = field(default_factory=dict)
    requests: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    model: str | None = None


class _Reader:
    """Reads one session's items in order (see the package docstring for the rules)."""

    def __init__(self, session: Session, notes: Problems) -> None:
        """Start reading ``session``, listing problems in ``notes``."""
        self.session = session
        self.notes = notes
        self.out = Conversation()
        self.main: list[Message] = []
        self.sub: list[Message] | None = None
        self.sub_kind: str | None = None
        self.switched = False
        self.last: Last = "none"
        self.last_command: str | None = None
        self.waiting = False  # a request or observation no reply has answered yet
        self.pending: list[Item] = []
        self.backlog: list[Item] = []  # entries since the last message (across commands)
        self.retries: list[int] = []
        self.reply_lines: list[int] = []
        self.open_reply: int | None = None
        self.last_reply: str | None = None
        self.cleared_at = -1
        self.startup = Startup()
        self.commands: Counter[str] = Counter()
        self.shown = 0
        self.ignored = 0
        self.observations: list[dict[str, Any]] = []
        self.clears: list[dict[str, Any]] = []
        self.subs: list[dict[str, Any]] = []
        self.rounded: list[dict[str, Any]] = []
        self.no_reply: list[dict[str, Any]] = []
        self.unrecorded: list[int] = []
        self.cost: str | None = None

    # -- the window a call was sent ----------------------------------------------------------

    def _context(self) -> list[Message]:
        """The history the coder now calling the model holds (a sub-coder's, or the main)."""
        return self.sub if self.sub is not None else self.main

    def _close_sub(self) -> None:
        """Return to the main coder: its next call's window is its own history again."""
        if self.sub is not None:
            self.sub, self.sub_kind, self.switched = None, None, True

    def _clear(self, line: int, how: str) -> None:
        """``/clear`` or ``/reset``: the main coder's history is emptied."""
        self._close_sub()
        if self.cleared_at == len(self.out.messages):
            return  # the command and its notice: one clear
        self.cleared_at = len(self.out.messages)
        self.main, self.switched = [], True
        self.clears.append({"line": line, "by": how, "after_messages": len(self.out.messages)})

    def _add(self, message: Message, kind: UserKind | None = None) -> None:
        """Commit a message to the conversation and to the calling coder's history."""
        self.backlog = []
        if kind is not None:
            self.out.kinds[len(self.out.messages)] = kind
        self.out.messages.append(message)
        self._context().append(message)

    # -- items -------------------------------------------------------------------------------

    def user(self, item: Item, following: Sequence[Item]) -> None:
        """A ``####`` block: not sent, a command, a sub-coder's input, or a request."""
        text = item.text
        if text == "<blank>" or is_confirm_answer(text):
            self.ignored += 1  # an empty input, or a confirmation Aider answered itself
            return
        word = command_word(text)
        if word is not None:
            self.commands[word] += 1
            self._close_sub()
            if self._clears(word, following):
                self._clear(item.line, word)
            self.last, self.last_command = "command", word
        else:
            source = self._authored(text)
            if source is None:
                self._close_sub()
                self._add(Message.user(text))
                self.out.requests += 1
                self.last, self.waiting = "request", True
            else:
                self._open_sub(source, item.line)
                self._add(Message.user(text), "observation")
                self.observations.append({"line": item.line, "source": source})
                self.last, self.waiting = "observation", True
        self.shown += len(self.pending)
        self.pending, self.open_reply, self.last_reply = [], None, None

    def _clears(self, word: str, following: Sequence[Item]) -> bool:
        """Whether the command ``word`` (maybe abbreviated) ran ``/clear`` or ``/reset``:
        Aider runs a unique prefix, and says so when it does not (``Ambiguous command``)."""
        name = word[1:]
        if not name or not ("clear".startswith(name) or "reset".startswith(name)):
            return False
        for item in following:
            if item.kind != "tool":
                break
            if item.text.startswith(_NOT_RUN):
                return False
        return True

    def _authored(self, text: str) -> str | None:
        """Which of Aider's own sub-coders sent this ``####`` text, if one did: the linter's
        fix request, or the architect's answer handed to the editor model."""
        if text.startswith("# Fix any errors below") or any(
            e.text.startswith("Fix lint errors in ") for e in self.pending
        ):
            return "lint"
        if self.last_reply is not None and self.last_reply and _normal(text) == self.last_reply:
            return "editor"
        return None

    def _open_sub(self, kind: str, line: int) -> None:
        """A sub-coder starts, from an empty history."""
        if kind == "lint" and self.sub_kind == "lint":
            return  # /lint fixes each file with the same coder
        self.sub, self.sub_kind, self.switched = [], kind, True
        self.subs.append({"kind": kind, "line": line})

    def tool(self, item: Item) -> None:
        """A ``>`` entry: a usage report, an announcement, a clear's notice, or output."""
        text = item.text
        if text.startswith("Tokens: "):
            self._usage(item)
            return
        self.startup.read(text)
        if text.strip() in _CLEARED:
            self._clear(item.line, text.strip())
        self.pending.append(item)
        self.backlog.append(item)

    def _usage(self, item: Item) -> None:
        """A ``Tokens:`` report: the usage of the reply it follows (or of a failed call)."""
        printed = printed_usage(item.text)
        if printed is None:
            self.notes.note(item.line, "Tokens", f"no token count in {item.text[:60]!r}")
            return
        if printed.cost_session is not None:
            self.cost = printed.cost_session
        if self.open_reply is None:
            self.no_reply.append(printed.as_meta(item.line))
            return
        usage = printed.usage()
        self.out.usages[self.open_reply] = usage
        if usage is None:
            self.rounded.append({"iteration": self.open_reply + 1, **printed.as_meta(item.line)})
        self.open_reply = None

    def reply(self, item: Item) -> None:
        """A reply: after what Aider sent itself (an observation) unless a request precedes
        it; its window when the calling coder's history is not the running one."""
        content, parts = split_reasoning(item.text)
        watch = any(e.text.strip() == _WATCH for e in self.pending)
        if self._retried(content):
            pass
        elif self.last == "command" and self.waiting and not self.pending:
            pass  # a command typed while the reply was on its way: the reply is the request's
        elif self.last in ("reply", "command") or watch:
            self._observe(item, watch)
        elif self.last == "none":
            self.notes.note(
                item.line,
                "reply",
                "a reply with no request before it in its session (two Aider processes "
                "writing one file?); kept as a reply",
            )
            self.shown += len(self.pending)
        else:
            self.shown += len(self.pending)
        window = list(self._context()) if self.switched else None
        self.switched = False
        self._add(Message.assistant(content, parts=parts))
        self.out.usages.append(None)
        self.out.sent.append(window)
        self.reply_lines.append(item.line)
        self.open_reply = len(self.out.usages) - 1
        self.last_reply, self.last, self.pending = _normal(content), "reply", []
        self.waiting = False

    def _retried(self, content: str) -> bool:
        """Whether this reply is a retry of the last call: Aider logs a failed attempt's
        partial reply, then ``Retrying in ...``. A retry that starts the reply again was sent
        the window without the partial one; one that continues it was sent it (as a prefill)."""
        retrying = any(e.text.startswith("Retrying in ") for e in self.pending)
        if self.open_reply is None or not retrying:
            return False
        failed = self.out.messages[-1]
        context = self._context()
        again = content.startswith(failed.content[:40])
        if again and context and context[-1] is failed:
            context.pop()
            self.switched = True
        self.retries.append(self.pending[0].line)
        self.shown += len(self.pending)
        return True

    def _observe(self, item: Item, watch: bool) -> None:
        """What Aider sent before a reply no request asked for: its output since the last
        reply or command, as the file shows it."""
        entries = self.pending or self.backlog  # a command typed ahead leaves its own empty
        if watch:
            at = next(k for k, e in enumerate(entries) if e.text.strip() == _WATCH)
            self.shown += at
            entries = entries[at:]
            self.unrecorded.append(entries[0].line)
        text = "\n".join(e.text for e in entries).strip("\n")
        if not text.strip():
            self.notes.note(
                item.line,
                "reply",
                "Aider called the model again with nothing the file shows since the last "
                "reply; kept as a reply",
            )
            return
        after = "watch" if watch else (self.last_command if self.last == "command" else "reply")
        self.observations.append({"line": entries[0].line, "source": after or "reply"})
        self._add(Message.user(text), "observation")

    def finish(self) -> Conversation:
        """The conversation, with the session's facts as ``meta``."""
        out = self.out
        self.shown += len(self.pending)
        facts = self.startup.facts
        models = self.startup.models
        out.model = models[0] if models else None
        meta: dict[str, Any] = {
            "session": self.session.number,
            "started_at": self.session.started_at,
            "header_line": self.session.line if self.session.started_at is not None else None,
            "model": out.model,
        }
        if len(models) > 1:
            meta["models"] = models
        meta.update(facts)
        if self.startup.command_line is not None:
            meta["command_line"] = self.startup.command_line
        meta["commands"] = dict(self.commands)
        meta["shown_only"] = self.shown
        meta["ignored_inputs"] = self.ignored
        meta["observations"] = self.observations
        meta["clears"] = self.clears
        meta["sub_coders"] = self.subs
        meta["rounded_usage"] = self.rounded
        if self.rounded:
            meta["usage_note"] = USAGE_NOTE
        meta["calls_without_reply"] = self.no_reply
        meta["cost_session"] = self.cost
        if self.unrecorded:
            meta["unrecorded_requests"] = self.unrecorded
        if self.retries:
            meta["retried_calls"] = self.retries
        out.meta = meta
        return out


def _matchable(messages: Sequence[Message], at: dict[int, int], window: Sequence[Message]) -> bool:
    """Whether ``window`` matches back to its own messages when read against the history as
    :func:`~footprint_lab.importers._observed.observe_window` reads it (each message to the
    first history message at or after the previous match with the same wire text): a window
    that repeats an earlier message word for word would be matched to that one instead."""
    firsts: dict[WireKey, list[int]] = {}
    for k, message in enumerate(messages):
        firsts.setdefault(wire_key(message), []).append(k)
    cursor = 0
    for message in window:
        positions = firsts[wire_key(message)]
        found = positions[bisect.bisect_left(positions, cursor)]
        if found != at[id(message)]:
            return False
        cursor = found + 1
    return True


def _check_windows(out: Conversation, notes: Problems, lines: list[int]) -> None:
    """Drop each recorded window that would be matched to the wrong messages (listed as a
    problem: that call's window is then shown as the conversation up to it)."""
    at = {id(m): k for k, m in enumerate(out.messages)}
    replies = [k for k, m in enumerate(out.messages) if m.role == "assistant"]
    for n, window in enumerate(out.sent):
        if window is None:
            continue
        before = out.messages[: replies[n]]
        if not _matchable(before, at, window):
            out.sent[n] = None
            notes.note(
                lines[n],
                "window",
                "the window Aider sent this reply's call (after a /clear or a sub-coder) "
                "repeats earlier messages word for word and cannot be told apart from them: "
                "no observed record is filed for it",
            )


def read_session(session: Session, notes: Problems) -> Conversation:
    """The conversation one session holds (in time linear in its items)."""
    reader = _Reader(session, notes)
    items = session.items
    for k, item in enumerate(items):
        if item.kind == "user":
            reader.user(item, items[k + 1 : k + 8])
        elif item.kind == "tool":
            reader.tool(item)
        else:
            reader.reply(item)
    out = reader.finish()
    _check_windows(out, notes, reader.reply_lines)
    return out
