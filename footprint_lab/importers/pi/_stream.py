"""pi's JSON event stream (``pi --mode json``): the messages it ended, in order.

Layer: importers (private to :mod:`footprint_lab.importers.pi`). In JSON mode pi prints the
session header, then every ``AgentSessionEvent`` (``src/modes/print-mode.ts``;
``docs/json.md``): ``agent_start`` / ``turn_start`` / ``message_start`` / ``message_update`` /
``message_end`` / ``tool_execution_*`` / ``turn_end`` / ``agent_end``, and
``auto_compaction_*`` / ``auto_retry_*``. Each message of the run ends once, in a
``message_end`` event: those are the conversation (``turn_end`` and ``agent_end`` repeat them).
A compaction's result names its first kept entry by a session entry id the stream does not
carry, so what left the window cannot be named: it is listed as a problem and in
``meta["compactions"]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._parts import Problems, short
from footprint_lab.importers.pi._convert import Converter
from footprint_lab.importers.pi._session import Walk, safe
from footprint_lab.importers.pi._tree import STREAM_TYPES

__all__ = ["STREAM_TYPES", "walk_stream"]

_COMPACTED = frozenset({"auto_compaction_end", "compaction_end"})


def _answered(events: list[tuple[int, Mapping[str, Any]]]) -> set[str]:
    """The ids of the tool calls a result of the stream answers."""
    out: set[str] = set()
    for _, event in events:
        message = event.get("message") if event["type"] == "message_end" else None
        if isinstance(message, Mapping) and message.get("role") == "toolResult":
            call_id = message.get("toolCallId")
            if isinstance(call_id, str):
                out.add(call_id)
    return out


def walk_stream(
    events: list[tuple[int, Mapping[str, Any]]], problems: Problems
) -> tuple[Walk, Converter, Counter[str]]:
    """The messages of the stream's ``message_end`` events, what the replies reported, and
    how many events of each type it holds.

    Raises:
        TranscriptError: a message of a ``message_end`` event is malformed.
    """
    walk = Walk()
    converter = Converter(problems, _answered(events))
    counts: Counter[str] = Counter()
    for line, event in events:
        kind = event["type"]
        counts[kind] += 1
        if kind == "message_end":
            got = converter.message(event.get("message"), line, "message")
            if got is None:
                continue
            message, user_kind = got
            if message.role == "assistant":
                walk.sent.append(None)
                walk.last_reply = len(walk.messages)
            if user_kind is not None:
                walk.kinds[len(walk.messages)] = user_kind
            walk.messages.append(message)
        elif kind in _COMPACTED:
            result = event.get("result")
            if not isinstance(result, Mapping):
                continue  # an aborted or failed compaction: nothing was replaced
            walk.compactions.append(
                {
                    "line": line,
                    "id": None,
                    "firstKeptEntryId": safe(result.get("firstKeptEntryId")),
                    "tokensBefore": safe(result.get("tokensBefore")),
                    "kept_messages": None,
                    "observed": False,
                }
            )
            problems.note(
                line,
                "result.firstKeptEntryId",
                f"pi compacted here, keeping from entry {short(result.get('firstKeptEntryId'))}, "
                "which an event stream does not carry: what left the window is not known (the "
                "windows after it are the whole history; the session file records it)",
            )
    return walk, converter, counts
