"""Boundary cost scaling: apply_window with each strategy on tool-loop windows."""

from __future__ import annotations

from bench._common import Section, median_seconds, tool_loop, verdict
from footprint_lab import apply_window, sliding_window, summarize_oldest, token_budget


def run(sizes: tuple[int, ...], repeat: int) -> Section:
    """Per-message cost at each size, and the largest/middle ratio."""
    strategies = {
        "sliding_window(6)": (sliding_window(6), {}),
        "token_budget(10, 6)": (
            token_budget(10, keep_recent_turns=6),
            {"measured_input_tokens": 100},
        ),
        "summarize_oldest(10, 6)": (
            summarize_oldest(10, lambda span: "summary", keep_recent_turns=6),
            {"measured_input_tokens": 100},
        ),
    }
    section = Section(
        "1. Boundary cost scaling",
        "`apply_window` on a tool-loop window (request + call/result pairs, 7 tools, every "
        "guard and pin on). Median of repeated runs. Targets: linear (the largest size costs "
        "at most ~12x the next one down) and under 2 us per message.",
        ["strategy", *(f"{n:,} msgs (us/msg)" for n in sizes), "ratio last/prev", "targets"],
    )
    windows = {n: tool_loop(n) for n in sizes}
    for label, (strategy, kw) in strategies.items():
        per_message = []
        totals = []
        for n in sizes:
            seconds = median_seconds(
                lambda n=n, strategy=strategy, kw=kw: apply_window(
                    strategy, windows[n], iteration=9, request="the request", **kw
                ),
                repeat,
            )
            totals.append(seconds)
            per_message.append(seconds * 1e6 / n)
        ratio = totals[-1] / totals[-2] if len(totals) > 1 else 1.0
        scale = sizes[-1] / sizes[-2] if len(sizes) > 1 else 1.0
        linear = ratio <= scale * 1.2
        fast = max(per_message) < 2.0
        section.rows.append(
            [label, *per_message, ratio, f"linear {verdict(linear)}, <2us {verdict(fast)}"]
        )
    return section
