"""What tokens cost: a model's prices, the built-in table of list prices, and the rules of each
provider's prompt cache.

Layer: bottom (beside ``usage``; pure pydantic, no pandas). :mod:`footprint_lab.lab.costs` turns a
run's calls into priced rows with these; the lab's evidence grid prices its configurations with
them too.

The built-in table (:data:`PRICES`) holds the published list prices, in US dollars per million
tokens, of the models the providers name, as of :data:`PRICES_AS_OF`. Prices change: check the
provider's pricing page, and pass your own :class:`Pricing` (or a mapping of model to
:class:`Pricing`) wherever one is taken. OpenAI's automatic prompt cache charges nothing extra
to write, so its ``cache_write_per_mtok`` is the input price; Anthropic bills a cache write
(5-minute TTL) at 1.25x the input price and a cache read at 0.1x.

**Cache rules.** What is billed at the cached price depends on a rule (:data:`CACHE_RULES`),
chosen once for every row compared (``cost_frame(..., cache=...)``, ``evidence_frame(...,
cache=...)``):

* ``"reported"`` — the cached and written tokens the provider reported; a row nobody reported
  (a replay, an estimate) has none.
* ``"prefix"`` — the common prefix with the previous request, under the provider's own rules
  (:data:`PREFIX_CACHE_RULES`, applied by :func:`prefix_cache`): the provider named by the
  price (:attr:`Pricing.provider`; every entry of the table names its own), else by the run.
  **OpenAI** caches automatically, only a prompt of at least
  :data:`OPENAI_CACHE_MIN_TOKENS` (1,024) tokens, and reads hits in steps of
  :data:`OPENAI_CACHE_STEP_TOKENS` (128): a shared prefix under 1,024 tokens is not cached, a
  longer one is floored to a multiple of 128; nothing is written (writing is free).
  **Anthropic** caches at the breakpoints the caller sets (``cache_control``), reads at the
  cached price and writes at the cache-write price; modelled as a breakpoint at the end of
  every request: the prefix shared with the previous request is read, the rest of the request
  written (minimum cacheable lengths and the TTL are not modelled). **Any other provider**: the
  shared prefix is read, nothing written.
* ``"none"`` — nothing cached: every input token at the full input price.

The rules follow the providers' documentation as of :data:`PRICES_AS_OF` (OpenAI: "Prompt
caching", cache hits for prompts of 1,024 tokens or more, in increments of 128 tokens;
Anthropic: "Prompt caching", cache writes and reads per ``cache_control`` breakpoint).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict, Field

from footprint_lab.usage import Usage

__all__ = [
    "ANTHROPIC",
    "CACHE_RULES",
    "DEFAULT_TOKENS_PER_CHAR",
    "MAX_PRICE_PER_MTOK",
    "OPENAI",
    "OPENAI_CACHE_MIN_TOKENS",
    "OPENAI_CACHE_STEP_TOKENS",
    "PREFIX_CACHE_RULES",
    "PRICES",
    "PRICES_AS_OF",
    "CacheRule",
    "CostParts",
    "Pricing",
    "PricingError",
    "cache_provider",
    "check_cache",
    "estimate_ratio",
    "estimate_tokens",
    "prefix_cache",
    "pricing_for",
    "run_tokens_per_char",
    "shared_prefix_tokens",
    "source_tokens_per_char",
    "tokens_per_char",
]

PRICES_AS_OF = "2025-06-01"
"""When the built-in list prices were taken from the providers' pricing pages."""


class PricingError(ValueError):
    """No price is known for a model (pass ``pricing=``), or a price table is malformed."""


CacheRule = Literal["reported", "prefix", "none"]
"""How a priced row's input is split into cached, written and full-price tokens (see the module
docstring)."""

CACHE_RULES: tuple[CacheRule, ...] = get_args(CacheRule)
"""Every cache rule: ``"reported"``, ``"prefix"``, ``"none"``."""

OPENAI = "openai"
"""The provider name whose prefix-cache rules are OpenAI's."""
ANTHROPIC = "anthropic"
"""The provider name whose prefix-cache rules are Anthropic's."""

OPENAI_CACHE_MIN_TOKENS = 1024
"""OpenAI caches a prompt only from this many tokens: a shared prefix below it is not read."""
OPENAI_CACHE_STEP_TOKENS = 128
"""OpenAI's cache hits come in steps of this many tokens (a prefix is floored to a multiple)."""

PREFIX_CACHE_RULES: Mapping[str, str] = {
    OPENAI: (
        f"automatic; only from {OPENAI_CACHE_MIN_TOKENS:,} shared prefix tokens, read in steps of "
        f"{OPENAI_CACHE_STEP_TOKENS} (the prefix floored to a multiple); nothing written"
    ),
    ANTHROPIC: (
        "at the caller's cache breakpoints, modelled as one at the end of every request: the "
        "prefix shared with the previous request read, the rest of the request written"
    ),
    "other": "the prefix shared with the previous request read, nothing written",
}
"""What ``cache="prefix"`` bills at the cached (and cache-write) price, by provider."""


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


MAX_PRICE_PER_MTOK = 10_000.0
"""The highest price per million tokens a :class:`Pricing` takes: well above any model's
(the dearest list price in 2026 is a few hundred dollars); a larger one is a typo or a unit
slip (dollars per token given as per million), refused when the pricing is built."""

Price = Annotated[float, Field(ge=0, le=MAX_PRICE_PER_MTOK, allow_inf_nan=False, strict=True)]
"""A price in US dollars per million tokens: a number (an ``int`` or a ``float``, never a
string or a boolean), finite, from 0 to :data:`MAX_PRICE_PER_MTOK` (``"3"``, ``True``,
``inf``, ``NaN``, ``1e308`` and negative prices are refused when the :class:`Pricing` is
built, naming the field)."""


class Pricing(BaseModel):
    """A model's prices in US dollars per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_mtok: Price
    """Uncached input tokens."""
    cached_input_per_mtok: Price
    """Input tokens read from the provider's prefix cache."""
    cache_write_per_mtok: Price
    """Input tokens written to the cache (the input price where writing costs nothing extra)."""
    output_per_mtok: Price
    """Output tokens."""
    model: str | None = Field(default=None)
    """The model these prices are for, when they come from a table."""
    provider: str | None = Field(default=None)
    """Whose prompt-cache rules ``cache="prefix"`` applies (:data:`PREFIX_CACHE_RULES`):
    ``"openai"``, ``"anthropic"``, any other name for the plain prefix, or None (a custom
    price) for the rules of the provider the run names."""

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
        uncached, cached, written = self._input_parts(
            input_tokens, cached_tokens, cache_write_tokens
        )
        return CostParts(
            input_cost=uncached,
            cached_input_cost=cached,
            cache_write_cost=written,
            output_cost=output_tokens * self.output_per_mtok * _PER_TOKEN,
        )

    def input_cost(
        self, *, input_tokens: int, cached_tokens: int = 0, cache_write_tokens: int = 0
    ) -> float:
        """The input part of :meth:`cost` (uncached, cached and cache-write input), summed:
        ``cost(...).input_cost + .cached_input_cost + .cache_write_cost``, without building
        the parts (an evidence grid prices every call of every replay)."""
        uncached, cached, written = self._input_parts(
            input_tokens, cached_tokens, cache_write_tokens
        )
        return uncached + cached + written

    def _input_parts(
        self, input_tokens: int, cached_tokens: int, cache_write_tokens: int
    ) -> tuple[float, float, float]:
        uncached = max(0, input_tokens - cached_tokens - cache_write_tokens)
        return (
            uncached * self.input_per_mtok * _PER_TOKEN,
            cached_tokens * self.cached_input_per_mtok * _PER_TOKEN,
            cache_write_tokens * self.cache_write_per_mtok * _PER_TOKEN,
        )


_PER_TOKEN = 1e-6  # prices are per million tokens


def _openai(model: str, input_: float, cached: float, output: float) -> Pricing:
    return Pricing(
        model=model,
        provider=OPENAI,
        input_per_mtok=input_,
        cached_input_per_mtok=cached,
        cache_write_per_mtok=input_,
        output_per_mtok=output,
    )


def _anthropic(model: str, input_: float, output: float) -> Pricing:
    return Pricing(
        model=model,
        provider=ANTHROPIC,
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


DEFAULT_TOKENS_PER_CHAR = 0.25
"""The one token estimate's default ratio: input tokens per character where no call of a run
(or of its original) reported usage — a replay's token strategies, estimated cost rows and the
scripted provider's usage all use it (:func:`estimate_tokens`)."""


def estimate_tokens(chars: int, ratio: float = DEFAULT_TOKENS_PER_CHAR) -> int:
    """The one token estimate: ``chars`` characters at ``ratio`` tokens each, rounded up (0 for
    no characters). Every count nobody reported is this one."""
    return math.ceil(max(0, chars) * ratio)


def estimate_ratio(known: object) -> float:
    """The ratio an estimate uses: ``known`` (a run's own, :func:`source_tokens_per_char`) when
    it is a positive number, else :data:`DEFAULT_TOKENS_PER_CHAR`."""
    if isinstance(known, int | float) and not isinstance(known, bool) and known > 0:
        return float(known)
    return DEFAULT_TOKENS_PER_CHAR


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


class _SourcedRun(_Run, Protocol):
    @property
    def meta(self) -> Mapping[str, Any]: ...


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


def source_tokens_per_char(run: _SourcedRun) -> float | None:
    """The ratio a run's own reported usage shows (:func:`run_tokens_per_char`); for a replay,
    whose usage is its source's, the ratio its source showed (``origin.tokens_per_char``, as
    the replay recorded it). None when nothing was reported."""
    # A replay says so by its origin (read by its kind: this module sits below the agent).
    origin = getattr(run, "origin", None)
    if getattr(origin, "kind", None) == "replay":
        own = getattr(origin, "tokens_per_char", None)
        return float(own) if isinstance(own, int | float) and not isinstance(own, bool) else None
    return run_tokens_per_char(run)


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


def check_cache(value: Any) -> CacheRule | None:
    """Validate a ``cache=`` argument: one of :data:`CACHE_RULES`, or None (the caller's
    default).

    Raises:
        ValueError: anything else, naming the rules.
    """
    if value is None:
        return None
    for rule in CACHE_RULES:
        if value == rule:
            return rule
    rules = ", ".join(repr(r) for r in CACHE_RULES)
    raise ValueError(f"cache must be one of {rules} or None; got {value!r}")


def cache_provider(price: Pricing, run_provider: str | None) -> str | None:
    """Whose prefix-cache rules price a row: the price's :attr:`~Pricing.provider`, else the
    run's provider when it is one whose rules are known (``"openai"``, ``"anthropic"``), else
    None (the plain prefix)."""
    if price.provider is not None:
        return price.provider.lower()
    name = (run_provider or "").lower()
    return name if name in (OPENAI, ANTHROPIC) else None


def shared_prefix_tokens(
    input_tokens: int, request_chars: int, prefix_chars: int, ratio: float
) -> int:
    """How many of a request's ``input_tokens`` it shares with the previous request: all but
    its new tail — the characters after the common prefix of ``prefix_chars``, at ``ratio``
    tokens each (none when nothing is shared). Counting the tail, not the prefix, keeps what
    a provider counts but the request's characters do not show (tool definitions, the
    provider's own framing: they come first) in the shared part, and gives an estimated
    request (``input_tokens`` from its characters at the same ratio) the prefix's characters
    at the ratio, within a token."""
    if prefix_chars <= 0 or input_tokens <= 0:
        return 0
    tail = estimate_tokens(request_chars - prefix_chars, ratio)
    return max(0, input_tokens - tail)


def prefix_cache(input_tokens: int, prefix_tokens: int, provider: str | None) -> tuple[int, int]:
    """``(cached, written)`` input tokens of one request under ``cache="prefix"``: of
    ``input_tokens``, the ``prefix_tokens`` it shares with the previous request, under
    ``provider``'s rules (:data:`PREFIX_CACHE_RULES`; None or an unknown name: the plain
    prefix)."""
    shared = max(0, min(input_tokens, prefix_tokens))
    name = (provider or "").lower()
    if name == OPENAI:
        if shared < OPENAI_CACHE_MIN_TOKENS:
            return 0, 0
        return shared - shared % OPENAI_CACHE_STEP_TOKENS, 0
    if name == ANTHROPIC:
        return shared, max(0, input_tokens) - shared
    return shared, 0
