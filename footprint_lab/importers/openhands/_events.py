"""Reading and normalising an OpenHands history: the events of a history (or of the
``[action, observation]`` pairs of 2024's evaluation output), older flattened events (the
resolver's output of 2024) in today's shape, hidden events and those the controller keeps out
of the agent's history, each event then rendered into the converted stream.

Layer: importers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    int_of,
    optional_str,
    short,
)
from footprint_lab.importers.openhands._render import _action, _observation
from footprint_lab.importers.openhands._stream import _Event, _Stream

_NOT_IN_HISTORY = (
    frozenset({"null", "change_agent_state"}),
    frozenset({"null", "agent_state_changed"}),
)
"""(actions, observations) the controller keeps out of the agent's history."""


def _hidden(event: Mapping[str, Any]) -> bool:
    for key in ("args", "extras"):
        holder = event.get(key)
        if isinstance(holder, Mapping) and holder.get("hidden") is True:
            return True
    return event.get("hidden") is True


_EVENT_KEYS = frozenset(
    {"id", "timestamp", "source", "message", "action", "observation", "content", "cause"}
    | {"tool_call_metadata", "llm_metrics", "hidden", "args", "extras"}
)
"""Keys of a serialized event itself (the rest of a legacy event is its args or extras)."""


def _events(events: Any, prefix: str, problems: Problems) -> tuple[list[tuple[Any, str]], bool]:
    """The events of a history, each with its field, and whether the history is one of
    ``[action, observation]`` pairs (OpenHands' evaluation output before its event stream,
    2024; read pair by pair, its observations have no id)."""
    if not isinstance(events, list):
        problems.fail(None, f"{prefix}history", "expected a list of events")
    if not events or not all(isinstance(item, list) for item in events):
        return [(event, f"{prefix}history[{k}]") for k, event in enumerate(events)], False
    out: list[tuple[Any, str]] = []
    for k, pair in enumerate(events):
        if len(pair) != 2:
            problems.fail(
                len(out), f"{prefix}history[{k}]", "expected an [action, observation] pair"
            )
        out.extend((event, f"{prefix}history[{k}][{j}]") for j, event in enumerate(pair))
    return out, True


def _legacy(event: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """An event as OpenHands serializes it now, and whether it was serialized the older way.

    Older serializations (the resolver's output, 2024) put an action's args and an
    observation's extras beside its ``action`` / ``observation`` rather than under ``args`` /
    ``extras``, and wrote no ``id`` or ``source``: a message then is the user's unless it
    waits for a response (the agent asking)."""
    holder = "args" if "action" in event else "extras"
    if holder in event or ("action" not in event and "observation" not in event):
        return event, False
    # An observation's content is its own; an action's is one of its args.
    rest = {
        k: v for k, v in event.items() if k not in _EVENT_KEYS or (k, holder) == ("content", "args")
    }
    out: dict[str, Any] = {**event, holder: rest}
    if holder == "args" and "source" not in event:
        asks = event.get("action") == "message" and rest.get("wait_for_response") is True
        out["source"] = "agent" if asks or event.get("action") != "message" else "user"
    return out, True


def _convert(events: Any, prefix: str, problems: Problems, *, tool_loop: bool = True) -> _Stream:
    stream = _Stream(tool_loop=tool_loop)
    listed, pairs = _events(events, prefix, problems)
    for index, (event, at) in enumerate(listed):
        if not isinstance(event, Mapping):
            problems.fail(index, at, f"expected an event object, got {short(event)}")
        event, legacy = _legacy(event)
        given = event.get("id")
        if given is None and (legacy or pairs):
            event_id = -1 - index  # no id was written: a stand-in no condensation can name
        else:
            event_id = int_of(given, problems, index, f"{at}.id")
        optional_str(event.get("source"), problems, index, f"{at}.source")
        action, observation = event.get("action"), event.get("observation")
        if (action is None) == (observation is None):
            problems.fail(index, at, "an event needs exactly one of 'action' and 'observation'")
        kind = action if action is not None else observation
        if not isinstance(kind, str):
            name = "action" if action is not None else "observation"
            problems.fail(index, f"{at}.{name}", f"expected text, got {short(kind)}")
        kept = _NOT_IN_HISTORY[0 if action is not None else 1]
        named = not (given is None and (legacy or pairs))
        record = None if kind in kept or _hidden(event) else _Event(event_id, named)
        if action is not None:
            _action(stream, event, kind, record, problems, index, at)
        else:
            _observation(stream, event, kind, record, problems, index, at)
        if record is not None:
            stream.events.append(record)
        stream.read += 1
    stream.unanswered_as_text()
    return stream
