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


class Redelivered(str):
    """Text a rule re-delivers after a compaction (what :func:`after_compaction`'s rule
    returns; a rule that wraps it and passes its text on keeps the mark). The agent puts it
    where the compaction's removal was (after its drop notice or summary), at the front of what
    the next compaction may take, so the previous copy leaves with the next compacted span —
    not at the end, where it would stay inside the keep window and the copies would pile up."""

    __slots__ = ()


def after_compaction(text: str) -> InjectionRule:
    """Re-deliver ``text`` (e.g. standing instructions) whenever the window was just changed,
    as the TypeScript compaction library re-injects skills after a compaction: "fresh on each
    compaction".

    Each compaction that removed a span delivers one fresh copy, placed where the removal was
    (after its drop notice or summary); the previous copy stands at the front of what the next
    compaction takes, so it leaves with that span, and the records name it. A copy never
    counts against a strategy's keep window (an injection opens no turn of the conversation).
    A compaction that removed nothing but cleared results in place delivers its copy at the
    end of the window."""
    if not isinstance(text, str):
        raise TypeError(f"after_compaction takes the text to re-deliver, got {type(text).__name__}")
    copy = Redelivered(text)

    def rule(ctx: InjectionContext) -> str | None:
        return copy if ctx.changed else None

    return rule


def injection_message(text: str) -> Message:
    """The message an injection delivers."""
    return Message(role="user", content=text, authored="injection")
