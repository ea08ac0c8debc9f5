"""The law's checks on whatever a strategy returns, shipped, yours or a foreign policy's: the
one rule engine.

Layer: window core. :func:`breaches` returns typed breaches; the caller decides what they do.
:func:`apply_window` runs it on every result — built from a plan or assembled by hand — and no
flag a strategy can set skips it: a breach raises, unless its caller files it
(``on_breach="record"``). The auditor (:mod:`footprint_lab.auditing`) is an adapter: it
matches a foreign policy's output to its input as an :class:`Edit` and files these breaches
as violations. The rules are the law stated in ``footprint_lab.window``, seen from outside the
refusal engine:

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
window: a prefix and a suffix kept as they were are matched by identity in one C-level pass
(:mod:`footprint_lab.window._law_spans`). A change that is not one span replaced (kept
messages between removed ones, moved, rewritten in place by a foreign policy) is read as an
:class:`Edit`, each run of removed messages checked as a span against what is still present.
The wire rules a provider holds any one window to — whoever produced it, the evidence layer's
check of every window a run sent included — are :mod:`footprint_lab.window.wire`'s, stated
here as :func:`wire_breaches`; the head rule above reads the head from there.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from footprint_lab.messages import Message
from footprint_lab.window._breach import LAW_RULES, Breach, add_breach, ranked
from footprint_lab.window._law_rewrites import check_in_place, check_stand_ins, holds_any
from footprint_lab.window._law_spans import (
    check_edges,
    check_head,
    check_messages,
    check_names,
    check_turns,
)
from footprint_lab.window.facts import WindowFacts
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.wire import WIRE_RULES, WireFault, wire_faults

__all__ = [
    "LAW_RULES",
    "WIRE_RULES",
    "Breach",
    "Change",
    "Edit",
    "breaches",
    "change_of",
    "edit_of",
    "wire_breaches",
]

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


@dataclass(frozen=True, slots=True)
class Edit:
    """Any change from a given window to a returned one, message by message: what a policy
    that never went through the refusal engine may do (remove here and there, move, rewrite
    in place, insert). The law reads an :class:`Edit` when the change is not one span replaced
    (:class:`Change`); an auditor builds one from a foreign policy's output."""

    origin: tuple[int | None, ...]
    """For each message of the returned window: the index of the given message it is (kept)
    or stands in place of (rewritten); None for a message inserted."""
    rewritten: frozenset[int] = frozenset()
    """Indices of the returned window whose message rewrites its origin in place (another
    object, the same message's place)."""


def edit_of(given: Sequence[Message], returned: Sequence[Message]) -> Edit:
    """The :class:`Edit` from ``given`` to ``returned`` by identity: a message of ``returned``
    is the given message it is (this very object; a repeated object is that message again),
    anything else was inserted."""
    at: dict[int, int] = {}
    for i, message in enumerate(given):
        at.setdefault(id(message), i)
    return Edit(tuple(at.get(id(message)) for message in returned))


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


def breaches(
    given: Sequence[Message],
    returned: Sequence[Message],
    record: WindowRecord | None,
    *,
    request_index: int | None,
    paused_call_id: str | None = None,
    change: Change | Edit | None = None,
    facts: WindowFacts | None = None,
    iteration: int | None = None,
) -> list[Breach]:
    """Every rule ``returned`` (with its ``record``) breaks against ``given``; empty when lawful.

    Args:
        given: The window the strategy was given.
        returned: The window it returned.
        record: The record it filed (None: the naming rules are not checked — an auditor
            writes the record of a foreign policy itself).
        request_index: Index of the current request in ``given``.
        paused_call_id: The call a paused run waits on.
        change: ``change_of(given, returned)`` when the caller already has it, or an
            :class:`Edit` (how a foreign policy's output stands to its input, matched by
            the caller); by default the change by identity.
        facts: The given window's facts (``facts.scan``, computed from the given window,
            never by the strategy). When no result landed outside its call's turn, a removal
            of whole turns is checked turn by turn from them: no pair can be split, and the
            request, system messages, open and paused calls are set lookups.
        iteration: The visit's iteration (a placeholder written now names it); None skips
            that one check.
    """
    change = change_of(given, returned) if change is None else change
    out: list[Breach] = []
    if isinstance(change, Edit):
        _check_edit(out, given, returned, change, record, request_index, paused_call_id, iteration)
        return ranked(out)
    start, end, inserted = change.start, change.end, change.inserted
    if change.in_place:
        replaced = change.in_place
        check_in_place(
            out, given, returned, [(i, i) for i in replaced], request_index, facts, iteration
        )
        check_names(out, given, [given[i] for i in replaced], replaced, record)
        return ranked(out)
    # What left is read only where a check needs it: a cold trim removes tens of thousands.
    span = range(start, end)
    window = facts.window if facts is not None and facts.window.messages is given else None
    if inserted:
        if holds_any(given, inserted, window):  # not one span replaced: read it message-wise
            edit = edit_of(given, returned)
            _check_edit(
                out, given, returned, edit, record, request_index, paused_call_id, iteration
            )
            return ranked(out)
        check_stand_ins(out, given, span, inserted, window, request_index)
    if not span:
        return ranked(out)

    whole = check_edges(out, given, start, end, request_index)
    if whole and facts is not None and facts.bound is None:
        check_turns(out, given, facts, start, end)
    else:
        check_messages(out, given, given[start:end], start, end, paused_call_id)
    check_head(out, given, returned)
    left = window.peek_span_stage_ids(start, end) if window is not None else None
    check_names(out, given, None if left is not None else given[start:end], span, record, left)
    return ranked(out)


def wire_breaches(window: Sequence[Message]) -> list[Breach]:
    """The wire rules (:data:`WIRE_RULES`) on one window, whoever produced it: every result
    without its call, every turn that starts while calls are unanswered, and a head that is not
    a ``user`` message, in window order (the head's last). The evidence layer's
    :class:`~footprint_lab.evidence.losses.WireCheck` states the same faults in words."""
    return [_wire_breach(window, fault) for fault in wire_faults(window)]


def _wire_breach(window: Sequence[Message], fault: WireFault) -> Breach:
    message = window[fault.message_index]
    if fault.rule == "result-without-call":
        detail = f"the result of {fault.call_ids[0]!r} has no call before it"
    elif fault.rule == "unanswered-calls":
        detail = f"the call(s) {list(fault.call_ids)} have no result before this new turn"
    else:
        detail = f"the window opens on a {fault.role} message"
    return Breach(fault.rule, fault.message_index, message.stage_id, detail)


def _check_edit(
    out: list[Breach],
    given: Sequence[Message],
    returned: Sequence[Message],
    edit: Edit,
    record: WindowRecord | None,
    request_index: int | None,
    paused_call_id: str | None,
    iteration: int | None,
) -> None:
    """Any change, message by message: each run of removed messages is checked as a span (its
    pairs against what is still present), the rewrites in place and the insertions between
    kept messages by the rules for each, and what left must be one span, in order."""
    n = len(given)
    present = bytearray(n)
    last = -1
    for i in edit.origin:
        if i is None:
            continue
        if present[i] or i < last:
            add_breach(
                out, given, "non-contiguous-removal", i, "a kept message was moved or repeated"
            )
        present[i] = 1
        last = max(last, i)
    removed = [i for i in range(n) if not present[i]]
    runs = _runs(removed)
    if len(runs) > 1:
        shown = f"{removed[:8]}{'…' if len(removed) > 8 else ''}"
        add_breach(
            out,
            given,
            "non-contiguous-removal",
            removed[0],
            f"what left is not one contiguous span: removed indices {shown}",
        )
    for start, end in runs:
        check_edges(out, given, start, end, request_index)
        check_messages(out, given, given[start:end], start, end, paused_call_id, present)
    rewritten = [(edit.origin[j], j) for j in sorted(edit.rewritten)]
    in_place = [(i, j) for i, j in rewritten if i is not None]
    if in_place:
        check_in_place(out, given, returned, in_place, request_index, None, iteration)
    j = 0
    while j < len(edit.origin):
        if edit.origin[j] is not None:
            j += 1
            continue
        first = j
        while j < len(edit.origin) and edit.origin[j] is None:
            j += 1
        before = edit.origin[first - 1] if first else None
        after = edit.origin[j] if j < len(edit.origin) else None
        low = -1 if before is None else before
        span = range(low + 1, max(low + 1, n if after is None else after))
        check_stand_ins(out, given, span, returned[first:j], None, request_index, first)
    check_head(out, given, returned)
    if record is not None:
        positions = sorted([*removed, *(i for i, _ in in_place)])
        check_names(out, given, [given[i] for i in positions], positions, record)


def _runs(indices: Sequence[int]) -> list[tuple[int, int]]:
    """The maximal runs ``[start, end)`` of consecutive numbers in sorted ``indices``."""
    out: list[tuple[int, int]] = []
    for i in indices:
        if out and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out
