"""The names of the OpenTelemetry format, once: the GenAI semantic conventions' attribute,
event and operation names (current and older), footprint_lab's own attribute and event names,
and what the OTel importer calls its source, policy and error unit.

Layer: otlp (standard library only). One definition for both sides: the writer
(:mod:`footprint_lab.export.otel`, which re-exports some) and the reader
(:mod:`footprint_lab.importers.otel`, which re-exports those it reads), which sit side by side and
import neither each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FORMAT = "footprint-lab/otel"
"""``footprint_lab.format`` on the agent span: the trace carries a whole run."""
FORMAT_VERSION = 1
"""``footprint_lab.version`` on the agent span."""
SCOPE_NAME = "footprint_lab"
"""The instrumentation scope (and ``service.name``) of the spans written."""
SCHEMA_URL = "https://opentelemetry.io/schemas/1.37.0"
"""The semantic conventions version whose GenAI attributes are written (input and output
messages as attributes, ``gen_ai.provider.name``)."""
WINDOW_EVENT = "footprint_lab.window"
"""The name of a window record's span event."""
EVENT_PREFIX = "footprint_lab."
"""Run events are span events named this plus their type (``footprint_lab.llm.start``)."""
EXTENSION = "footprint_lab"
"""The key of footprint_lab's own fields in a GenAI message object."""

# -- GenAI semantic conventions (the names as opentelemetry-semantic-conventions spells them) --
OPERATION = "gen_ai.operation.name"
INVOKE_AGENT = "invoke_agent"
"""``gen_ai.operation.name`` (and the span name's first word) of an agent span."""
CHAT = "chat"
"""``gen_ai.operation.name`` (and the span name's first word) of a model call footprint_lab
writes."""
EXECUTE_TOOL = "execute_tool"
"""``gen_ai.operation.name`` (and the span name's first word) of a tool execution."""
CHAT_OPERATIONS = frozenset({CHAT, "text_completion", "generate_content"})
"""``gen_ai.operation.name`` values of a model call."""
PROVIDER = "gen_ai.provider.name"
SYSTEM = "gen_ai.system"
"""Deprecated for ``gen_ai.provider.name``; written too, for readers of older conventions."""
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
AGENT_NAME = "gen_ai.agent.name"
INPUT_MESSAGES = "gen_ai.input.messages"
CONVERSATION_COMPACTED = "gen_ai.conversation.compacted"
"""Set (``true`` only) on a model call's span when the conversation was compacted before it."""
COMPACTION_PART = "compaction"
"""The GenAI message part of compacted conversation state: its ``content`` is the summary, when
it is readable (absent for a provider's encrypted compaction), its ``id`` the provider's."""
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
FINISH_REASONS = "gen_ai.response.finish_reasons"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"

# -- older GenAI conventions and other sources' spellings, read but never written ----------------
LEGACY_ROLES: Mapping[str, str] = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
"""The per-message span events of the GenAI conventions before 1.37, and their roles."""
LEGACY_CHOICE = "gen_ai.choice"
"""The span event of a reply, before 1.37."""
EVENT_CONTENT = "gen_ai.event.content"
"""A legacy event's body as JSON text (some sources write it instead of attributes)."""
ROLE_ALIASES: Mapping[str, str] = {"developer": "system", "model": "assistant"}
"""Roles some sources write for the four roles."""
USAGE_KEYS: Mapping[str, tuple[str, ...]] = {
    "input_tokens": (INPUT_TOKENS, "gen_ai.usage.prompt_tokens"),
    "output_tokens": (OUTPUT_TOKENS, "gen_ai.usage.completion_tokens"),
    "cache_read_tokens": (CACHE_READ_TOKENS,),
    "cache_write_tokens": (CACHE_WRITE_TOKENS,),
}
"""``Usage`` field -> the attributes that report it (current name first)."""

# -- footprint_lab's own attributes -----------------------------------------------------------
FL_FORMAT = "footprint_lab.format"
FL_VERSION = "footprint_lab.version"
FL_RUN = "footprint_lab.run"
"""Agent span: the run's state as JSON (the checkpoint's fields other than ledger, records,
calls and events, which the spans carry)."""
FL_LEDGER = "footprint_lab.ledger"
"""Agent span: ``{"stage_counter": n, "commits": [[stage_id, key, at_ms, value], ...]}``;
history and window values are positions, a record's value is null when its span event
carries it."""
FL_MESSAGES = "footprint_lab.messages"
"""Agent span: the messages no chat span carries, as GenAI messages."""
FL_CALL = "footprint_lab.call"
FL_CALL_INDEX = "footprint_lab.call_index"
FL_STAGE_ID = "footprint_lab.stage_id"
FL_ITERATION = "footprint_lab.iteration"
FL_POSITION = "footprint_lab.position"
FL_STATUS = "footprint_lab.status"
FL_STRATEGY = "footprint_lab.strategy"
FL_RECORD = "footprint_lab.record"
FL_RECORD_INDEX = "footprint_lab.record_index"
FL_COMMIT = "footprint_lab.commit"
FL_REMOVED = "footprint_lab.removed_stage_ids"
FL_REMOVED_COUNT = "footprint_lab.removed_message_count"
FL_REFUSALS = "footprint_lab.refusals"
FL_CHARS_BEFORE = "footprint_lab.window_chars_before"
FL_CHARS_AFTER = "footprint_lab.window_chars_after"
FL_FORCED = "footprint_lab.forced"
FL_EVENT = "footprint_lab.event"
FL_EVENT_INDEX = "footprint_lab.event_index"

# -- the OTel importer's own names ------------------------------------------------------------
SOURCE = "otel"
"""``run.provider`` and ``ImportProblem.source`` of an imported trace."""
POLICY = "otel"
"""The strategy name of the observed records of a foreign trace."""
UNIT = "span"
"""What an error's index counts: the span, in document order over the whole file."""

JsonDict = dict[str, Any]
