"""The attribute and event names an OTLP trace of an LLM agent is read by.

Layer: importers. The GenAI semantic-convention names (current and older), the names
:mod:`footprint_lab.export.otel` writes for a footprint_lab run (one definition, in
:mod:`footprint_lab._otel_names`), and what the OTel importer calls its source, policy and
error unit.
"""

from __future__ import annotations

from collections.abc import Mapping

from footprint_lab._otel_names import (
    AGENT_NAME,
    EVENT_PREFIX,
    EXTENSION,
    FINISH_REASONS,
    FL_CALL,
    FL_CALL_INDEX,
    FL_COMMIT,
    FL_EVENT,
    FL_EVENT_INDEX,
    FL_FORMAT,
    FL_LEDGER,
    FL_MESSAGES,
    FL_RECORD,
    FL_RECORD_INDEX,
    FL_RUN,
    FL_VERSION,
    FORMAT,
    FORMAT_VERSION,
    INPUT_MESSAGES,
    OPERATION,
    OUTPUT_MESSAGES,
    PROVIDER,
    REQUEST_MODEL,
    RESPONSE_MODEL,
    SYSTEM,
    SYSTEM_INSTRUCTIONS,
    TOOL_CALL_ID,
    TOOL_NAME,
    TOOL_RESULT,
    WINDOW_EVENT,
)

__all__ = [
    "AGENT_NAME",
    "CHAT_OPERATIONS",
    "EVENT_PREFIX",
    "EXTENSION",
    "FINISH_REASONS",
    "FL_CALL",
    "FL_CALL_INDEX",
    "FL_COMMIT",
    "FL_EVENT",
    "FL_EVENT_INDEX",
    "FL_FORMAT",
    "FL_LEDGER",
    "FL_MESSAGES",
    "FL_RECORD",
    "FL_RECORD_INDEX",
    "FL_RUN",
    "FL_VERSION",
    "FORMAT",
    "FORMAT_VERSION",
    "INPUT_MESSAGES",
    "LEGACY_CHOICE",
    "LEGACY_ROLES",
    "OPERATION",
    "OUTPUT_MESSAGES",
    "POLICY",
    "PROVIDER",
    "REQUEST_MODEL",
    "RESPONSE_MODEL",
    "ROLE_ALIASES",
    "SOURCE",
    "SYSTEM",
    "SYSTEM_INSTRUCTIONS",
    "TOOL_CALL_ID",
    "TOOL_NAME",
    "TOOL_RESULT",
    "UNIT",
    "USAGE_KEYS",
    "WINDOW_EVENT",
]


SOURCE = "otel"
"""``run.provider`` and ``ImportProblem.source`` of an imported trace."""
POLICY = "otel"
"""The strategy name of the observed records of a foreign trace."""
UNIT = "span"
"""What an error's index counts: the span, in document order over the whole file."""

CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
"""``gen_ai.operation.name`` values of a model call."""
LEGACY_ROLES: Mapping[str, str] = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
"""The per-message span events of the GenAI conventions before 1.37, and their roles."""
LEGACY_CHOICE = "gen_ai.choice"
ROLE_ALIASES: Mapping[str, str] = {"developer": "system", "model": "assistant"}
"""Roles some sources write for the four roles."""
USAGE_KEYS: Mapping[str, tuple[str, ...]] = {
    "input_tokens": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
    "output_tokens": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
    "cache_read_tokens": ("gen_ai.usage.cache_read.input_tokens",),
    "cache_write_tokens": ("gen_ai.usage.cache_creation.input_tokens",),
}
"""``Usage`` field -> the attributes that report it (current name first)."""
