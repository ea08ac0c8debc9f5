"""Reading OTLP JSON into spans: documents, spans, span events and attribute values.

Layer: otlp (the format, read here and written by :mod:`footprint_lab.otlp.write`; below the
importers, which build runs from what this reads). :func:`read_spans` decodes one OTLP JSON
``ExportTraceServiceRequest`` (hex or base64 ids, ``AnyValue`` attributes) into
:class:`OtelSpan` and :class:`SpanEvent`; the helpers here raise
:class:`~footprint_lab.reading.TranscriptError` naming the span and field, and read JSON-valued
attributes (JSON text or structured values).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from footprint_lab.messages import storable_json
from footprint_lab.otlp.names import OPERATION, SOURCE, UNIT
from footprint_lab.reading.files import parse_json_text
from footprint_lab.reading.problems import TranscriptError, short
from footprint_lab.reading.values import MAX_DEPTH, json_problem, reject_constant

__all__ = [
    "OtelSpan",
    "SpanEvent",
    "attr_where",
    "documents",
    "fail",
    "json_attr",
    "object_value",
    "parse_json",
    "read_spans",
]

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


def fail(index: int | None, where: str, problem: str) -> NoReturn:
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
        fail(index, where, f"expected a list, got {short(value)}")
    return value


def object_value(value: Any, index: int | None, where: str) -> Mapping[str, Any]:
    """An OTLP object. Unlike :func:`~footprint_lab.importers._parts.object_of` (an optional
    field, absent meaning empty), absent is an error here: every caller reads a value the
    OTLP or GenAI shape requires."""
    if not isinstance(value, dict):
        fail(index, where, f"expected an object, got {short(value)}")
    return value


def _span_id(value: Any, size: int, index: int, where: str) -> str | None:
    """A trace (16 bytes) or span (8 bytes) id as lowercase hex; None when absent or zero."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        fail(index, where, f"expected {2 * size} hex digits, got {short(value)}")
    if _HEX[size].fullmatch(value):
        hexid = value.lower()
    else:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) != size:
            fail(index, where, f"expected {2 * size} hex digits, got {short(value)}")
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
        fail(index, where, f"expected nanoseconds since the epoch, got {short(value)}")
    if not 0 <= number < _UINT64:
        fail(index, where, f"{number} is out of range for a time in nanoseconds")
    return number


def _int_value(value: Any, index: int, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _INT.fullmatch(value):
        number = int(value)
    else:
        fail(index, where, f"expected a 64-bit integer, got {short(value)}")
    if not _INT64[0] <= number <= _INT64[1]:
        fail(index, where, f"{number} is out of range for a 64-bit integer")
    return number


def _double_value(value: Any, index: int, where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value in _DOUBLES:
        return _DOUBLES[value]
    fail(index, where, f"expected a number, got {short(value)}")


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
        fail(index, where, f"expected an AnyValue object, got {short(raw)}")
    if depth >= MAX_DEPTH:
        fail(index, where, f"values nested deeper than {MAX_DEPTH} levels")
    present = [(c, s) for c, s in _VALUE_KEYS if c in raw or s in raw]
    if not present:
        return None
    if len(present) > 1:
        fail(index, where, f"holds {len(present)} values ({present[0][0]}, {present[1][0]})")
    camel, snake = present[0]
    value = _get(raw, camel, snake)
    at = f"{where}.{camel}"
    if camel == "stringValue" or camel == "bytesValue":
        if not isinstance(value, str):
            fail(index, at, f"expected text, got {short(value)}")
        return value
    if camel == "boolValue":
        if not isinstance(value, bool):
            fail(index, at, f"expected true or false, got {short(value)}")
        return value
    if camel == "intValue":
        return _int_value(value, index, at)
    if camel == "doubleValue":
        return _double_value(value, index, at)
    holder = object_value(value, index, at)
    items = _list(holder, "values", "values", index, f"{at}.values")
    if camel == "arrayValue":
        return [_any_value(v, index, f"{at}.values[{k}]", depth + 1) for k, v in enumerate(items)]
    return _key_values(items, index, f"{at}.values", depth + 1)


def _key_values(items: list[Any], index: int, where: str, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, kv in enumerate(items):
        if not isinstance(kv, dict) or not isinstance(kv.get("key"), str):
            fail(index, f"{where}[{k}].key", "an attribute needs a text key")
        value = kv.get("value")
        out[kv["key"]] = (
            None if value is None else _any_value(value, index, f"{where}[{k}].value", depth)
        )
    return out


def _span(raw: Any, index: int, where: str) -> OtelSpan:
    span = object_value(raw, index, where)
    trace_id = _span_id(_get(span, "traceId", "trace_id"), 16, index, "traceId")
    if trace_id is None:
        fail(index, "traceId", "missing (a span needs a trace id that is not all zeros)")
    span_id = _span_id(_get(span, "spanId", "span_id"), 8, index, "spanId")
    if span_id is None:
        fail(index, "spanId", "missing (a span needs a span id that is not all zeros)")
    parent = _span_id(_get(span, "parentSpanId", "parent_span_id"), 8, index, "parentSpanId")
    name = span.get("name", "")
    if not isinstance(name, str):
        fail(index, "name", f"expected text, got {short(name)}")
    attributes = _key_values(
        _list(span, "attributes", "attributes", index, "attributes"), index, "attributes"
    )
    events: list[SpanEvent] = []
    for k, event in enumerate(_list(span, "events", "events", index, "events")):
        at = f"events[{k}]"
        body = object_value(event, index, at)
        event_name = body.get("name", "")
        if not isinstance(event_name, str):
            fail(index, f"{at}.name", f"expected text, got {short(event_name)}")
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


def documents(text: str, where: str) -> list[tuple[str, Any]]:
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
        fail(None, f"{prefix}file", "expected an OTLP JSON object with resourceSpans")
    if "resourceSpans" not in data and "resource_spans" not in data:
        fail(None, f"{prefix}resourceSpans", "missing: not an OTLP JSON trace export")
    spans: list[OtelSpan] = []
    for r, resource in enumerate(
        _list(data, "resourceSpans", "resource_spans", None, f"{prefix}resourceSpans")
    ):
        at = f"{prefix}resourceSpans[{r}]"
        holder = object_value(resource, None, at)
        for s, scope in enumerate(
            _list(holder, "scopeSpans", "scope_spans", None, f"{at}.scopeSpans")
        ):
            scope_at = f"{at}.scopeSpans[{s}]"
            scope_holder = object_value(scope, None, scope_at)
            for raw in _list(scope_holder, "spans", "spans", None, f"{scope_at}.spans"):
                index = first_index + len(spans)
                spans.append(_span(raw, index, f"{prefix}span"))
    return spans


# -- JSON-valued attributes -------------------------------------------------------------------


def parse_json(text: str, index: int, where: str) -> Any:
    try:
        value = storable_json(text, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        fail(index, where, f"not JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")
    except RecursionError:
        fail(index, where, "JSON nested too deep")
    except ValueError as exc:
        fail(index, where, f"not readable JSON: {exc}")
    why = json_problem(value)
    if why is not None:
        fail(index, where, f"holds {why}")
    return value


def attr_where(key: str) -> str:
    return f"attributes[{key!r}]"


def json_attr(span: OtelSpan, key: str, kind: type, *, required: bool = True) -> Any:
    """A JSON-valued attribute: JSON text parsed, or a structured value as it is."""
    where = attr_where(key)
    value = span.attributes.get(key)
    if value is None:
        if required:
            fail(span.index, where, "missing")
        return None
    if isinstance(value, str):
        value = parse_json(value, span.index, where)
    if not isinstance(value, kind):
        fail(span.index, where, f"expected a JSON {kind.__name__}, got {short(value)}")
    return value
