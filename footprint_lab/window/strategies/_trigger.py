"""The token triggers: the last call's (``token_budget``, ``summarize_oldest``, ...) and the
request in hand's (the providers' own policies' twins, :class:`RequestTrigger`).

Layer: window core (see the law in ``footprint_lab.window``). In a live run the number is
counted, never guessed: it is the input tokens the provider reported for the last call, and
nothing else. A replay hands it the tokens of the window the replay sent — counted, scaled or
estimated, and the boundary says which (``Boundary.tokens_from``, copied into the record).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from footprint_lab.window.errors import CompactionUnmeasurableError, WindowConfigError
from footprint_lab.window.refusals import RemovalPlan
from footprint_lab.window.request_tokens import request_tokens
from footprint_lab.window.strategies.base import StrategyInput

DEFAULT_RESERVE_TOKENS = 32_768


@dataclass(frozen=True, slots=True)
class TokenTrigger:
    """Engage above an absolute threshold, or when measured + reserve reach a fraction of the
    model's context window."""

    threshold_tokens: int | None
    threshold_fraction: float | None
    reserve_tokens: int | None

    @classmethod
    def build(
        cls,
        strategy: str,
        threshold_tokens: Any,
        threshold_fraction: Any,
        reserve_tokens: Any,
    ) -> TokenTrigger:
        """Validate the configuration, raising ``WindowConfigError`` with the fix."""
        if (threshold_tokens is None) == (threshold_fraction is None):
            raise WindowConfigError(
                f"{strategy} needs exactly one of threshold_tokens= (an absolute input-token "
                "count, e.g. 120_000) or threshold_fraction= (a share of the model's context "
                f"window, e.g. 0.8); got threshold_tokens={threshold_tokens!r}, "
                f"threshold_fraction={threshold_fraction!r}"
            )
        if threshold_tokens is not None and (
            isinstance(threshold_tokens, bool)
            or not isinstance(threshold_tokens, int)
            or threshold_tokens < 1
        ):
            raise WindowConfigError(
                f"{strategy}: threshold_tokens must be a whole number >= 1, got "
                f"{threshold_tokens!r}"
            )
        if threshold_fraction is not None and (
            isinstance(threshold_fraction, bool)
            or not isinstance(threshold_fraction, int | float)
            or not 0 < threshold_fraction <= 1
        ):
            raise WindowConfigError(
                f"{strategy}: threshold_fraction must be a number in (0, 1], e.g. 0.8, got "
                f"{threshold_fraction!r}"
            )
        if reserve_tokens is not None:
            if threshold_fraction is None:
                raise WindowConfigError(
                    f"{strategy}: reserve_tokens= only applies with threshold_fraction=; "
                    "drop it or use a relative threshold"
                )
            if (
                isinstance(reserve_tokens, bool)
                or not isinstance(reserve_tokens, int)
                or reserve_tokens < 0
            ):
                raise WindowConfigError(
                    f"{strategy}: reserve_tokens must be a whole number >= 0, got "
                    f"{reserve_tokens!r}"
                )
        return cls(
            threshold_tokens,
            None if threshold_fraction is None else float(threshold_fraction),
            reserve_tokens,
        )

    def evaluate(self, strategy: str, inp: StrategyInput) -> dict[str, Any] | None:
        """The record facts when the strategy engages at this boundary, else None.

        Raises:
            CompactionUnmeasurableError: the provider reported zero input tokens.
        """
        measured = inp.measured_input_tokens
        if measured is None:
            if not inp.forced:
                return None  # before the first call there is nothing to measure
            return {"measured_tokens": None, "over_budget": None, **self._threshold_facts(inp)}
        if measured <= 0:
            provider = inp.provider_name or "unknown"
            raise CompactionUnmeasurableError(
                f"Compaction is counted, not guessed: provider '{provider}' reported "
                f"{measured} input and {inp.measured_output_tokens or 0} output tokens for the "
                f"last call, so the window cannot be measured against {self.describe()} of "
                f"'{strategy}'. Use a provider that reports usage (for an OpenAI-compatible "
                "server, one that honours stream_options={'include_usage': true}), or switch "
                "to sliding_window(keep_recent_turns=...), which needs no usage."
            )
        facts = self._threshold_facts(inp)
        over = measured > facts["threshold_tokens"]
        if not over and not inp.forced:
            return None
        return {"measured_tokens": measured, "over_budget": over, **facts}

    def describe(self) -> str:
        """The threshold in words, for error messages."""
        if self.threshold_tokens is not None:
            return f"threshold_tokens={self.threshold_tokens}"
        return f"threshold_fraction={self.threshold_fraction}"

    def _threshold_facts(self, inp: StrategyInput) -> dict[str, Any]:
        if self.threshold_tokens is not None:
            return {"threshold_tokens": self.threshold_tokens}
        assert self.threshold_fraction is not None
        if inp.context_window is None:
            raise WindowConfigError(
                f"threshold_fraction={self.threshold_fraction} needs the model's context "
                "window, and this provider does not report one: give the provider a "
                "context window or use threshold_tokens="
            )
        reserve = self.reserve_tokens
        if reserve is None:
            reserve = inp.max_output_tokens or DEFAULT_RESERVE_TOKENS
        # Engage when measured + reserve >= fraction * window, i.e. measured > this - 1.
        threshold = math.ceil(self.threshold_fraction * inp.context_window) - reserve - 1
        return {
            "threshold_tokens": max(threshold, 0),
            "threshold_fraction": self.threshold_fraction,
            "reserve_tokens": reserve,
            "context_window": inp.context_window,
        }

    def strategy_knobs(
        self, keep_recent_turns: int, changes: dict[str, Any], clear_at_least_chars: int = 0
    ) -> dict[str, Any]:
        """A token strategy's knobs with ``changes`` applied; a threshold of one kind given in
        ``changes`` replaces the other kind (``threshold_tokens`` vs a relative one)."""
        knobs = {**self.knobs(), "keep_recent_turns": keep_recent_turns}
        if clear_at_least_chars:
            knobs["clear_at_least_chars"] = clear_at_least_chars
        if "threshold_fraction" in changes:
            knobs.pop("threshold_tokens", None)
        if "threshold_tokens" in changes:
            knobs.pop("threshold_fraction", None)
            knobs.pop("reserve_tokens", None)
        return {**knobs, **changes}

    def knobs(self) -> dict[str, Any]:
        """The configured values, by keyword."""
        if self.threshold_tokens is not None:
            return {"threshold_tokens": self.threshold_tokens}
        return {
            "threshold_fraction": self.threshold_fraction,
            "reserve_tokens": self.reserve_tokens,
        }


def check_keep_recent_turns(strategy: str, value: Any) -> int:
    """Validate ``keep_recent_turns`` (a whole number >= 1)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise WindowConfigError(
            f"{strategy}: keep_recent_turns must be a whole number >= 1 (how many recent turns "
            f"the model reasons over), got {value!r}"
        )
    return value


def check_whole(strategy: str, knob: str, value: Any, least: int = 0) -> int:
    """Validate a whole-number knob (``>= least``; booleans refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise WindowConfigError(
            f"{strategy}: {knob} must be a whole number >= {least}, got {value!r}"
        )
    return value


def too_small(inp: StrategyInput, plan: RemovalPlan, clear_at_least_chars: int) -> bool:
    """Whether the plan's span takes fewer than ``clear_at_least_chars`` characters (never on
    a forced visit: a provider that refused the request needs whatever can go)."""
    if not clear_at_least_chars or plan.span is None or inp.forced:
        return False
    start, end = plan.span
    return inp.span_chars(start, end) < clear_at_least_chars


@dataclass(frozen=True, slots=True)
class RequestTrigger:
    """Engage when the request in hand holds more than ``threshold_tokens`` input tokens (a
    server-side policy's trigger: strictly over, as both vendors document "exceeds")."""

    threshold_tokens: int
    knob: str = "trigger"
    """The knob's name in the twin's own vocabulary (``trigger``, ``compact_threshold``)."""

    def evaluate(self, strategy: str, inp: StrategyInput) -> dict[str, Any] | None:
        """The record facts when the request is over the threshold (or the visit is forced),
        else None."""
        measured, source = request_tokens(inp.messages, inp.count_window, inp.window_chars)
        over = measured > self.threshold_tokens
        if not over and not inp.forced:
            return None
        return {
            "measured_tokens": measured,
            "tokens_from": source,
            "over_budget": over,
            "threshold_tokens": self.threshold_tokens,
            "measured_request": True,
        }

    def describe(self) -> str:
        """The threshold in words, for error messages."""
        return f"{self.knob}={self.threshold_tokens}"

    def knobs(self) -> dict[str, Any]:
        """The configured value, by keyword."""
        return {self.knob: self.threshold_tokens}


def check_tokens(strategy: str, knob: str, value: Any, least: int) -> int:
    """A whole number of tokens ``>= least`` (booleans refused), or a
    :class:`WindowConfigError` saying what to give."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise WindowConfigError(
            f"{strategy}: {knob} must be a whole number of input tokens >= {least:,}, got {value!r}"
        )
    return value
