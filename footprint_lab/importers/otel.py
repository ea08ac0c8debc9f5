"""Load OpenTelemetry traces (OTLP JSON) of LLM agents as runs.

Layer: importers. :func:`load_otel` reads an OTLP JSON file — an ``ExportTraceServiceRequest``
as the OTLP JSON mapping writes it (hex ids; base64 ids are accepted too), or one such document
per line as the collector's file exporter writes them — and returns one run per root agent span
(``gen_ai.operation.name = "invoke_agent"``), or per trace when a trace has no agent span.

* **A run footprint_lab wrote** (:func:`footprint_lab.export.to_otel`: the agent span carries
  ``footprint_lab.ledger`` and ``footprint_lab.run``) is rebuilt exactly: every message from the
  GenAI message that names its ledger ``position``, the commit log in commit order, records from
  their ``footprint_lab.window`` events, calls from their chat spans, events from their span
  events — assembled into the run file's own :class:`~footprint_lab.agent.run.Checkpoint` and
  restored as a run file is (the ledger's own checks, then the run's sense checks). Each chat
  span's input must be the window the ledger says that call sent.
* **Any other GenAI trace**: its chat spans (``gen_ai.operation.name`` ``chat``,
  ``text_completion`` or ``generate_content``), in start-time order, each with its input and
  output as ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON text or structured
  values in the GenAI message schema), or as the older per-message span events
  (``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.assistant.message``,
  ``gen_ai.tool.message``, ``gen_ai.choice``). The history is rebuilt from them — what each
  input adds after the messages it shares with the history, then the call's output — and each
  call's input is the window it really saw (``build_run(..., sent=...)`` files an observed record
  wherever that input differs from the running window). ``gen_ai.usage.*`` are the calls'
  usage; ``execute_tool`` spans supply tool results no later input carries.

Every fault — not UTF-8, not JSON, not the OTLP shape, a span without ids, a messages attribute
that is not JSON or not the message schema, a footprint_lab trace whose parts disagree — raises
:class:`~footprint_lab.importers._parts.TranscriptError` naming the file, the span (its index in
document order, counting every span of the file) and the field.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from footprint_lab._gc import gc_paused
from footprint_lab.agent._runfile_checks import (
    RunFileProblem,
    check_run,
    check_unknown_fields,
    json_path,
    loc_path,
)
from footprint_lab.agent.checkpoint import FORMAT as RUN_FORMAT
from footprint_lab.agent.checkpoint import VERSION as RUN_VERSION
from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._observed import HistoryIndex, wire_key
from footprint_lab.importers._parts import (
    MAX_DEPTH,
    CallIds,
    Problems,
    TranscriptError,
    arguments_of,
    content_part,
    json_problem,
    nested,
    parse_json_text,
    read_text_file,
    reject_constant,
    short,
    text_of,
    usage_from,
)
from footprint_lab.ledger import HISTORY
from footprint_lab.messages import ContentPart, Message, ToolCall, arguments_json
from footprint_lab.usage import Usage

SOURCE = "otel"
"""``run.provider`` and ``ImportProblem.source`` of an imported trace."""
POLICY = "otel"
"""The strategy name of the observed records of a foreign trace."""
UNIT = "span"
"""What an error's index counts: the span, in document order over the whole file."""

__all__ = ["POLICY", "SOURCE", "OtelSpan", "SpanEvent", "load_otel", "read_spans"]

# The names footprint_lab.export.otel writes (the importers do not import the export layer).
FORMAT = "footprint-lab/otel"
FORMAT_VERSION = 1
WINDOW_EVENT = "footprint_lab.window"
EVENT_PREFIX = "footprint_lab."
EXTENSION = "footprint_lab"
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
SYSTEM = "gen_ai.system"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
AGENT_NAME = "gen_ai.agent.name"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
FINISH_REASONS = "gen_ai.response.finish_reasons"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_NAME = "gen_ai.tool.name"
TOOL_RESULT = "gen_ai.tool.call.result"
FL_FORMAT = "footprint_lab.format"
FL_VERSION = "footprint_lab.version"
FL_RUN = "footprint_lab.run"
FL_LEDGER = "footprint_lab.ledger"
FL_MESSAGES = "footprint_lab.messages"
FL_CALL = "footprint_lab.call"
FL_CALL_INDEX = "footprint_lab.call_index"
FL_RECORD = "footprint_lab.record"
FL_RECORD_INDEX = "footprint_lab.record_index"
FL_COMMIT = "footprint_lab.commit"
FL_EVENT = "footprint_lab.event"
FL_EVENT_INDEX = "footprint_lab.event_index"

CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
"""``gen_ai.operation.name`` values of a model call."""
LEGACY_ROLES: Mapping[str, str] = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
"""The per-message span events of the GenAI conventions before 1.37, and their roles."""
LEGACY_CHOICE = "gen_ai.choice"
ROLE_ALIASES: Mapping[str, str] = {"developer": "system", "model": "assistant"}
"""Roles some sources write for the four roles."""
USAGE_KEYS: Mapping[str, tuple[str, ...]] = {
    "input_tokens": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
    "output_tokens": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
    "cache_read_tokens": ("gen_ai.usage.cache_read.input_tokens",),
    "cache_write_tokens": ("gen_ai.usage.cache_creation.input_tokens",),
}
"""``Usage`` field -> the attributes that report it (current name first)."""

_HEX = {16: re.compile(r"[0-9a-fA-F]{32}"), 8: re.compile(r"[0-9a-fA-F]{16}")}
_INT = re.compile(r"-?[0-9]{1,20}")
_INT64 = (-(2**63), 2**63 - 1)
_UINT64 = 2**64
_DOUBLES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


# -- the OTLP shape ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpanEvent:
    """One span event: its name, time and attributes (decoded to Python values)."""

    name: str
    """The event name."""
    time: int
    """``timeUnixNano``."""
    attributes: dict[str, Any]
    """Attribute key -> value (text, int, float, bool, list, dict, or None)."""


@dataclass(slots=True)
class OtelSpan:
    """One span of the file, decoded."""

    index: int
    """Its position among all spans of the file, in document order (the index errors name)."""
    trace_id: str
    """32 lowercase hex digits."""
    span_id: str
    """16 lowercase hex digits."""
    parent_id: str | None
    """The parent's span id, or None for a root span."""
    name: str
    """The span name."""
    start: int
    """``startTimeUnixNano``."""
    end: int
    """``endTimeUnixNano``."""
    attributes: dict[str, Any]
    """Attribute key -> value."""
    events: list[SpanEvent] = field(default_factory=list)
    """Its events, in file order."""

    @property
    def operation(self) -> str | None:
        """``gen_ai.operation.name`` (None when absent or not text)."""
        value = self.attributes.get(OPERATION)
        return value if isinstance(value, str) else None


def _fail(index: int | None, where: str, problem: str) -> NoReturn:
    raise TranscriptError(SOURCE, index, where, problem, unit=UNIT)


def _get(raw: Mapping[str, Any], camel: str, snake: str) -> Any:
    """A field by its OTLP JSON name, or by its proto name."""
    return raw[camel] if camel in raw else raw.get(snake)


def _list(
    raw: Mapping[str, Any], camel: str, snake: str, index: int | None, where: str
) -> list[Any]:
    value = _get(raw, camel, snake)
    if value is None:
        return []
    if not isinstance(value, list):
        _fail(index, where, f"expected a list, got {short(value)}")
    return value


def _object(value: Any, index: int | None, where: str) -> Mapping[str, Any]:
    """An OTLP object. Unlike :func:`~footprint_lab.importers._parts.object_of` (an optional
    field, absent meaning empty), absent is an error here: every caller reads a value the
    OTLP or GenAI shape requires."""
    if not isinstance(value, dict):
        _fail(index, where, f"expected an object, got {short(value)}")
    return value


def _span_id(value: Any, size: int, index: int, where: str) -> str | None:
    """A trace (16 bytes) or span (8 bytes) id as lowercase hex; None when absent or zero."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        _fail(index, where, f"expected {2 * size} hex digits, got {short(value)}")
    if _HEX[size].fullmatch(value):
        hexid = value.lower()
    else:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) != size:
            _fail(index, where, f"expected {2 * size} hex digits, got {short(value)}")
        hexid = raw.hex()
    return None if not hexid.strip("0") else hexid


def _nanos(value: Any, index: int, where: str) -> int:
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        number = int(value)
    else:
        _fail(index, where, f"expected nanoseconds since the epoch, got {short(value)}")
    if not 0 <= number < _UINT64:
        _fail(index, where, f"{number} is out of range for a time in nanoseconds")
    return number


def _int_value(value: Any, index: int, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _INT.fullmatch(value):
        number = int(value)
    else:
        _fail(index, where, f"expected a 64-bit integer, got {short(value)}")
    if not _INT64[0] <= number <= _INT64[1]:
        _fail(index, where, f"{number} is out of range for a 64-bit integer")
    return number


def _double_value(value: Any, index: int, where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value in _DOUBLES:
        return _DOUBLES[value]
    _fail(index, where, f"expected a number, got {short(value)}")


_VALUE_KEYS = (
    ("stringValue", "string_value"),
    ("boolValue", "bool_value"),
    ("intValue", "int_value"),
    ("doubleValue", "double_value"),
    ("arrayValue", "array_value"),
    ("kvlistValue", "kvlist_value"),
    ("bytesValue", "bytes_value"),
)


def _any_value(raw: Any, index: int, where: str, depth: int = 0) -> Any:
    """An OTLP ``AnyValue`` as a Python value (an empty one is None)."""
    if not isinstance(raw, dict):
        _fail(index, where, f"expected an AnyValue object, got {short(raw)}")
    if depth >= MAX_DEPTH:
        _fail(index, where, f"values nested deeper than {MAX_DEPTH} levels")
    present = [(c, s) for c, s in _VALUE_KEYS if c in raw or s in raw]
    if not present:
        return None
    if len(present) > 1:
        _fail(index, where, f"holds {len(present)} values ({present[0][0]}, {present[1][0]})")
    camel, snake = present[0]
    value = _get(raw, camel, snake)
    at = f"{where}.{camel}"
    if camel == "stringValue" or camel == "bytesValue":
        if not isinstance(value, str):
            _fail(index, at, f"expected text, got {short(value)}")
        return value
    if camel == "boolValue":
        if not isinstance(value, bool):
            _fail(index, at, f"expected true or false, got {short(value)}")
        return value
    if camel == "intValue":
        return _int_value(value, index, at)
    if camel == "doubleValue":
        return _double_value(value, index, at)
    holder = _object(value, index, at)
    items = _list(holder, "values", "values", index, f"{at}.values")
    if camel == "arrayValue":
        return [_any_value(v, index, f"{at}.values[{k}]", depth + 1) for k, v in enumerate(items)]
    return _key_values(items, index, f"{at}.values", depth + 1)


def _key_values(items: list[Any], index: int, where: str, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, kv in enumerate(items):
        if not isinstance(kv, dict) or not isinstance(kv.get("key"), str):
            _fail(index, f"{where}[{k}].key", "an attribute needs a text key")
        value = kv.get("value")
        out[kv["key"]] = (
            None if value is None else _any_value(value, index, f"{where}[{k}].value", depth)
        )
    return out


def _span(raw: Any, index: int, where: str) -> OtelSpan:
    span = _object(raw, index, where)
    trace_id = _span_id(_get(span, "traceId", "trace_id"), 16, index, "traceId")
    if trace_id is None:
        _fail(index, "traceId", "missing (a span needs a trace id that is not all zeros)")
    span_id = _span_id(_get(span, "spanId", "span_id"), 8, index, "spanId")
    if span_id is None:
        _fail(index, "spanId", "missing (a span needs a span id that is not all zeros)")
    parent = _span_id(_get(span, "parentSpanId", "parent_span_id"), 8, index, "parentSpanId")
    name = span.get("name", "")
    if not isinstance(name, str):
        _fail(index, "name", f"expected text, got {short(name)}")
    attributes = _key_values(
        _list(span, "attributes", "attributes", index, "attributes"), index, "attributes"
    )
    events: list[SpanEvent] = []
    for k, event in enumerate(_list(span, "events", "events", index, "events")):
        at = f"events[{k}]"
        body = _object(event, index, at)
        event_name = body.get("name", "")
        if not isinstance(event_name, str):
            _fail(index, f"{at}.name", f"expected text, got {short(event_name)}")
        events.append(
            SpanEvent(
                name=event_name,
                time=_nanos(
                    _get(body, "timeUnixNano", "time_unix_nano"), index, f"{at}.timeUnixNano"
                ),
                attributes=_key_values(
                    _list(body, "attributes", "attributes", index, f"{at}.attributes"),
                    index,
                    f"{at}.attributes",
                ),
            )
        )
    return OtelSpan(
        index=index,
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent,
        name=name,
        start=_nanos(
            _get(span, "startTimeUnixNano", "start_time_unix_nano"), index, "startTimeUnixNano"
        ),
        end=_nanos(_get(span, "endTimeUnixNano", "end_time_unix_nano"), index, "endTimeUnixNano"),
        attributes=attributes,
        events=events,
    )


def _documents(text: str, where: str) -> list[tuple[str, Any]]:
    """The file's JSON documents with a prefix for the places they name: one document, or
    one per line (the collector's file exporter)."""
    try:
        return [("", parse_json_text(text, SOURCE, where))]
    except TranscriptError as whole:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        if len(lines) < 2:
            raise
        try:
            first = json.loads(lines[0][1])
        except (ValueError, RecursionError):
            raise whole from None
        if not isinstance(first, dict):
            raise whole from None
        return [
            (f"line {n}: ", parse_json_text(line, SOURCE, where, f"line {n}")) for n, line in lines
        ]


def read_spans(data: Any, prefix: str = "", first_index: int = 0) -> list[OtelSpan]:
    """Every span of one OTLP JSON document (an ``ExportTraceServiceRequest``), decoded.

    Args:
        data: The parsed JSON document.
        prefix: Put before the places errors name (``"line 3: "``).
        first_index: The index of its first span (spans are counted across a file).

    Raises:
        TranscriptError: the document is not an OTLP trace export, or a span is malformed.
    """
    if not isinstance(data, dict):
        _fail(None, f"{prefix}file", "expected an OTLP JSON object with resourceSpans")
    if "resourceSpans" not in data and "resource_spans" not in data:
        _fail(None, f"{prefix}resourceSpans", "missing: not an OTLP JSON trace export")
    spans: list[OtelSpan] = []
    for r, resource in enumerate(
        _list(data, "resourceSpans", "resource_spans", None, f"{prefix}resourceSpans")
    ):
        at = f"{prefix}resourceSpans[{r}]"
        holder = _object(resource, None, at)
        for s, scope in enumerate(
            _list(holder, "scopeSpans", "scope_spans", None, f"{at}.scopeSpans")
        ):
            scope_at = f"{at}.scopeSpans[{s}]"
            scope_holder = _object(scope, None, scope_at)
            for raw in _list(scope_holder, "spans", "spans", None, f"{scope_at}.spans"):
                index = first_index + len(spans)
                spans.append(_span(raw, index, f"{prefix}span"))
    return spans


# -- grouping spans into runs -----------------------------------------------------------------


def _is_agent(span: OtelSpan) -> bool:
    op = span.operation
    return op == "invoke_agent" or (op is None and span.name.startswith("invoke_agent"))


def _is_chat(span: OtelSpan) -> bool:
    op = span.operation
    if op is not None:
        return op in CHAT_OPERATIONS
    if INPUT_MESSAGES in span.attributes or OUTPUT_MESSAGES in span.attributes:
        return not span.name.startswith(("invoke_agent", "execute_tool"))
    return any(e.name in LEGACY_ROLES or e.name == LEGACY_CHOICE for e in span.events)


def _is_tool(span: OtelSpan) -> bool:
    op = span.operation
    return op == "execute_tool" or (op is None and span.name.startswith("execute_tool"))


@dataclass
class _Group:
    """The spans of one run: its root agent span (None: a trace without one) and members."""

    trace_id: str
    head: OtelSpan | None
    members: list[OtelSpan] = field(default_factory=list)


def _groups(spans: Sequence[OtelSpan]) -> list[_Group]:
    """One group per root agent span, plus one per trace for spans under no agent span."""
    by_id: dict[tuple[str, str], OtelSpan] = {}
    for span in spans:
        key = (span.trace_id, span.span_id)
        if key in by_id:
            _fail(span.index, "spanId", f"repeats the span id of span {by_id[key].index}")
        by_id[key] = span
    root_of: dict[int, OtelSpan | None] = {}

    def root_agent(span: OtelSpan) -> OtelSpan | None:
        chain: list[OtelSpan] = []
        seen: set[int] = set()
        current: OtelSpan | None = span
        found: OtelSpan | None = None
        while current is not None:
            if current.index in root_of:
                found = root_of[current.index]
                break
            if current.index in seen:
                _fail(span.index, "parentSpanId", "the spans' parents form a cycle")
            seen.add(current.index)
            chain.append(current)
            parent = current.parent_id
            current = None if parent is None else by_id.get((span.trace_id, parent))
        # The outermost agent span of the chain (or the one found above it) is the root.
        for member in reversed(chain):
            if _is_agent(member) and found is None:
                found = member
            root_of[member.index] = found
        return found

    groups: dict[tuple[str, int | None], _Group] = {}
    for span in spans:
        head = root_agent(span)
        slot = (span.trace_id, None if head is None else head.index)
        group = groups.get(slot)
        if group is None:
            group = groups[slot] = _Group(span.trace_id, head)
        group.members.append(span)
    return [g for g in groups.values() if g.head is not None or any(_is_chat(s) for s in g.members)]


# -- JSON-valued attributes -------------------------------------------------------------------


def _parse_json(text: str, index: int, where: str) -> Any:
    try:
        value = json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        _fail(index, where, f"not JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")
    except RecursionError:
        _fail(index, where, "JSON nested too deep")
    except ValueError as exc:
        _fail(index, where, f"not readable JSON: {exc}")
    why = json_problem(value)
    if why is not None:
        _fail(index, where, f"holds {why}")
    return value


def _attr_where(key: str) -> str:
    return f"attributes[{key!r}]"


def _json_attr(span: OtelSpan, key: str, kind: type, *, required: bool = True) -> Any:
    """A JSON-valued attribute: JSON text parsed, or a structured value as it is."""
    where = _attr_where(key)
    value = span.attributes.get(key)
    if value is None:
        if required:
            _fail(span.index, where, "missing")
        return None
    if isinstance(value, str):
        value = _parse_json(value, span.index, where)
    if not isinstance(value, kind):
        _fail(span.index, where, f"expected a JSON {kind.__name__}, got {short(value)}")
    return value


# -- runs footprint_lab wrote -----------------------------------------------------------------


@dataclass
class _Carried:
    """A message as a span carried it: the decoded fields and where it was found."""

    message: dict[str, Any]
    index: int
    where: str


def _typed_parts(
    parts: list[Any], index: int, where: str
) -> Iterator[tuple[int, dict[str, Any], str]]:
    """Each GenAI message part with its position and field, checked (as it is reached, so
    faults are met in part order) to be an object with a text ``type``."""
    for k, part in enumerate(parts):
        at = f"{where}.parts[{k}]"
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            _fail(index, at, "a part needs a type")
        yield k, part, at


def _exact_message(raw: Any, index: int, where: str) -> tuple[int, dict[str, Any]]:
    """A GenAI message footprint_lab wrote: its ledger position and ``Message`` fields."""
    item = _object(raw, index, where)
    ext = _object(item.get(EXTENSION), index, f"{where}.{EXTENSION}")
    position = ext.get("position")
    if type(position) is not int or position < 0:
        _fail(index, f"{where}.{EXTENSION}.position", f"expected a position, got {short(position)}")
    parts = item.get("parts")
    if not isinstance(parts, list):
        _fail(index, f"{where}.parts", f"expected a list of parts, got {short(parts)}")
    role = item.get("role")
    texts: list[str] = []
    calls: list[Any] = []
    call_id = ext.get("tool_call_id")
    for _, part, at in _typed_parts(parts, index, where):
        kind = part["type"]
        if kind == "text":
            text = part.get("content")
            if not isinstance(text, str):
                _fail(index, f"{at}.content", f"expected text, got {short(text)}")
            texts.append(text)
        elif kind == "tool_call":
            calls.append(
                {"id": part.get("id"), "name": part.get("name"), "arguments": part.get("arguments")}
            )
        elif kind == "tool_call_response" and role == "tool":
            response = part.get("response")
            if not isinstance(response, str):
                _fail(index, f"{at}.response", f"expected text, got {short(response)}")
            texts.append(response)
            call_id = part.get("id")
    message = {
        "role": role,
        "content": "".join(texts),
        "tool_calls": calls,
        "tool_call_id": call_id,
        "name": item.get("name"),
        "stage_id": ext.get("stage_id"),
        "authored": ext.get("authored"),
        "parts": ext.get("parts", []),
    }
    return position, message


def _carry(store: dict[int, _Carried], raw: Any, index: int, where: str) -> int:
    position, message = _exact_message(raw, index, where)
    known = store.get(position)
    if known is None:
        store[position] = _Carried(message, index, where)
    elif known.message != message:
        _fail(
            index,
            where,
            f"message {position} differs from the one span {known.index} carries ({known.where})",
        )
    return position


def _indexed(span: OtelSpan, attributes: Mapping[str, Any], key: str, where: str) -> int:
    value = attributes.get(key)
    if type(value) is not int or value < 0:
        _fail(span.index, where, f"expected an index, got {short(value)}")
    return value


def _event_json(span: OtelSpan, event: SpanEvent, k: int, key: str) -> Any:
    where = f"events[{k}].attributes[{key!r}]"
    value = event.attributes.get(key)
    if not isinstance(value, str):
        _fail(span.index, where, f"expected JSON text, got {short(value)}")
    return _parse_json(value, span.index, where)


def _in_order(items: dict[int, Any], what: str, span: OtelSpan, where: str) -> list[Any]:
    missing = next((i for i in range(len(items)) if i not in items), None)
    if missing is not None:
        _fail(span.index, where, f"no span carries {what} {missing} (of {len(items)})")
    return [items[i] for i in range(len(items))]


def _commits(span: OtelSpan, ledger: Mapping[str, Any]) -> tuple[Any, list[list[Any]]]:
    where = _attr_where(FL_LEDGER)
    commits = ledger.get("commits")
    if not isinstance(commits, list):
        _fail(span.index, f"{where}.commits", "expected a list of commits")
    for i, commit in enumerate(commits):
        if (
            not isinstance(commit, list)
            or len(commit) != 4
            or not isinstance(commit[0], str)
            or not isinstance(commit[1], str)
            or type(commit[2]) is not int
        ):
            _fail(span.index, f"{where}.commits[{i}]", "expected [stage_id, key, at_ms, value]")
    return ledger.get("stage_counter"), commits


def _message_commit(commits: list[list[Any]], size: int) -> list[int]:
    """For each position, the history commit that appended it (-1 where none does: the
    ledger's own check names that)."""
    out = [-1] * size
    for i, (_, key, _, value) in enumerate(commits):
        if key != HISTORY or not isinstance(value, list) or len(value) != 2:
            continue
        start, end = value
        if type(start) is int and type(end) is int:
            for p in range(max(0, start), min(end, size)):
                out[p] = i
    return out


def _history_size(commits: list[list[Any]]) -> int:
    size = 0
    for _, key, _, value in commits:
        if key == HISTORY and isinstance(value, list) and len(value) == 2 and type(value[1]) is int:
            size = max(size, value[1])
    return size


def _exact(head: OtelSpan, members: Sequence[OtelSpan]) -> Run:
    """Rebuild a run footprint_lab wrote, exactly (see the module docstring)."""
    version = head.attributes.get(FL_VERSION)
    if version != FORMAT_VERSION or type(version) is not int:
        _fail(
            head.index,
            _attr_where(FL_VERSION),
            f"footprint_lab trace version {version!r} is not supported; this footprint_lab "
            f"reads version {FORMAT_VERSION}",
        )
    state = _json_attr(head, FL_RUN, dict)
    stage_counter, commits = _commits(head, _json_attr(head, FL_LEDGER, dict))
    store: dict[int, _Carried] = {}
    chats: dict[int, tuple[OtelSpan, list[int], dict[str, Any]]] = {}
    records: dict[int, Any] = {}
    record_at: dict[int, Any] = {}
    events: dict[int, Any] = {}
    for span in members:
        if FL_CALL in span.attributes:
            k = _indexed(span, span.attributes, FL_CALL_INDEX, _attr_where(FL_CALL_INDEX))
            if k in chats:
                _fail(span.index, _attr_where(FL_CALL_INDEX), f"call {k} is carried twice")
            call = _json_attr(span, FL_CALL, dict)
            inputs = _json_attr(span, INPUT_MESSAGES, list)
            sent = [
                _carry(store, raw, span.index, f"{_attr_where(INPUT_MESSAGES)}[{i}]")
                for i, raw in enumerate(inputs)
            ]
            outputs = _json_attr(span, OUTPUT_MESSAGES, list, required=False) or []
            for i, raw in enumerate(outputs):
                _carry(store, raw, span.index, f"{_attr_where(OUTPUT_MESSAGES)}[{i}]")
            chats[k] = (span, sent, call)
        for e, event in enumerate(span.events):
            at = f"events[{e}].attributes"
            if event.name == WINDOW_EVENT:
                j = _indexed(span, event.attributes, FL_RECORD_INDEX, f"{at}[{FL_RECORD_INDEX!r}]")
                if j in records:
                    _fail(span.index, f"events[{e}]", f"record {j} is carried twice")
                records[j] = _event_json(span, event, e, FL_RECORD)
                commit = event.attributes.get(FL_COMMIT)
                if type(commit) is int:
                    record_at[commit] = records[j]
            elif event.name.startswith(EVENT_PREFIX) and FL_EVENT in event.attributes:
                i = _indexed(span, event.attributes, FL_EVENT_INDEX, f"{at}[{FL_EVENT_INDEX!r}]")
                if i in events:
                    _fail(span.index, f"events[{e}]", f"event {i} is carried twice")
                events[i] = _event_json(span, event, e, FL_EVENT)
    unsent = _json_attr(head, FL_MESSAGES, list, required=False) or []
    for i, raw in enumerate(unsent):
        _carry(store, raw, head.index, f"{_attr_where(FL_MESSAGES)}[{i}]")
    size = _history_size(commits)
    beyond = next((p for p in store if p >= size), None)
    if beyond is not None:
        carried = store[beyond]
        _fail(
            carried.index, carried.where, f"position {beyond} is past the ledger's {size} messages"
        )
    messages = []
    for p in range(size):
        if p not in store:
            _fail(head.index, _attr_where(FL_LEDGER), f"message {p} is carried by no span")
        messages.append(store[p].message)
    saved_commits = []
    for i, (stage_id, key, at_ms, value) in enumerate(commits):
        if key == "record" and value is None:
            if i not in record_at:
                _fail(
                    head.index,
                    f"{_attr_where(FL_LEDGER)}.commits[{i}]",
                    "no window event carries this record",
                )
            value = record_at[i]
        saved_commits.append(
            {"index": i, "stage_id": stage_id, "key": key, "at_ms": at_ms, "value": value}
        )
    calls = _in_order(chats, "call", head, _attr_where(FL_CALL_INDEX))
    document = {
        **state,
        "format": RUN_FORMAT,
        "version": RUN_VERSION,
        "records": _in_order(records, "record", head, WINDOW_EVENT),
        "calls": [call for _, _, call in calls],
        "events": _in_order(events, "event", head, FL_EVENT_INDEX),
        "ledger": {
            "messages": messages,
            "message_commit": _message_commit(commits, size),
            "commits": saved_commits,
            "stage_counter": stage_counter,
        },
    }
    run = _restore(head, document, store)
    _check_windows(run, calls)
    return run


def _restore(head: OtelSpan, document: dict[str, Any], store: Mapping[int, _Carried]) -> Run:
    """The run in a rebuilt run document, checked as a run file is."""
    try:
        checkpoint = Checkpoint.model_validate(document)
        check_unknown_fields(document, checkpoint)
        run = run_from_checkpoint(checkpoint)
        check_run(checkpoint, run.ledger)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = list(loc_path(first["loc"], document))
        rule = str(first["msg"])
        at = loc[2] if len(loc) >= 3 and loc[:2] == ["ledger", "messages"] else None
        if isinstance(at, int) and at in store:
            carried = store[at]
            _fail(carried.index, json_path([carried.where, *loc[3:]]), rule)
        _fail(head.index, f"{_attr_where(FL_RUN)}: {json_path(loc)}", rule)
    except RunFileProblem as problem:
        _fail(head.index, f"{_attr_where(FL_RUN)}: {problem.where}", problem.rule)
    except RecursionError:
        _fail(head.index, _attr_where(FL_RUN), "nested too deep to be a run")
    return run


def _check_windows(run: Run, calls: Sequence[tuple[OtelSpan, list[int], Any]]) -> None:
    """Each chat span's input must be the window the ledger says that call sent."""
    ledger = run.ledger
    for k, (span, sent, _) in enumerate(calls):
        commit = run.calls[k].sent_commit
        window = ledger.window_at(commit) if 0 <= commit < len(ledger) else []
        expected = [ledger.position(m) for m in window]
        if sent != expected:
            _fail(
                span.index,
                _attr_where(INPUT_MESSAGES),
                f"holds messages {short(sent)}, but the ledger's window at commit {commit} "
                f"is {short(expected)}",
            )


# -- other GenAI traces -----------------------------------------------------------------------


def _text(value: Any) -> str:
    """A tool result as text: text as it is, any other JSON value as its compact JSON (a
    GenAI ``response`` may be any value; not a validator, so not :mod:`._parts`' kind)."""
    return value if isinstance(value, str) else arguments_json(value)


class _Messages:
    """Turns GenAI message objects into Messages, each distinct object once (a message
    repeated in every later input is read, and its problems listed, once)."""

    def __init__(self, problems: Problems) -> None:
        self.problems = problems
        self.ids = CallIds(problems)
        self._seen: dict[str, list[Message]] = {}

    def read(self, raw: Any, index: int, where: str) -> list[Message]:
        """The messages one GenAI message object stands for (a tool message with several
        responses is one message per response)."""
        key = arguments_json(raw)
        known = self._seen.get(key)
        if known is None:
            known = self._seen[key] = self._read(raw, index, where)
        return [m.model_copy() for m in known]

    def _read(self, raw: Any, index: int, where: str) -> list[Message]:
        problems = self.problems
        item = _object(raw, index, where)
        role = item.get("role")
        if not isinstance(role, str):
            _fail(index, f"{where}.role", f"expected a role, got {short(role)}")
        role = ROLE_ALIASES.get(role, role)
        if role not in ("system", "user", "assistant", "tool"):
            _fail(index, f"{where}.role", f"unknown role {role!r}")
        parts = item.get("parts")
        if parts is None and isinstance(item.get("content"), str):
            parts = [{"type": "text", "content": item["content"]}]  # before parts were named
        if not isinstance(parts, list):
            _fail(index, f"{where}.parts", f"expected a list of parts, got {short(parts)}")
        name = item.get("name")
        if name is not None and not isinstance(name, str):
            _fail(index, f"{where}.name", f"expected text, got {short(name)}")
        texts: list[str] = []
        calls: list[ToolCall] = []
        positions: list[int] = []  # each call's part, so a duplicate id names its part
        typed: list[ContentPart] = []
        results: list[Message] = []
        for k, part, at in _typed_parts(parts, index, where):
            kind = part["type"]
            if kind == "text":
                texts.append(text_of(part.get("content"), problems, index, f"{at}.content"))
            elif kind == "tool_call" and role == "assistant":
                calls.append(self._call(part, index, at, k))
                positions.append(k)
            elif kind == "tool_call_response":
                results.append(self._result(part, name, index, at))
            elif kind == "reasoning":
                text = text_of(part.get("content"), problems, index, f"{at}.content")
                typed.append(ContentPart(kind="thinking", text=text, original=dict(part)))
            else:
                if kind == "tool_call":
                    problems.note(index, at, f"a tool call in a {role} message; kept as a part")
                typed.append(content_part(part, problems, index, at))
        text = "".join(texts)
        if role == "assistant":
            self.ids.asked(calls, index, f"{where}.parts", positions)
            return [Message.assistant(text, tool_calls=calls, parts=typed, name=name)]
        if role == "tool" and not results:
            problems.note(index, where, "a tool message without a tool_call_response part")
            return [Message(role="tool", content=text, name=name, parts=typed)]
        if results:
            # A user message may carry tool results (Anthropic's tool_result blocks).
            rest = [Message(role=role, content=text, parts=typed)] if text or typed else []
            if role == "tool" and rest:
                results[-1] = results[-1].model_copy(
                    update={
                        "content": results[-1].content + text,
                        "parts": [*results[-1].parts, *typed],
                    }
                )
                rest = []
            return [*results, *rest]
        return [Message(role=role, content=text, parts=typed, name=name)]

    def _call(self, part: Mapping[str, Any], index: int, at: str, k: int) -> ToolCall:
        call_id = part.get("id")
        if call_id is None:
            call_id = f"otel-{index}-{k}"
            self.problems.note(
                index, f"{at}.id", f"tool call without an id; imported as {call_id!r}"
            )
        elif not isinstance(call_id, str):
            _fail(index, f"{at}.id", f"expected text, got {short(call_id)}")
        name = self.ids.name(index, f"{at}.name", part.get("name"))
        arguments = arguments_of(
            part.get("arguments"),
            self.problems,
            index,
            f"{at}.arguments",
            missing=part.get("arguments") is None,
        )
        return ToolCall(id=call_id, name=name, arguments=arguments)

    def _result(self, part: Mapping[str, Any], name: str | None, index: int, at: str) -> Message:
        call_id = part.get("id")
        if call_id is None:
            self.problems.note(index, f"{at}.id", "tool result without a call id")
            call_id = ""
        elif not isinstance(call_id, str):
            _fail(index, f"{at}.id", f"expected text, got {short(call_id)}")
        response = part.get("response", part.get("result"))
        why = json_problem(response)
        if why is not None:
            _fail(index, f"{at}.response", f"holds {why}")
        if response is None:
            self.problems.note(index, f"{at}.response", "null response, imported as empty text")
        content = "" if response is None else _text(response)
        known = self.ids.answered(call_id, index, f"{at}.id") if call_id else None
        return Message.tool(call_id, name or known or "unknown", content)


def _legacy_body(span: OtelSpan, event: SpanEvent, k: int) -> Mapping[str, Any]:
    """A per-message event's body: ``gen_ai.event.content`` (JSON text) when present, else
    its attributes (nested fields given as JSON text are parsed)."""
    where = f"events[{k}].attributes"
    content = event.attributes.get("gen_ai.event.content")
    if isinstance(content, str):
        body = _parse_json(content, span.index, f"{where}['gen_ai.event.content']")
        return _object(body, span.index, f"{where}['gen_ai.event.content']")
    out = dict(event.attributes)
    for key in ("tool_calls", "message"):
        value = out.get(key)
        if isinstance(value, str) and value.lstrip().startswith(("[", "{")):
            out[key] = _parse_json(value, span.index, f"{where}[{key!r}]")
    return out


def _legacy_message(body: Mapping[str, Any], role: str, index: int, where: str) -> dict[str, Any]:
    """An old per-message event body as a GenAI message object."""
    given = body.get("role")
    role = given if isinstance(given, str) else role
    content = body.get("content")
    parts: list[Any] = []
    if role == "tool":
        parts.append(
            {"type": "tool_call_response", "id": body.get("id"), "response": content or ""}
        )
    elif isinstance(content, str):
        parts.append({"type": "text", "content": content})
    elif isinstance(content, list) and all(isinstance(b, dict) and "type" in b for b in content):
        parts.extend(content)
    elif content is not None:
        parts.append({"type": "text", "content": arguments_json(content)})
    calls = body.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        _fail(index, f"{where}.tool_calls", f"expected a list of calls, got {short(calls)}")
    for k, call in enumerate(calls or []):
        if not isinstance(call, dict):
            _fail(index, f"{where}.tool_calls[{k}]", "expected a call object")
        fn = call.get("function")
        if fn is None:
            fn = call
        if not isinstance(fn, dict):
            _fail(index, f"{where}.tool_calls[{k}].function", "expected an object")
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": fn.get("name"),
                "arguments": fn.get("arguments"),
            }
        )
    return {"role": role, "parts": parts}


@dataclass
class _ChatCall:
    """One foreign chat span, read."""

    span: OtelSpan
    inputs: list[Message] | None
    output: Message | None
    usage: Usage | None
    finish_reason: str | None


def _messages_attr(span: OtelSpan, key: str) -> list[Any] | None:
    value = _json_attr(span, key, list, required=False)
    return None if value is None else list(value)


def _usage(span: OtelSpan, problems: Problems) -> Usage | None:
    counts: dict[str, tuple[Any, str]] = {}
    raw: dict[str, Any] = {}
    for name, keys in USAGE_KEYS.items():
        key = next((k for k in keys if k in span.attributes), keys[0])
        value = span.attributes.get(key)
        counts[name] = (value, _attr_where(key))
        if value is not None:
            raw[key] = value
    if not raw:
        return None
    return usage_from(raw, counts, problems, span.index, "attributes")


def _finish(span: OtelSpan, raw_output: Any) -> str | None:
    reasons = span.attributes.get(FINISH_REASONS)
    if isinstance(reasons, list) and reasons and isinstance(reasons[0], str):
        return reasons[0]
    if isinstance(reasons, str):
        return reasons
    if isinstance(raw_output, dict) and isinstance(raw_output.get("finish_reason"), str):
        return str(raw_output["finish_reason"])
    return None


def _read_chat(span: OtelSpan, reader: _Messages) -> _ChatCall:
    problems = reader.problems
    inputs_raw = _messages_attr(span, INPUT_MESSAGES)
    outputs_raw = _messages_attr(span, OUTPUT_MESSAGES)
    fields_in = [f"{_attr_where(INPUT_MESSAGES)}[{i}]" for i in range(len(inputs_raw or []))]
    fields_out = [f"{_attr_where(OUTPUT_MESSAGES)}[{i}]" for i in range(len(outputs_raw or []))]
    if inputs_raw is None and outputs_raw is None:
        legacy_in: list[Any] = []
        legacy_out: list[Any] = []
        for k, event in enumerate(span.events):
            role = LEGACY_ROLES.get(event.name)
            if role is None and event.name != LEGACY_CHOICE:
                continue
            body = _legacy_body(span, event, k)
            where = f"events[{k}]"
            if role is not None:
                legacy_in.append(_legacy_message(body, role, span.index, where))
                fields_in.append(where)
                continue
            message = body.get("message", {})
            message = _object({} if message is None else message, span.index, f"{where}.message")
            raw = _legacy_message(message, "assistant", span.index, f"{where}.message")
            if isinstance(body.get("finish_reason"), str):
                raw["finish_reason"] = body["finish_reason"]
            legacy_out.append(raw)
            fields_out.append(f"{where}.message")
        inputs_raw = legacy_in if legacy_in else None
        outputs_raw = legacy_out
    inputs = None
    if inputs_raw is not None:
        inputs = [
            m
            for raw, where in zip(inputs_raw, fields_in, strict=True)
            for m in reader.read(raw, span.index, where)
        ]
    output: Message | None = None
    outputs_raw = outputs_raw or []
    for raw, where in zip(outputs_raw, fields_out, strict=True):
        replies = [m for m in reader.read(raw, span.index, where) if m.role == "assistant"]
        if replies:
            output = replies[0]
            break
    if len(outputs_raw) > 1:
        problems.note(
            span.index,
            _attr_where(OUTPUT_MESSAGES),
            f"{len(outputs_raw)} output messages (choices); the first reply is imported",
        )
    first = outputs_raw[0] if outputs_raw else None
    return _ChatCall(span, inputs, output, _usage(span, problems), _finish(span, first))


def _instructions(span: OtelSpan | None) -> str | None:
    if span is None or SYSTEM_INSTRUCTIONS not in span.attributes:
        return None
    value = span.attributes[SYSTEM_INSTRUCTIONS]
    if isinstance(value, str) and not value.lstrip().startswith("["):
        return value  # plain text, as some sources write it
    parts = _json_attr(span, SYSTEM_INSTRUCTIONS, list)
    texts = []
    for k, part in enumerate(parts):
        if not isinstance(part, dict):
            _fail(span.index, f"{_attr_where(SYSTEM_INSTRUCTIONS)}[{k}]", "expected a part object")
        if part.get("type") == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
    return "\n".join(texts)


class _History:
    """The history rebuilt so far (searchable by what a message says on the wire, as
    :class:`~footprint_lab.importers._observed.HistoryIndex` searches it), with each reply's
    usage, recorded input and finish reason."""

    def __init__(self) -> None:
        self.index = HistoryIndex()
        self.usages: list[Usage | None] = []
        self.sent: list[list[Message] | None] = []
        self.finish: list[str | None] = []
        self.answered: set[str | None] = set()
        """Call ids a tool result in the history answers."""

    @property
    def messages(self) -> list[Message]:
        """The history, in order."""
        return self.index.messages

    def add(
        self,
        message: Message,
        usage: Usage | None = None,
        sent: list[Message] | None = None,
        finish: str | None = None,
    ) -> None:
        self.index.add([message])
        if message.role == "tool":
            self.answered.add(message.tool_call_id)
        if message.role == "assistant":
            self.usages.append(usage)
            self.sent.append(sent)
            self.finish.append(finish)

    def next_match(self, message: Message, start: int) -> int | None:
        """The first history position at or after ``start`` holding ``message``'s wire form."""
        return self.index.next_match(wire_key(message), start)


def _tool_results(members: Sequence[OtelSpan]) -> dict[str, Message]:
    """Tool results the ``execute_tool`` spans report, by call id."""
    out: dict[str, Message] = {}
    for span in members:
        if not _is_tool(span):
            continue
        call_id = span.attributes.get(TOOL_CALL_ID)
        if not isinstance(call_id, str) or TOOL_RESULT not in span.attributes:
            continue
        result = span.attributes[TOOL_RESULT]
        why = json_problem(result)
        if why is not None:
            _fail(span.index, _attr_where(TOOL_RESULT), f"holds {why}")
        name = span.attributes.get(TOOL_NAME)
        out.setdefault(
            call_id,
            Message.tool(call_id, name if isinstance(name, str) else "unknown", _text(result)),
        )
    return out


def _answer_tools(
    history: _History, last: Message | None, given: set[str | None], results: Mapping[str, Message]
) -> None:
    """Commit the results the tool spans report for ``last``'s calls that no input gives."""
    if last is None:
        return
    for call in last.tool_calls:
        if call.id not in history.answered and call.id not in given and call.id in results:
            history.add(results[call.id].model_copy())


def _foreign(group: _Group, strict: bool) -> Run:
    """A run from any GenAI trace (see the module docstring)."""
    problems = Problems(SOURCE, strict=strict, unit=UNIT)
    reader = _Messages(problems)
    chats = sorted((s for s in group.members if _is_chat(s)), key=lambda s: (s.start, s.index))
    results = _tool_results(group.members)
    system = _instructions(group.head)
    history = _History()
    last: Message | None = None
    model: str | None = None
    for n, span in enumerate(chats):
        call = _read_chat(span, reader)
        if system is None:
            system = _instructions(span)
        if model is None:
            for key in (REQUEST_MODEL, RESPONSE_MODEL):
                value = span.attributes.get(key)
                if isinstance(value, str) and value:
                    model = value
                    break
        items = list(call.inputs or [])
        if n == 0 and system is None and items and items[0].role == "system" and not items[0].parts:
            system = items[0].content
        if (
            items
            and items[0].role == "system"
            and system is not None
            and items[0].content == system
        ):
            items = items[1:]
        _answer_tools(history, last, {m.tool_call_id for m in items if m.role == "tool"}, results)
        cursor = 0
        last_matched = -1
        for i, message in enumerate(items):
            at = history.next_match(message, cursor)
            if at is not None:
                cursor = at + 1
                last_matched = i
        for message in items[last_matched + 1 :]:
            history.add(message.model_copy())
        if call.output is None:
            problems.note(
                span.index, _attr_where(OUTPUT_MESSAGES), "no reply: the call is not imported"
            )
            continue
        history.add(call.output, call.usage, call.inputs, call.finish_reason)
        last = call.output
    _answer_tools(history, last, set(), results)
    head = group.head
    agent = None if head is None else head.attributes.get(AGENT_NAME)
    provider = next(
        (
            v
            for s in [*(() if head is None else (head,)), *chats]
            for k in (PROVIDER, SYSTEM)
            if isinstance(v := s.attributes.get(k), str)
        ),
        None,
    )
    meta: dict[str, Any] = {"trace_id": group.trace_id}
    if head is not None:
        meta["span_id"] = head.span_id
    if isinstance(agent, str):
        meta["agent"] = agent
        meta["label"] = agent
    if provider is not None:
        meta["provider"] = provider
    run = build_run(
        history.messages,
        history.usages,
        system=system,
        source=SOURCE,
        meta=meta,
        problems=problems.found,
        model=model,
        sent=history.sent,
        policy=POLICY,
    )
    for call_record, reason in zip(run.calls, history.finish, strict=False):
        call_record.finish_reason = reason
    return run


# -- the loader -------------------------------------------------------------------------------


def _load(path: str | Path, strict: bool) -> list[Run]:
    where = str(path)
    spans: list[OtelSpan] = []
    for prefix, document in _documents(read_text_file(path, SOURCE), where):
        spans.extend(read_spans(document, prefix, len(spans)))
    runs: list[Run] = []
    for group in _groups(spans):
        head = group.head
        if head is not None and (FL_LEDGER in head.attributes or FL_FORMAT in head.attributes):
            if head.attributes.get(FL_FORMAT) != FORMAT:
                _fail(head.index, _attr_where(FL_FORMAT), f"expected {FORMAT!r}")
            runs.append(_exact(head, group.members))
        else:
            runs.append(_foreign(group, strict))
    return runs


@gc_paused
def load_otel(path: str | Path, *, strict: bool = False) -> list[Run]:
    """Read an OTLP JSON traces file: one run per root agent span (per trace when a trace has
    no agent span), in document order.

    A trace :func:`footprint_lab.export.to_otel` wrote loads back to an equal run; any other
    GenAI trace is rebuilt from its chat spans (see the module docstring), with what it had
    wrong in ``run.import_problems`` (source 'otel', index = the span's index in the file).

    Args:
        path: The file (one OTLP JSON document, or one per line).
        strict: Raise at the first problem instead of listing it.

    Raises:
        TranscriptError: naming the file, the span index and the field: the file cannot be
            read as JSON, is not an OTLP trace export, a span is malformed (no ids, a value of
            the wrong type, messages that are not JSON or not the GenAI message schema), a
            footprint_lab trace's parts disagree (or, when ``strict``, a problem).
    """
    try:
        return _load(path, strict)
    except TranscriptError as exc:
        raise nested(exc, exc.source, path=str(path)) from None
