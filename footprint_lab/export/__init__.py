"""Layer: export — runs written out in other tools' formats.

It sits above the agent's run model and the window records, beside the importers (which read
formats in; this layer writes them out), and below the lab: it imports no pandas, plotly,
widgets or lab. :func:`to_otel` writes a run as OpenTelemetry traces (OTLP JSON) in the GenAI
semantic conventions; :func:`footprint_lab.importers.load_otel` reads such a file back into an
equal run.
"""

from __future__ import annotations

from footprint_lab.export.otel import to_otel

__all__ = ["to_otel"]
