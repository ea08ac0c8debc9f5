"""A run as OpenTelemetry traces: OTLP JSON in the GenAI semantic conventions.

Layer: export (above the OpenTelemetry format's names and encoding in :mod:`footprint_lab.otlp`,
the agent's run model and the window records, beside the importers; no pandas, plotly, widgets
or lab). :func:`to_otel` writes one run as one trace: an
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

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from footprint_lab.agent.checkpoint import atomic_write
from footprint_lab.agent.run import Run, checkpoint_of
from footprint_lab.events import Event
from footprint_lab.ledger import Commit, Ledger
from footprint_lab.messages import Message
from footprint_lab.otlp.genai import (
    finish_reason,
    genai_message,
    json_text,
    system_instructions_json,
    usage_attributes,
)
from footprint_lab.otlp.names import (
    AGENT_NAME,
    CHAT,
    CONVERSATION_COMPACTED,
    ERROR_TYPE,
    EVENT_PREFIX,
    EXECUTE_TOOL,
    FINISH_REASONS,
    FL_CALL,
    FL_CALL_INDEX,
    FL_CHARS_AFTER,
    FL_CHARS_BEFORE,
    FL_COMMIT,
    FL_EVENT,
    FL_EVENT_INDEX,
    FL_FORCED,
    FL_FORMAT,
    FL_ITERATION,
    FL_LEDGER,
    FL_MESSAGES,
    FL_POSITION,
    FL_RECORD,
    FL_RECORD_INDEX,
    FL_REFUSALS,
    FL_REMOVED,
    FL_REMOVED_COUNT,
    FL_RUN,
    FL_STAGE_ID,
    FL_STATUS,
    FL_STRATEGY,
    FL_VERSION,
    FORMAT,
    FORMAT_VERSION,
    INPUT_MESSAGES,
    INVOKE_AGENT,
    OPERATION,
    OUTPUT_MESSAGES,
    PROVIDER,
    REQUEST_MODEL,
    SCHEMA_URL,
    SCOPE_NAME,
    SYSTEM,
    SYSTEM_INSTRUCTIONS,
    TOOL_ARGUMENTS,
    TOOL_CALL_ID,
    TOOL_NAME,
    TOOL_RESULT,
    TOOL_TYPE,
    WINDOW_EVENT,
    JsonDict,
)
from footprint_lab.otlp.names import (
    EXTENSION as EXTENSION,
)
from footprint_lab.otlp.write import (
    KIND_CLIENT,
    KIND_INTERNAL,
    SpanDraft,
    encode_span,
    otlp_json,
    trace_id_of,
    trace_request,
)
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


def _stage_times(commits: Sequence[Commit]) -> dict[str, tuple[int, int]]:
    """First and last commit time of every stage."""
    out: dict[str, tuple[int, int]] = {}
    for c in commits:
        first, _ = out.get(c.stage_id, (c.at_ms, c.at_ms))
        out[c.stage_id] = (first, c.at_ms)
    return out


def _agent_name(run: Run) -> str:
    meta = run.meta if isinstance(run.meta, dict) else {}
    for key in ("scenario", "label", "agent"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
    return SCOPE_NAME


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


def _chat_spans(b: _Build, system_json: str | None, carried: set[int]) -> list[SpanDraft]:
    run = b.run
    ledger = run.ledger
    calls_json: list[JsonDict] = b.checkpoint["calls"]
    root_start = b.at(0)
    out: list[SpanDraft] = []
    # The calls a record removed something before: the conventions' compacted conversation.
    compacted = {r.iteration for r in run.records if r.removed_message_count or r.cleared_stage_ids}
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
            reason = finish_reason(reply, call.finish_reason)
            outputs = [genai_message(reply, p, finish_reason=reason)]
            finish = [reason]
        start = b.at(call.sent_commit, root_start)
        end = b.stage_times.get(call.stage_id, (start, start))[1]
        attributes: JsonDict = {
            OPERATION: CHAT,
            PROVIDER: run.provider or None,
            SYSTEM: run.provider or None,
            REQUEST_MODEL: run.model or None,
            **usage_attributes(call.usage),
            FINISH_REASONS: finish,
            SYSTEM_INSTRUCTIONS: system_json,
            INPUT_MESSAGES: json_text(inputs),
            OUTPUT_MESSAGES: None if outputs is None else json_text(outputs),
            CONVERSATION_COMPACTED: True if call.iteration in compacted else None,
            FL_CALL_INDEX: k,
            FL_STAGE_ID: call.stage_id,
            FL_ITERATION: call.iteration,
            FL_CALL: json_text(calls_json[k]),
        }
        draft = SpanDraft(
            key=f"chat:{k}:{call.stage_id}",
            name=f"{CHAT} {run.model}" if run.model else CHAT,
            kind=KIND_CLIENT,
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


def _tool_spans(b: _Build) -> list[tuple[Message, SpanDraft]]:
    """An ``execute_tool`` span per tool result the tools produced (stand-ins excluded)."""
    run = b.run
    messages = run.ledger.messages
    asked: dict[str, tuple[int, Any]] = {}  # call id -> (position of the asking reply, call)
    out: list[tuple[Message, SpanDraft]] = []
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
            arguments = json_text(found[1].arguments)
            name = name or found[1].name
        attributes: JsonDict = {
            OPERATION: EXECUTE_TOOL,
            TOOL_NAME: name,
            TOOL_CALL_ID: m.tool_call_id,
            TOOL_TYPE: "function",
            TOOL_ARGUMENTS: arguments,
            TOOL_RESULT: m.content,
            FL_POSITION: p,
            FL_STAGE_ID: m.stage_id,
        }
        draft = SpanDraft(
            key=f"tool:{p}",
            name=f"{EXECUTE_TOOL} {name}" if name else EXECUTE_TOOL,
            kind=KIND_INTERNAL,
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
    b: _Build, root: SpanDraft, chats: list[SpanDraft]
) -> tuple[set[int], dict[int, SpanDraft]]:
    """Put each record on its span; return the record commits an event carries exactly, and
    the span of each iteration's last record."""
    run = b.run
    records_json: list[JsonDict] = b.checkpoint["records"]
    commit_values = b.checkpoint["ledger"]["commits"]
    carried: set[int] = set()
    by_iteration: dict[int, SpanDraft] = {}
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
        span.events.append((at, j, WINDOW_EVENT, _record_event(record, j, json_text(value))))
        by_iteration[record.iteration] = span
    return carried, by_iteration


def _place_events(
    b: _Build,
    root: SpanDraft,
    chats: list[SpanDraft],
    tools: list[tuple[Message, SpanDraft]],
    by_iteration: dict[int, SpanDraft],
) -> None:
    run = b.run
    events_json: list[JsonDict] = b.checkpoint["events"]
    chat_of_stage = {call.stage_id: chats[k] for k, call in enumerate(run.calls)}
    tool_of_call: dict[str, list[SpanDraft]] = {}
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
            FL_EVENT: json_text(events_json[i]),
        }
        span.events.append((event.at_ms, offset + i, EVENT_PREFIX + event.type, attributes))


def _event_owner(
    event: Event,
    root: SpanDraft,
    chat_of_stage: Mapping[str, SpanDraft],
    tool_of_call: Mapping[str, list[SpanDraft]],
    by_iteration: Mapping[int, SpanDraft],
) -> SpanDraft:
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
    return json_text({"stage_counter": saved["stage_counter"], "commits": commits})


def _run_json(b: _Build) -> str:
    state = {
        k: v
        for k, v in b.checkpoint.items()
        if k not in ("ledger", "records", "calls", "events", "format", "version")
    }
    return json_text(state)


def _root_span(b: _Build, system_json: str | None) -> SpanDraft:
    run = b.run
    usage = run.usage
    name = _agent_name(run)
    start = b.at(0)
    end = max((c.at_ms for c in b.commits), default=start)
    attributes: JsonDict = {
        OPERATION: INVOKE_AGENT,
        AGENT_NAME: name,
        PROVIDER: run.provider or None,
        SYSTEM: run.provider or None,
        REQUEST_MODEL: run.model or None,
        SYSTEM_INSTRUCTIONS: system_json,
        **(usage_attributes(usage) if run.calls else {}),
        FL_FORMAT: FORMAT,
        FL_VERSION: FORMAT_VERSION,
        FL_STATUS: run.status,
        FL_STRATEGY: run.strategy,
        FL_ITERATION: run.iterations,
    }
    draft = SpanDraft("agent", f"{INVOKE_AGENT} {name}", KIND_INTERNAL, start, end, attributes)
    draft.root = True
    if run.status == "error":
        error = b.checkpoint.get("error") or {}
        draft.error = f"{error.get('type_name', 'Error')}: {error.get('message', '')}"
        draft.attributes[ERROR_TYPE] = error.get("type_name") or "error"
    return draft


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
    system_json = system_instructions_json(run.system)
    carried: set[int] = set()
    root = _root_span(b, system_json)
    chats = _chat_spans(b, system_json, carried)
    tools = _tool_spans(b)
    carried_records, by_iteration = _place_records(b, root, chats)
    _place_events(b, root, chats, tools, by_iteration)
    unsent = [genai_message(m, p) for p, m in enumerate(ledger.messages) if p not in carried]
    root.attributes[FL_MESSAGES] = json_text(unsent) if unsent else None
    root.attributes[FL_RUN] = _run_json(b)
    root.attributes[FL_LEDGER] = _ledger_json(b, carried_records)
    trace_id = trace_id_of(run, commits)
    root_span = encode_span(root, trace_id, None)
    children = [*chats, *(draft for _, draft in tools)]
    # Children in time order (calls before the tools they asked for at equal times).
    children.sort(key=lambda d: (d.start_ms, d.end_ms, d.kind != KIND_CLIENT))
    spans = [root_span, *(encode_span(d, trace_id, root_span.span_id) for d in children)]
    return trace_request(spans)


def otel_document(run: Run) -> JsonDict:
    """``run`` as the OTLP JSON document :func:`to_otel` writes (a dict, ids in hex)."""
    return otlp_json(otel_request(run))


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

    Raises:
        ValueError: a figure of the run (a usage count, say) is outside OTLP's 64-bit
            integers; the error names the attribute, and nothing is written.
    """
    text = json_text(otel_document(run))
    return atomic_write(path, text + "\n")
