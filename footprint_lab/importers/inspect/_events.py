"""Matching Inspect ``model`` events to the assistant messages they produced (by the output
message's id, else in order), and reading what each event records: its usage, the input its
call received (pooled inputs expanded), and a ``compaction`` event's facts.

Layer: importers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    json_value,
    usage_by_keys,
)
from footprint_lab.importers.inspect._log import _Pool, _Sample
from footprint_lab.usage import Usage

_USAGE_KEYS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_tokens": "input_tokens_cache_read",
    "cache_write_tokens": "input_tokens_cache_write",
}
"""``Usage`` field -> its key in a model event's ``output.usage``."""


def _output_id(event: Mapping[str, Any]) -> str | None:
    """The id of the message a model event returned (None when it has none)."""
    output = event.get("output")
    choices = output.get("choices") if isinstance(output, Mapping) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, Mapping) else None
    found = message.get("id") if isinstance(message, Mapping) else None
    return found if isinstance(found, str) and found else None


def _answered(event: Mapping[str, Any]) -> bool:
    output = event.get("output")
    choices = output.get("choices") if isinstance(output, Mapping) else None
    return isinstance(choices, list) and bool(choices)


_Event = tuple[int, Mapping[str, Any]]


def _content_key(message: Any) -> str | None:
    """A message's text content, comparable across writers (text items joined)."""
    if not isinstance(message, Mapping):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(item.get("text", ""))
            for item in content
            if isinstance(item, Mapping) and item.get("type") == "text"
        )
    return None


def _output_content(event: Mapping[str, Any]) -> str | None:
    output = event.get("output")
    choices = output.get("choices") if isinstance(output, Mapping) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    return _content_key(first.get("message")) if isinstance(first, Mapping) else None


def _match_events(replies: list[Mapping[str, Any]], events: list[_Event]) -> list[_Event | None]:
    """The model event each assistant message came from (None when none did).

    First by the output message's id (a log Inspect wrote gives the reply the id of the
    message its model event returned); a reply no id matches (another writer, vitals, gives
    the reply a fresh id) is matched to an answered model event no other reply took whose
    output has the reply's text, else to the next such event in order after the last match —
    so a model-graded scorer's call after the solver's is never taken for the reply."""
    matched: list[_Event | None] = [None] * len(replies)
    by_id: dict[str, _Event] = {}
    for item in events:
        found = _output_id(item[1])
        if found is not None:
            by_id.setdefault(found, item)
    used: set[int] = set()
    for k, reply in enumerate(replies):
        reply_id = reply.get("id")
        by_reply = by_id.get(reply_id) if isinstance(reply_id, str) and reply_id else None
        if by_reply is not None and by_reply[0] not in used:
            matched[k] = by_reply
            used.add(by_reply[0])
    answered = [item for item in events if _answered(item[1])]
    by_text: dict[str, list[_Event]] = {}
    for item in answered:
        text = _output_content(item[1])
        if text is not None and item[0] not in used:
            by_text.setdefault(text, []).append(item)
    for k, reply in enumerate(replies):
        text = _content_key(reply)
        candidates = [i for i in by_text.get(text, []) if i[0] not in used] if text else []
        if matched[k] is None and candidates:
            matched[k] = candidates[0]
            used.add(candidates[0][0])
    last = -1
    for k in range(len(replies)):
        done = matched[k]
        if done is not None:
            last = done[0]
            continue
        after = next((i for i in answered if i[0] > last and i[0] not in used), None)
        if after is not None and _before_next_match(after[0], matched, k):
            matched[k] = after
            used.add(after[0])
            last = after[0]
    return matched


def _before_next_match(position: int, matched: list[_Event | None], k: int) -> bool:
    """Whether an event at ``position`` comes before the event of the next matched reply
    after reply ``k`` (order is kept: a reply never takes a later reply's event)."""
    following = next((m for m in matched[k + 1 :] if m is not None), None)
    return following is None or position < following[0]


def _usage(event: Mapping[str, Any], problems: Problems, index: int, field: str) -> Usage | None:
    output = event.get("output")
    if output is None:
        return None
    if not isinstance(output, Mapping):
        problems.fail(index, f"{field}.output", "expected an object")
    return usage_by_keys(output.get("usage"), _USAGE_KEYS, problems, index, f"{field}.output.usage")


def _event_input(
    event: Mapping[str, Any],
    pool: _Pool | None,
    problems: Problems,
    s: _Sample,
    field: str,
) -> list[tuple[Any, str]]:
    """The raw messages a model event says its call received, each with its field."""
    given = event.get("input")
    refs = event.get("input_refs")
    if refs is not None and not given:
        if not isinstance(refs, list) or pool is None:
            problems.fail(s.index, f"{field}.input_refs", "expected ranges into events_data")
        out: list[tuple[Any, str]] = []
        for k, pair in enumerate(refs):
            ok = isinstance(pair, list) and len(pair) == 2
            if not ok or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
                problems.fail(s.index, f"{field}.input_refs[{k}]", "expected [start, end]")
            start, end = max(pair[0], 0), min(pair[1], len(pool.messages))
            out.extend((pool.messages[j], f"{pool.at}[{j}]") for j in range(start, end))
        return out
    if not isinstance(given, list):
        problems.fail(s.index, f"{field}.input", "expected a list of messages")
    return [(m, f"{field}.input[{j}]") for j, m in enumerate(given)]


def _compaction(
    event: Mapping[str, Any], problems: Problems, index: int, field: str
) -> dict[str, Any]:
    """What a ``compaction`` event says about Inspect's own compaction."""
    keys = ("type", "tokens_before", "tokens_after", "source")
    return {key: json_value(event.get(key), problems, index, f"{field}.{key}") for key in keys}
