"""A strategy of your own: drop old turns only every third boundary.

The trigger is yours; what may leave is not. ``input.plan_removal`` is the refusal engine,
already bound to this boundary's guards, so the request, unanswered calls and pinned results
stay without this code knowing they exist.

Run: ``python examples/custom_strategy.py``
"""

from __future__ import annotations

from dataclasses import dataclass

from footprint_lab import StrategyInput, StrategyResult
from footprint_lab.scenarios import screen_driver


@dataclass(frozen=True)
class EveryThird:
    """Drop everything older than the last ``keep`` turns on every third iteration."""

    keep: int = 2
    name: str = "every-third"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        if input.iteration % 3:
            return None  # not this strategy's moment: no record is filed
        return input.drop(self.name, input.plan_removal(self.keep))


def main() -> None:
    run = screen_driver().run(EveryThird())
    print(f"status={run.status} records={len(run.records)}")
    for record in run.records:
        pinned = [p.tool_name for p in record.observations.pinned] if record.observations else []
        print(
            f"iteration {record.iteration}: removed {record.removed_message_count}, "
            f"refusals {record.refusal_reasons()}, pinned {pinned}"
        )


if __name__ == "__main__":
    main()
