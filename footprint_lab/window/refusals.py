"""The refusal engine: guards, and ``plan_removal`` — the one place that decides what may
leave.

Layer: window core. Every strategy — shipped or yours — inherits these rules; see the law in
``footprint_lab.window``.

Guards, first match wins: ``current-request``, ``system-envelope``, ``paused-tool`` /
``pending-check-in``, ``unresolved-tool-call``, ``last-tool-result``. The last
``keep_recent_turns`` turns are not candidates at all (``inside-keep-window``).

A removal is one contiguous span of turns: walking candidates oldest first, refused turns
before the first removable one are stepped over (and reported); the first refused turn after
it ends the span (and is reported). A span made only of what the library already wrote in
place of history is stepped over too (``only-existing-summary``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from footprint_lab.messages import Message
from footprint_lab.window.facts import WindowFacts
from footprint_lab.window.notice import is_notice_or_frame
from footprint_lab.window.pins import choose_pins
from footprint_lab.window.records import (
    Observations,
    Refusal,
    RefusalReason,
    fresh_refusal,
    refusal_of,
)
from footprint_lab.window.shape import Window
from footprint_lab.window.turns import Turn, TurnTable, bound_turns, turn_of


@dataclass(frozen=True, slots=True)
class Guards:
    """This boundary's guards. Strategies never receive it, only ``plan_removal``'s answer."""

    messages: Sequence[Message]
    request_index: int | None
    paused_call_id: str | None = None
    paused_check_in: bool = False
    facts: WindowFacts | None = None
    """The window's facts, when ``apply_window`` computed them: with every result local to
    its turn, each guard is a set lookup instead of a scan of the turn."""

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
        facts = self.facts
        if facts is not None and facts.local and answer_end is None:
            if index == facts.request_turn:
                return "current-request"
            if index in facts.system_turns:
                return "system-envelope"
            if index in facts.paused_turns:
                return "pending-check-in" if self.paused_check_in else "paused-tool"
            if index in facts.open_turns:
                return "unresolved-tool-call"
            return "last-tool-result" if index in pinned else None
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


def keep_window_start(messages: Sequence[Message], starts: list[int], keep: int) -> int:
    """The first turn of the keep window: the last ``keep`` turns, not counting the turns an
    injection opened (``authored="injection"``: standing instructions re-delivered after a
    compaction are the library's, not the conversation's, so a copy never takes a turn's slot
    of the keep window). Reads back ``keep`` turns and the injections among them, no more."""
    k = len(starts)
    counted = 0
    while k > 0 and counted < keep:
        k -= 1
        if messages[starts[k]].authored != "injection":
            counted += 1
    return k if counted == keep else 0


def walk_start(
    messages: Sequence[Message],
    turns: Sequence[Turn],
    keep_recent_turns: int,
    guards: Guards,
    keep_last_tool_results: int,
    stand_down: bool,
) -> tuple[TurnTable, int, int, frozenset[int], Observations | None]:
    """What every walk of the engine starts from: the turn table, the keep window (its size
    and its first turn) and the pins (the turns they hold, and their observations)."""
    table = TurnTable.of(turns)
    keep = max(0, keep_recent_turns)
    keep_start = keep_window_start(messages, table.starts, keep)
    facts = guards.facts
    if facts is not None and facts.window.messages is messages:
        window: Window | None = facts.window
        request_turn = facts.request_turn
    else:
        window = None
        request_turn = (
            None if guards.request_index is None else turn_of(table, guards.request_index)
        )
    pinned, observations = choose_pins(
        messages,
        table,
        request_turn=request_turn,
        keep_start_turn=keep_start,
        limit=keep_last_tool_results,
        stand_down=stand_down,
        window=window,
    )
    return table, keep, keep_start, pinned, observations


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
            (default: drop notices and compaction frames; a cleared-result placeholder stands
            in place inside a turn that is still history, so it leaves like one). A span made
            only of those is stepped over as ``only-existing-summary`` — a notice of a notice,
            or a summary of a summary, gains nothing — and the walk goes on further in.
        bound: ``bound_turns(messages, turns)`` when the caller already has it.
    """
    table, keep, keep_start, pinned, observations = walk_start(
        messages, turns, keep_recent_turns, guards, keep_last_tool_results, stand_down
    )
    starts, ends = table.starts, table.ends
    stand_in = is_existing_summary or is_notice_or_frame
    facts = guards.facts
    refused: Iterable[tuple[int, int, RefusalReason]]
    if facts is not None and facts.local and facts.turns.starts is starts:
        refused = _refusing_turns(guards, pinned, keep_start)
    else:
        group_end = bound_turns(messages, table) if bound == "unknown" else bound
        refused = _refusing_groups(table, keep_start, guards, pinned, group_end)
    span, refusals, at_front = _walk(refused, messages, starts, ends, keep_start, stand_in)
    return _plan(table, keep, span, refusals, observations, at_front, pinned)


def _refusing_groups(
    table: TurnTable,
    keep_start: int,
    guards: Guards,
    pinned: frozenset[int],
    group_end: list[int] | None,
) -> Iterator[tuple[int, int, RefusalReason]]:
    """Every group of turns before the keep window that refuses, oldest first: ``(first turn,
    last turn, reason)`` (a group is one turn unless a displaced result binds turns)."""
    starts, ends = table.starts, table.ends
    k = 0
    while k < keep_start:
        if group_end is None:
            last = k
            reason = guards.reason_at(k, starts[k], ends[k], pinned)
        else:
            last = group_end[k]
            reason = _group_reason(table, k, last, keep_start, guards, pinned)
        if reason is not None:
            yield k, last, reason
        k = last + 1


def _refusing_turns(
    guards: Guards, pinned: frozenset[int], keep_start: int
) -> list[tuple[int, int, RefusalReason]]:
    """:func:`_refusing_groups` of a window whose results all sit in their calls' turns: there
    every refusal is known before the walk — the request's turn, the system turns, the paused
    turn, the turns with an unresolved call and the pinned ones (first match wins, as in
    :meth:`Guards.reason_at`) — so the walk visits only those, at a cost that does not grow
    with the window."""
    facts = guards.facts
    assert facts is not None
    if not (pinned or facts.open_turns or facts.paused_turns or facts.system_turns):
        # A running loop's usual window: nothing refuses but the request.
        request = facts.request_turn
        if request is not None and request < keep_start:
            return [(request, request, "current-request")]
        return []
    refused: dict[int, RefusalReason] = dict.fromkeys(pinned, "last-tool-result")
    refused.update(dict.fromkeys(facts.open_turns, "unresolved-tool-call"))
    paused: RefusalReason = "pending-check-in" if guards.paused_check_in else "paused-tool"
    refused.update(dict.fromkeys(facts.paused_turns, paused))
    refused.update(dict.fromkeys(facts.system_turns, "system-envelope"))
    if facts.request_turn is not None:
        refused[facts.request_turn] = "current-request"
    return [(k, k, refused[k]) for k in sorted(refused) if k < keep_start]


def _walk(
    refused: Iterable[tuple[int, int, RefusalReason]],
    messages: Sequence[Message],
    starts: list[int],
    ends: list[int],
    keep_start: int,
    stand_in: Callable[[Message], bool],
) -> tuple[tuple[int, int] | None, list[Refusal], bool]:
    """The walk of :func:`plan_removal` over the refusing groups, oldest first: the turns
    between two of them may leave. Returns the span, the refusals and ``at_front``."""
    refusals: list[Refusal] = []
    at_front = True  # every refusal so far is a kept request / system envelope at the head
    stepped = True  # no step-over yet: the refusals are in walk order as they stand
    first: int | None = None
    span: tuple[int, int] | None = None
    position = 0  # the first turn the walk has not passed
    for k, last, reason in refused:
        if position < k and first is None:
            first = position
        for member in range(k, min(last + 1, keep_start)):
            head = starts[member]
            refusals.append(refusal_of(reason, member, head, messages[head].stage_id))
        if first is not None:
            span = (first, k)
            if not _only_stand_ins(messages, starts[first], ends[k - 1], stand_in):
                break
            _step_over(refusals, messages, first, k, starts)
            stepped = at_front = False
            first = span = None
        elif reason not in ("current-request", "system-envelope"):
            at_front = False
        position = last + 1
    else:
        if position < keep_start and first is None:
            first = position
        if first is not None:
            if _only_stand_ins(messages, starts[first], ends[keep_start - 1], stand_in):
                _step_over(refusals, messages, first, keep_start, starts)
                stepped = False
            else:
                span = (first, keep_start)
    _name_keep_window(refusals, messages, starts, keep_start)
    if not stepped:  # a step-over names its turns after the refusal that ended the span
        refusals.sort(key=_turn_index)
    return span, refusals, at_front


def _plan(
    table: TurnTable,
    keep: int,
    span: tuple[int, int] | None,
    refusals: list[Refusal],
    observations: Observations | None,
    at_front: bool,
    pinned: frozenset[int],
) -> RemovalPlan:
    if span is None:
        return RemovalPlan(table, keep, None, None, tuple(refusals), observations, False, pinned)
    messages_span = (table.starts[span[0]], table.ends[span[1] - 1])
    return RemovalPlan(
        table, keep, span, messages_span, tuple(refusals), observations, at_front, pinned
    )


def _name_keep_window(
    refusals: list[Refusal], messages: Sequence[Message], starts: list[int], keep_start: int
) -> None:
    """Name every turn of the keep window ``inside-keep-window`` (built afresh, not shared: in
    a running loop the keep window's turns shift at every visit, so a cache would only churn)."""
    refusals.extend(
        [
            fresh_refusal(
                "inside-keep-window", member, starts[member], messages[starts[member]].stage_id
            )
            for member in range(keep_start, len(starts))
        ]
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
    # The first message nearly always decides: a slice of a long span first would copy it,
    # touching every message object there.
    if start >= end:
        return True
    return stand_in(messages[start]) and all(map(stand_in, messages[start + 1 : end]))


def _step_over(
    refusals: list[Refusal],
    messages: Sequence[Message],
    first: int,
    end: int,
    starts: list[int],
) -> None:
    """Name the stand-in turns ``first..end-1`` the walk steps over."""
    for member in range(first, end):
        head = starts[member]
        refusals.append(refusal_of("only-existing-summary", member, head, messages[head].stage_id))
