"""``clear_tool_results``: replace old tool results by short placeholders, keeping every turn.

Layer: window core (see the law in ``footprint_lab.window``; the in-place move is planned by
:mod:`footprint_lab.window.clearing`). The policy family the field uses most — Anthropic's
``clear_tool_uses`` context edit, LangChain's ``ClearToolUsesEdit``, the OpenAI Agents SDK's
``ToolOutputTrimmer``, SWE-agent's observation masking: the conversation keeps its shape (every
call and its result stay paired), and only the bulk of old outputs stops being re-sent. Each
placeholder names the tool, the iteration and the strategy, and says to call the tool again;
the original stays in the ledger, named in the record's ``cleared_stage_ids``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies._trigger import (
    TokenTrigger,
    check_keep_recent_turns,
    check_whole,
)
from footprint_lab.window.strategies.base import StrategyInput, StrategyResult

__all__ = ["ClearToolResults", "clear_tool_results"]


@dataclass(frozen=True, slots=True)
class ClearToolResults:
    """Clear old tool results in place once triggered (every visit when no threshold)."""

    trigger: TokenTrigger | None
    keep_recent_turns: int = 2
    keep_results: int = 3
    clear_at_least_chars: int = 0
    exclude_tools: frozenset[str] = frozenset()
    clear_tool_inputs: bool = False
    name: str = "clear-tool-results"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        """Engage when triggered; clear what the refusal engine allows."""
        facts: dict[str, Any] = {}
        if self.trigger is not None:
            measured = self.trigger.evaluate(self.name, input)
            if measured is None:
                return None
            facts.update(measured)
        elif not input.holds_more_turns_than(self.keep_recent_turns) and not input.forced:
            return None
        plan = input.plan_clearing(
            self.name,
            self.keep_recent_turns,
            keep_results=self.keep_results,
            exclude_tools=self.exclude_tools,
            clear_tool_inputs=self.clear_tool_inputs,
        )
        return input.clear(
            self.name,
            plan,
            clear_at_least_chars=self.clear_at_least_chars,
            keep_results=self.keep_results,
            **facts,
        )

    def knobs(self) -> dict[str, Any]:
        """The configuration, by keyword."""
        trigger = self.trigger.knobs() if self.trigger is not None else {"threshold_tokens": None}
        return {
            **trigger,
            "keep_recent_turns": self.keep_recent_turns,
            "keep_results": self.keep_results,
            "clear_at_least_chars": self.clear_at_least_chars,
            "exclude_tools": tuple(sorted(self.exclude_tools)),
            "clear_tool_inputs": self.clear_tool_inputs,
        }

    def with_knobs(self, **changes: Any) -> ClearToolResults:
        """A copy with some knobs changed (validated)."""
        knobs = self.knobs()
        if "threshold_fraction" in changes and "threshold_tokens" not in changes:
            knobs.pop("threshold_tokens", None)
        if "threshold_tokens" in changes:
            knobs.pop("threshold_fraction", None)
            knobs.pop("reserve_tokens", None)
        return clear_tool_results(**{**knobs, **changes})

    def renamed(self, name: str) -> ClearToolResults:
        """A copy filed under another name."""
        return replace(self, name=name)


def clear_tool_results(
    threshold_tokens: int | None = None,
    keep_recent_turns: int = 2,
    keep_results: int = 3,
    clear_at_least_chars: int = 0,
    exclude_tools: tuple[str, ...] | list[str] | frozenset[str] = (),
    clear_tool_inputs: bool = False,
    *,
    threshold_fraction: float | None = None,
    reserve_tokens: int | None = None,
) -> ClearToolResults:
    """Replace the content of old tool results by short placeholders.

    Once triggered — the last call's reported input tokens over ``threshold_tokens`` (or
    ``threshold_fraction`` of the context window), or at every visit when no threshold is set —
    every tool result outside the keep window is replaced *in place* by a library-authored
    placeholder (``authored="cleared-result"``) that keeps its role, call id and tool name, so
    every pair stays whole. Pins, the request and unresolved calls refuse as for any strategy.

    Args:
        threshold_tokens: Engage above this many reported input tokens (None: every visit).
        keep_recent_turns: The last N turns are never touched (default 2).
        keep_results: The newest N tool results of the window stay (default 3).
        clear_at_least_chars: Do nothing unless at least this many characters would go, so the
            prompt's prefix is not rewritten for a trifle (default 0).
        exclude_tools: Tools whose results are never cleared.
        clear_tool_inputs: Also replace the arguments of the cleared results' calls.
        threshold_fraction: Instead of ``threshold_tokens``: a share of the context window.
        reserve_tokens: Output reserve for ``threshold_fraction``.

    Raises:
        WindowConfigError: a knob out of range or of the wrong type.
    """
    name = "clear_tool_results"
    trigger = None
    if threshold_tokens is not None or threshold_fraction is not None:
        trigger = TokenTrigger.build(name, threshold_tokens, threshold_fraction, reserve_tokens)
    elif reserve_tokens is not None:
        raise WindowConfigError(
            f"{name}: reserve_tokens= only applies with threshold_fraction=; drop it or set a "
            "relative threshold"
        )
    if isinstance(exclude_tools, str) or not all(isinstance(t, str) for t in exclude_tools):
        raise WindowConfigError(
            f"{name}: exclude_tools must be a list of tool names, e.g. exclude_tools=['search'], "
            f"got {exclude_tools!r}"
        )
    if not isinstance(clear_tool_inputs, bool):
        raise WindowConfigError(
            f"{name}: clear_tool_inputs must be True or False, got {clear_tool_inputs!r}"
        )
    return ClearToolResults(
        trigger,
        check_keep_recent_turns(name, keep_recent_turns),
        check_whole(name, "keep_results", keep_results, 0),
        check_whole(name, "clear_at_least_chars", clear_at_least_chars, 0),
        frozenset(exclude_tools),
        clear_tool_inputs,
    )
