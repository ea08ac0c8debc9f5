"""Turns, the current request, and the refusal engine (``plan_removal``).

Layer: window core. This is the one place that decides what may leave, so every strategy —
shipped or yours — inherits the same rules. See the law in ``footprint_lab.window``.

A *turn* is a wire boundary: every non-``tool`` message starts one and ``tool`` messages join
the turn in progress (a leading ``tool`` message starts its own). An assistant message with a
parallel batch of calls plus all of its results is one turn.

Guards, first match wins: ``current-request``, ``system-envelope``, ``paused-tool`` /
``pending-check-in``, ``unresolved-tool-call``, ``last-tool-result``. The last
``keep_recent_turns`` turns are not candidates at all (``inside-keep-window``).

A removal is one contiguous span of turns: walking candidates oldest first, refused turns
before the first removable one are stepped over (and reported); the first refused turn after
it ends the span (and is reported).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from footprint_lab.messages import Message
from footprint_lab.window.notice import is_compaction_frame, is_drop_notice
from footprint_lab.window.pins import choose_pins
from footprint_lab.window.records import Observations, Refusal, RefusalReason, refusal_of


@dataclass(frozen=True, slots=True)
class Turn:
    """A wire boundary: messages ``[start, end)`` of the window."""

    index: int
    """Position among the window's turns."""
    start: int
    """Index of its first message."""
    end: int
    """Index one past its last message."""

    @property
    def size(self) -> int:
        """How many messages the turn holds."""
        return self.end - self.start


class TurnTable(Sequence[Turn]):
    """A window's turns as two lists of ints, read as a sequence of :class:`Turn`.

    The engine walks ``starts`` / ``ends`` directly: a 100k-message window has 50k turns, and
    50k small objects built at every boundary would wake the garbage collector, whose full
    passes over a long run's ledger cost more than the boundary itself. A :class:`Turn` is
    built only when someone asks for one.
    """

    __slots__ = ("ends", "starts")

    def __init__(self, starts: list[int], ends: list[int]) -> None:
        self.starts = starts
        self.ends = ends

    @classmethod
    def of(cls, turns: Sequence[Turn]) -> TurnTable:
        """The table of any sequence of turns."""
        if isinstance(turns, TurnTable):
            return turns
        return cls([t.start for t in turns], [t.end for t in turns])

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, index: int) -> Turn: ...
    @overload
    def __getitem__(self, index: slice) -> list[Turn]: ...
    def __getitem__(self, index: int | slice) -> Turn | list[Turn]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self.starts)))]
        if index < 0:
            index += len(self.starts)
        return Turn(index, self.starts[index], self.ends[index])

    def __iter__(self) -> Iterator[Turn]:
        return (Turn(k, a, b) for k, (a, b) in enumerate(zip(self.starts, self.ends, strict=True)))

    def __repr__(self) -> str:
        return f"TurnTable({len(self.starts)} turns)"


def turn_table(messages: Sequence[Message]) -> TurnTable:
    """Split a window into turns (see the module docstring), as a :class:`TurnTable`."""
    if not messages:
        return TurnTable([], [])
    starts = [i for i, m in enumerate(messages) if m.role != "tool" or i == 0]
    return TurnTable(starts, [*starts[1:], len(messages)])


def segment_turns(messages: Sequence[Message]) -> list[Turn]:
    """Split a window into turns (see the module docstring)."""
    return list(turn_table(messages))


def is_library_authored(message: Message) -> bool:
    """Drop notices, compaction frames and injections: never the request anchor."""
    return message.authored is not None or is_drop_notice(message) or is_compaction_frame(message)


def current_request_index(messages: Sequence[Message], request: str | None = None) -> int | None:
    """Index of the current request: the last user message whose text equals ``request``, else
    the last user message; library-authored messages never count."""
    fallback: int | None = None
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message.role != "user" or is_library_authored(message):
            continue
        if request is None or message.content == request:
            return i
        if fallback is None:
            fallback = i
    return fallback


def turn_of(turns: Sequence[Turn], message_index: int) -> int:
    """The index of the turn holding ``message_index``."""
    return max(0, bisect.bisect_right(TurnTable.of(turns).starts, message_index) - 1)


@dataclass(frozen=True, slots=True)
class Guards:
    """This boundary's guards. Strategies never receive it, only ``plan_removal``'s answer."""

    messages: Sequence[Message]
    request_index: int | None
    paused_call_id: str | None = None
    paused_check_in: bool = False

    def reason(self, turn: Turn, pinned: frozenset[int]) -> RefusalReason | None:
        """Why ``turn`` may not leave (first match wins), or None when it may."""
        return self.reason_at(turn.index, turn.start, turn.end, pinned)

    def reason_at(
        self, index: int, start: int, end: int, pinned: frozenset[int]
    ) -> RefusalReason | None:
        """:meth:`reason` for the turn ``index`` spanning messages ``[start, end)``."""
        messages = self.messages
        if self.request_index is not None and start <= self.request_index < end:
            return "current-request"
        head = messages[start]
        if head.role == "system":
            return "system-envelope"
        calls = head.tool_calls
        if calls:
            if len(calls) == 1 and self.paused_call_id is None:
                # Fast path for the common single call: its result must follow in the turn.
                cid = calls[0].id
                for i in range(start + 1, end):
                    if messages[i].tool_call_id == cid:
                        return "last-tool-result" if index in pinned else None
                return "unresolved-tool-call"
            call_ids = [c.id for c in calls]
            if self.paused_call_id is not None and self.paused_call_id in call_ids:
                return "pending-check-in" if self.paused_check_in else "paused-tool"
            answered = {messages[i].tool_call_id for i in range(start + 1, end)}
            if any(cid not in answered for cid in call_ids):
                return "unresolved-tool-call"
        if index in pinned:
            return "last-tool-result"
        return None


@dataclass(frozen=True, slots=True)
class RemovalPlan:
    """The refusal engine's answer: which contiguous span may leave, and who refused."""

    turns: Sequence[Turn]
    """The window's turns."""
    keep_recent_turns: int
    """The keep window the plan was made with."""
    span_turns: tuple[int, int] | None
    """Turns ``[first, last + 1)`` that may leave, or None."""
    span: tuple[int, int] | None
    """Messages ``[start, end)`` that may leave, or None."""
    refusals: tuple[Refusal, ...]
    """Turns that refused, in walk order."""
    observations: Observations | None
    """What the pins held (None when pins are off)."""
    at_front: bool = False
    """True when the span starts at the front of what may leave (index 0, or right after a
    kept request / system envelope at the head): only then is a drop notice inserted."""
    pinned_turns: frozenset[int] = field(default_factory=frozenset)
    """Turns the pins hold outside the keep window."""

    @property
    def removable(self) -> bool:
        """Whether anything may leave."""
        return self.span is not None


def plan_removal(
    messages: Sequence[Message],
    turns: Sequence[Turn],
    keep_recent_turns: int,
    *,
    guards: Guards,
    keep_last_tool_results: int,
    stand_down: bool,
    is_existing_summary: Callable[[Message], bool] | None = None,
) -> RemovalPlan:
    """Walk the candidate turns oldest first and return the one contiguous span that may leave.

    Args:
        messages: The window.
        turns: ``segment_turns(messages)``.
        keep_recent_turns: The last N turns are not candidates.
        guards: This boundary's guards.
        keep_last_tool_results: Pin limit (0 = off).
        stand_down: Release pins for this visit.
        is_existing_summary: Recognises a previous summary; a span made only of those is
            refused as ``only-existing-summary`` (a summary of a summary gains nothing).
    """
    turns = TurnTable.of(turns)
    keep = max(0, keep_recent_turns)
    keep_start = max(0, len(turns) - keep)
    request_turn = None if guards.request_index is None else turn_of(turns, guards.request_index)
    pinned, observations = choose_pins(
        messages,
        turns,
        request_turn=request_turn,
        keep_start_turn=keep_start,
        limit=keep_last_tool_results,
        stand_down=stand_down,
    )
    refusals: list[Refusal] = []
    head_only_envelope = True
    walk_from = 0
    while True:
        first, last, reached_keep = _walk(turns, walk_from, keep_start, guards, pinned, refusals)
        if first is None or last is None:
            return RemovalPlan(
                turns, keep, None, None, tuple(refusals), observations, False, pinned
            )
        if walk_from == 0:
            head_only_envelope = all(
                r.reason in ("current-request", "system-envelope")
                for r in refusals
                if r.turn_index < first
            )
        span = (turns.starts[first], turns.ends[last - 1])
        if is_existing_summary is None or not all(
            is_existing_summary(messages[i]) for i in range(*span)
        ):
            break
        # A summary of a summary gains nothing: step over it and look further in.
        ended_by_refusal = not reached_keep or keep_start < len(turns)
        refusals.insert(
            len(refusals) - (1 if ended_by_refusal else 0),
            refusal_of("only-existing-summary", first, span[0]),
        )
        if reached_keep:
            return RemovalPlan(
                turns, keep, None, None, tuple(refusals), observations, False, pinned
            )
        walk_from = last + 1
    return RemovalPlan(
        turns,
        keep,
        (first, last),
        span,
        tuple(refusals),
        observations,
        head_only_envelope and walk_from == 0,
        pinned,
    )


def _walk(
    turns: TurnTable,
    walk_from: int,
    keep_start: int,
    guards: Guards,
    pinned: frozenset[int],
    refusals: list[Refusal],
) -> tuple[int | None, int | None, bool]:
    """One pass of the span walk from ``walk_from``; appends refusals as it goes.

    Returns the span's first turn and one past its last (None when nothing may leave), and
    whether the walk reached the keep window.
    """
    first: int | None = None
    starts, ends = turns.starts, turns.ends
    reason_at = guards.reason_at
    for k in range(walk_from, keep_start):
        reason = reason_at(k, starts[k], ends[k], pinned)
        if reason is None:
            if first is None:
                first = k
            continue
        refusals.append(refusal_of(reason, k, starts[k]))
        if first is not None:
            return first, k, False
    if keep_start < len(starts):
        refusals.append(refusal_of("inside-keep-window", keep_start, starts[keep_start]))
    return first, (keep_start if first is not None else None), True
