"""``sliding_window``: keep the last N turns, drop what is older.

Layer: window core (see the law in ``footprint_lab.window``). Needs no usage, so it runs on any
provider, including streams that report nothing; it never emits budget pressure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies._trigger import check_keep_recent_turns, check_whole
from footprint_lab.window.strategies.base import StrategyInput, StrategyResult


@dataclass(frozen=True, slots=True)
class SlidingWindow:
    """Keep the most recent ``keep_recent_turns`` turns; engage only when there are more than
    ``keep_recent_turns + slack_turns``, and drop only a span longer than ``slack_turns``."""

    keep_recent_turns: int
    slack_turns: int = 0
    name: str = "sliding-window"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        """Drop the oldest span the refusal engine allows."""
        slack = self.slack_turns
        if not input.holds_more_turns_than(self.keep_recent_turns + slack) and not input.forced:
            return None
        plan = input.plan_removal(self.keep_recent_turns)
        if not slack:
            return input.drop(self.name, plan)
        span = plan.span_turns
        if span is not None and span[1] - span[0] <= slack and not input.forced:
            return input.refuse_span(self.name, plan, "within-slack", slack_turns=slack)
        return input.drop(self.name, plan, slack_turns=slack)

    def knobs(self) -> dict[str, Any]:
        """The configuration, by keyword."""
        if self.slack_turns:
            return {"keep_recent_turns": self.keep_recent_turns, "slack_turns": self.slack_turns}
        return {"keep_recent_turns": self.keep_recent_turns}

    def with_knobs(self, **changes: Any) -> SlidingWindow:
        """A copy with some knobs changed (validated)."""
        return sliding_window(**{**self.knobs(), **changes})

    def renamed(self, name: str) -> SlidingWindow:
        """A copy filed under another name."""
        return replace(self, name=name)


def sliding_window(keep_recent_turns: int | None = None, slack_turns: int = 0) -> SlidingWindow:
    """Keep the last ``keep_recent_turns`` turns (required, a whole number >= 1).

    ``keep_recent_turns`` has no default, on purpose: how much past an agent needs is a fact
    about the agent, not about this library.

    Args:
        keep_recent_turns: Turns always kept.
        slack_turns: Turns beyond the keep window the window may hold before it is trimmed back
            to ``keep_recent_turns``: with slack the prefix (and the provider's prompt cache)
            stays the same for several calls, then one larger drop happens. A span of at most
            ``slack_turns`` turns is named ``within-slack`` instead of dropped. Default 0: trim
            at every boundary.

    Raises:
        WindowConfigError: ``keep_recent_turns`` is missing, not an int, or < 1; ``slack_turns``
            is not a whole number >= 0.
    """
    if keep_recent_turns is None:
        raise WindowConfigError(
            "sliding_window: keep_recent_turns is required and has no default — how many recent "
            "turns the model reasons over is a fact about your agent. keep_recent_turns must "
            "be a whole number >= 1, e.g. sliding_window(keep_recent_turns=6)"
        )
    return SlidingWindow(
        check_keep_recent_turns("sliding_window", keep_recent_turns),
        check_whole("sliding_window", "slack_turns", slack_turns),
    )
