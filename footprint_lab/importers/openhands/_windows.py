"""Rebuilding the windows OpenHands' condensers left: a ``condensation`` action read as
OpenHands validates it, and each later call's input as ``View.from_events`` and
``ConversationMemory`` built it (forgotten events left out, the summary at its offset, the
first user message put back, unmatched tool calls and results dropped).

Layer: importers.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    int_of,
    text_or_empty,
)
from footprint_lab.importers.openhands._stream import _Condensation, _Event, _Stream
from footprint_lab.messages import Message


def _condensation(
    args: Mapping[str, Any], problems: Problems, index: int, at: str
) -> _Condensation:
    """A condensation's configuration, validated as OpenHands validates it."""
    ids = args.get("forgotten_event_ids")
    start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
    summary, offset = args.get("summary"), args.get("summary_offset")
    by_ids, by_range = ids is not None, start is not None and end is not None
    if by_ids == by_range:
        problems.fail(
            index,
            f"{at}.args",
            "a condensation needs forgotten_event_ids or a forgotten_events_start_id.."
            "forgotten_events_end_id range (exactly one)",
        )
    if (summary is None) != (offset is None):
        problems.fail(index, f"{at}.args", "summary and summary_offset go together")
    forgotten: frozenset[int] = frozenset()
    span: tuple[int, int] | None = None
    if by_ids:
        if not isinstance(ids, list):
            problems.fail(index, f"{at}.args.forgotten_event_ids", "expected a list of event ids")
        forgotten = frozenset(
            int_of(v, problems, index, f"{at}.args.forgotten_event_ids[{k}]")
            for k, v in enumerate(ids)
        )
    else:
        span = (
            int_of(start, problems, index, f"{at}.args.forgotten_events_start_id"),
            int_of(end, problems, index, f"{at}.args.forgotten_events_end_id"),
        )
    if summary is not None:
        summary = text_or_empty(summary, problems, index, f"{at}.args.summary")
        offset = int_of(offset, problems, index, f"{at}.args.summary_offset")
    return _Condensation(forgotten, span, summary, offset)


_SUMMARY = object()
_INITIAL = object()


def _windows(
    stream: _Stream, messages: Sequence[Message], place: Mapping[int, int]
) -> list[list[Message] | None]:
    """Each reply's input as OpenHands built it (``View.from_events``, then
    ``ConversationMemory``); None for a reply no condensation came before (it saw the history
    as it is)."""
    events = stream.events
    order = [k for k, e in enumerate(events) if e.condensation is not None]
    if not order:
        return [None] * len(stream.replies)
    # The first condensation (by its place in ``order``) that forgets each event.
    never = len(order)
    forgotten_at = [never] * len(events)
    by_id: dict[int, list[int]] = {}
    for k, e in enumerate(events):
        by_id.setdefault(e.id, []).append(k)
    for t, k in enumerate(order):
        condensation = events[k].condensation
        assert condensation is not None
        hits = [k, *(p for i in condensation.ids for p in by_id.get(i, []))]
        if condensation.span is not None:
            low, high = condensation.span
            hits.extend(p for p, e in enumerate(events) if low <= e.id <= high)
        for p in hits:
            forgotten_at[p] = min(forgotten_at[p], t)
    initial = next((e for e in events if e.user_message), None)
    out: list[list[Message] | None] = []
    for before in stream.replies:
        seen = bisect.bisect_left(order, before)  # condensations before this reply
        if seen == 0:
            out.append(None)
            continue
        kept: list[Any] = [
            e for p, e in enumerate(events[:before]) if forgotten_at[p] >= seen and not e.request
        ]
        # The summary in force is the latest (inserted as list.insert does, as OpenHands does).
        latest = next(
            (
                c
                for c in (events[k].condensation for k in reversed(order[:seen]))
                if c is not None and c.summary is not None
            ),
            None,
        )
        if latest is not None and latest.offset is not None:
            kept.insert(latest.offset, _SUMMARY)
        out.append(_render(kept, initial, latest, messages, place))
    return out


def _render(
    kept: list[Any],
    initial: _Event | None,
    latest: _Condensation | None,
    messages: Sequence[Message],
    place: Mapping[int, int],
) -> list[Message]:
    """The messages of a view: a system message first, then the first user message (put back
    where a condenser dropped it), as ``ConversationMemory`` ensures."""
    if not any(isinstance(e, _Event) and e.system for e in kept):
        kept.insert(0, None)
    second = kept[1] if len(kept) > 1 else None
    if initial is not None and not (isinstance(second, _Event) and second.user_message):
        kept.insert(1, _INITIAL)
    window: list[Message] = []
    replies: set[int] = set()  # the actions of one reply share its message: send it once
    for item in kept:
        if item is _SUMMARY and latest is not None and latest.summary is not None:
            window.append(Message.user(latest.summary))
            continue
        event = initial if item is _INITIAL else item
        if not isinstance(event, _Event):
            continue
        for k in event.items:
            if k not in place:
                continue
            message = messages[place[k]]
            if message.role == "assistant":
                if k in replies:
                    continue
                replies.add(k)
            window.append(message)
    return _matched_calls(window)


def _matched_calls(window: list[Message]) -> list[Message]:
    """The window less tool results without their call and calls without their result
    (``ConversationMemory._filter_unmatched_tool_calls``)."""
    calls = {c.id for m in window if m.role == "assistant" for c in m.tool_calls}
    results = {m.tool_call_id for m in window if m.role == "tool" and m.tool_call_id}
    out: list[Message] = []
    for message in window:
        if message.role == "tool" and message.tool_call_id:
            if message.tool_call_id in calls:
                out.append(message)
        elif message.role == "assistant" and message.tool_calls:
            matched = [c for c in message.tool_calls if c.id in results]
            if len(matched) == len(message.tool_calls):
                out.append(message)
            elif matched:
                out.append(message.model_copy(update={"tool_calls": matched}))
        else:
            out.append(message)
    return out
