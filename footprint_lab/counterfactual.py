"""The old name of :mod:`footprint_lab.replay` (renamed); it re-exports everything from there."""

from footprint_lab.replay import *  # noqa: F403
