"""``footprint-lab cost FILE``: what each call of a run cost, one row per call of
:func:`footprint_lab.lab.costs.cost_frame`, and the total. Layer: top (the CLI).

Each run is priced at the built-in list price of its own model (:data:`footprint_lab.pricing.
PRICES`, longest prefix as :func:`~footprint_lab.pricing.pricing_for` matches), or of the model
``--pricing MODEL`` names; a run whose model has no price still gets its token rows, with no
cost, and a line saying how to price it. ``--cache`` picks the cache rule (default: the one
``cost_frame`` picks, said in the output).

Exit status: 0 when the rows are printed; 2 for bad input — a file that does not load, a
``--run`` not in it, a ``--pricing`` model the table does not know (the error lists the ones
it does). ``--json`` prints one JSON document instead.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from footprint_lab.cli._files import load_or_say, run_label, say
from footprint_lab.cli._text import wrap

if TYPE_CHECKING:
    import pandas as pd

    from footprint_lab.agent import Run
    from footprint_lab.pricing import CacheRule, Pricing

__all__ = [
    "CACHE_CHOICES",
    "COST_DESCRIPTION",
    "add_cost_command",
    "add_pricing_option",
    "cost_file",
    "money",
    "priced_frame",
    "pricing_or_say",
]

CACHE_CHOICES = ("reported", "prefix", "none")
"""The cache rules ``--cache`` takes (:data:`footprint_lab.pricing.CACHE_RULES`)."""

COST_DESCRIPTION = """\
Print what each call of the file's runs cost: one row per call (its iteration, input tokens,
the input tokens read from the prompt cache, output tokens, the call's cost and whether its
tokens were estimated from characters because no provider reported them) and a total, as
footprint_lab.costs.cost_frame prices them. Each run is priced at its own model's list price,
or at the one --pricing names; a run whose model has no price shows its tokens only. Exit
status 0; 2 when the file does not load, or --pricing names a model with no price.
"""
"""The ``--help`` text of ``footprint-lab cost``."""


def add_pricing_option(parser: Any) -> None:
    """``--pricing MODEL``, shared by ``cost`` and ``replay``."""
    parser.add_argument(
        "--pricing",
        metavar="MODEL",
        default=None,
        help="price every call at this model's list price (default: each run's own model)",
    )


def add_cost_command(sub: Any) -> None:
    """Register ``cost`` on the CLI's sub-parsers."""
    parser = sub.add_parser(
        "cost",
        help="what each call of a transcript cost, and the total",
        description=COST_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path, metavar="FILE", help="a transcript or a saved run")
    add_pricing_option(parser)
    parser.add_argument(
        "--cache",
        choices=CACHE_CHOICES,
        default=None,
        help=(
            "what counts as read from the prompt cache: as the provider reported, the prefix "
            "shared with the previous request, or nothing (default: reported when every call "
            "reported its cache tokens, else prefix)"
        ),
    )
    parser.add_argument(
        "--run", type=int, default=None, metavar="N", help="only this run of the file (from 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def pricing_or_say(model: str | None, command: str) -> tuple[bool, Pricing | None]:
    """The list price ``--pricing MODEL`` names (``(True, None)`` when none was given);
    ``(False, None)``, with the error said (listing the known models), when it has none."""
    from footprint_lab.pricing import PRICES, PricingError, pricing_for

    if model is None:
        return True, None
    try:
        return True, pricing_for(model)
    except PricingError:
        known = ", ".join(sorted(PRICES))
        say(command, f"--pricing {model!r}: no list price is known for it; the table has {known}")
        return False, None


def _key(model: str | None) -> str:
    """A model's name as :func:`~footprint_lab.pricing.pricing_for` matches it."""
    return (model or "").lower().rsplit("/", 1)[-1]


def priced_frame(
    runs: Mapping[str, Run], pricing: Pricing | None, cache: CacheRule | None
) -> tuple[pd.DataFrame, list[str]]:
    """:func:`~footprint_lab.lab.costs.cost_frame` of ``runs`` under one cache rule, priced at
    ``pricing``, else at each run's own model's list price; a model with no price is priced
    at zero and named in the list returned (its rows have tokens, no cost)."""
    from footprint_lab.lab.costs import cost_frame
    from footprint_lab.pricing import Pricing, PricingError, pricing_for

    if pricing is not None:
        return cost_frame(runs, pricing, cache=cache), []
    zero = Pricing(
        input_per_mtok=0, cached_input_per_mtok=0, cache_write_per_mtok=0, output_per_mtok=0
    )
    table: dict[str, Pricing] = {}
    unpriced: list[str] = []
    for run in runs.values():
        key = _key(run.model)
        if key in table:
            continue
        try:
            table[key] = pricing_for(run.model)
        except PricingError:
            table[key] = zero
            unpriced.append(run.model)
    return cost_frame(runs, table, cache=cache), unpriced


def money(value: float | None) -> str:
    """Dollars as the CLI prints them (``no price`` for None)."""
    return "no price" if value is None else f"${value:,.4f}"


_HEAD = ("iter", "input", "cached", "output", "cost", "estimated")


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[j]) for r in [_HEAD, *rows]) for j in range(len(_HEAD))]

    def line(cells: Sequence[str]) -> str:
        out = [c.rjust(w) for c, w in zip(cells[:-1], widths[:-1], strict=True)]
        return "  " + "  ".join([*out, cells[-1]]).rstrip()

    return [line(_HEAD), *(line(r) for r in rows)]


def _rule_words(rule: str) -> str:
    return {
        "reported": "cache rule: reported (cache reads and writes as the provider reported)",
        "prefix": (
            "cache rule: prefix (the prefix shared with the previous request is read from "
            "the cache, under the provider's rules)"
        ),
        "none": "cache rule: none (nothing cached: every input token at the full price)",
    }.get(rule, f"cache rule: {rule}")


def cost_file(
    path: Path,
    *,
    pricing: str | None = None,
    cache: CacheRule | None = None,
    run_index: int | None = None,
    as_json: bool = False,
) -> int:
    """Print every call's cost of the runs of ``path``; return the exit status (0, or 2 for
    bad input)."""
    from footprint_lab.cli._files import pick_run
    from footprint_lab.pricing import PRICES_AS_OF

    ok, price = pricing_or_say(pricing, "cost")
    if not ok:
        return 2
    runs = load_or_say(path, "cost")
    if runs is None:
        return 2
    if run_index is not None:
        picked = pick_run(runs, run_index, path, "cost")
        if picked is None:
            return 2
        chosen = {run_label(picked, run_index): picked}
    else:
        chosen = {run_label(run, i): run for i, run in enumerate(runs)}
    try:
        frame, unpriced = priced_frame(chosen, price, cache)
    except ValueError as exc:
        say("cost", f"{path}: {exc}")
        return 2
    rule = str(frame.attrs["cache"])
    records = frame.to_dict("records")
    report: list[dict[str, Any]] = []
    for label, run in chosen.items():
        rows = [r for r in records if r["label"] == label]
        priced = price is not None or run.model not in unpriced
        calls = [
            {
                "call": int(r["call"]),
                "iteration": int(r["iteration"]),
                "input_tokens": int(r["input_tokens"]),
                "cached_input_tokens": int(r["cached_input_tokens"]),
                "output_tokens": int(r["output_tokens"]),
                "total_cost": float(r["total_cost"]) if priced else None,
                "estimated": bool(r["estimated"]),
            }
            for r in rows
        ]
        report.append(
            {
                "run": label,
                "model": run.model,
                "priced_as": (str(rows[0]["priced_as"]) if rows else None) if priced else None,
                "calls": calls,
                "total_cost": sum(float(r["total_cost"]) for r in rows) if priced else None,
            }
        )
    every = [c for r in report for c in r["calls"]]
    costs = [r["total_cost"] for r in report if r["total_cost"] is not None]
    total = {
        "calls": len(every),
        "estimated_calls": sum(1 for c in every if c["estimated"]),
        "input_tokens": sum(c["input_tokens"] for c in every),
        "cached_input_tokens": sum(c["cached_input_tokens"] for c in every),
        "output_tokens": sum(c["output_tokens"] for c in every),
        "total_cost": sum(costs) if costs else None,
        "unpriced_runs": sum(1 for r in report if r["total_cost"] is None),
    }
    if as_json:
        document = {
            "file": str(path),
            "cache_rule": rule,
            "prices_as_of": PRICES_AS_OF,
            "runs": report,
            "total": total,
            "unpriced_models": unpriced,
        }
        print(json.dumps(document, ensure_ascii=False))
        return 0
    lines = [*wrap(str(path)), *wrap(_rule_words(rule), "  ", "    ")]
    for r in report:
        priced_as = r["priced_as"] or ("no price" if r["total_cost"] is None else "custom")
        head = f"{r['run']}: {r['model']}, priced as {priced_as}"
        lines += ["", *wrap(head)]
        if not r["calls"]:
            lines.append("  no calls")
            continue
        cells = [
            [
                str(c["iteration"]),
                f"{c['input_tokens']:,}",
                f"{c['cached_input_tokens']:,}",
                f"{c['output_tokens']:,}",
                money(c["total_cost"]),
                "yes" if c["estimated"] else "no",
            ]
            for c in r["calls"]
        ]
        lines += _table(cells)
    some_cost = money(total["total_cost"]) if total["total_cost"] is not None else "no price"
    summary = (
        f"total: {total['calls']} call(s), {total['input_tokens']:,} input tokens "
        f"({total['cached_input_tokens']:,} cached), {total['output_tokens']:,} output "
        f"tokens, {some_cost}"
    )
    if total["estimated_calls"]:
        summary += f" (estimated: {total['estimated_calls']} call(s) had no reported usage)"
    lines += ["", *wrap(summary)]
    if unpriced:
        names = ", ".join(repr(m) for m in unpriced)
        lines += wrap(
            f"no list price is known for {names} (prices as of {PRICES_AS_OF}): tokens only; "
            "pass --pricing MODEL to price them"
        )
    for line in lines:
        print(line)
    return 0
