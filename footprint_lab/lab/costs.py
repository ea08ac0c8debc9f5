"""What each call cost: priced rows per LLM call, split into cached and uncached input.

Layer: lab (it captures runs into frames; ``footprint_lab.costs``, its old path, re-exports
it). The prices are :mod:`footprint_lab.pricing`'s (``Pricing``, the dated built-in table),
re-exported here.

Two kinds of row, never mixed up (the ``estimated`` column says which):

* **reported** — the provider reported the call's usage: input and output tokens as sent
  (input counts cached and written tokens too), and, under ``cache="reported"``,
  ``cache_read_tokens`` and ``cache_write_tokens`` as sent.
* **estimated** — nobody reported the tokens of the window this row prices: a
  :func:`~footprint_lab.replay` (its usage is the original run's, for the original window), a
  scripted run, or a call with no usage. Input tokens are the request's characters at the
  ratio the original run's own reported usage shows (``tokens_per_char``; 1/4 when no usage was
  ever reported); output tokens as reported for the reply (a replay's replies are the
  original's), else the reply's characters at the ratio.

**One cache rule for the whole frame.** How the input of every row is split into cached,
written and full-price tokens is one rule (``cache=``, the ``cache_rule`` column,
``frame.attrs["cache"]``), so an observed run and its replays are priced alike; only the split
changes, never a reported input total:

* ``"reported"`` — cache reads and writes as the provider reported them. A row with no
  reported usage (every replay and estimate) has nothing reported, so nothing cached: its whole
  input is at the full price, as under ``"none"``.
* ``"prefix"`` — the common prefix with the previous request (``prefix_chars``, the cache lens
  of the ``calls`` frame) under the provider's own rules, for reported and estimated rows
  alike: the row's input tokens less its new tail (the characters after the prefix, at the
  run's ``tokens_per_char``; :func:`~footprint_lab.pricing.shared_prefix_tokens`) are shared,
  and :data:`footprint_lab.pricing.PREFIX_CACHE_RULES` says what of them is read or written:
  OpenAI's automatic cache reads nothing below 1,024 shared tokens and reads in steps of 128;
  Anthropic's is modelled as a breakpoint at the end of every request — the shared prefix read
  at the cached price, the rest of the request written at the cache-write price; any other
  provider, the plain prefix read. The provider is the price's (every entry of the built-in
  table names its own), else the run's.
* ``"none"`` — nothing cached: every input token at the full input price.
* None (the default) — ``"reported"`` when every call of every run in the frame reported its
  usage *and* its cache tokens (a provider that reports them: the rows are priced as billed),
  else ``"prefix"``; decided once for the whole frame, never row by row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.lab.schema import build_frame, spec
from footprint_lab.pricing import (
    DEFAULT_TOKENS_PER_CHAR,
    PRICES,
    PRICES_AS_OF,
    CacheRule,
    CostParts,
    Pricing,
    PricingError,
    cache_provider,
    check_cache,
    check_pricing,
    estimate_ratio,
    estimate_tokens,
    prefix_cache,
    pricing_for,
    shared_prefix_tokens,
)

__all__ = [
    "COST_COLUMNS",
    "DEFAULT_TOKENS_PER_CHAR",
    "PRICES",
    "PRICES_AS_OF",
    "CacheRule",
    "CostParts",
    "Pricing",
    "PricingError",
    "cost_frame",
    "pricing_for",
]


COST_COLUMNS: dict[str, str] = {name: c.doc for name, c in spec("cost").columns.items()}
"""Every column of :func:`cost_frame`, with its meaning (the ``cost`` spec of
:mod:`footprint_lab.lab.schema`, which gives their dtypes too)."""

RunsOrFrames = Run | Frames | Sequence[Run | Frames] | Mapping[str, Run | Frames]


def _labelled(source: RunsOrFrames) -> list[tuple[str, Frames]]:
    if isinstance(source, (Run, Frames)):
        items: list[tuple[str, Run | Frames]] = [("run", source)]
    elif isinstance(source, Mapping):
        items = [(str(k), v) for k, v in source.items()]
    elif isinstance(source, Sequence) and not isinstance(source, (str, bytes)):
        items = [(f"run {i}", v) for i, v in enumerate(source)]
    else:
        raise TypeError(
            "cost_frame takes a Run, Frames, a list of them or a {label: run} mapping; got "
            f"{type(source).__name__}"
        )
    out: list[tuple[str, Frames]] = []
    for label, value in items:
        if isinstance(value, Run):
            frames = capture(value, label=label, membership="window")
        elif isinstance(value, Frames):
            frames = value
        else:
            raise TypeError(f"cost_frame: {label!r} is a {type(value).__name__}, not a Run")
        out.append((str(frames.info.get("label") or label), frames))
    return out


def _prices(pricing: Pricing | Mapping[str, Pricing] | None, model: str | None) -> Pricing:
    if isinstance(pricing, Pricing):
        return pricing
    return pricing_for(model, pricing)


def _count(value: Any) -> int:
    """A token count from a frame cell: 0 for <NA>."""
    return 0 if value is None or pd.isna(value) else int(value)


def _trusted(info: Mapping[str, Any]) -> bool:
    """Whether a run's reported usage is for the windows it sent: not a replay (its usage is
    the original window's), not a scripted provider (a guess from characters)."""
    return not info.get("counterfactual") and info.get("provider") != "scripted"


def _reports_cache(frames: Frames) -> bool:
    """Every call of the run reported its usage and its cache tokens (a run with no call
    counts as reporting: it adds no row)."""
    if not _trusted(frames.info):
        return len(frames.calls) == 0
    calls = frames.calls
    cache = calls["cache_read_tokens"].notna() | calls["cache_write_tokens"].notna()
    return bool((calls["reported"].fillna(False).astype(bool) & cache).all())


def _rule(cache: CacheRule | None, labelled: Sequence[tuple[str, Frames]]) -> CacheRule:
    """The one rule of the whole frame (see the module docstring)."""
    if cache is not None:
        return cache
    if any(len(f.calls) for _, f in labelled) and all(_reports_cache(f) for _, f in labelled):
        return "reported"
    return "prefix"


def _policy_steps(frames: Frames, cols: Mapping[str, list[Any]]) -> dict[int, tuple[int, int]]:
    """The tokens a provider's own server-side policy billed beside each call (a compaction's
    sampling step: the ``server_input_tokens`` / ``server_output_tokens`` of the observed
    record filed at the call's iteration), by row of ``calls``: the last call of the iteration,
    the one its reply came from."""
    records = frames.records
    if not len(records) or "server_input_tokens" not in records.columns:
        return {}
    steps: dict[int, tuple[int, int]] = {}
    reported = records[records["server_input_tokens"].notna()]
    for iteration, group in reported.groupby("iteration"):
        steps[_count(iteration)] = (
            int(group["server_input_tokens"].sum()),
            int(group["server_output_tokens"].fillna(0).sum()),
        )
    out: dict[int, tuple[int, int]] = {}
    iterations = cols["iteration"]
    for k in range(len(iterations) - 1, -1, -1):  # the last call of each iteration
        iteration = int(iterations[k])
        if iteration in steps:
            out[k] = steps.pop(iteration)
    return out


def _rows(
    label: str,
    frames: Frames,
    pricing: Pricing | Mapping[str, Pricing] | None,
    rule: CacheRule,
) -> list[dict[str, Any]]:
    info = frames.info
    model = info.get("model")
    price = _prices(pricing, model)
    provider = cache_provider(price, info.get("provider"))
    trusted = _trusted(info)
    ratio = estimate_ratio(info.get("tokens_per_char"))
    calls = frames.calls
    cols: dict[str, list[Any]] = {name: calls[name].tolist() for name in calls.columns}
    policy = _policy_steps(frames, cols)
    rows: list[dict[str, Any]] = []
    for k in range(len(calls)):
        reported = trusted and bool(cols["reported"][k])
        request_chars = _count(cols["request_chars"][k])
        prefix_chars = _count(cols["prefix_chars"][k])
        output = _count(cols["output_tokens"][k])
        if reported:
            input_tokens = _count(cols["input_tokens"][k])
        else:
            input_tokens = estimate_tokens(request_chars, ratio)
            if not output:  # nobody counted the reply either: its characters at the ratio
                output = estimate_tokens(_count(cols["reply_chars"][k]), ratio)
        if rule == "reported":  # nothing reported for an estimated row: nothing cached
            cached = _count(cols["cache_read_tokens"][k]) if reported else 0
            written = _count(cols["cache_write_tokens"][k]) if reported else 0
            if cached + written > input_tokens:
                raise ValueError(
                    f"cost_frame: run {label!r}, call {_count(cols['call'][k])}: the provider "
                    f"reported {cached} cached and {written} written input tokens of a prompt "
                    f"of {input_tokens}; cached tokens cannot exceed the prompt's (price it on "
                    "cache='prefix' or 'none', or mend the usage)"
                )
        elif rule == "prefix":
            shared = shared_prefix_tokens(input_tokens, request_chars, prefix_chars, ratio)
            cached, written = prefix_cache(input_tokens, shared, provider)
        else:
            cached = written = 0
        parts = price.cost(
            input_tokens=input_tokens,
            cached_tokens=cached,
            cache_write_tokens=written,
            output_tokens=output,
        )
        step_in, step_out = policy.get(k, (0, 0))
        step = price.cost(
            input_tokens=step_in, cached_tokens=0, cache_write_tokens=0, output_tokens=step_out
        ).total_cost
        rows.append(
            {
                "label": label,
                "call": _count(cols["call"][k]),
                "iteration": _count(cols["iteration"][k]),
                "model": model,
                "priced_as": price.model or "custom",
                "cache_rule": rule,
                "estimated": not reported,
                "input_tokens": input_tokens,
                "cached_input_tokens": cached,
                "cache_write_tokens": written,
                "uncached_input_tokens": max(0, input_tokens - cached - written),
                "output_tokens": output,
                "request_chars": request_chars,
                "prefix_chars": prefix_chars,
                "prefix_share": float(cols["prefix_share"][k]),
                "input_cost": parts.input_cost,
                "cached_input_cost": parts.cached_input_cost,
                "cache_write_cost": parts.cache_write_cost,
                "output_cost": parts.output_cost,
                "policy_input_tokens": step_in,
                "policy_output_tokens": step_out,
                "policy_cost": step,
                "total_cost": parts.total_cost + step,
            }
        )
    return rows


def cost_frame(
    runs_or_frames: RunsOrFrames,
    pricing: Pricing | Mapping[str, Pricing] | None = None,
    *,
    cache: CacheRule | None = None,
) -> pd.DataFrame:
    """One row per LLM call of every run: tokens (reported, or estimated and marked so), what
    the prompt cache reads and writes under one cache rule, and the price of each part (see
    the module docstring).

    Args:
        runs_or_frames: A run, its frames, a list of them, or a ``{label: run}`` mapping.
        pricing: One :class:`Pricing` for every run, a ``{model name: Pricing}`` mapping
            (longest-prefix match on each run's model), or None for the built-in table.
        cache: The cache rule for every row: ``"reported"`` (as the provider reported; nothing
            cached where nothing was reported), ``"prefix"`` (the shared prefix, under the
            provider's rules), ``"none"`` (nothing cached), or None: ``"reported"`` when every
            call of every run reported its usage and cache tokens, else ``"prefix"``. Price
            runs you compare in one call, so they share the rule.

    Returns:
        Columns :data:`COST_COLUMNS`, typed by the ``cost`` spec (nullable ``Int64``,
        ``string``, ``boolean``, ``float64``); ``frame.attrs["cache"]`` names the rule (also
        each row's ``cache_rule``).

    Raises:
        PricingError: a run's model has no price (the message says how to pass one).
        TypeError: ``runs_or_frames`` is not runs or frames.
        ValueError: ``cache`` is not a rule.
    """
    pricing = check_pricing(pricing)
    checked = check_cache(cache)
    labelled = _labelled(runs_or_frames)
    rule = _rule(checked, labelled)
    rows: list[dict[str, Any]] = []
    for label, frames in labelled:
        rows.extend(_rows(label, frames, pricing, rule))
    frame = build_frame("cost", {c: [row[c] for row in rows] for c in COST_COLUMNS})
    frame.attrs["cache"] = rule
    return frame
