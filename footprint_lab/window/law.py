"""The law's checks on whatever a strategy returns, shipped or yours.

Layer: window core. :func:`apply_window` runs :func:`breaches` on every result — built from a
plan or assembled by hand — and no flag a strategy can set skips it. The rules are the law
stated in ``footprint_lab.window``, seen from outside the refusal engine:

* what left is one contiguous span of whole turns, and only one library stand-in may stand in
  its place: a ``user`` text message with no calls, call id, name or parts — a compaction
  frame, or a drop notice at the front of what may leave; the one other lawful move is in
  place: a tool result replaced by the library's cleared-result placeholder (same role, call
  id and tool name), and a cleared result's call arguments by ``{"cleared": true}`` — nothing
  else is rewritten (:mod:`footprint_lab.window._law_rewrites`);
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

import bisect
import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from footprint_lab.messages import Message
from footprint_lab.window._breach import LAW_RULES, Breach, add_breach, ranked
from footprint_lab.window._law_rewrites import check_in_place, check_stand_ins, results_after
from footprint_lab.window.facts import WindowFacts
from footprint_lab.window.records import WindowRecord

__all__ = ["LAW_RULES", "Breach", "Change", "breaches", "change_of"]

_WALKED = 8  # kept messages matched one by one before change_of switches to a C-level pass


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
    in_place: tuple[int, ...] = ()
    """When the change is replacements in place: the given indices replaced (the window kept
    its length, and every other message of the span stands where it stood)."""


def change_of(given: Sequence[Message], returned: Sequence[Message]) -> Change:
    """The one span by which ``returned`` differs from ``given``, matching kept messages by
    identity from both ends (a message copied is a message rewritten)."""
    n, m = len(given), len(returned)
    limit = min(n, m)
    # The kept prefix is short in a running loop (the request, maybe a notice): walk it; a
    # long one (a clearing deep in a long window) is matched in one C-level pass.
    prefix = 0
    while prefix < limit and prefix < _WALKED and given[prefix] is returned[prefix]:
        prefix += 1
    if prefix == _WALKED < limit:
        rest = map(operator.is_not, itertools.islice(given, prefix, limit), returned[prefix:limit])
        prefix = next(itertools.compress(itertools.count(prefix), rest), limit)
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
    inserted = list(returned[prefix : m - suffix])
    if (
        n == m
        and inserted
        and all(
            m.authored == "cleared-result" or m is given[prefix + k] for k, m in enumerate(inserted)
        )
    ):
        replaced = tuple(
            prefix + k for k, message in enumerate(inserted) if message is not given[prefix + k]
        )
        return Change(prefix, n - suffix, inserted, replaced)
    return Change(prefix, n - suffix, inserted)


def _head(window: Sequence[Message]) -> int | None:
    """Index of the first message that is not a system message."""
    for i, message in enumerate(window):
        if message.role != "system":
            return i
    return None


def breaches(
    given: Sequence[Message],
    returned: Sequence[Message],
    record: WindowRecord,
    *,
    request_index: int | None,
    paused_call_id: str | None = None,
    change: Change | None = None,
    facts: WindowFacts | None = None,
    iteration: int | None = None,
) -> list[Breach]:
    """Every rule ``returned`` (with its ``record``) breaks against ``given``; empty when lawful.

    Args:
        given: The window the strategy was given.
        returned: The window it returned.
        record: The record it filed.
        request_index: Index of the current request in ``given``.
        paused_call_id: The call a paused run waits on.
        change: ``change_of(given, returned)`` when the caller already has it.
        facts: The given window's facts (``facts.scan``, computed from the given window,
            never by the strategy). When no result landed outside its call's turn, a removal
            of whole turns is checked turn by turn from them: no pair can be split, and the
            request, system messages, open and paused calls are set lookups.
        iteration: The visit's iteration (a placeholder written now names it); None skips
            that one check.
    """
    change = change_of(given, returned) if change is None else change
    start, end, inserted = change.start, change.end, change.inserted
    out: list[Breach] = []
    if change.in_place:
        replaced = change.in_place
        check_in_place(out, given, returned, replaced, request_index, facts, iteration)
        _check_names(out, given, [given[i] for i in replaced], replaced, record)
        return ranked(out)
    # What left is read only where a check needs it: a cold trim removes tens of thousands.
    span = range(start, end)
    window = facts.window if facts is not None and facts.window.messages is given else None
    if inserted:
        check_stand_ins(out, given, span, inserted, window, request_index)
    if not span:
        return ranked(out)

    # Whole turns: the span opens on a turn's first message and ends where a turn starts.
    whole = True
    if start > 0 and given[start].role == "tool":
        whole = False
        add_breach(
            out, given, "partial-turn", start, "the removal starts inside a turn (at a result)"
        )
    if end < len(given) and given[end].role == "tool":
        whole = False
        add_breach(
            out, given, "partial-turn", end, "the removal ends inside a turn (before a result)"
        )
    if request_index is not None and start <= request_index < end:
        add_breach(
            out,
            given,
            "lost-current-request",
            request_index,
            "the message the run is executing left",
        )

    if whole and facts is not None and facts.bound is None:
        _check_turns(out, given, facts, start, end)
    else:
        _check_messages(out, given, given[start:end], start, end, paused_call_id)

    # The wire: a window that opened on a user message still does.
    head_before = _head(given)
    if head_before is not None and given[head_before].role == "user":
        head_after = _head(returned)
        if head_after is not None and returned[head_after].role != "user":
            message = returned[head_after]
            out.append(
                Breach(
                    "window-opens-on-non-user",
                    head_after,
                    message.stage_id,
                    f"the window now opens on a {message.role} message",
                )
            )

    left = window.span_stage_ids(start, end) if window is not None else None
    _check_names(out, given, None if left is not None else given[start:end], span, record, left)
    return ranked(out)


def _check_names(
    out: list[Breach],
    given: Sequence[Message],
    removed: Sequence[Message] | None,
    positions: Sequence[int],
    record: WindowRecord,
    left: list[str] | None = None,
) -> None:
    """Everything that left (``removed``, at ``positions`` of the given window) is named in
    ``removed_stage_ids``, and nothing else is. ``left``: the stage ids of ``removed``, each
    once, in order, when the window's facts already have them."""
    named = record.removed_stage_ids
    if left is not None and named == left:
        return  # the engine's own naming: the same ids in the same order
    if removed is None:
        removed = [given[i] for i in positions]
    left_stages = dict.fromkeys(map(_stage_of, removed) if left is None else left)
    left_stages.pop(None, None)
    if len(named) != len(left_stages) or any(sid not in left_stages for sid in named):
        named_set = set(named)
        unnamed = [sid for sid in left_stages if sid not in named_set]
        if unnamed:
            first = next(i for i, m in enumerate(removed) if m.stage_id == unnamed[0])
            add_breach(
                out,
                given,
                "unnamed-removal",
                positions[first],
                f"{unnamed[0]} left without being named in removed_stage_ids",
            )
        extra = [sid for sid in named if sid not in left_stages]
        if extra:
            out.append(
                Breach(
                    "named-but-kept",
                    positions[0],
                    extra[0],
                    f"removed_stage_ids names {extra[:4]} but no message of theirs left",
                )
            )


def _check_turns(
    out: list[Breach], given: Sequence[Message], facts: WindowFacts, start: int, end: int
) -> None:
    """The whole-turn span ``[start, end)`` of a window whose results all sit in their calls'
    turns: pairs stay whole by construction; the rest is a lookup per refusing turn."""
    if not (facts.system_turns or facts.open_turns or facts.paused_turns):
        return  # nothing in the window may not leave but the request (checked on its own)
    starts = facts.turns.starts
    first = bisect.bisect_left(starts, start)
    last = bisect.bisect_left(starts, end)  # one past the span's last turn
    for turn in sorted(facts.system_turns):
        if first <= turn < last:
            add_breach(out, given, "system-dropped", starts[turn], "a system message left")
    for turn in sorted(facts.open_turns):
        if first <= turn < last:
            head = given[starts[turn]]
            open_ids = [c.id for c in head.tool_calls]
            add_breach(
                out,
                given,
                "unresolved-call-left",
                starts[turn],
                f"the call(s) {open_ids} have no result yet and left",
            )
    for paused in sorted(facts.paused_turns):
        if first <= paused < last:
            add_breach(out, given, "paused-call-left", starts[paused], "the paused call left")


def _check_messages(
    out: list[Breach],
    given: Sequence[Message],
    removed: Sequence[Message],
    start: int,
    end: int,
    paused_call_id: str | None,
) -> None:
    """Any span, message by message: system messages, the paused call, and pairs by position
    (a result answers the latest earlier call with its id)."""
    calls_here: dict[str, int] = {}
    answered: set[str] = set()
    index = start - 1
    for message in removed:
        index += 1
        calls = message.tool_calls
        if calls:
            for call in calls:
                calls_here[call.id] = index
                answered.discard(call.id)
                if call.id == paused_call_id:
                    add_breach(
                        out, given, "paused-call-left", index, f"the paused call {call.id!r} left"
                    )
            continue
        role = message.role
        if role == "tool":
            call_id = message.tool_call_id
            if call_id is None:
                continue
            if call_id in calls_here:
                answered.add(call_id)
            elif _called_before(given, start, call_id):
                add_breach(
                    out,
                    given,
                    "split-tool-pair",
                    index,
                    f"the result of {call_id!r} left but its call stays",
                )
        elif role == "system":
            add_breach(out, given, "system-dropped", index, "a system message left")
    if calls_here:
        open_calls = [cid for cid in calls_here if cid not in answered]
        later = results_after(given, end, set(calls_here))
        for call_id in open_calls:
            rule, what = (
                ("split-tool-pair", "left but its result stays")
                if call_id in later
                else ("unresolved-call-left", "has no result yet and left")
            )
            add_breach(out, given, rule, calls_here[call_id], f"the call {call_id!r} {what}")
        for call_id in answered & later:
            add_breach(
                out,
                given,
                "split-tool-pair",
                calls_here[call_id],
                f"the call {call_id!r} left but one of its results stays",
            )


_stage_of = operator.attrgetter("stage_id")


def _called_before(given: Sequence[Message], start: int, call_id: str) -> bool:
    """Whether a call with ``call_id`` stands before ``start`` (rare path: a result that left
    without its call, or an orphan the given window already held)."""
    for i in range(start - 1, -1, -1):
        if any(call.id == call_id for call in given[i].tool_calls):
            return True
    return False
