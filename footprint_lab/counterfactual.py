"""The old name of replay (renamed ``footprint_lab.replay``); it re-exports everything from
there: :func:`replay` takes a run or a transcript.

Layer: a shim (top).
"""

from __future__ import annotations

from footprint_lab.replay import *  # noqa: F403
