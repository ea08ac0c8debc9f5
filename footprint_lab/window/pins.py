"""Tool-result pins: each tool's latest result stays while the agent still uses that tool.

Layer: window core; a pin is one of the refusal engine's guards, so it obeys the law stated in
``footprint_lab.window`` (it can only keep something, never edit the ledger).

Rules: one pin per tool *name*, always its latest result after the current request; newest
first; a parallel batch is one turn and costs one slot; a pin inside the keep window costs
nothing; at most ``limit`` slots are admitted and the names that found no slot are counted as
``yielded``. Stand-down: when the two previous visits were both blocked by their pins — each
removed nothing, named ``last-tool-result`` and left the window above its floor — no pin is
offered on this visit and the observations say so.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from footprint_lab.messages import Message
from footprint_lab.window.records import (
    Observations,
    Pin,
    WindowRecord,
    no_pins,
    observations_of,
    pin_of,
)
from footprint_lab.window.shape import Window
from footprint_lab.window.turns import Turn, TurnTable

PIN_KEY = "keep_last_tool_results"
"""The pin limit's name as a knob of a grid or configuration (``sweep``, ``evidence_grid``): a
key of this name goes to the run or replay (pins are run-level, see
:func:`~footprint_lab.window.apply.check_keep_last_tool_results`), never to a strategy's
factory."""


_FLOOR_REASONS = frozenset(
    {"current-request", "system-envelope", "last-tool-result", "inside-keep-window", "within-slack"}
)
"""What keeps a window at its floor (1 request + the pins + the keep window, and the system
turns nothing removes; slack the strategy allows on purpose)."""


def blocked_by_pins(record: WindowRecord) -> bool:
    """Whether a visit was blocked by its pins: it removed nothing, a pin refused, and the
    window was above its floor — some turn refused for another reason than the floor's, or a
    budget the floor exceeds. A visit at the floor was not blocked: it kept what the floor
    promises (the two claims of spec 000 meet here; see the law in ``footprint_lab.window``)."""
    if record.removed_message_count != 0:
        return False
    reasons = {ref.reason for ref in record.refusals}
    if "last-tool-result" not in reasons:
        return False
    refused_turns = len({ref.turn_index for ref in record.refusals})
    at_floor = (
        record.over_budget is not True
        and reasons <= _FLOOR_REASONS
        and (record.turns_before is None or refused_turns >= record.turns_before)
    )
    return not at_floor


def should_stand_down(prior_records: Sequence[WindowRecord]) -> bool:
    """True when the two previous visits were both blocked by their pins
    (:func:`blocked_by_pins`)."""
    if len(prior_records) < 2:
        return False
    return all(blocked_by_pins(r) for r in prior_records[-2:])


def choose_pins(
    messages: Sequence[Message],
    turns: Sequence[Turn],
    *,
    request_turn: int | None,
    keep_start_turn: int,
    limit: int,
    stand_down: bool,
    window: Window | None = None,
) -> tuple[frozenset[int], Observations | None]:
    """Pick the turns the pins hold.

    Args:
        messages: The window.
        turns: Its turns (``segment_turns``).
        request_turn: The turn holding the current request; nothing at or before it is pinnable.
        keep_start_turn: First turn of the keep window; pins from there on cost nothing.
        limit: ``keep_last_tool_results``; 0 turns pins off.
        stand_down: Release all pins for this visit.
        window: ``messages`` as a :class:`Window` (then each tool's latest result is a lookup,
            not a walk back through the window).

    Returns:
        The pinned turn indices outside the keep window, and the observations to record
        (None when pins are off).
    """
    if limit <= 0:
        return frozenset(), None
    if stand_down:
        return frozenset(), no_pins(limit, stand_down=True)
    table = TurnTable.of(turns)
    starts, ends = table.starts, table.ends
    first_pinnable = 0 if request_turn is None else request_turn + 1
    if window is not None:
        return _pins_from_latest(window, starts, first_pinnable, keep_start_turn, limit)
    seen: set[str] = set()
    pinned_turns: set[int] = set()
    pins: list[Pin] = []
    yielded = 0
    # Only tool results pin: their names, read once at C speed (None for every other role).
    names = [m.name if m.role == "tool" else None for m in messages]
    for index in range(len(starts) - 1, first_pinnable - 1, -1):
        a, b = starts[index], ends[index]
        if b - a == 1 and names[a] is None:
            continue  # a lone message that is not a result pins nothing
        latest_here: dict[str, Message] = {}
        for i in range(b - 1, a - 1, -1):
            name = names[i]
            if name is None or name in seen or name in latest_here:
                continue
            latest_here[name] = messages[i]
        if not latest_here:
            continue
        seen.update(latest_here)
        if index >= keep_start_turn:
            continue  # already kept by the keep window: costs no slot
        if len(pinned_turns) < limit:
            pinned_turns.add(index)
            pins.extend(
                pin_of(name, index, m.chars, m.stage_id)
                for name, m in reversed(list(latest_here.items()))
            )
        else:
            yielded += len(latest_here)
    if not pins and not yielded:
        return frozenset(), no_pins(limit)
    return frozenset(pinned_turns), observations_of(tuple(pins), yielded, limit)


def _pins_from_latest(
    window: Window, starts: list[int], first_pinnable: int, keep_start_turn: int, limit: int
) -> tuple[frozenset[int], Observations | None]:
    """:func:`choose_pins` from each tool's latest result: the walk back through the turns
    pins, newest first, the turn holding a tool's latest result, so grouping the latest
    results by turn gives the same pins without the walk."""
    n_turns = len(starts)
    latest = window.last_results()
    keep_message = starts[keep_start_turn] if keep_start_turn < n_turns else len(window)
    if not latest or min(latest.values()) >= keep_message:
        # Every tool's latest result stands in the keep window (a running loop's usual case):
        # the keep window holds them all, and no pin costs a slot.
        return frozenset(), no_pins(limit)
    first_message = starts[first_pinnable] if first_pinnable < n_turns else len(window)
    by_turn: dict[int, list[tuple[int, str]]] = {}
    for name, index in latest.items():
        if index >= first_message:
            by_turn.setdefault(bisect.bisect_right(starts, index) - 1, []).append((index, name))
    messages = window.messages
    pinned_turns: set[int] = set()
    pins: list[Pin] = []
    yielded = 0
    for turn in sorted(by_turn, reverse=True):
        if turn >= keep_start_turn:
            continue  # already kept by the keep window: costs no slot
        here = by_turn[turn]
        if len(pinned_turns) < limit:
            pinned_turns.add(turn)
            here.sort()
            pins.extend(
                pin_of(name, turn, messages[i].chars, messages[i].stage_id) for i, name in here
            )
        else:
            yielded += len(here)
    if not pins and not yielded:
        return frozenset(), no_pins(limit)
    return frozenset(pinned_turns), observations_of(tuple(pins), yielded, limit)
