"""Importers: recorded conversations from other stacks, as runs the lab and replay accept.

Layer: importers (above the agent's run model, beside replay).

Every importer takes ``strict=False``: malformed input raises :class:`TranscriptError` (naming
the source, the message index and the field); what a provider would have accepted but is wrong
(orphan results, duplicate call ids in one message, arguments that are not an object, ``null``
text, empty names, negative usage) is kept as it is and listed in ``run.import_problems`` as
:class:`ImportProblem` records — or, with ``strict=True``, raises at the first one. Typed content
(images, documents, audio, thinking, refusals, legacy ``function_call``, LangChain
``invalid_tool_calls``, Anthropic system blocks) is kept as ``Message.parts``.
"""

from __future__ import annotations

from footprint_lab.agent.run import ImportProblem
from footprint_lab.importers._build import TranscriptError, build_run
from footprint_lab.importers.anthropic import from_anthropic
from footprint_lab.importers.langchain import from_langchain
from footprint_lab.importers.openai import from_openai
from footprint_lab.importers.tau_bench import load_tau_bench

__all__ = [
    "ImportProblem",
    "TranscriptError",
    "build_run",
    "from_anthropic",
    "from_langchain",
    "from_openai",
    "load_tau_bench",
]
