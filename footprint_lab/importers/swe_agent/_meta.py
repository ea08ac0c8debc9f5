"""The facts of a SWE-agent trajectory beside its messages: the run's meta (model, exit
status, submission, stats, history processors) and its status by the one rule of imported
runs (:mod:`footprint_lab.importers.recorded`).

Layer: importers (a private part of the SWE-agent loader).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    json_problem,
    object_of,
    reject_constant,
    short,
)
from footprint_lab.importers.recorded import ImportedStatus

__all__ = ["run_facts", "status_of_exit"]


def _get(value: Any, key: str, problems: Problems, field: str) -> Any:
    """``value[key]``, None when ``value`` is None.

    Raises:
        TranscriptError: ``value`` is present and not an object.
    """
    return object_of(value, problems, None, field).get(key)


def _json_object(value: Any, problems: Problems, field: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or json_problem(value) is not None:
        problems.fail(None, field, "expected an object of JSON values")
    return dict(value)


def _config(data: Mapping[str, Any], problems: Problems) -> Any:
    config = data.get("replay_config")
    if isinstance(config, str):
        try:
            config = json.loads(config, parse_constant=reject_constant)
        except (ValueError, RecursionError):
            problems.fail(None, "replay_config", "text that is not JSON")
    if config is not None and not isinstance(config, Mapping):
        problems.fail(None, "replay_config", "expected an object (or its JSON text)")
    return config


def run_facts(
    data: Mapping[str, Any], stem: str, problems: Problems
) -> tuple[dict[str, Any], str | None]:
    """The run's facts, and the model name ``replay_config`` gives."""
    config = _config(data, problems)
    agent = _get(config, "agent", problems, "replay_config")
    model = _get(
        _get(agent, "model", problems, "replay_config.agent"),
        "name",
        problems,
        "replay_config.agent.model",
    )
    if model is not None and not isinstance(model, str):
        problems.fail(None, "replay_config.agent.model.name", "expected text")
    statement = _get(config, "problem_statement", problems, "replay_config")
    instance = _get(statement, "id", problems, "replay_config.problem_statement")
    meta: dict[str, Any] = {
        "trajectory_id": stem,
        "instance_id": instance if isinstance(instance, str) else stem,
    }
    if model is not None:
        meta["model"] = model
    processors = _get(agent, "history_processors", problems, "replay_config.agent")
    if processors is not None:
        if not isinstance(processors, list):
            problems.fail(None, "replay_config.agent.history_processors", "expected a list")
        meta["history_processors"] = [
            p.get("type")
            for p in processors
            if isinstance(p, Mapping) and isinstance(p.get("type"), str)
        ]
    info = data.get("info")
    if info is not None and not isinstance(info, Mapping):
        problems.fail(None, "info", "expected an object")
    info = info or {}
    status = info.get("exit_status")
    if status is not None:
        if isinstance(status, bool) or not isinstance(status, (str, int)):
            problems.fail(None, "info.exit_status", f"expected text, got {short(status)}")
        meta["exit_status"] = status
    if "submission" in info:
        submission = info["submission"]
        if submission is not None and not isinstance(submission, str):
            problems.fail(None, "info.submission", "expected text or null")
        meta["has_submission"] = bool(submission and submission.strip())
    stats = _json_object(info.get("model_stats"), problems, "info.model_stats")
    if stats is not None:
        meta["model_stats"] = stats
    for key in ("swe_agent_version", "best_attempt_idx"):
        value = info.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            meta[key] = value
    environment = data.get("environment")
    if isinstance(environment, str):
        meta["environment"] = environment
    attempts = data.get("attempts")
    if isinstance(attempts, list):
        meta["attempts"] = len(attempts)
    return meta, model


_LIMIT_EXITS = ("exit_cost", "exit_context", "exit_total_execution_time", "exit_step_limit")
"""SWE-agent exit statuses that name a limit (an autosubmission after one is still a
submission: ``submitted (exit_cost)``)."""


def status_of_exit(exit_status: str) -> ImportedStatus:
    if exit_status.startswith("submitted"):
        return "done"
    if exit_status.startswith(_LIMIT_EXITS):
        return "max-iterations"
    return "incomplete"
