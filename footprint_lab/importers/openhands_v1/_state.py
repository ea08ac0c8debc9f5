"""What an OpenHands V1 conversation's state records: ``base_state.json`` (or the latest
``full_state`` a list of events carries), read for the model, the execution status, the HEAD of
the conversation tree and the token usage of each LLM response.

Layer: importers (private to :mod:`footprint_lab.importers.openhands_v1`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    json_value,
    object_of,
    optional_str,
    short,
    usage_int,
)
from footprint_lab.usage import Usage

_COUNTS = (
    ("input_tokens", "prompt_tokens"),
    ("output_tokens", "completion_tokens"),
    ("cache_read_tokens", "cache_read_tokens"),
    ("cache_write_tokens", "cache_write_tokens"),
)
"""Each ``Usage`` field and the SDK ``TokenUsage`` field it is read from."""
_SNAPSHOT = ("model_name", "accumulated_cost", "max_budget_per_task", "accumulated_token_usage")
"""The totals of one LLM's ``Metrics`` kept in ``meta['stats']``."""


@dataclass
class State:
    """The facts of a conversation's state the import uses."""

    conversation_id: str | None = None
    model: str | None = None
    status: str | None = None
    """``execution_status`` (``agent_status`` before SDK 1.0)."""
    leaf: str | None = None
    """``leaf_event_id``: the HEAD of the conversation tree (None: the last real event)."""
    head_is_empty: bool = False
    usages: dict[str, tuple[str, Usage | None]] = field(default_factory=dict)
    """Per LLM response id: the usage id of the LLM that served it, and its token usage."""
    facts: dict[str, Any] = field(default_factory=dict)
    """Other facts for ``run.meta`` (JSON values)."""
    recorded: bool = False
    """Whether any state was read at all."""


def _text(
    state: Mapping[str, Any], key: str, problems: Problems, index: int | None, at: str = ""
) -> str | None:
    """An optional text field of the state."""
    return optional_str(state.get(key), problems, index, f"{at}{key}")


def read_state(value: Any, problems: Problems, index: int | None = None, prefix: str = "") -> State:
    """The facts of a serialized ``ConversationState`` (``prefix`` names where it sits, for
    errors: ``''`` in ``base_state.json``).

    Raises:
        TranscriptError: it is not an object, or a field it has is of the wrong type.
    """
    if not isinstance(value, Mapping):
        problems.fail(
            index, prefix or "file", f"expected a conversation state object, got {short(value)}"
        )
    state = State(recorded=True)
    state.conversation_id = _text(value, "id", problems, index, prefix)
    agent = object_of(value.get("agent"), problems, index, f"{prefix}agent")
    llm = object_of(agent.get("llm"), problems, index, f"{prefix}agent.llm")
    state.model = _text(llm, "model", problems, index, f"{prefix}agent.llm.")
    status_key = "execution_status" if "execution_status" in value else "agent_status"
    state.status = _text(value, status_key, problems, index, prefix)
    state.leaf = _text(value, "leaf_event_id", problems, index, prefix)
    state.head_is_empty = value.get("head_is_empty") is True
    facts = state.facts
    if isinstance(agent.get("kind"), str):
        facts["agent_kind"] = agent["kind"]
    tools = agent.get("tools")
    if isinstance(tools, list):
        facts["agent_tools"] = [
            t["name"] for t in tools if isinstance(t, Mapping) and isinstance(t.get("name"), str)
        ]
    condenser = agent.get("condenser")
    if isinstance(condenser, Mapping):
        facts["condenser"] = {
            k: json_value(v, problems, index, f"{prefix}agent.condenser.{k}")
            for k, v in condenser.items()
            if k in ("kind", "max_size", "keep_first", "max_tokens", "target_size")
        }
    workspace = object_of(value.get("workspace"), problems, index, f"{prefix}workspace")
    cwd = _text(workspace, "working_dir", problems, index, f"{prefix}workspace.")
    if cwd is not None:
        facts["cwd"] = cwd
    for key in ("max_iterations", "persistence_dir"):
        if key in value:
            facts[key] = json_value(value[key], problems, index, f"{prefix}{key}")
    stats = object_of(value.get("stats"), problems, index, f"{prefix}stats")
    key = "usage_to_metrics" if "usage_to_metrics" in stats else "service_to_metrics"
    metrics = object_of(stats.get(key), problems, index, f"{prefix}stats.{key}")
    totals: dict[str, Any] = {}
    for usage_id, each in metrics.items():
        at = f"{prefix}stats.{key}.{usage_id}"
        each = object_of(each, problems, index, at)
        totals[usage_id] = {
            k: json_value(each[k], problems, index, f"{at}.{k}") for k in _SNAPSHOT if k in each
        }
        _token_usages(
            state, usage_id, each.get("token_usages"), problems, index, f"{at}.token_usages"
        )
    if totals:
        facts["stats"] = totals
    return state


def _token_usages(
    state: State, usage_id: str, value: Any, problems: Problems, index: int | None, at: str
) -> None:
    """Each ``TokenUsage`` of one LLM's metrics, by the response id it names (the first
    record of a response wins; one without a response id matches nothing)."""
    if value is None:
        return
    if not isinstance(value, list):
        problems.fail(index, at, f"expected a list of token usages, got {short(value)}")
    for k, raw in enumerate(value):
        where = f"{at}[{k}]"
        if not isinstance(raw, Mapping):
            problems.fail(index, where, f"expected a token usage object, got {short(raw)}")
        response = optional_str(raw.get("response_id"), problems, index, f"{where}.response_id")
        usage = token_usage(raw, problems, index, where)
        if response and response not in state.usages:
            state.usages[response] = (usage_id, usage)


def token_usage(
    raw: Mapping[str, Any], problems: Problems, index: int | None, at: str
) -> Usage | None:
    """One ``TokenUsage`` as a :class:`Usage` (``prompt_tokens`` counts every input token,
    cached ones included, as litellm reports it); None, with a problem listed, when a count
    is negative.

    Raises:
        TranscriptError: a count is not a whole number.
    """
    values: dict[str, int | None] = {}
    for name, key in _COUNTS:
        count = usage_int(raw.get(key), problems, index, f"{at}.{key}", optional=True)
        if count is not None and count < 0:
            problems.note(
                index,
                f"{at}.{key}",
                f"negative token count {count}; the response is recorded as not reporting usage",
            )
            return None
        values[name] = count
    return Usage(
        input_tokens=values["input_tokens"] or 0,
        output_tokens=values["output_tokens"] or 0,
        cache_read_tokens=values["cache_read_tokens"],
        cache_write_tokens=values["cache_write_tokens"],
    )
