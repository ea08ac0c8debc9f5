"""The facts of a mini-swe-agent trajectory beside its messages: the run's meta (instance,
format, version, model, exit status, cost and calls), how its status follows from the exit
status, the action patterns of a text-mode run, and the user messages a person wrote.

Layer: importers (a private part of the mini-swe-agent loader).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from footprint_lab.importers._parts import Problems, int_of, object_of, optional_str
from footprint_lab.importers.mini_swe_agent._wire import number_of
from footprint_lab.importers.recorded import ImportedStatus

__all__ = [
    "ACTION_PATTERNS",
    "LIMIT_STATUSES",
    "SUBMIT_MARKERS",
    "Facts",
    "action_in",
    "by_person",
    "outcome_of",
    "read_facts",
]

ACTION_PATTERNS = (
    r"```bash\s*\n(.*?)\n```",
    r"```mswea_bash_command\s*\n(.*?)\n```",
    r"<mswea_bash_command>(.*?)</mswea_bash_command>",
    r"<bash_code>(.*?)</bash_code>",
)
"""The action patterns mini-swe-agent's own configurations use (1.x's default ```` ```bash ````,
2.x's ```` ```mswea_bash_command ````, and the XML forms), tried in order where the file's
configuration names none (``action_regex``)."""
SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
"""The first output line with which a command submits (2.x's, then 1.x's older one)."""
LIMIT_STATUSES = frozenset({"LimitsExceeded", "TimeExceeded", "ContextWindowExceededError"})
"""Exit statuses that say a limit stopped the run (step, cost, wall time, context)."""

_PERSON = re.compile(
    r"The user added a new task: "
    r"|Interrupted by user: (?!Temporary interruption caught\.\s*$)"
    r"|Commands? not executed\. The user rejected your commands? with the following message: "
    r"|User command: ?\n```"
)
"""What the interactive agent writes around a person's words: a new task, a comment typed at
an interruption (not the canned one it writes when nothing was typed), a rejection's message,
a command typed in human mode."""


@dataclass(frozen=True)
class Facts:
    """What the trajectory says beside its messages."""

    meta: dict[str, Any]
    """The run's meta, so far."""
    model: str | None
    """``info.config.model.model_name``."""
    exit_status: str | None
    """``info.exit_status``."""
    patterns: tuple[re.Pattern[str], ...]
    """The action patterns to read text-mode actions with."""


def outcome_of(status: str) -> ImportedStatus:
    """The imported status an exit status stands for: ``Submitted`` finished the run, a limit
    (:data:`LIMIT_STATUSES`) stopped it, anything else (an error, repeated format errors, an
    interruption) left it incomplete."""
    if status == "Submitted":
        return "done"
    return "max-iterations" if status in LIMIT_STATUSES else "incomplete"


def by_person(text: str, interrupt: str | None) -> bool:
    """Whether a user message after the instance prompt holds a person's words (the
    interactive agent's new task, comment, rejection or typed command)."""
    return interrupt == "UserNewTask" or _PERSON.match(text) is not None


def action_in(text: str, patterns: tuple[re.Pattern[str], ...]) -> str | None:
    """The one action ``text`` holds by the first pattern that finds any (None: none, or more
    than one, which mini-swe-agent answers with a format error)."""
    for pattern in patterns:
        found = pattern.findall(text)
        if found:
            one = found[0] if len(found) == 1 else None
            return one.strip() if isinstance(one, str) else None
    return None


def _patterns(regex: str | None, problems: Problems, at: str) -> tuple[re.Pattern[str], ...]:
    if regex is not None:
        try:
            return (re.compile(regex, re.DOTALL),)
        except (re.error, RecursionError, OverflowError, ValueError) as exc:
            problems.note(None, at, f"not a regular expression ({exc}); the defaults are used")
    return tuple(re.compile(p, re.DOTALL) for p in ACTION_PATTERNS)


def read_facts(data: Mapping[str, Any], stem: str, problems: Problems) -> Facts:
    """The facts of a trajectory object (a bare list of messages: ``{}``).

    Raises:
        TranscriptError: a field it reads has the wrong type.
    """
    info = object_of(data.get("info"), problems, None, "info")
    stats = object_of(info.get("model_stats"), problems, None, "info.model_stats")
    config = object_of(info.get("config"), problems, None, "info.config")
    agent = object_of(config.get("agent"), problems, None, "info.config.agent")
    model_config = object_of(config.get("model"), problems, None, "info.config.model")
    instance = optional_str(data.get("instance_id"), problems, None, "instance_id")
    meta: dict[str, Any] = {"instance_id": instance or stem}
    texts = {
        "trajectory_format": (data.get("trajectory_format"), "trajectory_format"),
        "mini_version": (info.get("mini_version"), "info.mini_version"),
        "exit_status": (info.get("exit_status"), "info.exit_status"),
        "agent_type": (config.get("agent_type"), "info.config.agent_type"),
        "model_type": (config.get("model_type"), "info.config.model_type"),
        "environment_type": (config.get("environment_type"), "info.config.environment_type"),
        "exception_str": (info.get("exception_str"), "info.exception_str"),
    }
    for key, (value, at) in texts.items():
        text = optional_str(value, problems, None, at)
        if text:
            meta[key] = text
    submission = optional_str(info.get("submission"), problems, None, "info.submission")
    if submission is not None:
        meta["has_submission"] = bool(submission)
    numbers = {
        "instance_cost": (stats.get("instance_cost"), "info.model_stats.instance_cost"),
        "step_limit": (agent.get("step_limit"), "info.config.agent.step_limit"),
        "cost_limit": (agent.get("cost_limit"), "info.config.agent.cost_limit"),
    }
    for key, (value, at) in numbers.items():
        number = number_of(value, problems, None, at)
        if number is not None:
            meta[key] = number
    if stats.get("api_calls") is not None:
        meta["api_calls"] = int_of(stats["api_calls"], problems, None, "info.model_stats.api_calls")
    model = optional_str(
        model_config.get("model_name"), problems, None, "info.config.model.model_name"
    )
    at = "info.config.model.action_regex"  # 2.x; 1.x kept it in the agent's configuration
    regex = optional_str(model_config.get("action_regex"), problems, None, at)
    if regex is None:
        at = "info.config.agent.action_regex"
        regex = optional_str(agent.get("action_regex"), problems, None, at)
    return Facts(meta, model, meta.get("exit_status"), _patterns(regex, problems, at))
