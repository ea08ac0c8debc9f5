"""The OpenTelemetry format once: its names, the OTLP document as written, GenAI messages.

Layer: otlp (below importers and export, above :mod:`footprint_lab.reading` and the agent's
run model). Both sides of the
format read it from here and import neither each other:

* :mod:`~footprint_lab.otlp.names` — every attribute, event and operation name (the GenAI
  semantic conventions', current and older, and footprint_lab's own);
* :mod:`~footprint_lab.otlp.write` — span drafts as protobuf spans, attribute values,
  deterministic trace and span ids, the ``ExportTraceServiceRequest`` and its OTLP JSON
  mapping (hex ids);
* :mod:`~footprint_lab.otlp.genai` — messages and usage in the GenAI conventions, and the JSON
  text the spans' attributes carry;
* :mod:`~footprint_lab.otlp.read` — OTLP JSON read back into spans and span events (hex or
  base64 ids, ``AnyValue`` attributes, JSON-valued attributes);
* :mod:`~footprint_lab.otlp.groups` — which spans are agent, chat and tool spans, grouped into
  the runs they belong to;
* :mod:`~footprint_lab.otlp.read_genai` — a chat span's GenAI messages (attributes or the
  older span events), usage, finish reason and instructions, as Messages.

The faces are :func:`footprint_lab.export.to_otel` (a run as a trace, built from these) and
:func:`footprint_lab.importers.load_otel` (spans read here, built into runs by
:mod:`footprint_lab.importers.otel`). Reading meets every fault as a
:class:`~footprint_lab.reading.TranscriptError` and lists every problem as an
:class:`~footprint_lab.agent.run.ImportProblem`: the parts every reader of foreign files
shares, in :mod:`footprint_lab.reading`, below this package.
"""

from __future__ import annotations
