"""Evidence analysis cost: the 50 tau-bench runs under 16 configurations."""

from __future__ import annotations

import time
from pathlib import Path

from bench._common import Section
from footprint_lab import replay, sliding_window
from footprint_lab.evidence import calls_of, dependencies, losses
from footprint_lab.importers import load_tau_bench

DATA = Path(__file__).resolve().parents[1] / "data" / "tau-bench"


def run(keeps: tuple[int, ...], pins: tuple[int, ...], limit: int | None = None) -> Section:
    """Replay every run under every configuration and find the lost evidence; report time."""
    runs = load_tau_bench(DATA)[:limit]
    start = time.perf_counter()
    lost_total = 0
    configs = 0
    for keep in keeps:
        for pin in pins:
            configs += 1
            for source in runs:
                replayed = replay(source, sliding_window(keep), keep_last_tool_results=pin)
                lost_total += calls_of(losses(replayed))
    elapsed = time.perf_counter() - start
    dependent = sum(calls_of(dependencies(r)) for r in runs)
    section = Section(
        "6. Evidence on real runs",
        f"{len(runs)} tau-bench GPT-4o airline runs x {configs} configurations "
        f"(sliding_window keep_recent_turns {keeps[0]}-{keeps[-1]} x keep_last_tool_results "
        f"{'/'.join(map(str, pins))}): replay, then find every dependent call whose evidence "
        "was not in its window. One process.",
        [
            "runs",
            "configurations",
            "dependent calls per run set",
            "lost (summed)",
            "seconds",
            "ms per run x config",
        ],
    )
    section.rows.append(
        [
            len(runs),
            configs,
            dependent,
            lost_total,
            elapsed,
            elapsed * 1e3 / max(1, len(runs) * configs),
        ]
    )
    return section
