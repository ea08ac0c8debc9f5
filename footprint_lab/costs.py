"""What each call cost: priced rows per LLM call, split into cached and uncached input.

Layer: above the lab (it captures runs into frames). The prices are
:mod:`footprint_lab.pricing`'s (``Pricing``, the dated built-in table), re-exported here.

Two kinds of row, never mixed up (the ``estimated`` column says which):

* **reported** — the provider reported the call's usage: input tokens (cached and written ones
  included), ``cache_read_tokens`` and ``cache_write_tokens`` as sent.
* **estimated** — nobody reported the tokens of the window this row prices: a
  :func:`~footprint_lab.replay` (its usage is the original run's, for the original window), a
  scripted run, or a call with no usage. Input tokens are the request's characters at the
  ratio the original run's own reported usage shows (``tokens_per_char``; 1/4 when no usage was
  ever reported), cached tokens the common prefix with the previous request (``prefix_chars``,
  the cache lens of the ``calls`` frame) at the same ratio, and no cache writes; output tokens
  as reported for the reply (a replay's replies are the original's), else the reply's
  characters at the ratio.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.pricing import (
    PRICES,
    PRICES_AS_OF,
    CostParts,
    Pricing,
    PricingError,
    check_pricing,
    pricing_for,
)

__all__ = [
    "COST_COLUMNS",
    "DEFAULT_TOKENS_PER_CHAR",
    "PRICES",
    "PRICES_AS_OF",
    "CostParts",
    "Pricing",
    "PricingError",
    "cost_frame",
    "pricing_for",
]

DEFAULT_TOKENS_PER_CHAR = 0.25
"""The ratio estimated rows use when no call of the run (or its original) reported usage."""

COST_COLUMNS: dict[str, str] = {
    "label": "The run's label.",
    "call": "Index in ``run.calls``.",
    "iteration": "The call's iteration.",
    "model": "The model the run names.",
    "priced_as": "The price table entry (or 'custom') that priced the row.",
    "estimated": "True when the tokens are estimated from characters, not reported.",
    "input_tokens": "Input tokens, cached and written ones included.",
    "cached_input_tokens": "Input tokens read from the prefix cache.",
    "cache_write_tokens": "Input tokens written to the cache.",
    "uncached_input_tokens": "Input tokens billed at the full input price.",
    "output_tokens": "Output tokens.",
    "request_chars": "Characters of the whole request (system prompt plus window).",
    "prefix_chars": "Common prefix with the previous request, in characters.",
    "prefix_share": "``prefix_chars / request_chars``.",
    "input_cost": "Uncached input, USD.",
    "cached_input_cost": "Cached input, USD.",
    "cache_write_cost": "Cache writes, USD.",
    "output_cost": "Output, USD.",
    "total_cost": "The sum, USD.",
}
"""Every column of :func:`cost_frame`, with its meaning."""

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


def _rows(
    label: str, frames: Frames, pricing: Pricing | Mapping[str, Pricing] | None
) -> list[dict[str, Any]]:
    info = frames.info
    model = info.get("model")
    price = _prices(pricing, model)
    # A replay's usage is the original window's, a scripted provider's a guess from characters.
    trusted = not info.get("counterfactual") and info.get("provider") != "scripted"
    ratio = info.get("tokens_per_char") or DEFAULT_TOKENS_PER_CHAR
    calls = frames.calls
    cols: dict[str, list[Any]] = {name: calls[name].tolist() for name in calls.columns}
    rows: list[dict[str, Any]] = []
    for k in range(len(calls)):
        reported = trusted and bool(cols["reported"][k])
        request_chars = _count(cols["request_chars"][k])
        prefix_chars = _count(cols["prefix_chars"][k])
        output = _count(cols["output_tokens"][k])
        if reported:
            input_tokens = _count(cols["input_tokens"][k])
            cached = _count(cols["cache_read_tokens"][k])
            written = _count(cols["cache_write_tokens"][k])
        else:
            input_tokens = math.ceil(request_chars * ratio)
            cached = min(input_tokens, math.floor(prefix_chars * ratio))
            written = 0
            if not output:  # nobody counted the reply either: its characters at the ratio
                output = math.ceil(_count(cols["reply_chars"][k]) * ratio)
        parts = price.cost(
            input_tokens=input_tokens,
            cached_tokens=cached,
            cache_write_tokens=written,
            output_tokens=output,
        )
        rows.append(
            {
                "label": label,
                "call": _count(cols["call"][k]),
                "iteration": _count(cols["iteration"][k]),
                "model": model,
                "priced_as": price.model or "custom",
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
                "total_cost": parts.total_cost,
            }
        )
    return rows


def cost_frame(
    runs_or_frames: RunsOrFrames, pricing: Pricing | Mapping[str, Pricing] | None = None
) -> pd.DataFrame:
    """One row per LLM call of every run: tokens (reported, or estimated and marked so), what
    the prefix cache could reuse, and the price of each part (see the module docstring).

    Args:
        runs_or_frames: A run, its frames, a list of them, or a ``{label: run}`` mapping.
        pricing: One :class:`Pricing` for every run, a ``{model name: Pricing}`` mapping
            (longest-prefix match on each run's model), or None for the built-in table.

    Raises:
        PricingError: a run's model has no price (the message says how to pass one).
        TypeError: ``runs_or_frames`` is not runs or frames.
    """
    pricing = check_pricing(pricing)
    rows: list[dict[str, Any]] = []
    for label, frames in _labelled(runs_or_frames):
        rows.extend(_rows(label, frames, pricing))
    frame = pd.DataFrame(rows, columns=list(COST_COLUMNS))
    ints = [
        c for c in COST_COLUMNS if c.endswith(("_tokens", "_chars")) or c in ("call", "iteration")
    ]
    return frame.astype({c: "int64" for c in ints} | {"estimated": "bool"})
