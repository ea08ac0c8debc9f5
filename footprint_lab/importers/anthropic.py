"""The old path of :mod:`footprint_lab.importers.chat.anthropic` (a thin re-export).

Layer: importers. The chat formats live in :mod:`footprint_lab.importers.chat`.
"""

from __future__ import annotations

from footprint_lab.importers.chat.anthropic import *  # noqa: F403
from footprint_lab.importers.chat.anthropic import __all__ as __all__
