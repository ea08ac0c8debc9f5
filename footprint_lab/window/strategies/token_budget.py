"""``token_budget``: compaction's trigger without the summarizer — drop old turns once the
provider-reported input tokens of the last call exceed a threshold.

Layer: window core (see the law in ``footprint_lab.window``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from footprint_lab.window.strategies._trigger import (
    TokenTrigger,
    check_keep_recent_turns,
    check_whole,
    too_small,
)
from footprint_lab.window.strategies.base import StrategyInput, StrategyResult


@dataclass(frozen=True, slots=True)
class TokenBudget:
    """Drop everything older than the keep window once the last call was over budget."""

    trigger: TokenTrigger
    keep_recent_turns: int = 6
    clear_at_least_chars: int = 0
    name: str = "token-budget"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        """Engage above the threshold; drop the oldest span the refusal engine allows."""
        facts = self.trigger.evaluate(self.name, input)
        if facts is None:
            return None
        plan = input.plan_removal(self.keep_recent_turns)
        if self.clear_at_least_chars:
            facts["clear_at_least_chars"] = self.clear_at_least_chars
            if too_small(input, plan, self.clear_at_least_chars):
                return input.refuse_span(self.name, plan, "below-clear-at-least", **facts)
        return input.drop(self.name, plan, **facts)

    def knobs(self) -> dict[str, Any]:
        """The configuration, by keyword."""
        knobs = {**self.trigger.knobs(), "keep_recent_turns": self.keep_recent_turns}
        if self.clear_at_least_chars:
            knobs["clear_at_least_chars"] = self.clear_at_least_chars
        return knobs

    def with_knobs(self, **changes: Any) -> TokenBudget:
        """A copy with some knobs changed (validated)."""
        return token_budget(
            **self.trigger.strategy_knobs(
                self.keep_recent_turns, changes, self.clear_at_least_chars
            )
        )


def token_budget(
    threshold_tokens: int | None = None,
    keep_recent_turns: int = 6,
    *,
    threshold_fraction: float | None = None,
    reserve_tokens: int | None = None,
    clear_at_least_chars: int = 0,
) -> TokenBudget:
    """Drop old turns when the last call's reported input tokens exceed a threshold.

    Args:
        threshold_tokens: Absolute input-token threshold.
        keep_recent_turns: Turns always kept (default 6).
        threshold_fraction: Instead of ``threshold_tokens``: engage when reported input tokens
            plus ``reserve_tokens`` reach this share of the model's context window.
        reserve_tokens: Output reserve (default: the agent's max output tokens, else 32,768).
        clear_at_least_chars: Engage only when the drop would take at least this many
            characters (the removal's span is named ``below-clear-at-least`` otherwise), so the
            window's prefix is not rewritten for a trifle (default 0).

    Raises:
        WindowConfigError: not exactly one threshold, or a value out of range.
    """
    trigger = TokenTrigger.build(
        "token_budget", threshold_tokens, threshold_fraction, reserve_tokens
    )
    return TokenBudget(
        trigger,
        check_keep_recent_turns("token_budget", keep_recent_turns),
        check_whole("token_budget", "clear_at_least_chars", clear_at_least_chars),
    )
