"""The refusal engine's second move: which old tool results may be cleared in place.

Layer: window core (see the law in ``footprint_lab.window``: a cleared result is replaced *in
place* by a library-authored placeholder that keeps its role, call id and tool name, so no pair
is split and no span is needed; the original stays in the ledger).

:func:`plan_clearing` walks the turns before the keep window, oldest first, with the same
guards as :func:`~footprint_lab.window.refusals.plan_removal` (the request, system messages,
the paused call, unresolved calls and the pins refuse exactly as they do for a drop), and
within each turn that may be touched picks the tool results worth clearing:

* not one of the ``keep_results`` newest tool results of the window (``among-newest-results``);
* not a result of an excluded tool (``excluded-tool``);
* not already a placeholder, and strictly larger than its placeholder would be
  (``replacement-not-smaller`` when nothing in the turn is).

With ``clear_tool_inputs`` the arguments of the cleared results' calls go too (the calls keep
their ids and names). Every turn of the keep window is named ``inside-keep-window``, as the
drop engine names it.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from footprint_lab.messages import Message
from footprint_lab.window._carry import ClearingNotes, carried_prefix, note
from footprint_lab.window.notice import cleared_arguments, cleared_result, cleared_result_text
from footprint_lab.window.records import Observations, Refusal, RefusalReason, fresh_refusal
from footprint_lab.window.refusals import Guards, walk_start
from footprint_lab.window.shape import Window
from footprint_lab.window.turns import Turn

__all__ = ["ClearingPlan", "plan_clearing"]


@dataclass(frozen=True, slots=True)
class ClearingPlan:
    """What may be cleared in place, the placeholders, and who refused."""

    keep_recent_turns: int
    """The keep window the plan was made with."""
    replacements: tuple[tuple[int, Message], ...]
    """(window index, placeholder) pairs, in window order."""
    refusals: tuple[Refusal, ...]
    """Turns that kept something, with the reason, in turn order."""
    observations: Observations | None
    """What the pins held (None when pins are off)."""
    candidate_turns: tuple[int, ...]
    """Turns some placeholder would touch (named ``below-clear-at-least`` when the strategy
    decides the clearing is too small to be worth a changed prefix)."""


def _newest_results(messages: Sequence[Message], keep_results: int) -> set[int]:
    """Indices of the ``keep_results`` newest real tool results of the window."""
    out: set[int] = set()
    if keep_results <= 0:
        return out
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message.role == "tool" and message.authored is None:
            out.add(i)
            if len(out) >= keep_results:
                break
    return out


def plan_clearing(
    messages: Sequence[Message],
    turns: Sequence[Turn],
    keep_recent_turns: int,
    *,
    guards: Guards,
    keep_last_tool_results: int,
    stand_down: bool,
    iteration: int,
    strategy: str,
    keep_results: int,
    exclude_tools: Collection[str] = (),
    clear_tool_inputs: bool | Collection[str] = False,
) -> ClearingPlan:
    """Plan which tool results (and, with ``clear_tool_inputs``, their calls' arguments) may be
    replaced in place by placeholders (see the module docstring).

    Args:
        messages: The window.
        turns: Its turns.
        keep_recent_turns: The last N turns are not touched.
        guards: This boundary's guards.
        keep_last_tool_results: Pin limit (0 = off).
        stand_down: Release pins for this visit.
        iteration: The iteration the placeholders will name.
        strategy: The strategy name the placeholders will name.
        keep_results: The newest N tool results of the window stay.
        exclude_tools: Tools whose results are never cleared.
        clear_tool_inputs: Also replace the arguments of the cleared results' calls: all of
            them (True), or only the calls of these tools (a collection of names).
    """
    table, keep, keep_start, pinned, observations = walk_start(
        messages, turns, keep_recent_turns, guards, keep_last_tool_results, stand_down
    )
    starts, ends = table.starts, table.ends
    n_turns = len(starts)
    newest = _newest_results(messages, keep_results)
    excluded = frozenset(exclude_tools)
    replacements: list[tuple[int, Message]] = []
    candidates: list[int] = []
    placeholders = _Placeholders(iteration, strategy)

    # The window's facts (apply_window's; read here when called on another sequence): a turn's
    # results, their tools and sizes come from its flat lists, and only a result that is
    # cleared is itself read, so a long window of small results costs no look at a message.
    facts = guards.facts
    window = facts.window if facts is not None and facts.window.messages is messages else None
    carrying = window is not None and facts is not None and facts.local
    if window is None:
        window = Window(messages)
    codes, stage_ids = window.codes, window.stage_ids

    # The turns before ``stable`` are settled by facts the next visit can compare; a turn
    # holding one of the newest results, or inside the keep window, is not.
    stable = keep_start
    if newest:
        stable = min(keep_start, bisect.bisect_right(starts, min(newest)) - 1)
    config = (strategy, keep_results, excluded, _inputs_key(clear_tool_inputs))
    guard_reasons: dict[int, RefusalReason] = {}
    first = 0
    refusals: list[Refusal] = []  # the walk's refusals, and the turn of each
    refusal_turns: list[int] = []
    if carrying:
        guard_reasons = _guard_reasons(guards, starts, ends, keep_start, pinned)
        first, refusals, refusal_turns = carried_prefix(
            window, config, stable, guard_reasons, placeholders.size
        )

    def refuse(reason: RefusalReason, k: int) -> None:
        refusals.append(fresh_refusal(reason, k, starts[k], stage_ids[starts[k]]))
        refusal_turns.append(k)

    for k in _turns_to_visit(guards, messages, starts, ends, keep_start, pinned, first):
        a, b = starts[k], ends[k]
        results = [i for i in range(a, b) if codes[i] in "tp"]  # a result, or p once cleared
        if not results:
            continue  # nothing of this turn could be cleared
        reason = guards.reason_at(k, a, b, pinned)
        if reason is not None:
            refuse(reason, k)
            continue
        kept, turn_replacements = _clear_turn(
            window, a, results, newest, excluded, placeholders, clear_tool_inputs
        )
        for reason in dict.fromkeys(kept):
            refuse(reason, k)
        if turn_replacements:
            candidates.append(k)
            replacements.extend(turn_replacements)
    if carrying:
        # A turn with a placeholder to place is not settled: the next visit may find it
        # placed (the window then differs there) or still to place (below clear-at-least).
        settled = min(stable, candidates[0]) if candidates else stable
        sizes = placeholders.sizes()
        note(window, ClearingNotes(config, settled, guard_reasons, sizes, refusal_turns, refusals))
    # In turn order as they stand: the walk visits the turns oldest first, the keep window last.
    kept_window = [
        fresh_refusal("inside-keep-window", k, starts[k], stage_ids[starts[k]])
        for k in range(keep_start, n_turns)
    ]
    return ClearingPlan(
        keep, tuple(replacements), (*refusals, *kept_window), observations, tuple(candidates)
    )


@dataclass(slots=True)
class _Placeholders:
    """One visit's placeholder texts, one per tool (a text names the tool, not the call)."""

    iteration: int
    strategy: str
    texts: dict[str | None, str] = field(default_factory=dict)

    def text(self, name: str | None) -> str:
        text = self.texts.get(name)
        if text is None:
            text = self.texts[name] = cleared_result_text(
                tool_name=name, iteration=self.iteration, strategy=self.strategy
            )
        return text

    def size(self, name: str | None) -> int:
        return len(self.text(name))

    def sizes(self) -> dict[str | None, int]:
        """The size of every text this visit wrote (what a result was compared with)."""
        return {name: len(text) for name, text in self.texts.items()}


def _clear_turn(
    window: Window,
    head_at: int,
    results: list[int],
    newest: set[int],
    excluded: frozenset[str],
    placeholders: _Placeholders,
    clear_tool_inputs: bool | Collection[str],
) -> tuple[list[RefusalReason], list[tuple[int, Message]]]:
    """One turn a guard let through: why each result it keeps stays, and the placeholders
    (window index, message) of those it clears — with ``clear_tool_inputs``, the head's
    arguments for the cleared calls first."""
    messages, codes, cum, names = window.messages, window.codes, window.cum, window.tool_names
    kept: list[RefusalReason] = []
    cleared_calls: set[str] = set()
    replacements: list[tuple[int, Message]] = []
    for i in results:
        if codes[i] == "p":
            continue  # already a placeholder (or another result the library wrote)
        if i in newest:
            kept.append("among-newest-results")
            continue
        name = names[i]
        if name in excluded:
            kept.append("excluded-tool")
            continue
        text = placeholders.text(name)
        if len(text) >= cum[i + 1] - cum[i]:  # a placeholder's size is its text's
            kept.append("replacement-not-smaller")
            continue
        message = messages[i]
        placeholder = cleared_result(
            message, iteration=placeholders.iteration, strategy=placeholders.strategy, text=text
        )
        replacements.append((i, placeholder))
        if message.tool_call_id is not None:
            cleared_calls.add(message.tool_call_id)
    head = messages[head_at]
    if clear_tool_inputs and cleared_calls and head.authored is None:
        ids = {
            c.id
            for c in head.tool_calls
            if clear_tool_inputs is True or c.name in clear_tool_inputs
        } & cleared_calls
        if ids:
            stand_in = cleared_arguments(head, ids)
            if stand_in.chars < head.chars:
                replacements.insert(0, (head_at, stand_in))
    return kept, replacements


def _inputs_key(clear_tool_inputs: bool | Collection[str]) -> bool | frozenset[str]:
    if isinstance(clear_tool_inputs, bool):
        return clear_tool_inputs
    return frozenset(clear_tool_inputs)


def _guard_reasons(
    guards: Guards, starts: list[int], ends: list[int], keep_start: int, pinned: frozenset[int]
) -> dict[int, RefusalReason]:
    """The turns before the keep window a guard refuses, with the reason (a window whose
    results all sit in their calls' turns: only these few turns can be refused by a guard)."""
    facts = guards.facts
    assert facts is not None
    refusing = {*pinned, *facts.open_turns, *facts.paused_turns, *facts.system_turns}
    if facts.request_turn is not None:
        refusing.add(facts.request_turn)
    out: dict[int, RefusalReason] = {}
    for k in refusing:
        if k < keep_start:
            reason = guards.reason_at(k, starts[k], ends[k], pinned)
            if reason is not None:
                out[k] = reason
    return out


def _turns_to_visit(
    guards: Guards,
    messages: Sequence[Message],
    starts: list[int],
    ends: list[int],
    keep_start: int,
    pinned: frozenset[int],
    first: int = 0,
) -> Sequence[int]:
    """The turns before the keep window that the walk must look at: every one, or — when the
    window's facts say every result sits in its call's turn — those holding a result not yet
    cleared, and the refusing turns that hold any result. The others hold only placeholders
    (or no result), and the walk would pass them without a word: in a long run under this
    strategy that is almost every turn. The turns before ``first`` are not looked at (their
    outcome is carried from the last visit: :mod:`footprint_lab.window._carry`)."""
    facts = guards.facts
    if facts is None or not facts.local or facts.window.messages is not messages:
        return range(first, keep_start)
    limit = starts[keep_start] if keep_start < len(starts) else len(messages)
    codes = facts.window.codes
    visit: set[int] = set()
    i = codes.find("t", starts[first] if first < len(starts) else limit, limit)
    while i >= 0:
        turn = bisect.bisect_right(starts, i) - 1
        visit.add(turn)
        i = codes.find("t", ends[turn], limit)
    refusing = {*facts.system_turns, *facts.open_turns, *facts.paused_turns, *pinned}
    if facts.request_turn is not None:
        refusing.add(facts.request_turn)
    visit.update(k for k in refusing if first <= k < keep_start and ends[k] - starts[k] > 1)
    return sorted(visit)
