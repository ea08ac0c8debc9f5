"""What reading any foreign file shares: the error, the problems an import lists, the small
validators, reading files, typed content parts, tool-call arguments and usage numbers.

Layer: reading — above the agent's run model (an :class:`~footprint_lab.agent.run.ImportProblem`
is a run's record of what its import found wrong), below the two that read other stacks'
files: :mod:`footprint_lab.otlp` (the OpenTelemetry format, read and written) and
:mod:`footprint_lab.importers` (every other format, and runs built from any of them). The rules
these parts keep — malformed input raises :class:`TranscriptError` naming the source, the
index and the field; input a provider would have accepted but that is wrong is listed — are
stated in :mod:`footprint_lab.importers._parts`, the importers' face of them.
"""

from __future__ import annotations

from footprint_lab.reading.problems import Problems, TranscriptError

__all__ = ["Problems", "TranscriptError"]
