"""Injections: library-authored ``user`` messages delivered by a rule.

Layer: agent. An injection is marked ``authored="injection"`` and never becomes the
current-request anchor. Rules run after the window stage (and after a person's answers are
committed), right before the call — so they see the window the model will see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from footprint_lab.messages import Message
from footprint_lab.window.records import WindowRecord


@dataclass(frozen=True, slots=True)
class InjectionContext:
    """What a rule sees at one boundary."""

    iteration: int
    """The iteration about to call the model."""
    request: str
    """The current request."""
    window: Sequence[Message]
    """The window as it stands."""
    record: WindowRecord | None
    """This iteration's window record, if the strategy engaged."""
    changed: bool
    """Whether this iteration's window stage removed or replaced anything."""


InjectionRule = Callable[[InjectionContext], str | None]
"""Returns the text to inject at this boundary, or None."""


def after_compaction(text: str) -> InjectionRule:
    """Re-deliver ``text`` (e.g. standing instructions) whenever the window was just changed,
    as the TypeScript compaction library re-injects skills after a compaction."""

    def rule(ctx: InjectionContext) -> str | None:
        return text if ctx.changed else None

    return rule


def injection_message(text: str) -> Message:
    """The message an injection delivers."""
    return Message(role="user", content=text, authored="injection")
