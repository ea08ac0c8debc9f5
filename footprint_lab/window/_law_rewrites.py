"""The law's checks on what a strategy *wrote*: the stand-ins it inserted in place of a span,
and the placeholders it put in place of messages.

Layer: window core, private (run by :func:`footprint_lab.window.law.breaches`; the law is stated
in ``footprint_lab.window``). A stand-in is a library-authored ``user`` text message — a drop
notice (only where the ladder puts one: at the front of what may leave) or a compaction frame —
with no calls, no call id, no name and no parts. In place, only a tool result may be replaced,
by the library's cleared-result placeholder, a call's arguments may change only to the
``{"cleared": true}`` of ``clear_tool_inputs``, and only for calls whose results were cleared,
and a reply may lose its thinking parts (``clear_thinking``) and nothing else.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from footprint_lab.messages import SPAN_STAND_IN_KINDS, Message, without_thinking
from footprint_lab.window._breach import Breach, add_breach
from footprint_lab.window.facts import WindowFacts
from footprint_lab.window.notice import (
    CLEARED_ARGUMENTS_KEY,
    CLEARED_RESULT_PREFIX,
    cleared_result_text,
)
from footprint_lab.window.shape import Window

_CLEARED_ARGUMENTS = {CLEARED_ARGUMENTS_KEY: True}
_PLACEHOLDER = re.compile(
    re.escape(CLEARED_RESULT_PREFIX)
    + r"(?:output of '[^']*'|tool output) cleared at iteration (\d+) by '([^']*)'\. "
)
_FEW_INSERTED = 8  # inserted messages looked up one by one before an identity set is built


def holds_any(given: Sequence[Message], inserted: Sequence[Message], window: Window | None) -> bool:
    """Whether any of ``inserted`` (these very objects) stands in ``given`` (``window``: its
    facts, if known): then what left is not one span replaced, and the law reads the change
    message by message (:class:`~footprint_lab.window.law.Edit`)."""
    # Identity lookups: one index for many insertions, so a policy that rewrites every message
    # of a long window is checked in linear time.
    if len(inserted) > _FEW_INSERTED:
        where = _positions(given)
        return any(id(message) in where for message in inserted)
    return any(_holds(given, message, window) for message in inserted)


def check_stand_ins(
    out: list[Breach],
    given: Sequence[Message],
    span: range,
    inserted: Sequence[Message],
    window: Window | None,
    request_index: int | None,
    at: int | None = None,
) -> None:
    """Only one library stand-in, of the one shape allowed, in place of something that left
    (``span``: the indices of the given window that left; ``window``: its facts, if known;
    ``inserted``: messages the given window does not hold, the first at index ``at`` of the
    returned window — by default ``span.start``, where a kept prefix puts it)."""
    first = span.start if at is None else at
    for earlier, message in enumerate(inserted):
        problem = _stand_in_problem(message, span, earlier)
        if problem is None and message.authored == "drop-notice":
            problem = _notice_off_front(given, span.start, window, request_index)
        if problem is not None:
            out.append(
                Breach("rewritten-without-frame", first + earlier, message.stage_id, problem)
            )


OPAQUE_COMPACTION = "compaction"
"""The one part a stand-in may carry: a provider's compaction whose content is encrypted
(OpenAI's ``compaction`` item), sized by its data and holding no readable text."""


def _stand_in_problem(message: Message, span: range, earlier: int) -> str | None:
    """Why ``message`` may not stand in ``span``'s place (None when it may)."""
    if message.authored not in SPAN_STAND_IN_KINDS:
        return "an inserted message is not a library stand-in (a drop notice or a compaction frame)"
    if not span:
        return "an inserted message stands where nothing left"
    if (
        message.role != "user"
        or message.tool_calls
        or message.tool_call_id is not None
        or message.name is not None
        or any(p.kind != OPAQUE_COMPACTION or p.text is not None for p in message.parts)
    ):
        return (
            f"an inserted message (a {message.authored}) must be a user text message with no "
            f"tool calls, call id, name or parts but a provider's opaque compaction "
            f"(got a {message.role} message)"
        )
    if earlier:
        return "an inserted message is a second stand-in; one stand-in takes the place of one span"
    return None


def _notice_off_front(
    given: Sequence[Message], start: int, window: Window | None, request_index: int | None
) -> str | None:
    """Why a drop notice may not open at ``start``: the ladder inserts one only when the span
    starts at the front of what may leave (after system messages and the request's turn)."""
    if start == 0:
        return None
    facts = window if window is not None else Window.of(given)
    request_turn = None if request_index is None else facts.turn_of(request_index)
    for turn in range(facts.turn_of(start)):
        if turn != request_turn and turn not in facts.system_turns:
            return (
                "an inserted message (a drop notice) stands only at the front of what may leave "
                "(after the system messages and the request's turn); this span starts after "
                "other kept turns"
            )
    return None


def check_in_place(
    out: list[Breach],
    given: Sequence[Message],
    returned: Sequence[Message],
    replaced: Sequence[tuple[int, int]],
    request_index: int | None,
    facts: WindowFacts | None,
    iteration: int | None,
) -> None:
    """Replacements in place (``replaced``: pairs of an index of the given window and the index
    of the returned window whose message stands in its place): a tool result by its
    cleared-result placeholder, a call's arguments by ``{"cleared": true}`` once its result is
    cleared; nothing else, and never the request, a system message or a call whose result has
    not arrived."""
    open_calls = _open_call_ids(given, [i for i, _ in replaced], facts)
    for i, j in replaced:
        original, stand_in = given[i], returned[j]
        if i == request_index:
            add_breach(out, given, "lost-current-request", i, "the request was replaced in place")
        if original.role == "system":
            add_breach(out, given, "system-dropped", i, "a system message was replaced in place")
        pending = [c.id for c in original.tool_calls if c.id in open_calls]
        if pending:
            add_breach(
                out,
                given,
                "unresolved-call-left",
                i,
                f"the call(s) {pending} have no result yet and were rewritten in place",
            )
        if original.role == "tool":
            problem = _placeholder_problem(original, stand_in, iteration)
        elif original.role == "assistant":
            problem = _arguments_problem(given, returned, i, j, facts)
        else:
            problem = (
                f"only a tool result, a call's arguments or a reply's thinking may be cleared "
                f"in place; a {original.role} message was rewritten"
            )
        if problem is not None:
            add_breach(out, given, "rewritten-without-frame", i, problem)


def _placeholder_problem(original: Message, stand_in: Message, iteration: int | None) -> str | None:
    """Why ``stand_in`` is not the library's placeholder for the result ``original``."""
    if (
        stand_in.role != "tool"
        or stand_in.tool_call_id != original.tool_call_id
        or stand_in.name != original.name
        or stand_in.tool_calls
        or stand_in.parts
    ):
        return (
            "a cleared-result placeholder keeps the role, call id and tool name of the result "
            "it replaces, and carries no calls or parts"
        )
    found = _PLACEHOLDER.match(stand_in.content)
    if found is None or stand_in.content != cleared_result_text(
        tool_name=original.name, iteration=int(found[1]), strategy=found[2]
    ):
        return (
            "a cleared result's text is the library's placeholder (cleared_result()); this "
            "one was rewritten"
        )
    if iteration is not None and int(found[1]) != iteration:
        return (
            f"the placeholder names iteration {found[1]}, but this visit is iteration {iteration}"
        )
    return None


def _arguments_problem(
    given: Sequence[Message],
    returned: Sequence[Message],
    i: int,
    j: int,
    facts: WindowFacts | None,
) -> str | None:
    """Why the assistant message at ``i`` was not lawfully rewritten (as ``returned[j]``):
    same text and calls (ids and names); its parts the same, or the same without its thinking
    (``clear_thinking``); only arguments of calls whose results were cleared may become
    ``{"cleared": true}`` (``clear_tool_inputs``)."""
    original, stand_in = given[i], returned[j]
    if (
        stand_in.role != original.role
        or stand_in.content != original.content
        or (stand_in.parts != original.parts and stand_in.parts != without_thinking(original))
        or stand_in.name != original.name
        or stand_in.tool_call_id != original.tool_call_id
        or [(c.id, c.name) for c in stand_in.tool_calls]
        != [(c.id, c.name) for c in original.tool_calls]
    ):
        return (
            "a reply rewritten in place keeps its text, its parts (less its thinking, when "
            "thinking is cleared) and its calls' ids and names; only the arguments may become "
            "{'cleared': true}"
        )
    changed: list[str] = []
    for old, new in zip(original.tool_calls, stand_in.tool_calls, strict=True):
        if new.arguments == old.arguments:
            continue
        if new.arguments != _CLEARED_ARGUMENTS:
            return (
                f"the arguments of call {old.id!r} were rewritten; in place they may change "
                "only to {'cleared': true} (clear_tool_inputs)"
            )
        changed.append(old.id)
    if not changed:
        return None
    end = len(returned)
    if facts is not None and facts.local and i == j:
        end = facts.turns.ends[facts.window.turn_of(i)]
    cleared = _cleared_results(returned, j + 1, end, set(changed))
    uncleared = [cid for cid in changed if cid not in cleared]
    if uncleared:
        return (
            f"the arguments of call(s) {uncleared} were cleared but their results were not; "
            "clear_tool_inputs clears only the calls of cleared results"
        )
    return None


def _cleared_results(
    window: Sequence[Message], start: int, end: int, call_ids: set[str]
) -> set[str]:
    """Which of ``call_ids`` have every result in ``window[start:end]`` cleared (and one)."""
    cleared: set[str] = set()
    spoiled: set[str] = set()
    live = set(call_ids)
    for j in range(start, end):
        if not live:
            break
        message = window[j]
        for call in message.tool_calls:
            live.discard(call.id)  # called again: later results answer the new call
        if message.role == "tool" and message.tool_call_id in live:
            target = cleared if message.authored == "cleared-result" else spoiled
            target.add(message.tool_call_id)
    return cleared - spoiled


def _open_call_ids(
    given: Sequence[Message], replaced: Sequence[int], facts: WindowFacts | None
) -> set[str]:
    """Ids of the replaced messages' calls that no later result answers."""
    out: set[str] = set()
    for i in replaced:
        calls = given[i].tool_calls
        if not calls:
            continue
        if facts is not None and facts.local:
            turn = bisect.bisect_right(facts.turns.starts, i) - 1
            if turn not in facts.open_turns:
                continue
        ids = {c.id for c in calls}
        out |= ids - results_after(given, i + 1, ids).keys()
    return out


def results_after(
    given: Sequence[Message],
    end: int,
    call_ids: set[str],
    present: Sequence[int] | None = None,
) -> dict[str, list[int]]:
    """Which of ``call_ids`` are answered by a result at or after ``end`` before being called
    again, each with the indices of those results (``present``: when given, only results still
    in the returned window count — ``present[i]`` is true for those)."""
    live = set(call_ids)
    found: dict[str, list[int]] = {}
    for i in range(end, len(given)):
        if not live:
            break
        message = given[i]
        for call in message.tool_calls:
            live.discard(call.id)
        call_id = message.tool_call_id
        if message.role == "tool" and call_id in live and (present is None or present[i]):
            found.setdefault(call_id, []).append(i)
    return found


def _positions(window: Sequence[Message]) -> dict[int, int]:
    """Each message's index in ``window``, by identity (the first, for a repeated object)."""
    out: dict[int, int] = {}
    for i, message in enumerate(window):
        out.setdefault(id(message), i)
    return out


def _holds(window: Sequence[Message], message: Message, facts: Window | None) -> bool:
    """Whether ``message`` (this very object) stands in ``window`` (``facts``: its facts)."""
    if facts is not None:
        return facts.holds(message)
    return any(m is message for m in window)
