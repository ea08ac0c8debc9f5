"""The old path of :mod:`footprint_lab.lab.sweeps` (a row per configuration of a grid); it
re-exports it.

Layer: a shim (top).
"""

from __future__ import annotations

from footprint_lab.lab.sweeps import *  # noqa: F403
