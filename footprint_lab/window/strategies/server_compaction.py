"""Offline twins of the providers' server-side compaction: ``anthropic_compaction`` and
``openai_compaction``.

Layer: window core (see the law in ``footprint_lab.window``; the fold is
:class:`~footprint_lab.window.strategies.summarize_oldest.SummarizeOldest`'s, with no keep
window). Both vendors compact the same way: when the request in hand exceeds a threshold, the
server summarizes the conversation (an extra sampling step, billed) and every later request
starts at that summary — Anthropic's ``compact_20260112`` edit ("the API automatically drops
all message blocks prior to the compaction block",
https://platform.claude.com/docs/en/build-with-claude/compaction; default trigger 150,000 input
tokens, at least 50,000) and the Responses API's ``context_management=[{"type": "compaction",
"compact_threshold": N}]`` (an encrypted ``compaction`` item; "you can drop items that came
before the most recent compaction item", https://developers.openai.com/api/docs/guides/compaction).

The twin measures the request in hand as the server does (``tokens_from``: counted by the
provider, else estimated), and when it is over the threshold folds everything the law lets go
into one compaction frame. Where the law and the server part, the law wins and the record says
so: the server folds the request too, the twin keeps it verbatim; pinned results stay
(``keep_last_tool_results``: turn pins off for the server's exact choice). The summary is your
``summarizer``'s (default: the extractive one, offline) — the vendor's is its model's, and
OpenAI's is encrypted — so its size, and the frame's, are this summarizer's, labelled as such
by ``summarizer_tokens``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, replace
from typing import Any

from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies._trigger import RequestTrigger, check_tokens
from footprint_lab.window.strategies.base import StrategyInput, StrategyResult
from footprint_lab.window.strategies.summarize_oldest import SummarizeOldest, Summarizer
from footprint_lab.window.strategies.summarizers import extractive_summarizer

__all__ = [
    "ANTHROPIC_COMPACTION_MINIMUM",
    "ServerCompaction",
    "anthropic_compaction",
    "openai_compaction",
]

ANTHROPIC_COMPACTION_MINIMUM = 50_000
"""The least trigger Anthropic's ``compact_20260112`` accepts, in input tokens."""


@dataclass(frozen=True, slots=True)
class ServerCompaction:
    """A provider's server-side compaction, played offline (see the module docstring)."""

    fold: SummarizeOldest
    """The fold: no keep window, triggered by the request in hand."""
    vendor: str
    """``anthropic`` or ``openai``: which factory rebuilds it."""

    @property
    def name(self) -> str:
        """The name records are filed under."""
        return self.fold.name

    @property
    def threshold_tokens(self) -> int:
        """The trigger, in input tokens of the request in hand."""
        trigger = self.fold.trigger
        assert isinstance(trigger, RequestTrigger)
        return trigger.threshold_tokens

    def plan(
        self, input: StrategyInput
    ) -> StrategyResult | Awaitable[StrategyResult | None] | None:
        """Fold everything the law lets go once the request is over the threshold."""
        return self.fold.plan(input)

    def knobs(self) -> dict[str, Any]:
        """The configuration, by keyword (the summarizer excluded)."""
        key = "trigger" if self.vendor == "anthropic" else "compact_threshold"
        return {key: self.threshold_tokens}

    def with_knobs(self, **changes: Any) -> ServerCompaction:
        """A copy with some knobs changed (validated)."""
        build = anthropic_compaction if self.vendor == "anthropic" else openai_compaction
        made = build(**{**self.knobs(), **changes}, summarizer=self.fold.summarizer)
        return made.renamed(self.name)

    def renamed(self, name: str) -> ServerCompaction:
        """A copy filed under another name."""
        return replace(self, fold=replace(self.fold, name=name))


def _compaction(
    vendor: str, name: str, knob: str, threshold: int, summarizer: Summarizer | None
) -> ServerCompaction:
    if summarizer is None:
        summarizer = extractive_summarizer
    if not callable(summarizer):
        raise WindowConfigError(
            f"{name.replace('-', '_')}: summarizer must be a callable taking the messages to "
            f"fold and returning summary text (e.g. provider_summarizer(provider, model)); got "
            f"{summarizer!r}"
        )
    # A dataclass built directly: the fold keeps no turns (keep_recent_turns=0), which the
    # public summarize_oldest refuses for a strategy of yours — here it is the server's rule.
    fold = SummarizeOldest(
        RequestTrigger(threshold, knob),  # type: ignore[arg-type]
        summarizer,
        keep_recent_turns=0,
        name=name,
    )
    return ServerCompaction(fold, vendor)


def anthropic_compaction(
    trigger: int = 150_000, summarizer: Summarizer | None = None
) -> ServerCompaction:
    """The offline twin of Anthropic's ``compact_20260112`` edit: once the request in hand
    exceeds ``trigger`` input tokens, everything the law lets go is folded into one compaction
    frame (see the module docstring for where the law parts from the server).

    Args:
        trigger: Input tokens the request must exceed (default 150,000, the API's; at least
            50,000, as the API requires).
        summarizer: Writes the summary (default: the extractive summarizer, offline).

    Raises:
        WindowConfigError: a trigger below 50,000 or not a whole number; a summarizer that is
            not callable.
    """
    threshold = check_tokens(
        "anthropic_compaction", "trigger", trigger, ANTHROPIC_COMPACTION_MINIMUM
    )
    return _compaction("anthropic", "anthropic-compaction", "trigger", threshold, summarizer)


def openai_compaction(
    compact_threshold: int, summarizer: Summarizer | None = None
) -> ServerCompaction:
    """The offline twin of the Responses API's server-side compaction
    (``context_management=[{"type": "compaction", "compact_threshold": N}]``): once the request
    in hand exceeds ``compact_threshold`` tokens, everything the law lets go is folded into one
    compaction frame. The real item is encrypted; this frame holds ``summarizer``'s text.

    Args:
        compact_threshold: Tokens the request must exceed (the API has no default: give one).
        summarizer: Writes the summary (default: the extractive summarizer, offline).

    Raises:
        WindowConfigError: a threshold that is not a whole number >= 1; a summarizer that is
            not callable.
    """
    threshold = check_tokens("openai_compaction", "compact_threshold", compact_threshold, 1)
    return _compaction("openai", "openai-compaction", "compact_threshold", threshold, summarizer)
