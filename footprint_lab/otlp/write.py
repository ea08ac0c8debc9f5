"""Writing OTLP: span drafts as protobuf ``Span`` objects, attribute values, deterministic
trace and span ids, the ``ExportTraceServiceRequest`` and its OTLP JSON mapping (ids rewritten
from base64 to hex).

Layer: otlp. Used by :mod:`footprint_lab.export.otel`, which builds the span drafts of a run.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
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

from footprint_lab.agent.run import Run
from footprint_lab.ledger import Commit
from footprint_lab.messages import content_hash
from footprint_lab.otlp.names import FORMAT, SCHEMA_URL, SCOPE_NAME, JsonDict

KIND_INTERNAL = Span.SpanKind.SPAN_KIND_INTERNAL
"""The kind of the agent and tool spans."""
KIND_CLIENT = Span.SpanKind.SPAN_KIND_CLIENT
"""The kind of a chat span (a call to the provider)."""
_STATUS_ERROR = Status.StatusCode.STATUS_CODE_ERROR
_NS_PER_MS = 1_000_000


# -- attribute values -------------------------------------------------------------------------


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _any_value(value: Any, key: str | None = None) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            # OTLP carries integers as int64: say which figure cannot be written, not protobuf's
            # bare "Value out of range".
            raise ValueError(
                f"to_otel: attribute {key or 'value'!r} is {value}, outside OTLP's 64-bit "
                f"integers ({_INT64_MIN} to {_INT64_MAX}); the run holds a figure no trace can "
                "carry (a usage count, say): mend it before exporting"
            )
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, str):
        return AnyValue(string_value=value)
    if isinstance(value, (list, tuple)):
        return AnyValue(array_value=ArrayValue(values=[_any_value(v, key) for v in value]))
    raise TypeError(f"no OTLP attribute value for {type(value).__name__}")


def _attributes(pairs: Mapping[str, Any]) -> list[KeyValue]:
    """OTLP attributes of the pairs whose value is not None, in order."""
    return [KeyValue(key=k, value=_any_value(v, k)) for k, v in pairs.items() if v is not None]


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


def trace_id_of(run: Run, commits: Sequence[Commit]) -> bytes:
    """The run's trace id: 16 bytes hashed from its request, strategy, model, provider, commit
    times and messages, never all zeros (one run always gets the same id)."""
    h = hashlib.sha256()
    for text in (FORMAT, run.request, run.strategy or "", run.model, run.provider):
        h.update(text.encode("utf-8", "backslashreplace") + b"\x1f")
    h.update(f"{len(commits)}|{commits[0].at_ms if commits else 0}".encode())
    h.update(f"|{commits[-1].at_ms if commits else 0}|{len(run.records)}".encode())
    for message in run.ledger.messages:
        h.update(f"{message.stage_id}:{content_hash(message)};".encode("utf-8", "backslashreplace"))
    return _nonzero(h.digest()[:16])


# -- span drafts ------------------------------------------------------------------------------


@dataclass
class SpanDraft:
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


def encode_span(draft: SpanDraft, trace_id: bytes, parent: bytes | None) -> Span:
    """``draft`` as a protobuf span of the trace ``trace_id`` under ``parent`` (None: the root);
    its id is hashed from the trace id and the draft's key, its events in time order.

    Raises:
        ValueError: an attribute is an integer outside OTLP's 64 bits (named).
    """
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


def trace_request(spans: Sequence[Span]) -> ExportTraceServiceRequest:
    """The spans of one trace as one request, in footprint_lab's scope and resource."""
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


def otlp_json(request: ExportTraceServiceRequest) -> JsonDict:
    """``request`` in its OTLP JSON mapping: a dict, enums as integers, ids in hex."""
    document = json_format.MessageToDict(request, use_integers_for_enums=True)
    return _hex_ids(cast(JsonDict, document))
