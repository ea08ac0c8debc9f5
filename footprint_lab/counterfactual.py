"""The old name of replay (renamed ``footprint_lab.replay``, now
:mod:`footprint_lab.agent.replay`); it re-exports everything from there.

Layer: a shim (top).
"""

from __future__ import annotations

from footprint_lab.agent.replay import *  # noqa: F403
