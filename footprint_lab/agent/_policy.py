"""A run's window policy as one comparable value: the strategy with its knobs, and the pins.

Layer: agent, private (``continue_from`` refuses a conversation written under another policy
unless allowed; the loop records an allowed change as a ``run.policy_changed`` event).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from footprint_lab.window.strategies.base import strategy_name

__all__ = ["Policy", "policy_of"]


@dataclass(frozen=True, slots=True)
class Policy:
    """A window policy as far as it is known."""

    strategy: str | None
    """The strategy's name (None: no window management)."""
    knobs: str | None
    """Its knobs (``keep_recent_turns=3``), or None where unknown: a run file keeps the
    strategy's name, not its configuration."""
    pins: int
    """``keep_last_tool_results``."""

    def __str__(self) -> str:
        name = self.strategy or "no strategy"
        return name if self.knobs is None or self.strategy is None else f"{name}({self.knobs})"

    def differs_from(self, other: Policy) -> bool:
        """Whether the two are known to differ (knobs are compared where both are known)."""
        if (self.strategy, self.pins) != (other.strategy, other.pins):
            return True
        return self.knobs is not None and other.knobs is not None and self.knobs != other.knobs


def policy_of(holder: Any) -> Policy:
    """The policy of an agent, or of a run (by its agent's strategy while it has one; else by
    the strategy name its file recorded)."""
    agent = getattr(holder, "agent", None)
    strategy = agent.strategy if agent is not None else getattr(holder, "strategy", None)
    pins = int(holder.keep_last_tool_results)
    if strategy is None or isinstance(strategy, str):
        return Policy(strategy, None, pins)
    knobs = getattr(strategy, "knobs", None)
    said: dict[str, Any] = knobs() if callable(knobs) else {}
    shown = ", ".join(f"{k}={v!r}" for k, v in said.items() if not callable(v))
    return Policy(strategy_name(strategy), shown, pins)
