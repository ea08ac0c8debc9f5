"""Importers: recorded conversations from other stacks, as runs the lab and replay accept.

Layer: importers (above the agent's run model, beside replay).
"""

from __future__ import annotations

from footprint_lab.importers._build import TranscriptError, build_run
from footprint_lab.importers.anthropic import from_anthropic
from footprint_lab.importers.langchain import from_langchain
from footprint_lab.importers.openai import from_openai
from footprint_lab.importers.tau_bench import load_tau_bench

__all__ = [
    "TranscriptError",
    "build_run",
    "from_anthropic",
    "from_langchain",
    "from_openai",
    "load_tau_bench",
]
