"""The law's checks on whatever a strategy returns, shipped or yours.

Layer: window core. :func:`apply_window` runs :func:`breaches` on every result — built from a
plan or assembled by hand — and no flag a strategy can set skips it. The rules are the law
stated in ``footprint_lab.window``, seen from outside the refusal engine:

* what left is one contiguous span of whole turns, and only a library stand-in (a drop notice
  or a compaction frame) may stand in its place;
* no tool call leaves without all its results, and no result without its call
  (``split-tool-pair``); no unanswered call leaves (``unresolved-call-left``), nor the call a
  paused run waits on (``paused-call-left``);
* the current request stays (``lost-current-request``), and so does every system message
  (``system-dropped``);
* the window opens on a ``user`` (or ``system``) message whenever the window it was given did
  (``window-opens-on-non-user``);
* every message that left is named in ``removed_stage_ids``, and nothing else is.

The checks read the span's edges, the messages that left and the stand-ins, not the whole
window: a prefix and a suffix kept as they were are matched by identity in one C-level pass.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from footprint_lab.messages import STAND_IN_KINDS, Message
from footprint_lab.window.errors import WindowStrategyError
from footprint_lab.window.records import WindowRecord

LAW_RULES: tuple[str, ...] = (
    "lost-current-request",
    "system-dropped",
    "paused-call-left",
    "unresolved-call-left",
    "split-tool-pair",
    "non-contiguous-removal",
    "partial-turn",
    "window-opens-on-non-user",
    "rewritten-without-frame",
    "unnamed-removal",
    "named-but-kept",
)
"""Every rule a strategy's result is checked against, by the name a breach carries, gravest
first: :func:`breaches` lists what it finds in this order, so an error names the worst."""

_RANK = {rule: rank for rank, rule in enumerate(LAW_RULES)}


@dataclass(frozen=True, slots=True)
class Breach:
    """One rule a strategy's result broke."""

    rule: str
    """Which rule (one of :data:`LAW_RULES`)."""
    message_index: int
    """Where: the index in the window the strategy was given (for an inserted message, the
    index in the window it returned)."""
    stage_id: str | None
    """The stage that committed that message (None for an unstamped or inserted message)."""
    detail: str
    """A human sentence about what happened."""

    def error(self, strategy: str) -> WindowStrategyError:
        """The error ``apply_window`` raises for this breach."""
        where = f"message {self.message_index}" + (f" ({self.stage_id})" if self.stage_id else "")
        return WindowStrategyError(
            f"strategy {strategy!r} broke the rule {self.rule!r} at {where}: {self.detail}; "
            "build removals with input.plan_removal() and input.drop() / input.replace(), "
            "which obey every rule",
            rule=self.rule,
            message_index=self.message_index,
            stage_id=self.stage_id,
        )


@dataclass(frozen=True, slots=True)
class Change:
    """How a returned window differs from the one given: one span ``[start, end)`` of the
    given window replaced by ``inserted``; everything before and after kept as it was."""

    start: int
    """First index of the given window that left (or where the insertion stands)."""
    end: int
    """One past the last index that left."""
    inserted: list[Message]
    """What stands in the span's place in the returned window."""

    @property
    def removed_count(self) -> int:
        """How many messages left."""
        return self.end - self.start


def change_of(given: Sequence[Message], returned: Sequence[Message]) -> Change:
    """The one span by which ``returned`` differs from ``given``, matching kept messages by
    identity from both ends (a message copied is a message rewritten)."""
    n, m = len(given), len(returned)
    limit = min(n, m)
    same = list(map(operator.is_, given[:limit], returned[:limit]))
    prefix = same.index(False) if False in same else limit
    if prefix == n == m:
        return Change(n, n, [])
    tail_limit = limit - prefix
    suffix = 0
    if tail_limit:
        same_tail = list(
            map(
                operator.is_,
                itertools.islice(reversed(given), tail_limit),
                itertools.islice(reversed(returned), tail_limit),
            )
        )
        suffix = same_tail.index(False) if False in same_tail else tail_limit
    return Change(prefix, n - suffix, list(returned[prefix : m - suffix]))


def _head(window: Sequence[Message]) -> Message | None:
    return next((message for message in window if message.role != "system"), None)


def breaches(
    given: Sequence[Message],
    returned: Sequence[Message],
    record: WindowRecord,
    *,
    request_index: int | None,
    paused_call_id: str | None = None,
    change: Change | None = None,
) -> list[Breach]:
    """Every rule ``returned`` (with its ``record``) breaks against ``given``; empty when lawful.

    Args:
        given: The window the strategy was given.
        returned: The window it returned.
        record: The record it filed.
        request_index: Index of the current request in ``given``.
        paused_call_id: The call a paused run waits on.
        change: ``change_of(given, returned)`` when the caller already has it.
    """
    change = change_of(given, returned) if change is None else change
    start, end, inserted = change.start, change.end, change.inserted
    out: list[Breach] = []
    removed = given[start:end]

    def breach(rule: str, index: int, detail: str, message: Message | None = None) -> None:
        stage = (given[index] if message is None else message).stage_id if index >= 0 else None
        out.append(Breach(rule, index, stage, detail))

    # Stand-ins: only the library's own, and only in place of something that left.
    if inserted:
        left_ids = {id(message) for message in removed}
        given_ids: set[int] | None = None
        for offset, message in enumerate(inserted):
            if id(message) in left_ids:
                breach(
                    "non-contiguous-removal",
                    start + offset,
                    "what left is not one contiguous span: a message kept between removed ones",
                    message,
                )
                continue
            if given_ids is None:
                given_ids = {id(m) for m in given}
            if id(message) in given_ids:
                breach(
                    "non-contiguous-removal",
                    start + offset,
                    "a kept message was moved or repeated",
                    message,
                )
            elif message.authored not in STAND_IN_KINDS:
                breach(
                    "rewritten-without-frame",
                    start + offset,
                    "an inserted message is not a library stand-in (a drop notice or a "
                    "compaction frame)",
                    message,
                )
            elif not removed:
                breach(
                    "rewritten-without-frame",
                    start + offset,
                    "a stand-in was inserted where nothing left",
                    message,
                )
    if not removed:
        out.sort(key=lambda b: _RANK[b.rule])
        return out

    # Whole turns: the span opens on a turn's first message and ends where a turn starts.
    if given[start].role == "tool" and start > 0:
        breach("partial-turn", start, "the removal starts inside a turn (at a tool result)")
    if end < len(given) and given[end].role == "tool":
        breach("partial-turn", end, "the removal ends inside a turn (before a tool result)")

    # The request, system messages, the paused call.
    if request_index is not None and start <= request_index < end:
        breach("lost-current-request", request_index, "the message the run is executing left")
    for offset, message in enumerate(removed):
        if message.role == "system":
            breach("system-dropped", start + offset, "a system message left")

    # Pairs, by position: a result answers the latest earlier call with its id.
    calls_here: dict[str, int] = {}
    answered: set[str] = set()
    for offset, message in enumerate(removed):
        index = start + offset
        for call in message.tool_calls:
            calls_here[call.id] = index
            answered.discard(call.id)
            if paused_call_id is not None and call.id == paused_call_id:
                breach("paused-call-left", index, f"the paused call {call.id!r} left")
        if message.role == "tool" and message.tool_call_id is not None:
            call_id = message.tool_call_id
            if call_id in calls_here:
                answered.add(call_id)
            elif _called_before(given, start, call_id):
                breach(
                    "split-tool-pair",
                    index,
                    f"the result of {call_id!r} left but its call stays",
                )
    open_calls = [cid for cid in calls_here if cid not in answered]
    if open_calls or calls_here:
        later = _results_after(given, end, set(calls_here))
        for call_id in open_calls:
            if call_id in later:
                breach(
                    "split-tool-pair",
                    calls_here[call_id],
                    f"the call {call_id!r} left but its result stays",
                )
            else:
                breach(
                    "unresolved-call-left",
                    calls_here[call_id],
                    f"the call {call_id!r} has no result yet and left",
                )
        for call_id in answered:
            if call_id in later:
                breach(
                    "split-tool-pair",
                    calls_here[call_id],
                    f"the call {call_id!r} left but one of its results stays",
                )

    # The wire: a window that opened on a user message still does.
    head_before = _head(given)
    if head_before is not None and head_before.role == "user":
        head_after = _head(returned)
        if head_after is not None and head_after.role != "user":
            where = next(i for i, m in enumerate(returned) if m is head_after)
            out.append(
                Breach(
                    "window-opens-on-non-user",
                    where,
                    head_after.stage_id,
                    f"the window now opens on a {head_after.role} message",
                )
            )

    # Names: everything that left, and nothing else.
    left_stages = dict.fromkeys(m.stage_id for m in removed if m.stage_id is not None)
    named = set(record.removed_stage_ids)
    for offset, message in enumerate(removed):
        if message.stage_id is not None and message.stage_id not in named:
            breach(
                "unnamed-removal",
                start + offset,
                f"{message.stage_id} left without being named in removed_stage_ids",
            )
            break
    extra = [sid for sid in record.removed_stage_ids if sid not in left_stages]
    if extra:
        out.append(
            Breach(
                "named-but-kept",
                start,
                extra[0],
                f"removed_stage_ids names {extra[:4]} but no message of theirs left",
            )
        )
    out.sort(key=lambda b: _RANK[b.rule])
    return out


def _called_before(given: Sequence[Message], start: int, call_id: str) -> bool:
    """Whether a call with ``call_id`` stands before ``start`` (rare path: a result that left
    without its call, or an orphan the given window already held)."""
    for i in range(start - 1, -1, -1):
        if any(call.id == call_id for call in given[i].tool_calls):
            return True
    return False


def _results_after(given: Sequence[Message], end: int, call_ids: set[str]) -> set[str]:
    """Which of ``call_ids`` are answered by a result after ``end`` before being called again."""
    live = set(call_ids)
    found: set[str] = set()
    for i in range(end, len(given)):
        if not live:
            break
        message = given[i]
        for call in message.tool_calls:
            live.discard(call.id)
        if message.role == "tool" and message.tool_call_id in live:
            found.add(message.tool_call_id)
    return found
