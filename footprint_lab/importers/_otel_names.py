"""The attribute and event names an OTLP trace of an LLM agent is read by.

Layer: importers. The GenAI semantic-convention names (current and older), the names
:mod:`footprint_lab.export.otel` writes for a footprint_lab run, and what the OTel importer
calls its source, policy and error unit.
"""

from __future__ import annotations

from collections.abc import Mapping

SOURCE = "otel"
"""``run.provider`` and ``ImportProblem.source`` of an imported trace."""
POLICY = "otel"
"""The strategy name of the observed records of a foreign trace."""
UNIT = "span"
"""What an error's index counts: the span, in document order over the whole file."""

# The names footprint_lab.export.otel writes (the importers do not import the export layer).
FORMAT = "footprint-lab/otel"
FORMAT_VERSION = 1
WINDOW_EVENT = "footprint_lab.window"
EVENT_PREFIX = "footprint_lab."
EXTENSION = "footprint_lab"
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
SYSTEM = "gen_ai.system"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
AGENT_NAME = "gen_ai.agent.name"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
FINISH_REASONS = "gen_ai.response.finish_reasons"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_NAME = "gen_ai.tool.name"
TOOL_RESULT = "gen_ai.tool.call.result"
FL_FORMAT = "footprint_lab.format"
FL_VERSION = "footprint_lab.version"
FL_RUN = "footprint_lab.run"
FL_LEDGER = "footprint_lab.ledger"
FL_MESSAGES = "footprint_lab.messages"
FL_CALL = "footprint_lab.call"
FL_CALL_INDEX = "footprint_lab.call_index"
FL_RECORD = "footprint_lab.record"
FL_RECORD_INDEX = "footprint_lab.record_index"
FL_COMMIT = "footprint_lab.commit"
FL_EVENT = "footprint_lab.event"
FL_EVENT_INDEX = "footprint_lab.event_index"

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
