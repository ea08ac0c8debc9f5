"""The OpenTelemetry format once: its names, the OTLP document as written, GenAI messages.

Layer: otlp (below importers and export, above the agent's run model). Both sides of the
format read it from here and import neither each other:

* :mod:`~footprint_lab.otlp.names` — every attribute, event and operation name (the GenAI
  semantic conventions', current and older, and footprint_lab's own);
* :mod:`~footprint_lab.otlp.write` — span drafts as protobuf spans, attribute values,
  deterministic trace and span ids, the ``ExportTraceServiceRequest`` and its OTLP JSON
  mapping (hex ids);
* :mod:`~footprint_lab.otlp.genai` — messages and usage in the GenAI conventions, and the JSON
  text the spans' attributes carry.

The faces are :func:`footprint_lab.export.to_otel` (a run as a trace, built from these) and
:func:`footprint_lab.importers.load_otel`. Reading a trace back (OTLP JSON into spans, spans
into runs) lives with the importers (:mod:`footprint_lab.importers.otel`): every fault it meets
is a :class:`~footprint_lab.importers.TranscriptError` and every problem an
:class:`~footprint_lab.agent.run.ImportProblem`, built on the parts all importers share.
"""

from __future__ import annotations
