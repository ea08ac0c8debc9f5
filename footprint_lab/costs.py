"""The old path of :mod:`footprint_lab.lab.costs` (what each call cost); it re-exports it.

Layer: a shim (top).
"""

from __future__ import annotations

from footprint_lab.lab.costs import *  # noqa: F403
