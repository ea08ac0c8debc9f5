"""The old path of :mod:`footprint_lab.importers.chat.langchain` (a thin re-export).

Layer: importers. The chat formats live in :mod:`footprint_lab.importers.chat`.
"""

from __future__ import annotations

from footprint_lab.importers.chat.langchain import *  # noqa: F403
from footprint_lab.importers.chat.langchain import __all__ as __all__
