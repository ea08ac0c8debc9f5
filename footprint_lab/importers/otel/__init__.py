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

from pathlib import Path

from footprint_lab.agent.run import Run
from footprint_lab.importers._parts import TranscriptError, nested, read_text_file
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.otel._exact import _exact
from footprint_lab.importers.otel._foreign import _foreign
from footprint_lab.otlp.groups import group_spans
from footprint_lab.otlp.names import AGENT_NAME as AGENT_NAME
from footprint_lab.otlp.names import CHAT_OPERATIONS as CHAT_OPERATIONS
from footprint_lab.otlp.names import EVENT_PREFIX as EVENT_PREFIX
from footprint_lab.otlp.names import EXTENSION as EXTENSION
from footprint_lab.otlp.names import FINISH_REASONS as FINISH_REASONS
from footprint_lab.otlp.names import FL_CALL as FL_CALL
from footprint_lab.otlp.names import FL_CALL_INDEX as FL_CALL_INDEX
from footprint_lab.otlp.names import FL_COMMIT as FL_COMMIT
from footprint_lab.otlp.names import FL_EVENT as FL_EVENT
from footprint_lab.otlp.names import FL_EVENT_INDEX as FL_EVENT_INDEX
from footprint_lab.otlp.names import FL_FORMAT as FL_FORMAT
from footprint_lab.otlp.names import FL_LEDGER as FL_LEDGER
from footprint_lab.otlp.names import FL_MESSAGES as FL_MESSAGES
from footprint_lab.otlp.names import FL_RECORD as FL_RECORD
from footprint_lab.otlp.names import FL_RECORD_INDEX as FL_RECORD_INDEX
from footprint_lab.otlp.names import FL_RUN as FL_RUN
from footprint_lab.otlp.names import FL_VERSION as FL_VERSION
from footprint_lab.otlp.names import FORMAT as FORMAT
from footprint_lab.otlp.names import FORMAT_VERSION as FORMAT_VERSION
from footprint_lab.otlp.names import INPUT_MESSAGES as INPUT_MESSAGES
from footprint_lab.otlp.names import LEGACY_CHOICE as LEGACY_CHOICE
from footprint_lab.otlp.names import LEGACY_ROLES as LEGACY_ROLES
from footprint_lab.otlp.names import OPERATION as OPERATION
from footprint_lab.otlp.names import OUTPUT_MESSAGES as OUTPUT_MESSAGES
from footprint_lab.otlp.names import POLICY as POLICY
from footprint_lab.otlp.names import PROVIDER as PROVIDER
from footprint_lab.otlp.names import REQUEST_MODEL as REQUEST_MODEL
from footprint_lab.otlp.names import RESPONSE_MODEL as RESPONSE_MODEL
from footprint_lab.otlp.names import ROLE_ALIASES as ROLE_ALIASES
from footprint_lab.otlp.names import SOURCE as SOURCE
from footprint_lab.otlp.names import SYSTEM as SYSTEM
from footprint_lab.otlp.names import SYSTEM_INSTRUCTIONS as SYSTEM_INSTRUCTIONS
from footprint_lab.otlp.names import TOOL_CALL_ID as TOOL_CALL_ID
from footprint_lab.otlp.names import TOOL_NAME as TOOL_NAME
from footprint_lab.otlp.names import TOOL_RESULT as TOOL_RESULT
from footprint_lab.otlp.names import UNIT as UNIT
from footprint_lab.otlp.names import USAGE_KEYS as USAGE_KEYS
from footprint_lab.otlp.names import WINDOW_EVENT as WINDOW_EVENT
from footprint_lab.otlp.read import OtelSpan as OtelSpan
from footprint_lab.otlp.read import SpanEvent as SpanEvent
from footprint_lab.otlp.read import attr_where, documents, fail
from footprint_lab.otlp.read import read_spans as read_spans

__all__ = ["FILE_FORMAT", "POLICY", "SOURCE", "OtelSpan", "SpanEvent", "load_otel", "read_spans"]


def _load(path: str | Path, strict: bool) -> list[Run]:
    where = str(path)
    spans: list[OtelSpan] = []
    for prefix, document in documents(read_text_file(path, SOURCE), where):
        spans.extend(read_spans(document, prefix, len(spans)))
    runs: list[Run] = []
    for group in group_spans(spans):
        head = group.head
        if head is not None and (FL_LEDGER in head.attributes or FL_FORMAT in head.attributes):
            if head.attributes.get(FL_FORMAT) != FORMAT:
                fail(head.index, attr_where(FL_FORMAT), f"expected {FORMAT!r}")
            runs.append(_exact(head, group.members))
        else:
            run = _foreign(group, strict)
            run.import_problems = nested(run.import_problems, SOURCE, path=where)
            runs.append(run)
    return runs


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


def _claims(sniff: Sniff) -> bool:
    """An OTLP JSON document: an object with ``resourceSpans`` (JSON lines: its first line)."""
    return sniff.first.kind == "object" and bool(
        sniff.first.keys & {"resourceSpans", "resource_spans"}
    )


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="OpenTelemetry traces: OTLP JSON with resourceSpans",
    loader=load_otel,
    claims=_claims,
)
"""How the registry tells and reads an OTLP file."""
