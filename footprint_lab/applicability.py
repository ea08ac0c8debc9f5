"""When a window policy cannot apply to a run, and why, in words.

Layer: beside replay (it reads a strategy's configuration and a recorded transcript; no
pandas). A strategy that cannot engage on a run's shape is not a strategy that saved nothing:
``clear_tool_results`` over a run with no tool results, a token strategy over a run whose
tokens nobody reported (and no estimate allowed), a relative threshold with no context window,
a keep window that holds the whole run. :func:`not_applicable` names each such reason once;
``replay`` files them in ``meta['not_applicable']``, and ``evidence_frame``, ``sweep``, the
Inspector and the report show them instead of a cost ratio of 1.0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from footprint_lab.messages import Message, StorableStr

__all__ = [
    "BLOCKING_REASONS",
    "NOT_APPLICABLE_REASONS",
    "NotApplicable",
    "blocked",
    "not_applicable",
    "reasons_of",
    "reasons_text",
]

NotApplicableReason = Literal[
    "no-tool-results",
    "pins-without-tool-results",
    "no-usage",
    "no-context-window",
    "keep-window-covers-run",
]
"""Why a policy cannot apply to a run (see :func:`not_applicable`)."""

NOT_APPLICABLE_REASONS: tuple[str, ...] = (
    "no-tool-results",
    "pins-without-tool-results",
    "no-usage",
    "no-context-window",
    "keep-window-covers-run",
)


BLOCKING_REASONS: frozenset[str] = frozenset(
    {"no-tool-results", "no-usage", "no-context-window", "keep-window-covers-run"}
)
"""The reasons that keep the strategy itself from engaging (a pin limit with nothing to pin
does not: the strategy still runs). A configuration with one of them has no cost ratio."""


class NotApplicable(BaseModel):
    """One reason a policy cannot apply to a run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: NotApplicableReason
    """The reason, from a closed set (:data:`NOT_APPLICABLE_REASONS`)."""
    detail: StorableStr
    """The reason in words, with the figures and the way out."""


def _tool_results(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if m.role == "tool")


def _largest_window_turns(messages: Sequence[Message]) -> int:
    """Turns in the largest window a call of the transcript sent: everything before its last
    reply (every message but a tool result starts a turn)."""
    last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=0)
    return sum(1 for k, m in enumerate(messages[:last]) if m.role != "tool" or k == 0)


def not_applicable(
    strategy: Any,
    messages: Sequence[Message],
    *,
    keep_last_tool_results: int,
    measured_calls: int,
    calls: int,
    context_window: int | None,
) -> list[NotApplicable]:
    """Every reason ``strategy`` cannot apply to a run of ``messages`` (its transcript, system
    prompt excluded), in a fixed order; empty when it can.

    Args:
        strategy: The window strategy (None: nothing to apply, no reason).
        messages: The recorded conversation.
        keep_last_tool_results: The pin limit in force.
        measured_calls: Calls whose input tokens are known (reported, counted, scaled or
            estimated).
        calls: The run's calls.
        context_window: The model's context window, when known.
    """
    if strategy is None:
        return []
    name = str(getattr(strategy, "name", type(strategy).__name__))
    knobs_of = getattr(strategy, "knobs", None)
    knobs: Mapping[str, Any] = knobs_of() if callable(knobs_of) else {}
    trigger = getattr(strategy, "trigger", None)
    results = _tool_results(messages)
    out: list[NotApplicable] = []
    if "keep_results" in knobs and results == 0:
        out.append(
            NotApplicable(
                reason="no-tool-results",
                detail=f"{name} cannot apply: this run has no tool results to clear (a "
                "text-mode transcript imported with tool_loop=False, or an agent without "
                "tools)",
            )
        )
    if keep_last_tool_results and results == 0:
        out.append(
            NotApplicable(
                reason="pins-without-tool-results",
                detail=f"keep_last_tool_results={keep_last_tool_results} pins nothing: this "
                "run has no tool results",
            )
        )
    if trigger is not None and calls and measured_calls == 0:
        out.append(
            NotApplicable(
                reason="no-usage",
                detail=f"{name} cannot apply: its threshold is in tokens and no call of this "
                "run has any (none reported, no provider to count them, no estimate "
                "allowed); replay(..., estimate=True) estimates them at tokens_per_char",
            )
        )
    if (
        trigger is not None
        and getattr(trigger, "threshold_fraction", None) is not None
        and context_window is None
    ):
        out.append(
            NotApplicable(
                reason="no-context-window",
                detail=f"{name} cannot apply: threshold_fraction="
                f"{trigger.threshold_fraction} needs the model's context window, and nothing "
                "gives one for this run; pass replay(..., context_window=N) or use "
                "threshold_tokens=",
            )
        )
    keep = knobs.get("keep_recent_turns")
    slack = knobs.get("slack_turns")
    if isinstance(keep, int) and isinstance(slack, int):
        keep += slack  # a sliding window waits for slack_turns more before it trims
    turns = _largest_window_turns(messages)
    if isinstance(keep, int) and turns and keep >= turns:
        out.append(
            NotApplicable(
                reason="keep-window-covers-run",
                detail=f"{name} cannot remove anything: it keeps {keep} turns, which holds "
                f"every window of this run (at most {turns} turns)",
            )
        )
    return out


def reasons_of(source: Any) -> list[NotApplicable]:
    """The reasons a replay says its policy could not apply (``run.origin.not_applicable``),
    of a run or of its ``frames.info`` (none for any other run). Read by duck typing: this
    module sits below the agent that defines the origin."""
    if isinstance(source, Mapping):
        if "origin" not in source:
            raise TypeError(
                "reasons_of takes a run or its frames.info; a replay's reasons are in its "
                "origin (run.origin.not_applicable), not in run.meta"
            )
        origin = source["origin"]
    else:
        origin = getattr(source, "origin", None)
    found = getattr(origin, "not_applicable", ())
    return [r for r in found if isinstance(r, NotApplicable)]


def blocked(reasons: Sequence[NotApplicable]) -> bool:
    """Whether any of ``reasons`` keeps the strategy from engaging at all."""
    return any(r.reason in BLOCKING_REASONS for r in reasons)


def reasons_text(reasons: Sequence[NotApplicable]) -> str | None:
    """The reasons in words, joined with '; ' (None when there is none): a frame cell."""
    return "; ".join(r.detail for r in reasons) or None
