"""What a clearing visit carries to the next: the decisions on turns that did not change.

Layer: window core (see the law in ``footprint_lab.window``). Under a clearing strategy a
window never loses a turn, so a visit that walked every old turn again would cost what the
window holds, not what changed. The walk's outcome for a turn depends only on that turn's
messages and on a few facts of the visit: the guards that refuse it, the newest results, the
keep window and the size of each tool's placeholder. A visit notes its outcome per turn on the
window it was given (``Window.notes``); the next visit, whose window was read from that one
(``Window.carried``), keeps the outcome of every leading turn the two share whose facts are
unchanged, and walks only from the first turn that changed. The walk from the start is the
oracle: ``tests/window/test_carry.py`` checks the two agree on every visit.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from footprint_lab.window.records import Refusal, RefusalReason
from footprint_lab.window.shape import Window

__all__ = ["ClearingNotes", "carried_prefix", "note"]

_KEY = "clearing"


@dataclass(frozen=True, slots=True)
class ClearingNotes:
    """One clearing walk's outcome, as the next visit may carry it."""

    config: Hashable
    """The plan's settings (strategy name, kept results, excluded tools, inputs cleared)."""
    stop_turn: int
    """Turns before this one had their outcome settled by facts the next visit can compare:
    the first turn with a placeholder to place, one of the newest results, or the keep
    window, whichever comes first."""
    guards: dict[int, RefusalReason]
    """The turns a guard refused (the request, system messages, the paused call, unresolved
    calls, the pins), with the reason."""
    text_chars: dict[str | None, int]
    """The size of each tool's placeholder text the walk compared results with."""
    refusal_turns: list[int]
    """The turn of each walk refusal, in walk order (the keep window's are not noted)."""
    refusals: list[Refusal]
    """The walk's refusals, in walk order."""


def carried_prefix(
    window: Window,
    config: Hashable,
    limit: int,
    guards: dict[int, RefusalReason],
    text_chars: Callable[[str | None], int],
) -> tuple[int, list[Refusal], list[int]]:
    """The first turn the walk must visit, and the refusals (with their turns) carried for
    the turns before it.

    ``limit`` bounds the carried turns from this visit's side (its keep window and newest
    results); ``guards`` are this visit's guard refusals; ``text_chars`` gives this visit's
    placeholder size for a tool. Returns ``(0, [], [])`` (new lists, for the walk to fill)
    when nothing can be carried.
    """
    if window.carried is None:
        return 0, [], []
    earlier, shared_turns = window.carried
    notes = earlier.get(_KEY)
    if not isinstance(notes, ClearingNotes) or notes.config != config:
        return 0, [], []
    stable = min(shared_turns, notes.stop_turn, limit)
    if stable <= 0:
        return 0, [], []
    if {k: r for k, r in guards.items() if k < stable} != {
        k: r for k, r in notes.guards.items() if k < stable
    }:
        return 0, [], []  # a guard came or went on a shared turn (a pin moved, a pause)
    if any(text_chars(name) != size for name, size in notes.text_chars.items()):
        return 0, [], []  # a placeholder's size changed (the iteration it names grew a digit)
    upto = bisect.bisect_left(notes.refusal_turns, stable)
    return stable, notes.refusals[:upto], notes.refusal_turns[:upto]


def note(window: Window, notes: ClearingNotes) -> None:
    """Leave ``notes`` on the window the visit was given, for the next visit to carry."""
    window.notes[_KEY] = notes
