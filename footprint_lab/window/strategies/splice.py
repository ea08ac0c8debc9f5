"""Splicing a window: drop a span, replace it by a frame, clear results in place, or refuse it.

Layer: window core. These are the moves a strategy's result is built from; the refusal engine
(:mod:`footprint_lab.window.refusals`, :mod:`footprint_lab.window.clearing`) has already decided
what may leave, and the law stated in :mod:`footprint_lab.window` checks the result anyway. They
are methods of :class:`~footprint_lab.window.strategies.base.StrategyInput` (``inp.drop(...)``,
``inp.replace(...)``, ``inp.clear(...)``, ``inp.refuse_span(...)``, ``inp.unchanged(...)``),
written here against :class:`Spliceable` — the facts of the input they read — so this module
names nothing of ``base``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any, Protocol

from footprint_lab.messages import Message, construct_trusted, update_trusted
from footprint_lab.window.clearing import ClearingPlan
from footprint_lab.window.notice import (
    drop_notice_text,
    notice_message,
    plain_notice_chars,
    plain_tool_names,
)
from footprint_lab.window.records import FoldedSpan, WindowRecord, refusal_of
from footprint_lab.window.refusals import RemovalPlan
from footprint_lab.window.result import WindowResult
from footprint_lab.window.turns import Turn, TurnTable

__all__ = ["RemovalFacts", "Spliceable", "Splicing"]

_CHARS = operator.attrgetter("chars")

StrategyResult = WindowResult


@dataclass(frozen=True, slots=True)
class RemovalFacts:
    """Provenance of a set of window indices: who wrote them and what they were."""

    stage_ids: list[str]
    """Stage ids of the messages, in window order, each once."""
    count: int
    """How many messages."""
    chars: int
    """Their exact characters."""
    tool_names: list[str]
    """Names of the tools whose results are among them, each once, in order."""


class Spliceable(Protocol):
    """The facts of a strategy's input that splicing reads."""

    @property
    def messages(self) -> Sequence[Message]:
        """The window as it stands."""

    @property
    def turns(self) -> Sequence[Turn]:
        """Its turns."""

    @property
    def request_index(self) -> int | None:
        """Index of the current request."""

    @property
    def window_chars(self) -> int:
        """Exact characters of the window."""

    @property
    def iteration(self) -> int:
        """The boundary's iteration."""

    @property
    def tool_names(self) -> frozenset[str] | None:
        """The agent's tool roster, when known."""

    def removal_facts(self, indices: Iterable[int]) -> RemovalFacts:
        """Provenance of window indices."""

    def record(self, strategy: str, plan: RemovalPlan | None = None, **facts: Any) -> WindowRecord:
        """A record for a visit that removed nothing."""

    def span_key(self, plan: RemovalPlan) -> str | None:
        """A stable hash identifying the span."""


class Splicing:
    """The splicing moves of a strategy's input (mixed into ``StrategyInput``)."""

    __slots__ = ()

    def clear(
        self: Spliceable,
        strategy: str,
        plan: ClearingPlan,
        *,
        clear_at_least_chars: int = 0,
        **facts: Any,
    ) -> StrategyResult:
        """Replace the plan's messages in place by their placeholders — unless that would take
        less than ``clear_at_least_chars`` (then nothing changes and the turns it would have
        touched are named ``below-clear-at-least``)."""
        messages = self.messages
        saved = sum(messages[i].chars - m.chars for i, m in plan.replacements)
        base: dict[str, Any] = {
            "keep_recent_turns": plan.keep_recent_turns,
            "refusals": list(plan.refusals),
            "observations": plan.observations,
            "clear_at_least_chars": clear_at_least_chars or None,
            **facts,
        }
        if not plan.replacements or saved < max(1, clear_at_least_chars):
            starts = TurnTable.of(self.turns).starts
            small = [
                refusal_of("below-clear-at-least", k, starts[k], messages[starts[k]].stage_id)
                for k in plan.candidate_turns
            ]
            base["refusals"] = sorted([*plan.refusals, *small], key=lambda r: r.turn_index)
            return WindowResult(list(messages), self.record(strategy, **base), verified=True)
        window = list(messages)
        for i, placeholder in plan.replacements:
            window[i] = placeholder
        originals = [messages[i] for i, _ in plan.replacements]
        stage_ids = list(dict.fromkeys(m.stage_id for m in originals if m.stage_id is not None))
        tools = list(dict.fromkeys(m.name for m in originals if m.role == "tool" and m.name))
        record = self.record(
            strategy,
            removed_message_count=len(originals),
            window_chars_after=self.window_chars - saved,
            dropped_observations=tools,
            **base,
        )
        update_trusted(record, removed_stage_ids=stage_ids, cleared_stage_ids=stage_ids)
        return WindowResult(window, record, verified=True)

    def unchanged(
        self: Spliceable, strategy: str, plan: RemovalPlan | None = None, **facts: Any
    ) -> StrategyResult:
        """A result that keeps the window as it is, with a record saying why."""
        return WindowResult(
            list(self.messages), self.record(strategy, plan, **facts), verified=True
        )

    def refuse_span(
        self: Spliceable, strategy: str, plan: RemovalPlan, reason: Any, **facts: Any
    ) -> StrategyResult:
        """Keep the window and name every turn of the span with ``reason`` (e.g. a failed
        summary), so the record still gives a reason for every turn that stays."""
        assert plan.span_turns is not None and plan.span is not None
        starts = TurnTable.of(plan.turns).starts
        messages = self.messages
        refused = [
            refusal_of(reason, k, starts[k], messages[starts[k]].stage_id)
            for k in range(*plan.span_turns)
        ]
        refusals = sorted([*plan.refusals, *refused], key=lambda r: r.turn_index)
        return Splicing.unchanged(
            self,
            strategy,
            plan,
            refusals=refusals,
            span_key=self.span_key(plan),
            **facts,
        )

    def _splice(
        self: Spliceable,
        strategy: str,
        plan: RemovalPlan,
        replacement: Message | None,
        notice_kind: str | None,
        removed: RemovalFacts | None = None,
        **facts: Any,
    ) -> StrategyResult:
        assert plan.span is not None and plan.span_turns is not None
        start, end = plan.span
        if removed is None:
            removed = self.removal_facts(range(start, end))
        middle = [replacement] if replacement is not None else []
        window = [*self.messages[:start], *middle, *self.messages[end:]]
        span_turn_count = plan.span_turns[1] - plan.span_turns[0]
        record = self.record(
            strategy,
            plan,
            removed_message_count=removed.count,
            window_chars_after=self.window_chars - removed.chars + sum(map(_CHARS, middle)),
            dropped_observations=removed.tool_names,
            turns_after=len(self.turns) - span_turn_count + len(middle),
            notice=notice_kind,
            **facts,
        )
        # The stage ids the engine read from the window, each a str validated when its message
        # was built: a cold trim names tens of thousands, and the law checks them anyway.
        update_trusted(record, removed_stage_ids=removed.stage_ids)
        return WindowResult(window, record, verified=True)

    def drop(self: Spliceable, strategy: str, plan: RemovalPlan, **facts: Any) -> StrategyResult:
        """Drop the plan's span, writing a drop notice when the span is at the front.

        The ladder: the notice naming the dropped tools if strictly smaller than the span, else
        the plain notice, else none — unless the window would then not open on a user message,
        in which case the drop is abandoned as ``replacement-not-smaller``.
        """
        if plan.span is None:
            return Splicing.unchanged(self, strategy, plan, **facts)
        start, end = plan.span
        if not plan.at_front:
            return Splicing._splice(self, strategy, plan, None, None, **facts)
        removed = self.removal_facts(range(start, end))
        request_kept: str | None = None
        if self.request_index is not None:
            request_kept = "above" if self.request_index < start else "below"
        ladder: list[tuple[str, list[str] | None]] = []
        plain = plain_notice_chars(
            count=removed.count,
            iteration=self.iteration,
            strategy=strategy,
            request_kept=request_kept,
        )
        if plain < removed.chars:  # else no notice is smaller than the span
            names = plain_tool_names(removed.tool_names, self.tool_names)
            if names:
                ladder.append(("named", names))
            ladder.append(("plain", None))
        for kind, tool_names in ladder:
            text = drop_notice_text(
                count=removed.count,
                iteration=self.iteration,
                strategy=strategy,
                request_kept=request_kept,
                tool_names=tool_names,
            )
            if len(text) < removed.chars:
                notice = notice_message(text)
                return Splicing._splice(self, strategy, plan, notice, kind, removed, **facts)
        new_head = next(
            (m for m in chain(self.messages[:start], self.messages[end:]) if m.role != "system"),
            None,
        )
        if new_head is not None and new_head.role != "user":
            return Splicing.refuse_span(self, strategy, plan, "replacement-not-smaller", **facts)
        return Splicing._splice(self, strategy, plan, None, None, removed, **facts)

    def replace(
        self: Spliceable,
        strategy: str,
        plan: RemovalPlan,
        replacement: Message,
        *,
        retain_originals: bool = True,
        **facts: Any,
    ) -> StrategyResult:
        """Replace the plan's span with one message that stands for it (a compaction frame)."""
        assert plan.span is not None
        start, end = plan.span
        result = Splicing._splice(self, strategy, plan, replacement, None, **facts)
        assert result.record is not None
        # Trusted values built right here: skip re-validating every folded message.
        folded = construct_trusted(
            FoldedSpan,
            iteration=self.iteration,
            strategy=result.record.strategy,  # validated text: storable
            removed_stage_ids=result.record.removed_stage_ids,
            frame_index=start,
            frame_stage_id=None,  # the agent's visit names it
            originals=list(islice(self.messages, start, end)) if retain_originals else [],
        )
        return WindowResult(result.window, result.record, [folded], verified=True)
