"""What each policy costs: the 50 tau-bench runs under every shipped policy family (slack,
``clear_tool_results`` with and without its inputs, pins on and off, an audited peer), through
``evidence_frame``: estimated input cost against no policy (the prefix cache counted), the share
of request characters a prefix cache could reuse, and the evidence lost."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench._common import Section
from footprint_lab import (
    audit,
    bulk_work,
    clear_tool_results,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from footprint_lab.auditing import keep_last_messages
from footprint_lab.importers import load_tau_bench
from footprint_lab.lab.evidence import evidence_frame, evidence_summary, no_policy
from footprint_lab.window.strategies.summarizers import extractive_summarizer

DATA = Path(__file__).resolve().parents[1] / "data" / "tau-bench"


def configurations(keeps: tuple[int, ...]) -> list[Any]:
    """The grid: sliding_window(k) with and without slack, token_budget, summarize_oldest,
    clear_tool_results with and without inputs, pins on and off, one audited peer."""
    configs: list[Any] = [no_policy()]
    for pins in (0, 2):
        for k in keeps:
            configs.append(
                {
                    "label": f"sliding-window k={k} keep_last_tool_results={pins}",
                    "strategy": sliding_window(k),
                    "keep_last_tool_results": pins,
                }
            )
        configs.append(
            {
                "label": f"sliding-window k={keeps[-1]} slack=4 keep_last_tool_results={pins}",
                "strategy": sliding_window(keeps[-1], slack_turns=4),
                "keep_last_tool_results": pins,
            }
        )
        for inputs in (False, True):
            configs.append(
                {
                    "label": (
                        f"clear-tool-results k=1 keep=1 inputs={inputs} "
                        f"keep_last_tool_results={pins}"
                    ),
                    "strategy": clear_tool_results(
                        keep_recent_turns=1, keep_results=1, clear_tool_inputs=inputs
                    ),
                    "keep_last_tool_results": pins,
                }
            )
        configs.append(
            {
                "label": (
                    f"clear-tool-results k=2 keep=3 at-least=4000 keep_last_tool_results={pins}"
                ),
                "strategy": clear_tool_results(
                    keep_recent_turns=2, keep_results=3, clear_at_least_chars=4000
                ),
                "keep_last_tool_results": pins,
            }
        )
    configs.append({"label": "token-budget 3000 k=2", "strategy": token_budget(3000, 2)})
    configs.append(
        {
            "label": "summarize-oldest 3000 k=2",
            "strategy": summarize_oldest(3000, extractive_summarizer, keep_recent_turns=2),
        }
    )
    configs.append({"label": "keep-last-6 (audited)", "strategy": audit(keep_last_messages(6))})
    return configs


def run(keeps: tuple[int, ...], limit: int | None = None) -> Section:
    """Time the grid in this process; tabulate each policy's cost, cache share and loss."""
    runs = load_tau_bench(DATA)[:limit]
    configs = configurations(keeps)
    start = time.perf_counter()
    with bulk_work():  # bulk work: the collector paused, as the README advises
        frame = evidence_frame(runs, configs, progress=False)
    elapsed = time.perf_counter() - start
    summary = evidence_summary(frame)
    section = Section(
        "8. What a policy costs",
        f"{len(runs)} tau-bench runs x {len(configs)} configurations through `evidence_frame` "
        f"in {elapsed:.2f} s ({elapsed * 1e3 / max(1, len(runs) * len(configs)):.1f} ms per run "
        "x configuration, inline). *Cost* = estimated input cost against no policy, the common "
        "prefix with the previous request priced as cached input at a tenth (tau-bench reports "
        "no usage: four characters a token); *cache share* = request characters a prefix "
        "cache could reuse; *lost* = dependent calls sent without their evidence; *pareto* = no "
        "other configuration is both cheaper and loses less. The token strategies never engage "
        "here: a replay measures the original run's reported usage, and tau-bench reports none.",
        ["configuration", "cost vs none", "cache share", "lost share", "chars saved", "pareto"],
    )
    for row in summary.sort_values("cost_ratio", kind="stable").itertuples(index=False):
        section.rows.append(
            [
                row.config,
                f"{row.cost_ratio:.1%}",
                f"{row.cache_share:.1%}",
                f"{row.lost_share:.1%}",
                f"{row.chars_saved_share:.1%}",
                "yes" if row.cost_pareto else "",
            ]
        )
    section.notes.append(beats_every_sliding_window(summary))
    return section


def beats_every_sliding_window(summary: Any) -> str:
    """Whether some non-sliding configuration beats every plain ``sliding_window(k)`` (no slack)
    on both estimated cost and evidence loss, and which."""
    plain = summary[
        summary["config"].str.startswith("sliding-window")
        & ~summary["config"].str.contains("slack")
    ]
    others = summary[~summary["config"].isin(plain["config"])]
    others = others[others["config"] != "no policy"]
    winners = [
        row.config
        for row in others.itertuples(index=False)
        if all(
            (row.cost_ratio < p.cost_ratio and row.lost_share <= p.lost_share)
            or (row.cost_ratio <= p.cost_ratio and row.lost_share < p.lost_share)
            for p in plain.itertuples(index=False)
        )
    ]
    if winners:
        return (
            "Beats every plain sliding_window(k) on both estimated cost and evidence loss: "
            + ", ".join(winners)
            + "."
        )
    return (
        "No configuration beats every plain sliding_window(k) on both estimated cost and "
        "evidence loss."
    )
