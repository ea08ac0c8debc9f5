"""Chat message lists: OpenAI Chat Completions, Anthropic Messages, OpenAI Responses items
(and Agents SDK sessions) and LangChain dumps.

Layer: importers. A message list records no inputs, so these importers rebuild no observed
windows but the ones a provider's own compaction states (an Anthropic ``compaction`` block or
``applied_edits``, an OpenAI ``compaction`` item); they are also the parsers the file loaders
hand their conversations to (SWE-agent and OpenHands histories to
:func:`~footprint_lab.importers.chat.openai.parse_openai`, Claude Code entries to
:func:`~footprint_lab.importers.chat.anthropic.parse_anthropic`), and
:func:`~footprint_lab.importers.chat.transcript.as_run` tells a list held in memory apart by
its shape and reads it with the matching one (what replay does with a transcript). Each format
is one module; what they share with every other importer (the error, problem collection, tool-
call arguments, content parts, usage) is the importers' own
(:mod:`footprint_lab.importers._parts`).
"""

from __future__ import annotations

from footprint_lab.importers.chat.anthropic import from_anthropic, parse_anthropic
from footprint_lab.importers.chat.langchain import from_langchain
from footprint_lab.importers.chat.openai import from_openai, parse_openai
from footprint_lab.importers.chat.responses import from_openai_responses, load_openai_responses
from footprint_lab.importers.chat.transcript import Transcript, as_run

__all__ = [
    "Transcript",
    "as_run",
    "from_anthropic",
    "from_langchain",
    "from_openai",
    "from_openai_responses",
    "load_openai_responses",
    "parse_anthropic",
    "parse_openai",
]
