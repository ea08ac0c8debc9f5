"""The law's checks on what left: one span of the given window (its edges, the request, system
messages, the paused call and tool pairs by position), the window's head, and the names the
record gives what left.

Layer: window core, private (run by :func:`footprint_lab.window.law.breaches`, on the one span
a strategy removed or on each run of messages a foreign policy removed; the law is stated in
``footprint_lab.window``).
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Sequence

from footprint_lab.messages import Message
from footprint_lab.window._breach import Breach, add_breach
from footprint_lab.window._law_rewrites import results_after
from footprint_lab.window.facts import WindowFacts
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.wire import head_index

__all__ = ["check_edges", "check_head", "check_messages", "check_names", "check_turns"]


def check_edges(
    out: list[Breach], given: Sequence[Message], start: int, end: int, request_index: int | None
) -> bool:
    """Whole turns: the span ``[start, end)`` opens on a turn's first message and ends where a
    turn starts (returns whether it does); the request is not in it."""
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
    return whole


def check_head(out: list[Breach], given: Sequence[Message], returned: Sequence[Message]) -> None:
    """The wire: a window that opened on a user message still does."""
    head_before = head_index(given)
    if head_before is not None and given[head_before].role == "user":
        head_after = head_index(returned)
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


def check_names(
    out: list[Breach],
    given: Sequence[Message],
    removed: Sequence[Message] | None,
    positions: Sequence[int],
    record: WindowRecord | None,
    left: list[str] | None = None,
) -> None:
    """Everything that left (``removed``, at ``positions`` of the given window) is named in
    ``removed_stage_ids``, and nothing else is (no ``record``: nothing to check). ``left``: the
    stage ids of ``removed``, each once, in order, when the window's facts already have them."""
    if record is None:
        return
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


def check_turns(
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


def check_messages(
    out: list[Breach],
    given: Sequence[Message],
    removed: Sequence[Message],
    start: int,
    end: int,
    paused_call_id: str | None,
    present: Sequence[int] | None = None,
) -> None:
    """Any span, message by message: system messages, the paused call, and pairs by position
    (a result answers the latest earlier call with its id); a split pair is one breach per
    half that stays (``kept_half``). ``present``: when other messages
    outside the span left too, ``present[i]`` is true for the given messages still in the
    returned window (by default every message outside the span is)."""
    calls_here: dict[str, int] = {}
    answered: set[str] = set()
    cut: set[tuple[int, str]] = set()
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
                continue
            caller = _called_before(given, start, call_id)
            if (
                caller is not None
                and (present is None or present[caller])
                and (caller, call_id) not in cut
            ):
                cut.add((caller, call_id))  # one breach per call that stays, however many left
                add_breach(
                    out,
                    given,
                    "split-tool-pair",
                    index,
                    f"the result of {call_id!r} left but its call stays",
                    caller,
                )
        elif role == "system":
            add_breach(out, given, "system-dropped", index, "a system message left")
    if calls_here:
        later = results_after(given, end, set(calls_here), present)
        for call_id, at in calls_here.items():
            if call_id in later:
                what = "one of its results stays" if call_id in answered else "its result stays"
                for kept in later[call_id]:  # one breach per result that stays
                    add_breach(
                        out,
                        given,
                        "split-tool-pair",
                        at,
                        f"the call {call_id!r} left but {what}",
                        kept,
                    )
            elif call_id not in answered and (
                present is None or not results_after(given, end, {call_id})
            ):
                add_breach(
                    out,
                    given,
                    "unresolved-call-left",
                    at,
                    f"the call {call_id!r} has no result yet and left",
                )


_stage_of = operator.attrgetter("stage_id")


def _called_before(given: Sequence[Message], start: int, call_id: str) -> int | None:
    """Index of the latest call with ``call_id`` before ``start``, the call a result there
    answers (rare path: a result that left without its call, or an orphan the given window
    already held)."""
    for i in range(start - 1, -1, -1):
        if any(call.id == call_id for call in given[i].tool_calls):
            return i
    return None
