"""``summarize_oldest``: once over budget, replace the oldest span with a compaction frame.

Layer: window core (see the law in ``footprint_lab.window``). The frame is a claim, so the
originals it stands for ride along as a folded span; the ledger keeps them verbatim anyway.

Refusals specific to this strategy: ``summarizer-failed`` (it raised: window unchanged, the run
goes on), ``replacement-not-smaller`` (the frame was not smaller than the span: latched, so the
same span is not summarized again — ``summarizer_skipped``), ``only-existing-summary`` (the only
candidate is a previous frame).
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from footprint_lab.messages import Message
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.notice import compaction_frame
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.refusals import RemovalPlan
from footprint_lab.window.strategies._trigger import (
    TokenTrigger,
    check_keep_recent_turns,
    check_whole,
    too_small,
)
from footprint_lab.window.strategies.base import StrategyInput, StrategyResult


class SummaryResult(BaseModel):
    """What a summarizer may return instead of a plain string."""

    text: str
    """The summary."""
    input_tokens: int | None = None
    """Tokens the summarizer's own call reported reading."""
    output_tokens: int | None = None
    """Tokens the summarizer's own call reported writing."""

    @property
    def tokens(self) -> int | None:
        """Total reported tokens, or None when nothing was reported."""
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)


SummarizerOutput = str | SummaryResult
Summarizer = Callable[[Sequence[Message]], SummarizerOutput | Awaitable[SummarizerOutput]]
"""A sync or async callable that summarizes a span of messages."""

Retain = Literal["conversation", "discard"]


def summary_problem(produced: object) -> str | None:
    """Why a summarizer's output cannot become a frame (None when it can): it must be text, or a
    :class:`SummaryResult`, with something in it and token counts that are not negative."""
    if isinstance(produced, SummaryResult):
        text: object = produced.text
        counts = (produced.input_tokens, produced.output_tokens)
        if any(c is not None and c < 0 for c in counts):
            return f"the summarizer reported negative token counts {counts}"
    else:
        text = produced
    if text is None:
        return "the summarizer returned None instead of text"
    if not isinstance(text, str):
        return f"the summarizer returned {type(text).__name__}, not text"
    if not text.strip():
        return "the summarizer returned empty text"
    return None


def _span_latched(inp: StrategyInput, key: str | None) -> bool:
    """Whether an earlier record latched this span (its frame was not smaller)."""
    if key is None:
        return False
    index = getattr(_LATCHES, "index", None)
    if index is None:
        index = _LATCHES.index = _LatchIndex()
    return key in index.keys_of(inp.prior_records)


@dataclass
class _LatchIndex:
    """The latched span keys of a run's records, read once: a running loop hands every visit
    the same growing list of records (records are only ever appended), so the index reads the
    records added since the last visit instead of every record at every visit, which would
    grow with the run. One per thread; an unknown list is read whole."""

    list_id: int = 0
    """``id`` of the records list last read."""
    read: int = 0
    """How many of its records were read."""
    last: WindowRecord | None = None
    """The last record read: the list is the same list, grown, only if it still holds it."""
    keys: set[str] = field(default_factory=set)
    """The latched keys among them."""

    def keys_of(self, records: Sequence[WindowRecord]) -> set[str]:
        """The latched span keys of ``records``."""
        n = len(records)
        grown = id(records) == self.list_id and n >= self.read > 0
        if not (grown and records[self.read - 1] is self.last):
            self.list_id, self.read, self.keys = id(records), 0, set()
        for record in records[self.read :] if self.read else records:
            if record.span_key is not None and any(
                r.reason == "replacement-not-smaller" for r in record.refusals
            ):
                self.keys.add(record.span_key)
        self.read, self.last = n, records[n - 1] if n else None
        return self.keys


_LATCHES = threading.local()


@dataclass(frozen=True, slots=True)
class SummarizeOldest:
    """Summarize everything older than the keep window once the last call was over budget."""

    trigger: TokenTrigger
    summarizer: Summarizer
    keep_recent_turns: int = 6
    retain: Retain = "conversation"
    clear_at_least_chars: int = 0
    name: str = "summarize-oldest"

    def plan(
        self, input: StrategyInput
    ) -> StrategyResult | Awaitable[StrategyResult | None] | None:
        """Engage above the threshold and fold the oldest allowed span into a frame.

        Synchronous when the summarizer is; an awaitable only when the summarizer is async.
        """
        facts = self.trigger.evaluate(self.name, input)
        if facts is None:
            return None
        plan = input.plan_removal(self.keep_recent_turns)
        if plan.span is None:
            return input.unchanged(self.name, plan, **facts)
        if self.clear_at_least_chars:
            facts["clear_at_least_chars"] = self.clear_at_least_chars
            if too_small(input, plan, self.clear_at_least_chars):
                return input.refuse_span(self.name, plan, "below-clear-at-least", **facts)
        key = input.span_key(plan)
        if _span_latched(input, key):
            return input.refuse_span(
                self.name, plan, "replacement-not-smaller", summarizer_skipped=True, **facts
            )
        # The window's own slice (a tuple: the summarizer cannot change what it folds).
        span = input.messages[plan.span[0] : plan.span[1]]
        try:
            produced = self.summarizer(span)
        except Exception as exc:  # a failed summary leaves the window as it was
            return self._failed(input, plan, exc, facts)
        if inspect.isawaitable(produced):
            return self._finish_async(input, plan, span, key, produced, facts)
        return self._fold(input, plan, span, key, produced, facts)

    async def _finish_async(
        self,
        input: StrategyInput,
        plan: RemovalPlan,
        span: Sequence[Message],
        key: str | None,
        pending: Awaitable[SummarizerOutput],
        facts: dict[str, Any],
    ) -> StrategyResult:
        try:
            produced = await pending
        except Exception as exc:  # a failed summary leaves the window as it was
            return self._failed(input, plan, exc, facts)
        return self._fold(input, plan, span, key, produced, facts)

    def _failed(
        self, input: StrategyInput, plan: RemovalPlan, exc: Exception, facts: dict[str, Any]
    ) -> StrategyResult:
        return input.refuse_span(
            self.name, plan, "summarizer-failed", error=f"{type(exc).__name__}: {exc}", **facts
        )

    def _fold(
        self,
        input: StrategyInput,
        plan: RemovalPlan,
        span: Sequence[Message],
        key: str | None,
        produced: SummarizerOutput,
        facts: dict[str, Any],
    ) -> StrategyResult:
        problem = summary_problem(produced)
        if problem is not None:
            return input.refuse_span(self.name, plan, "summarizer-failed", error=problem, **facts)
        summary = produced if isinstance(produced, SummaryResult) else SummaryResult(text=produced)
        frame = compaction_frame(
            count=len(span), iteration=input.iteration, strategy=self.name, summary=summary.text
        )
        assert plan.span is not None
        if frame.chars >= input.span_chars(*plan.span):
            return input.refuse_span(
                self.name,
                plan,
                "replacement-not-smaller",
                summarizer_tokens=summary.tokens,
                summarizer_skipped=False,
                **facts,
            )
        return input.replace(
            self.name,
            plan,
            frame,
            retain_originals=self.retain == "conversation",
            summary_chars=frame.chars,
            summarizer_tokens=summary.tokens,
            summarizer_skipped=False,
            span_key=key,
            **facts,
        )

    def knobs(self) -> dict[str, Any]:
        """The configuration, by keyword (the summarizer excluded)."""
        knobs = {**self.trigger.knobs(), "keep_recent_turns": self.keep_recent_turns}
        if self.clear_at_least_chars:
            knobs["clear_at_least_chars"] = self.clear_at_least_chars
        return knobs

    def with_knobs(self, **changes: Any) -> SummarizeOldest:
        """A copy with some knobs changed (validated)."""
        knobs = self.trigger.strategy_knobs(
            self.keep_recent_turns, changes, self.clear_at_least_chars
        )
        return summarize_oldest(summarizer=self.summarizer, retain=self.retain, **knobs)


def summarize_oldest(
    threshold_tokens: int | None = None,
    summarizer: Summarizer | None = None,
    keep_recent_turns: int = 6,
    *,
    threshold_fraction: float | None = None,
    reserve_tokens: int | None = None,
    retain: Retain = "conversation",
    clear_at_least_chars: int = 0,
) -> SummarizeOldest:
    """Summarize the oldest turns once the last call's reported input tokens exceed a threshold.

    Args:
        threshold_tokens: Absolute input-token threshold.
        summarizer: Sync or async callable taking the span's messages and returning the summary
            text (or a :class:`SummaryResult` carrying its own usage).
        keep_recent_turns: Turns always kept verbatim (default 6).
        threshold_fraction: Instead of ``threshold_tokens``: a share of the context window.
        reserve_tokens: Output reserve under ``threshold_fraction``.
        retain: ``"conversation"`` keeps the folded originals beside the frame; ``"discard"``
            keeps only their stage ids (the ledger still holds them).
        clear_at_least_chars: Engage only when the fold would take at least this many
            characters (the span is named ``below-clear-at-least`` otherwise; default 0).

    Raises:
        WindowConfigError: a missing summarizer, not exactly one threshold, or a bad value.
    """
    trigger = TokenTrigger.build(
        "summarize_oldest", threshold_tokens, threshold_fraction, reserve_tokens
    )
    if summarizer is None or not callable(summarizer):
        raise WindowConfigError(
            "summarize_oldest needs summarizer=: a callable taking the messages to fold and "
            "returning summary text (e.g. provider_summarizer(provider, model)); "
            f"got {summarizer!r}"
        )
    if retain not in ("conversation", "discard"):
        raise WindowConfigError(
            f"summarize_oldest: retain must be 'conversation' or 'discard', got {retain!r}"
        )
    return SummarizeOldest(
        trigger,
        summarizer,
        check_keep_recent_turns("summarize_oldest", keep_recent_turns),
        retain,
        check_whole("summarize_oldest", "clear_at_least_chars", clear_at_least_chars),
    )
