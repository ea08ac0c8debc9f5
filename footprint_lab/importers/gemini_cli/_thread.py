"""Records read on their own, threaded into one conversation: each result settled on the call
it answers, a result recorded twice sent once, and what is wrong listed.

Layer: importers (private to :mod:`footprint_lab.importers.gemini_cli`). The same threading
makes the history and every window, so a window's messages are the history's wherever the
records are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from footprint_lab.importers._build import UserKind
from footprint_lab.importers._parts import Problems
from footprint_lab.importers.gemini_cli._content import Call, Converted, Result
from footprint_lab.messages import Message
from footprint_lab.usage import Usage

__all__ = ["Thread", "thread"]


@dataclass
class Thread:
    """A conversation threaded from records."""

    messages: list[Message] = field(default_factory=list)
    usages: list[Usage | None] = field(default_factory=list)
    """One per assistant message."""
    kinds: dict[int, UserKind] = field(default_factory=dict)
    replies: list[int] = field(default_factory=list)
    """For each assistant message: the position of the record it came from."""
    duplicates: int = 0
    """Results sent once but recorded twice (on the call, and as a user turn)."""
    from_status: int = 0
    """Results made from a call's error or cancelled status."""


class _Calls:
    """The calls made so far: which result answers which, and what is wrong (orphans,
    duplicate ids, calls the next reply came without an answer to)."""

    def __init__(self, problems: Problems) -> None:
        """No call made yet; problems go to ``problems``."""
        self.problems = problems
        self.names: dict[str, str] = {}
        self.waiting: dict[str, tuple[int, str]] = {}
        self.answered: set[str] = set()

    def asked(self, calls: list[Call], index: int) -> None:
        """The calls of one reply (recorded at ``index``)."""
        for call_id, (at_index, at) in self.waiting.items():
            self.problems.note(
                at_index,
                at,
                f"unanswered call {call_id!r}: no tool result answers it before the next "
                "assistant message (kept as given; a provider refuses such a request)",
            )
        self.waiting.clear()
        seen: set[str] = set()
        for made in calls:
            call_id = made.call.id
            if call_id in seen:
                self.problems.note(index, made.field, f"duplicate call id {call_id!r}")
            elif call_id in self.names:
                self.problems.note(
                    index,
                    made.field,
                    f"duplicate call id {call_id!r}: an earlier assistant message made a call "
                    "with it (kept as given; results answer the latest)",
                )
            seen.add(call_id)
            self.names[call_id] = made.call.name
            self.waiting[call_id] = (index, made.field)
            self.answered.discard(call_id)

    def settle(self, result: Result) -> tuple[str, str] | None:
        """The call id and tool name of ``result``; None when that call has its result
        already (the same result recorded twice)."""
        call_id = result.call_id
        if call_id is None:  # an id-less response answers the waiting call of its name
            call_id = next(
                (k for k in self.waiting if self.names.get(k) == result.name),
                f"{result.index}:{result.field}",
            )
        if call_id in self.answered:
            return None
        self.waiting.pop(call_id, None)
        self.answered.add(call_id)
        name = self.names.get(call_id)
        if name is None:
            self.problems.note(
                result.index,
                result.field,
                f"orphan result: no earlier assistant message called {call_id!r}",
            )
        return call_id, name if name is not None else result.name or "unknown"


Made = dict[tuple[int, str, str], Message]
"""Tool messages made so far, by (result, call id, tool name): a record read once makes the
same message in every window that holds it."""


def _results(results: list[Result], calls: _Calls, out: Thread, made: Made) -> None:
    """Each result as a tool message, on the call it answers (a second copy dropped)."""
    for result in results:
        settled = calls.settle(result)
        if settled is None:
            out.duplicates += 1
            continue
        out.from_status += result.from_status
        key = (id(result), *settled)
        message = made.get(key)
        if message is None:
            message = made[key] = Message.tool(*settled, result.text, parts=result.parts)
        out.messages.append(message)


def thread(converted: Sequence[Converted], problems: Problems, made: Made | None = None) -> Thread:
    """The conversation the records make, in order: a reply then the results of its calls;
    a user record's results, then its message. ``made`` keeps the tool messages made, for
    threading the same records again (each window)."""
    made = {} if made is None else made
    out = Thread()
    calls = _Calls(problems)
    for position, record in enumerate(converted):
        message = record.message
        if record.kind == "gemini" and message is not None:
            calls.asked(record.calls, record.version.index)
            out.replies.append(position)
            out.messages.append(message)
            out.usages.append(record.usage)
            _results(record.results, calls, out, made)
        elif record.kind == "user":
            _results(record.results, calls, out, made)
            if message is not None:
                if record.user_kind is not None:
                    out.kinds[len(out.messages)] = record.user_kind
                out.messages.append(message)
    return out
