"""``sliding_window``: keep the last N turns, drop what is older.

Layer: window core (see the law in ``footprint_lab.window``). Needs no usage, so it runs on any
provider, including streams that report nothing; it never emits budget pressure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies._trigger import check_keep_recent_turns
from footprint_lab.window.strategies.base import StrategyInput, StrategyResult


@dataclass(frozen=True, slots=True)
class SlidingWindow:
    """Keep the most recent ``keep_recent_turns`` turns; engage only when there are more."""

    keep_recent_turns: int
    name: str = "sliding-window"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        """Drop the oldest span the refusal engine allows."""
        if len(input.turns) <= self.keep_recent_turns and not input.forced:
            return None
        plan = input.plan_removal(self.keep_recent_turns)
        return input.drop(self.name, plan)

    def knobs(self) -> dict[str, Any]:
        """The configuration, by keyword."""
        return {"keep_recent_turns": self.keep_recent_turns}

    def with_knobs(self, **changes: Any) -> SlidingWindow:
        """A copy with some knobs changed (validated)."""
        return sliding_window(**{**self.knobs(), **changes})

    def renamed(self, name: str) -> SlidingWindow:
        """A copy filed under another name."""
        return replace(self, name=name)


def sliding_window(keep_recent_turns: int | None = None) -> SlidingWindow:
    """Keep the last ``keep_recent_turns`` turns (required, a whole number >= 1).

    ``keep_recent_turns`` has no default, on purpose: how much past an agent needs is a fact
    about the agent, not about this library.

    Raises:
        WindowConfigError: ``keep_recent_turns`` is missing, not an int, or < 1.
    """
    if keep_recent_turns is None:
        raise WindowConfigError(
            "sliding_window: keep_recent_turns is required and has no default — how many recent "
            "turns the model reasons over is a fact about your agent. keep_recent_turns must "
            "be a whole number >= 1, e.g. sliding_window(keep_recent_turns=6)"
        )
    return SlidingWindow(check_keep_recent_turns("sliding_window", keep_recent_turns))
