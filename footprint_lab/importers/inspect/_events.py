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


def _match_events(replies: list[Mapping[str, Any]], events: list[_Event]) -> list[_Event | None]:
    """The model event each assistant message came from (None when none did)."""
    reply_ids = [i for r in replies if isinstance(i := r.get("id"), str) and i]
    if replies and len(reply_ids) == len(replies):
        by_id: dict[str, _Event] = {}
        for item in events:
            found = _output_id(item[1])
            if found is not None:
                by_id.setdefault(found, item)
        if by_id:
            return [by_id.get(i) for i in reply_ids]
    answered = [item for item in events if _answered(item[1])]
    return [answered[k] if k < len(answered) else None for k in range(len(replies))]


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
