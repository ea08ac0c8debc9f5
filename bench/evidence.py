"""Evidence analysis cost: the 50 tau-bench runs under 16 configurations, through the lab's
``evidence_frame`` (replay every run under every configuration, find the lost evidence)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from bench._common import Section, verdict
from footprint_lab import bulk_work, sliding_window
from footprint_lab.agent.replay import ReplaySource, replay
from footprint_lab.agent.transcript import transcript
from footprint_lab.importers import load_tau_bench
from footprint_lab.lab.evidence import evidence_frame, evidence_grid

DATA = Path(__file__).resolve().parents[1] / "data" / "tau-bench"

TARGET_MS = 0.5
"""Milliseconds per run x configuration, inline: the honest-speed issue's (#41) target, set by
a boundary that costs what changed (the corpus issue's 1.0 ms is retired)."""

REPEATS = 3
"""The grid is timed this many times (the median is reported), as the header says."""


def run(keeps: tuple[int, ...], pins: tuple[int, ...], limit: int | None = None) -> Section:
    """Time one full evidence analysis in this process; report what it found."""
    runs = load_tau_bench(DATA)[:limit]
    configs = evidence_grid(
        sliding_window, {"keep_recent_turns": list(keeps), "keep_last_tool_results": list(pins)}
    )
    timings = []
    for _ in range(REPEATS):  # each on runs loaded afresh: nothing a run computed carries over
        fresh = load_tau_bench(DATA)[:limit]
        start = time.perf_counter()
        with bulk_work():  # bulk work: the collector paused, as the README advises
            frame = evidence_frame(fresh, configs, progress=False)
        timings.append(time.perf_counter() - start)
    elapsed = statistics.median(timings)
    sources = [ReplaySource(run) for run in runs]  # each run read once, as the frame does
    start = time.perf_counter()
    with bulk_work():
        for config in configs:
            strategy = config.build()
            for source in sources:
                replay(source, strategy, config.keep_last_tool_results, events=False)
    replay_share = (time.perf_counter() - start) / elapsed
    per_config = frame.groupby("config", sort=False)[["dependent_calls", "lost_calls"]].sum()
    section = Section(
        "6. Evidence on real runs",
        f"{len(runs)} tau-bench GPT-4o airline runs x {len(configs)} configurations "
        f"(sliding_window keep_recent_turns {keeps[0]}-{keeps[-1]} x keep_last_tool_results "
        f"{'/'.join(map(str, pins))}) through `evidence_frame`: every run replayed under every "
        "configuration, every dependent call checked against the window it was sent from. One "
        f"process, inline; the median of {REPEATS} timings, each on the runs loaded afresh.",
        [
            "runs",
            "configurations",
            "rows",
            "dependent calls",
            "lost (fewest / most)",
            "seconds",
            "ms per run x config",
        ],
    )
    dependent = int(per_config["dependent_calls"].iloc[0])
    per_pair_ms = elapsed * 1e3 / max(1, len(runs) * len(configs))
    boundaries = max(1.0, float(frame["windows"].mean()))  # a call each, after its boundary
    longest = max(len(transcript(run)) for run in runs)
    section.rows.append(
        [
            len(runs),
            len(configs),
            len(frame),
            dependent,
            f"{int(per_config['lost_calls'].min())} / {int(per_config['lost_calls'].max())}",
            elapsed,
            per_pair_ms,
        ]
    )
    section.notes.append(
        f"{per_pair_ms:.2f} ms per run x configuration (target <= {TARGET_MS:g} ms: "
        f"{verdict(per_pair_ms <= TARGET_MS)}). The replays alone (`replay(..., "
        f"events=False)` of every pair, as the frame runs them) take {replay_share:.0%} of "
        f"it: each replays {boundaries:.1f} boundaries on average, on windows of at most "
        f"{longest} messages, so a boundary with its share of the row's measures costs "
        f"{per_pair_ms / boundaries:.3f} ms (the strategy's plan, the law's check of its "
        "result, the record and the ledger's commits)."
    )
    return section
