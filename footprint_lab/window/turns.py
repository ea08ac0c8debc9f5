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
from typing import Literal, overload

from footprint_lab.messages import Message
from footprint_lab.window.notice import is_stand_in
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
    """Drop notices, compaction frames, placeholders and injections — and anything a window
    stage committed — are the library's, never the request anchor. Known by provenance (the
    ``authored`` field and the ``window#`` stage), never by text."""
    return message.authored is not None or (message.stage_id or "").startswith("window#")


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


def bound_turns(messages: Sequence[Message], turns: TurnTable) -> list[int] | None:
    """For each turn, the last turn bound to it by a call whose result landed in a later turn
    (``assistant(call c1) · user · tool(c1)``), or None when every result sits in its call's
    own turn — the common case, which costs one look at each result and builds no list.

    A result belongs to the latest earlier call with its id: real transcripts reuse ids.
    """
    for a, b in zip(turns.starts, turns.ends, strict=True):
        if b - a < 2:
            continue
        calls = messages[a].tool_calls
        if b - a == 2 and len(calls) == 1:  # the common turn: one call, its one result
            if messages[a + 1].tool_call_id == calls[0].id:
                continue
        else:
            ids = {call.id for call in calls}
            for i in range(a + 1, b):
                if messages[i].tool_call_id not in ids:
                    return _bound_turns_slow(messages, turns)
            continue
        return _bound_turns_slow(messages, turns)
    return None


def _bound_turns_slow(messages: Sequence[Message], turns: TurnTable) -> list[int] | None:
    """:func:`bound_turns` once some result is not answered by its own turn's head."""
    starts = turns.starts
    call_turn: dict[str, int] = {}
    reach: list[int] | None = None
    k = -1
    next_start = 0
    for i, message in enumerate(messages):
        if i == next_start:
            k += 1
            next_start = starts[k + 1] if k + 1 < len(starts) else -1
        if message.tool_calls:
            for call in message.tool_calls:
                call_turn[call.id] = k
        elif message.role == "tool" and message.tool_call_id is not None:
            j = call_turn.get(message.tool_call_id)
            if j is not None and j != k:
                if reach is None:
                    reach = list(range(len(starts)))
                if reach[j] < k:
                    reach[j] = k
    if reach is None:
        return None  # only orphans: a result with no call binds nothing
    # Close the links into groups of consecutive turns: a group ends where no turn inside it
    # reaches further. Every member of a group maps to the group's last turn.
    out = list(range(len(reach)))
    k = 0
    while k < len(reach):
        end = reach[k]
        j = k
        while j <= end:
            end = max(end, reach[j])
            j += 1
        for member in range(k, end + 1):
            out[member] = end
        k = end + 1
    return out


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
        self,
        index: int,
        start: int,
        end: int,
        pinned: frozenset[int],
        answer_end: int | None = None,
    ) -> RefusalReason | None:
        """:meth:`reason` for the turn ``index`` spanning messages ``[start, end)``; its calls
        count as answered by results up to ``answer_end`` (default ``end``: a turn bound to
        later turns by a displaced result is answered there)."""
        messages = self.messages
        if self.request_index is not None and start <= self.request_index < end:
            return "current-request"
        head = messages[start]
        if head.role == "system":
            return "system-envelope"
        calls = head.tool_calls
        if answer_end is not None:
            end = answer_end
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
    bound: list[int] | Literal["unknown"] | None = "unknown",
) -> RemovalPlan:
    """Walk the candidate turns oldest first and return the one contiguous span that may leave.

    Every turn the walk meets that may not leave is named with a reason, and so is every turn
    of the keep window (``inside-keep-window``), so a visit that removes nothing says why for
    each turn. Turns bound together by a call whose result landed in a later turn walk as one:
    they leave together or not at all, and a refusal of one member names them all.

    Args:
        messages: The window.
        turns: ``segment_turns(messages)``.
        keep_recent_turns: The last N turns are not candidates.
        guards: This boundary's guards.
        keep_last_tool_results: Pin limit (0 = off).
        stand_down: Release pins for this visit.
        is_existing_summary: Recognises what the library already wrote in place of history
            (default: drop notices, compaction frames, placeholders). A span made only of
            those is stepped over as ``only-existing-summary`` — a notice of a notice, or a
            summary of a summary, gains nothing — and the walk goes on further in.
        bound: ``bound_turns(messages, turns)`` when the caller already has it.
    """
    table = TurnTable.of(turns)
    starts, ends = table.starts, table.ends
    n_turns = len(starts)
    keep = max(0, keep_recent_turns)
    keep_start = max(0, n_turns - keep)
    request_turn = None if guards.request_index is None else turn_of(table, guards.request_index)
    pinned, observations = choose_pins(
        messages,
        table,
        request_turn=request_turn,
        keep_start_turn=keep_start,
        limit=keep_last_tool_results,
        stand_down=stand_down,
    )
    stand_in = is_existing_summary or is_stand_in
    group_end = bound_turns(messages, table) if bound == "unknown" else bound
    reason_at = guards.reason_at
    refusals: list[Refusal] = []
    at_front = True  # every refusal so far is a kept request / system envelope at the head
    stepped = True  # no step-over yet: the refusals are in walk order as they stand
    first: int | None = None
    span: tuple[int, int] | None = None
    k = 0
    while k < keep_start:
        if group_end is None:
            last = k
            reason = reason_at(k, starts[k], ends[k], pinned)
        else:
            last = group_end[k]
            reason = _group_reason(table, k, last, keep_start, guards, pinned)
        if reason is not None:
            for member in range(k, min(last + 1, keep_start)):
                refusals.append(refusal_of(reason, member, starts[member]))
            if first is not None:
                span = (first, k)
                if not _only_stand_ins(messages, starts[first], ends[k - 1], stand_in):
                    break
                _step_over(refusals, first, k, starts)
                stepped = at_front = False
                first = span = None
            elif reason not in ("current-request", "system-envelope"):
                at_front = False
            k = last + 1
            continue
        if first is None:
            first = k
        k = last + 1
    else:
        if first is not None:
            if _only_stand_ins(messages, starts[first], ends[keep_start - 1], stand_in):
                _step_over(refusals, first, keep_start, starts)
            else:
                span = (first, keep_start)
    for member in range(keep_start, n_turns):
        refusals.append(refusal_of("inside-keep-window", member, starts[member]))
    if not stepped:  # a step-over names its turns after the refusal that ended the span
        refusals.sort(key=_turn_index)
    if span is None:
        return RemovalPlan(table, keep, None, None, tuple(refusals), observations, False, pinned)
    return RemovalPlan(
        table,
        keep,
        span,
        (starts[span[0]], ends[span[1] - 1]),
        tuple(refusals),
        observations,
        at_front,
        pinned,
    )


def _turn_index(refusal: Refusal) -> int:
    return refusal.turn_index


def _group_reason(
    turns: TurnTable,
    first: int,
    last: int,
    keep_start: int,
    guards: Guards,
    pinned: frozenset[int],
) -> RefusalReason | None:
    """Why the turns ``first..last`` (one group) may not leave, first match wins."""
    starts, ends = turns.starts, turns.ends
    if last == first:
        return guards.reason_at(first, starts[first], ends[first], pinned)
    answer_end = ends[last]
    for member in range(first, last + 1):
        if member >= keep_start:
            return "inside-keep-window"
        reason = guards.reason_at(member, starts[member], ends[member], pinned, answer_end)
        if reason is not None:
            return reason
    return None


def _only_stand_ins(
    messages: Sequence[Message], start: int, end: int, stand_in: Callable[[Message], bool]
) -> bool:
    return all(map(stand_in, messages[start:end]))


def _step_over(refusals: list[Refusal], first: int, end: int, starts: list[int]) -> None:
    """Name the stand-in turns ``first..end-1`` the walk steps over."""
    for member in range(first, end):
        refusals.append(refusal_of("only-existing-summary", member, starts[member]))
