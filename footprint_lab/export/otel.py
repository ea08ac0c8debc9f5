"""A run as OpenTelemetry traces: OTLP JSON in the GenAI semantic conventions.

Layer: export (above the agent's run model and the window records, beside the importers; no
pandas, plotly, widgets or lab). :func:`to_otel` writes one run as one trace: an
``ExportTraceServiceRequest`` built with the ``opentelemetry-proto`` model and written in its
OTLP JSON mapping — lowerCamelCase keys, enums as integers, 64-bit integers as strings, and trace
and span ids as **hex** (``json_format`` writes bytes as base64; OTLP JSON wants hex, so the ids
are rewritten). The spans follow the GenAI semantic conventions:

* the **agent span** ``invoke_agent {name}`` (``gen_ai.operation.name = "invoke_agent"``) is
  the root, with the run's model, provider, system instructions and total usage;
* a **chat span** ``chat {model}`` per LLM call (``gen_ai.operation.name = "chat"``): the window
  that call really received as ``gen_ai.input.messages`` and its reply as
  ``gen_ai.output.messages`` (JSON text in the GenAI message schema: a role and parts of type
  ``text``, ``tool_call`` and ``tool_call_response``), ``gen_ai.system_instructions``,
  ``gen_ai.usage.*`` and ``gen_ai.response.finish_reasons``;
* an **execute_tool span** ``execute_tool {name}`` per tool result (``gen_ai.tool.name``,
  ``gen_ai.tool.call.id``, arguments and result);
* each :class:`~footprint_lab.window.records.WindowRecord` is a span event
  ``footprint_lab.window`` on the chat span it preceded (on the agent span when no call followed
  it), carrying the removed stage ids, the refusals, the sizes, the strategy and the whole
  record as JSON; each run event is a span event ``footprint_lab.<type>`` (``llm.start`` on its
  chat span, ``tool.end`` on its tool span, the others beside their record or on the agent span).

**Lossless.** Beside the conventions' attributes the spans carry footprint_lab's own, all in the
run file's own serialisation (:class:`~footprint_lab.agent.run.Checkpoint`'s JSON): every GenAI
message names its ledger ``position`` and ``stage_id`` under a ``footprint_lab`` key (the message
schema allows additional properties), chat spans carry their ``CallRecord``, the agent span the
ledger's commit log (positions, not copies) and the rest of the run's state, and messages no call
received (a last tool batch, a stand-in removed before it was sent) ride on the agent span.
:func:`footprint_lab.importers.load_otel` rebuilds the run exactly from them.

**Deterministic.** Ids are hashes of the run (its messages' stage ids and content hashes, its
strategy, its commits), times are the ledger's ``at_ms`` commit times: one run always writes the
same bytes.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from google.protobuf import json_format  # type: ignore[import-untyped, unused-ignore]
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import (
    AnyValue,
    ArrayValue,
    InstrumentationScope,
    KeyValue,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from footprint_lab.agent._runfile_io import atomic_write
from footprint_lab.agent.run import Run, checkpoint_of
from footprint_lab.events import Event
from footprint_lab.ledger import Commit, Ledger
from footprint_lab.messages import ContentPart, Message, content_hash
from footprint_lab.usage import Usage
from footprint_lab.window.records import WindowRecord

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "SCHEMA_URL",
    "SCOPE_NAME",
    "WINDOW_EVENT",
    "genai_message",
    "otel_document",
    "otel_request",
    "to_otel",
]

FORMAT = "footprint-lab/otel"
"""``footprint_lab.format`` on the agent span: the trace carries a whole run."""
FORMAT_VERSION = 1
"""``footprint_lab.version`` on the agent span."""
SCOPE_NAME = "footprint_lab"
"""The instrumentation scope (and ``service.name``) of the spans written."""
SCHEMA_URL = "https://opentelemetry.io/schemas/1.37.0"
"""The semantic conventions version whose GenAI attributes are written (input and output
messages as attributes, ``gen_ai.provider.name``)."""
WINDOW_EVENT = "footprint_lab.window"
"""The name of a window record's span event."""
EVENT_PREFIX = "footprint_lab."
"""Run events are span events named this plus their type (``footprint_lab.llm.start``)."""
EXTENSION = "footprint_lab"
"""The key of footprint_lab's own fields in a GenAI message object."""

# -- GenAI semantic conventions (the names as opentelemetry-semantic-conventions spells them) --
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
SYSTEM = "gen_ai.system"
"""Deprecated for ``gen_ai.provider.name``; written too, for readers of older conventions."""
REQUEST_MODEL = "gen_ai.request.model"
AGENT_NAME = "gen_ai.agent.name"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
FINISH_REASONS = "gen_ai.response.finish_reasons"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"

# -- footprint_lab's own attributes -----------------------------------------------------------
FL_FORMAT = "footprint_lab.format"
FL_VERSION = "footprint_lab.version"
FL_RUN = "footprint_lab.run"
"""Agent span: the run's state as JSON (the checkpoint's fields other than ledger, records,
calls and events, which the spans carry)."""
FL_LEDGER = "footprint_lab.ledger"
"""Agent span: ``{"stage_counter": n, "commits": [[stage_id, key, at_ms, value], ...]}``;
history and window values are positions, a record's value is null when its span event
carries it."""
FL_MESSAGES = "footprint_lab.messages"
"""Agent span: the messages no chat span carries, as GenAI messages."""
FL_CALL = "footprint_lab.call"
FL_CALL_INDEX = "footprint_lab.call_index"
FL_STAGE_ID = "footprint_lab.stage_id"
FL_ITERATION = "footprint_lab.iteration"
FL_POSITION = "footprint_lab.position"
FL_STATUS = "footprint_lab.status"
FL_STRATEGY = "footprint_lab.strategy"
FL_RECORD = "footprint_lab.record"
FL_RECORD_INDEX = "footprint_lab.record_index"
FL_COMMIT = "footprint_lab.commit"
FL_REMOVED = "footprint_lab.removed_stage_ids"
FL_REMOVED_COUNT = "footprint_lab.removed_message_count"
FL_REFUSALS = "footprint_lab.refusals"
FL_CHARS_BEFORE = "footprint_lab.window_chars_before"
FL_CHARS_AFTER = "footprint_lab.window_chars_after"
FL_FORCED = "footprint_lab.forced"
FL_EVENT = "footprint_lab.event"
FL_EVENT_INDEX = "footprint_lab.event_index"

_KIND_INTERNAL = Span.SpanKind.SPAN_KIND_INTERNAL
_KIND_CLIENT = Span.SpanKind.SPAN_KIND_CLIENT
_STATUS_ERROR = Status.StatusCode.STATUS_CODE_ERROR
_NS_PER_MS = 1_000_000

JsonDict = dict[str, Any]


def _json(value: Any) -> str:
    """Compact JSON text, non-ASCII kept (as the run file writes it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- GenAI messages ---------------------------------------------------------------------------


def _genai_part(part: ContentPart) -> JsonDict:
    """A typed part as a GenAI part: ``reasoning`` for a thinking block, else a generic part
    named by its kind (its whole block rides in the message's ``footprint_lab`` fields)."""
    kind = "reasoning" if part.kind == "thinking" else part.kind
    out: JsonDict = {"type": kind}
    if part.text is not None:
        out["content"] = part.text
    return out


def genai_message(
    message: Message, position: int | None = None, *, finish_reason: str | None = None
) -> JsonDict:
    """``message`` as a GenAI message object (``gen_ai.input.messages`` item), with its ledger
    ``position`` and what the schema has no field for under the ``footprint_lab`` key.

    Text is one ``text`` part (none for empty text); a tool result is a ``tool_call_response``
    part (``id``, ``response``); each tool call a ``tool_call`` part (``id``, ``name``,
    ``arguments``); each typed part a GenAI part after them. The message's ``name`` is the
    schema's participant ``name``.

    Args:
        message: The message.
        position: Its position in the ledger's message store (None: not a ledger message).
        finish_reason: For an output message, why the reply ended.
    """
    parts: list[JsonDict] = []
    if message.role == "tool":
        parts.append(
            {"type": "tool_call_response", "id": message.tool_call_id, "response": message.content}
        )
    elif message.content:
        parts.append({"type": "text", "content": message.content})
    for call in message.tool_calls:
        parts.append(
            {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
        )
    parts.extend(_genai_part(p) for p in message.parts)
    out: JsonDict = {"role": message.role, "parts": parts}
    if message.name is not None:
        out["name"] = message.name
    if finish_reason is not None:
        out["finish_reason"] = finish_reason
    ext: JsonDict = {"position": position, "stage_id": message.stage_id}
    if message.authored is not None:
        ext["authored"] = message.authored
    if message.role != "tool" and message.tool_call_id is not None:
        ext["tool_call_id"] = message.tool_call_id
    if message.parts:
        ext["parts"] = [p.model_dump(mode="json") for p in message.parts]
    out[EXTENSION] = ext
    return out


def _finish_reason(message: Message, given: str | None) -> str:
    if given is not None:
        return given
    return "tool_call" if message.tool_calls else "stop"


# -- attribute values -------------------------------------------------------------------------


def _any_value(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, str):
        return AnyValue(string_value=value)
    if isinstance(value, (list, tuple)):
        return AnyValue(array_value=ArrayValue(values=[_any_value(v) for v in value]))
    raise TypeError(f"no OTLP attribute value for {type(value).__name__}")


def _attributes(pairs: Mapping[str, Any]) -> list[KeyValue]:
    """OTLP attributes of the pairs whose value is not None, in order."""
    return [KeyValue(key=k, value=_any_value(v)) for k, v in pairs.items() if v is not None]


def _ns(at_ms: int) -> int:
    return max(0, at_ms) * _NS_PER_MS


# -- ids --------------------------------------------------------------------------------------


def _digest(*parts: str | bytes) -> bytes:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode("utf-8", "backslashreplace"))
        h.update(b"\x1f")
    return h.digest()


def _nonzero(raw: bytes) -> bytes:
    return raw if any(raw) else raw[:-1] + b"\x01"


def _trace_id(run: Run, commits: Sequence[Commit]) -> bytes:
    h = hashlib.sha256()
    for text in (FORMAT, run.request, run.strategy or "", run.model, run.provider):
        h.update(text.encode("utf-8", "backslashreplace") + b"\x1f")
    h.update(f"{len(commits)}|{commits[0].at_ms if commits else 0}".encode())
    h.update(f"|{commits[-1].at_ms if commits else 0}|{len(run.records)}".encode())
    for message in run.ledger.messages:
        h.update(f"{message.stage_id}:{content_hash(message)};".encode("utf-8", "backslashreplace"))
    return _nonzero(h.digest()[:16])


# -- the spans --------------------------------------------------------------------------------


@dataclass
class _SpanDraft:
    """One span being built: its key (for its id), times, attributes and events."""

    key: str
    name: str
    kind: Span.SpanKind.ValueType
    start_ms: int
    end_ms: int
    attributes: JsonDict
    events: list[tuple[int, int, str, JsonDict]] = field(default_factory=list)
    """``(at_ms, order, name, attributes)``."""
    error: str | None = None
    root: bool = False


def _stage_times(commits: Sequence[Commit]) -> dict[str, tuple[int, int]]:
    """First and last commit time of every stage."""
    out: dict[str, tuple[int, int]] = {}
    for c in commits:
        first, _ = out.get(c.stage_id, (c.at_ms, c.at_ms))
        out[c.stage_id] = (first, c.at_ms)
    return out


def _usage_attributes(usage: Usage | None) -> JsonDict:
    if usage is None:
        return {}
    return {
        INPUT_TOKENS: usage.input_tokens,
        OUTPUT_TOKENS: usage.output_tokens,
        CACHE_READ_TOKENS: usage.cache_read_tokens,
        CACHE_WRITE_TOKENS: usage.cache_write_tokens,
    }


def _agent_name(run: Run) -> str:
    meta = run.meta if isinstance(run.meta, dict) else {}
    for key in ("scenario", "label", "agent"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
    return SCOPE_NAME


def _system_instructions(system: str | None) -> str | None:
    return None if system is None else _json([{"type": "text", "content": system}])


@dataclass
class _Build:
    """Everything :func:`otel_request` works out once."""

    run: Run
    commits: Sequence[Commit]
    positions: dict[int, int]
    """``id(message)`` -> its ledger position."""
    stage_times: dict[str, tuple[int, int]]
    checkpoint: JsonDict

    def position(self, message: Message) -> int:
        return self.positions[id(message)]

    def at(self, commit: int, default: int = 0) -> int:
        return self.commits[commit].at_ms if 0 <= commit < len(self.commits) else default


def _chat_spans(b: _Build, system_json: str | None, carried: set[int]) -> list[_SpanDraft]:
    run = b.run
    ledger = run.ledger
    calls_json: list[JsonDict] = b.checkpoint["calls"]
    root_start = b.at(0)
    out: list[_SpanDraft] = []
    for k, call in enumerate(run.calls):
        sent = ledger.window_at(call.sent_commit) if 0 <= call.sent_commit < len(ledger) else []
        inputs = []
        for m in sent:
            p = b.position(m)
            carried.add(p)
            inputs.append(genai_message(m, p))
        replies = [m for m in _stage_messages(ledger, call.stage_id) if m.role == "assistant"]
        reply = replies[0] if replies else None
        outputs: list[JsonDict] | None = None
        finish: list[str] | None = None
        if reply is not None:
            p = b.position(reply)
            carried.add(p)
            reason = _finish_reason(reply, call.finish_reason)
            outputs = [genai_message(reply, p, finish_reason=reason)]
            finish = [reason]
        start = b.at(call.sent_commit, root_start)
        end = b.stage_times.get(call.stage_id, (start, start))[1]
        attributes: JsonDict = {
            OPERATION: "chat",
            PROVIDER: run.provider or None,
            SYSTEM: run.provider or None,
            REQUEST_MODEL: run.model or None,
            **_usage_attributes(call.usage),
            FINISH_REASONS: finish,
            SYSTEM_INSTRUCTIONS: system_json,
            INPUT_MESSAGES: _json(inputs),
            OUTPUT_MESSAGES: None if outputs is None else _json(outputs),
            FL_CALL_INDEX: k,
            FL_STAGE_ID: call.stage_id,
            FL_ITERATION: call.iteration,
            FL_CALL: _json(calls_json[k]),
        }
        draft = _SpanDraft(
            key=f"chat:{k}:{call.stage_id}",
            name=f"chat {run.model}" if run.model else "chat",
            kind=_KIND_CLIENT,
            start_ms=start,
            end_ms=max(start, end),
            attributes=attributes,
        )
        if reply is None:
            draft.error = "the call failed: the provider returned no reply"
            draft.attributes[ERROR_TYPE] = "footprint_lab.call_failed"
        out.append(draft)
    return out


def _stage_messages(ledger: Ledger, stage_id: str) -> list[Message]:
    try:
        return list(ledger.messages_of(stage_id))
    except KeyError:
        return []


def _tool_spans(b: _Build) -> list[tuple[Message, _SpanDraft]]:
    """An ``execute_tool`` span per tool result the tools produced (stand-ins excluded)."""
    run = b.run
    messages = run.ledger.messages
    asked: dict[str, tuple[int, Any]] = {}  # call id -> (position of the asking reply, call)
    out: list[tuple[Message, _SpanDraft]] = []
    for p, m in enumerate(messages):
        if m.role == "assistant":
            for call in m.tool_calls:
                asked[call.id] = (p, call)
            continue
        if m.role != "tool" or m.authored is not None:
            continue
        end = b.at(run.ledger.commit_of_message(p))
        found = asked.get(m.tool_call_id or "")
        start = end
        arguments = None
        name = m.name
        if found is not None:
            start = b.at(run.ledger.commit_of_message(found[0]), end)
            arguments = _json(found[1].arguments)
            name = name or found[1].name
        attributes: JsonDict = {
            OPERATION: "execute_tool",
            TOOL_NAME: name,
            TOOL_CALL_ID: m.tool_call_id,
            TOOL_TYPE: "function",
            TOOL_ARGUMENTS: arguments,
            TOOL_RESULT: m.content,
            FL_POSITION: p,
            FL_STAGE_ID: m.stage_id,
        }
        draft = _SpanDraft(
            key=f"tool:{p}",
            name=f"execute_tool {name}" if name else "execute_tool",
            kind=_KIND_INTERNAL,
            start_ms=min(start, end),
            end_ms=end,
            attributes=attributes,
        )
        out.append((m, draft))
    return out


def _record_owner(records: Sequence[WindowRecord], run: Run) -> list[int | None]:
    """For each record, the call it preceded (the first whose window was sent at or after the
    record's commit), or None when no call followed it."""
    sent = [c.sent_commit for c in run.calls]  # non-decreasing: calls are made in order
    out: list[int | None] = []
    for record in records:
        k = None if record.commit is None else bisect.bisect_left(sent, record.commit)
        out.append(k if k is not None and k < len(sent) else None)
    return out


def _record_event(record: WindowRecord, j: int, value_json: str) -> JsonDict:
    return {
        FL_STRATEGY: record.strategy,
        FL_ITERATION: record.iteration,
        FL_REMOVED: list(record.removed_stage_ids),
        FL_REMOVED_COUNT: record.removed_message_count,
        FL_REFUSALS: [r.reason for r in record.refusals],
        FL_CHARS_BEFORE: record.window_chars_before,
        FL_CHARS_AFTER: record.window_chars_after,
        FL_FORCED: record.forced,
        FL_COMMIT: record.commit,
        FL_RECORD_INDEX: j,
        FL_RECORD: value_json,
    }


def _place_records(
    b: _Build, root: _SpanDraft, chats: list[_SpanDraft]
) -> tuple[set[int], dict[int, _SpanDraft]]:
    """Put each record on its span; return the record commits an event carries exactly, and
    the span of each iteration's last record."""
    run = b.run
    records_json: list[JsonDict] = b.checkpoint["records"]
    commit_values = b.checkpoint["ledger"]["commits"]
    carried: set[int] = set()
    by_iteration: dict[int, _SpanDraft] = {}
    for j, (record, owner) in enumerate(
        zip(run.records, _record_owner(run.records, run), strict=True)
    ):
        span = root if owner is None else chats[owner]
        commit = record.commit
        value = records_json[j]
        if (
            commit is not None
            and 0 <= commit < len(b.commits)
            and b.commits[commit].key == "record"
            and commit not in carried
            and commit_values[commit]["value"] == value
        ):
            carried.add(commit)
        at = b.at(commit, span.start_ms) if commit is not None else span.start_ms
        span.events.append((at, j, WINDOW_EVENT, _record_event(record, j, _json(value))))
        by_iteration[record.iteration] = span
    return carried, by_iteration


def _place_events(
    b: _Build,
    root: _SpanDraft,
    chats: list[_SpanDraft],
    tools: list[tuple[Message, _SpanDraft]],
    by_iteration: dict[int, _SpanDraft],
) -> None:
    run = b.run
    events_json: list[JsonDict] = b.checkpoint["events"]
    chat_of_stage = {call.stage_id: chats[k] for k, call in enumerate(run.calls)}
    tool_of_call: dict[str, list[_SpanDraft]] = {}
    for message, draft in tools:
        tool_of_call.setdefault(message.tool_call_id or "", []).append(draft)
    offset = len(run.records)
    for i, event in enumerate(run.events):
        span = _event_owner(event, root, chat_of_stage, tool_of_call, by_iteration)
        if event.type == "tool.end" and span is not root:
            tool_of_call[getattr(event, "call_id", "")].pop(0)
            if getattr(event, "error", False):
                span.error = span.error or "the tool reported an error"
        attributes = {
            FL_ITERATION: event.iteration,
            FL_EVENT_INDEX: i,
            FL_EVENT: _json(events_json[i]),
        }
        span.events.append((event.at_ms, offset + i, EVENT_PREFIX + event.type, attributes))


def _event_owner(
    event: Event,
    root: _SpanDraft,
    chat_of_stage: Mapping[str, _SpanDraft],
    tool_of_call: Mapping[str, list[_SpanDraft]],
    by_iteration: Mapping[int, _SpanDraft],
) -> _SpanDraft:
    if event.type.startswith("llm."):
        return chat_of_stage.get(getattr(event, "stage_id", ""), root)
    if event.type == "tool.end":
        waiting = tool_of_call.get(getattr(event, "call_id", ""))
        return waiting[0] if waiting else root
    if event.type.startswith("context."):
        return by_iteration.get(event.iteration, root)
    return root


def _ledger_json(b: _Build, carried_records: set[int]) -> str:
    saved = b.checkpoint["ledger"]
    commits: list[list[Any]] = []
    for i, c in enumerate(saved["commits"]):
        value = None if i in carried_records else c["value"]
        commits.append([c["stage_id"], c["key"], c["at_ms"], value])
    return _json({"stage_counter": saved["stage_counter"], "commits": commits})


def _run_json(b: _Build) -> str:
    state = {
        k: v
        for k, v in b.checkpoint.items()
        if k not in ("ledger", "records", "calls", "events", "format", "version")
    }
    return _json(state)


def _root_span(b: _Build, system_json: str | None) -> _SpanDraft:
    run = b.run
    usage = run.usage
    name = _agent_name(run)
    start = b.at(0)
    end = max((c.at_ms for c in b.commits), default=start)
    attributes: JsonDict = {
        OPERATION: "invoke_agent",
        AGENT_NAME: name,
        PROVIDER: run.provider or None,
        SYSTEM: run.provider or None,
        REQUEST_MODEL: run.model or None,
        SYSTEM_INSTRUCTIONS: system_json,
        **(_usage_attributes(usage) if run.calls else {}),
        FL_FORMAT: FORMAT,
        FL_VERSION: FORMAT_VERSION,
        FL_STATUS: run.status,
        FL_STRATEGY: run.strategy,
        FL_ITERATION: run.iterations,
    }
    draft = _SpanDraft("agent", f"invoke_agent {name}", _KIND_INTERNAL, start, end, attributes)
    draft.root = True
    if run.status == "error":
        error = b.checkpoint.get("error") or {}
        draft.error = f"{error.get('type_name', 'Error')}: {error.get('message', '')}"
        draft.attributes[ERROR_TYPE] = error.get("type_name") or "error"
    return draft


def _span(draft: _SpanDraft, trace_id: bytes, parent: bytes | None) -> Span:
    span_id = _nonzero(_digest(trace_id, draft.key)[:8])
    span = Span(
        trace_id=trace_id,
        span_id=span_id,
        name=draft.name,
        kind=draft.kind,
        start_time_unix_nano=_ns(draft.start_ms),
        end_time_unix_nano=_ns(max(draft.start_ms, draft.end_ms)),
        attributes=_attributes(draft.attributes),
    )
    if parent is not None:
        span.parent_span_id = parent
    for at_ms, _, name, attributes in sorted(draft.events, key=lambda e: (e[0], e[1])):
        span.events.append(
            Span.Event(time_unix_nano=_ns(at_ms), name=name, attributes=_attributes(attributes))
        )
    if draft.error is not None:
        span.status.CopyFrom(Status(code=_STATUS_ERROR, message=draft.error))
    return span


def _version() -> str:
    try:
        return metadata.version("footprint-lab")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return ""


def otel_request(run: Run) -> ExportTraceServiceRequest:
    """``run`` as one trace, an OTLP ``ExportTraceServiceRequest`` (see the module docstring).

    Raises:
        ValueError: the run's window holds a message its ledger never committed.
    """
    ledger = run.ledger
    commits = ledger.commits
    checkpoint = checkpoint_of(run).model_dump(mode="json")
    positions = {id(m): p for p, m in enumerate(ledger.messages)}
    b = _Build(run, commits, positions, _stage_times(commits), checkpoint)
    system_json = _system_instructions(run.system)
    carried: set[int] = set()
    root = _root_span(b, system_json)
    chats = _chat_spans(b, system_json, carried)
    tools = _tool_spans(b)
    carried_records, by_iteration = _place_records(b, root, chats)
    _place_events(b, root, chats, tools, by_iteration)
    unsent = [genai_message(m, p) for p, m in enumerate(ledger.messages) if p not in carried]
    root.attributes[FL_MESSAGES] = _json(unsent) if unsent else None
    root.attributes[FL_RUN] = _run_json(b)
    root.attributes[FL_LEDGER] = _ledger_json(b, carried_records)
    trace_id = _trace_id(run, commits)
    root_span = _span(root, trace_id, None)
    children = [*chats, *(draft for _, draft in tools)]
    # Children in time order (calls before the tools they asked for at equal times).
    children.sort(key=lambda d: (d.start_ms, d.end_ms, d.kind != _KIND_CLIENT))
    spans = [root_span, *(_span(d, trace_id, root_span.span_id) for d in children)]
    scope = ScopeSpans(
        scope=InstrumentationScope(name=SCOPE_NAME, version=_version()),
        spans=spans,
        schema_url=SCHEMA_URL,
    )
    resource = Resource(attributes=_attributes({"service.name": SCOPE_NAME}))
    return ExportTraceServiceRequest(
        resource_spans=[ResourceSpans(resource=resource, scope_spans=[scope])]
    )


_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def _hex_ids(document: JsonDict) -> JsonDict:
    """Rewrite the base64 ids ``json_format`` writes as the hex OTLP JSON requires."""
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                holders: Iterable[JsonDict] = [span, *span.get("links", [])]
                for holder in holders:
                    for key in _ID_FIELDS:
                        if key in holder:
                            holder[key] = base64.b64decode(holder[key]).hex()
    return document


def otel_document(run: Run) -> JsonDict:
    """``run`` as the OTLP JSON document :func:`to_otel` writes (a dict, ids in hex)."""
    document = json_format.MessageToDict(otel_request(run), use_integers_for_enums=True)
    return _hex_ids(cast(JsonDict, document))


def to_otel(run: Run, path: str | Path) -> Path:
    """Write ``run`` to ``path`` as OTLP JSON traces in the GenAI semantic conventions.

    One run is one trace: an ``invoke_agent`` span, a ``chat`` span per LLM call (the window
    it really received as ``gen_ai.input.messages``, each window record as a
    ``footprint_lab.window`` event on the call it preceded) and an ``execute_tool`` span per
    tool result. :func:`footprint_lab.importers.load_otel` reads the file back into an equal
    run. The file is written atomically (a temp file, then a rename), and one run always
    writes the same bytes.

    Args:
        run: The run.
        path: Where to write (an ``.json`` file).

    Returns:
        ``path``.
    """
    text = json.dumps(otel_document(run), ensure_ascii=False, separators=(",", ":"))
    return atomic_write(path, text + "\n")
