"""A breach of the law: its rule names, the record of one, and how a list of them is ranked.

Layer: window core, private (the checks in :mod:`footprint_lab.window.law` and
:mod:`footprint_lab.window._law_rewrites` file them; the law itself is stated in
``footprint_lab.window``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from footprint_lab.messages import Message
from footprint_lab.window.errors import WindowStrategyError

LAW_RULES: tuple[str, ...] = (
    "lost-current-request",
    "system-dropped",
    "paused-call-left",
    "unresolved-call-left",
    "split-tool-pair",
    "non-contiguous-removal",
    "partial-turn",
    "window-opens-on-non-user",
    "rewritten-without-frame",
    "unnamed-removal",
    "named-but-kept",
)
"""Every rule a strategy's result is checked against, by the name a breach carries, gravest
first: :func:`~footprint_lab.window.law.breaches` lists what it finds in this order, so an error
names the worst."""

_RANK = {rule: rank for rank, rule in enumerate(LAW_RULES)}


@dataclass(frozen=True, slots=True)
class Breach:
    """One rule a strategy's result broke."""

    rule: str
    """Which rule (one of :data:`LAW_RULES`)."""
    message_index: int
    """Where: the index in the window the strategy was given (for an inserted message, the
    index in the window it returned)."""
    stage_id: str | None
    """The stage that committed that message (None for an unstamped or inserted message)."""
    detail: str
    """A human sentence about what happened."""
    kept_half: int | None = None
    """For a split tool pair: the index in the given window of the half that stays (the call
    whose result left, or the result whose call left)."""

    def error(self, strategy: str, *, audited: bool = False) -> WindowStrategyError:
        """The error ``apply_window`` raises for this breach.

        Args:
            strategy: The strategy's name.
            audited: The strategy is a foreign policy wrapped in ``audit()``: its author is
                not the user, so the error points to what the user can do (audit it over a
                recorded run, or choose a lawful strategy), not to strategy-author methods.
        """
        where = f"message {self.message_index}" + (f" ({self.stage_id})" if self.stage_id else "")
        what = f"strategy {strategy!r} broke the rule {self.rule!r} at {where}: {self.detail}"
        todo = (
            "build removals with input.plan_removal() and input.drop() / input.replace(), "
            "which obey every rule"
        )
        if audited:
            what = (
                f"the audited policy {strategy!r} broke the rule {self.rule!r} at {where}: "
                f"{self.detail}"
            )
            todo = (
                "an agent sends only windows that keep the law, so it cannot run this policy; "
                "to see what it would do, audit it over a recorded run with "
                "replay(run, audit(policy)), which records every rule it breaks, or let the "
                "agent run a lawful strategy such as summarize_oldest(...), which folds the "
                "oldest turns into a summary and keeps the request"
            )
        return WindowStrategyError(
            f"{what}; {todo}",
            rule=self.rule,
            message_index=self.message_index,
            stage_id=self.stage_id,
        )


def add_breach(
    out: list[Breach],
    given: Sequence[Message],
    rule: str,
    index: int,
    detail: str,
    kept_half: int | None = None,
) -> None:
    """File a breach of ``rule`` at ``index`` of the given window (its stage id read there)."""
    out.append(Breach(rule, index, given[index].stage_id, detail, kept_half))


def ranked(found: list[Breach]) -> list[Breach]:
    """``found``, gravest first (in :data:`LAW_RULES` order; stable within a rule)."""
    if len(found) > 1:
        found.sort(key=lambda b: _RANK[b.rule])
    return found
