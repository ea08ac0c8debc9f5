"""What tokens cost: a model's prices, and the built-in table of list prices.

Layer: bottom (beside ``usage``; pure pydantic, no pandas). :mod:`footprint_lab.costs` turns a
run's calls into priced rows with these; the lab's evidence grid prices its configurations with
them too.

The built-in table (:data:`PRICES`) holds the published list prices, in US dollars per million
tokens, of the models the providers name, as of :data:`PRICES_AS_OF`. Prices change: check the
provider's pricing page, and pass your own :class:`Pricing` (or a mapping of model to
:class:`Pricing`) wherever one is taken. OpenAI's automatic prompt cache charges nothing extra
to write, so its ``cache_write_per_mtok`` is the input price; Anthropic bills a cache write
(5-minute TTL) at 1.25x the input price and a cache read at 0.1x.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat

from footprint_lab.usage import Usage

__all__ = [
    "PRICES",
    "PRICES_AS_OF",
    "CostParts",
    "Pricing",
    "PricingError",
    "pricing_for",
    "run_tokens_per_char",
    "tokens_per_char",
]

PRICES_AS_OF = "2025-06-01"
"""When the built-in list prices were taken from the providers' pricing pages."""


class PricingError(ValueError):
    """No price is known for a model (pass ``pricing=``), or a price table is malformed."""


class CostParts(BaseModel):
    """One call's cost, part by part, in US dollars."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_cost: float
    """Uncached input tokens at the input price."""
    cached_input_cost: float
    """Input tokens read from the provider's prefix cache, at the cached price."""
    cache_write_cost: float
    """Input tokens written to the cache, at the cache-write price."""
    output_cost: float
    """Output tokens at the output price."""

    @property
    def total_cost(self) -> float:
        """The sum of the parts."""
        return self.input_cost + self.cached_input_cost + self.cache_write_cost + self.output_cost


class Pricing(BaseModel):
    """A model's prices in US dollars per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_mtok: NonNegativeFloat
    """Uncached input tokens."""
    cached_input_per_mtok: NonNegativeFloat
    """Input tokens read from the provider's prefix cache."""
    cache_write_per_mtok: NonNegativeFloat
    """Input tokens written to the cache (the input price where writing costs nothing extra)."""
    output_per_mtok: NonNegativeFloat
    """Output tokens."""
    model: str | None = Field(default=None)
    """The model these prices are for, when they come from a table."""

    def cost(
        self,
        *,
        input_tokens: int,
        cached_tokens: int = 0,
        cache_write_tokens: int = 0,
        output_tokens: int = 0,
    ) -> CostParts:
        """The cost of one call. ``input_tokens`` counts every input token, cached and
        written ones included (as :class:`~footprint_lab.usage.Usage` does)."""
        uncached = max(0, input_tokens - cached_tokens - cache_write_tokens)
        per = 1e-6
        return CostParts(
            input_cost=uncached * self.input_per_mtok * per,
            cached_input_cost=cached_tokens * self.cached_input_per_mtok * per,
            cache_write_cost=cache_write_tokens * self.cache_write_per_mtok * per,
            output_cost=output_tokens * self.output_per_mtok * per,
        )


def _openai(model: str, input_: float, cached: float, output: float) -> Pricing:
    return Pricing(
        model=model,
        input_per_mtok=input_,
        cached_input_per_mtok=cached,
        cache_write_per_mtok=input_,
        output_per_mtok=output,
    )


def _anthropic(model: str, input_: float, output: float) -> Pricing:
    return Pricing(
        model=model,
        input_per_mtok=input_,
        cached_input_per_mtok=round(input_ * 0.1, 6),
        cache_write_per_mtok=round(input_ * 1.25, 6),
        output_per_mtok=output,
    )


PRICES: Mapping[str, Pricing] = {
    p.model or "": p
    for p in (
        _openai("gpt-4o", 2.50, 1.25, 10.00),
        _openai("gpt-4o-mini", 0.15, 0.075, 0.60),
        _openai("gpt-4.1", 2.00, 0.50, 8.00),
        _openai("gpt-4.1-mini", 0.40, 0.10, 1.60),
        _openai("gpt-4.1-nano", 0.10, 0.025, 0.40),
        _openai("o3", 2.00, 0.50, 8.00),
        _openai("o4-mini", 1.10, 0.275, 4.40),
        _anthropic("claude-opus-4", 15.00, 75.00),
        _anthropic("claude-sonnet-4", 3.00, 15.00),
        _anthropic("claude-3-7-sonnet", 3.00, 15.00),
        _anthropic("claude-3-5-sonnet", 3.00, 15.00),
        _anthropic("claude-3-5-haiku", 0.80, 4.00),
        _anthropic("claude-haiku-4-5", 1.00, 5.00),
        _anthropic("claude-3-opus", 15.00, 75.00),
        _anthropic("claude-3-sonnet", 3.00, 15.00),
        _anthropic("claude-3-haiku", 0.25, 1.25),
    )
}
"""List prices (USD per million tokens) as of :data:`PRICES_AS_OF`, by model-name prefix."""


def pricing_for(model: str | None, table: Mapping[str, Pricing] | None = None) -> Pricing:
    """The prices of ``model``: the table entry whose name is the longest prefix of it (so
    ``gpt-4o-mini-2024-07-18`` is priced as ``gpt-4o-mini``, not ``gpt-4o``). A router's
    provider prefix (``openai/gpt-4o-mini``, ``anthropic/claude-...``) is read past.

    Raises:
        PricingError: no entry matches; the message says how to pass a price.
    """
    entries = PRICES if table is None else table
    name = (model or "").lower().rsplit("/", 1)[-1]
    best: str | None = None
    for key in entries:
        if name.startswith(key.lower()) and (best is None or len(key) > len(best)):
            best = key
    if best is None:
        known = ", ".join(sorted(entries)) or "none"
        raise PricingError(
            f"no price is known for model {model!r} (the table has: {known}); pass "
            "pricing=Pricing(input_per_mtok=..., cached_input_per_mtok=..., "
            "cache_write_per_mtok=..., output_per_mtok=...) or a {model: Pricing} mapping"
        )
    return entries[best]


def tokens_per_char(pairs: Iterable[tuple[int | None, int]]) -> float | None:
    """Input tokens per character, from (reported input tokens, request characters) pairs:
    the ratio a run's own reported usage shows. Pairs with no reported tokens are left out;
    None when none is left."""
    tokens = chars = 0
    for reported, size in pairs:
        if reported is None or reported <= 0 or size <= 0:
            continue
        tokens += reported
        chars += size
    return tokens / chars if chars else None


class _Call(Protocol):
    @property
    def usage(self) -> Usage | None: ...
    @property
    def chars(self) -> int: ...


class _Run(Protocol):
    @property
    def calls(self) -> Sequence[_Call]: ...
    @property
    def system(self) -> str | None: ...


def run_tokens_per_char(run: _Run) -> float | None:
    """:func:`tokens_per_char` of a run's calls: reported input tokens against the request's
    characters (the system prompt plus the window each call sent)."""
    system = len(run.system or "")
    return tokens_per_char(
        (
            call.usage.input_tokens if call.usage is not None and call.usage.reported else None,
            system + call.chars,
        )
        for call in run.calls
    )


def check_pricing(value: Any) -> Pricing | Mapping[str, Pricing] | None:
    """Validate a ``pricing=`` argument: a :class:`Pricing`, a mapping of model name to
    :class:`Pricing`, or None (the built-in table).

    Raises:
        PricingError: anything else, saying what is accepted.
    """
    if value is None or isinstance(value, Pricing):
        return value
    if isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, Pricing) for k, v in value.items()
    ):
        return value
    raise PricingError(
        "pricing must be a Pricing, a {model name: Pricing} mapping, or None for the built-in "
        f"table; got {type(value).__name__}"
    )
