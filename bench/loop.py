"""Loop overhead: what the window stage adds to a scripted agent run.

The window stage's time is measured inside the same runs (the boundary function is wrapped
with a timer), so the ratio needs no second run. End-to-end times against an agent with no
strategy are reported too, with the caveat that without a strategy the window — and so every
request the scripted provider reads — grows without bound.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import footprint_lab.agent._loop as agent_module
from bench._common import Section, verdict
from footprint_lab import (
    Agent,
    Reply,
    ScriptedProvider,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)
from footprint_lab.scenarios import extractive_summarizer


@tool
def fetch(i: int) -> str:
    """A tool whose result is a few hundred characters."""
    return f"result {i}: " + "data " * 60


@dataclass
class StageClock:
    """Time inside the boundary, and the collector's pauses that landed there."""

    spent: list[float] = field(default_factory=list)
    """Each boundary's wall time."""
    gc_inside: float = 0.0
    """Seconds of garbage-collection pauses that started inside a boundary."""
    gc_total: float = 0.0
    """Seconds of every garbage-collection pause during the run."""

    @property
    def stage(self) -> float:
        """Boundary time without the collector's pauses: a full collection walks the whole
        heap, whatever code's allocation happened to trigger it, so it is the run's cost, not
        the boundary's (it is reported on its own)."""
        return sum(self.spent) - self.gc_inside


@contextmanager
def timed_window_stage() -> Iterator[StageClock]:
    """Wrap the agent's boundary call with a timer and watch the collector; yields the clock."""
    original = agent_module.aapply_boundary
    clock = StageClock()
    inside = [False]
    started = [0.0]

    async def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        inside[0] = True
        try:
            return await original(*args, **kwargs)
        finally:
            inside[0] = False
            clock.spent.append(time.perf_counter() - start)

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        pause = time.perf_counter() - started[0]
        clock.gc_total += pause
        if inside[0]:
            clock.gc_inside += pause

    agent_module.aapply_boundary = timed  # type: ignore[assignment]
    gc.callbacks.append(watch)
    try:
        yield clock
    finally:
        gc.callbacks.remove(watch)
        agent_module.aapply_boundary = original  # type: ignore[assignment]


def _run(iterations: int, strategy: Any) -> float:
    replies = [Reply.tool_call("fetch", i=i) for i in range(iterations - 1)] + [Reply.text("done")]
    provider = ScriptedProvider(replies, record_requests=False)
    builder = Agent.create(provider=provider, max_iterations=iterations).tool(fetch)
    if strategy is not None:
        builder = builder.window(strategy)
    agent = builder.build()
    gc.collect()  # earlier runs' garbage is not this run's cost
    start = time.perf_counter()
    run = agent.run("go")
    elapsed = time.perf_counter() - start
    assert run.status == "done", run.error
    return elapsed


def run(sizes: tuple[int, ...]) -> Section:
    """Window-stage share per strategy and size; end-to-end against no strategy."""
    strategies = {
        "sliding_window(6)": lambda: sliding_window(6),
        "token_budget(2000, 6)": lambda: token_budget(2_000, keep_recent_turns=6),
        "summarize_oldest(2000, 6)": lambda: summarize_oldest(
            2_000, extractive_summarizer, keep_recent_turns=6
        ),
    }
    section = Section(
        "3. Loop overhead",
        "A scripted agent run (one tool call per iteration, ~300-char results). *Window "
        "stage* = time inside the boundary (apply_window and its bookkeeping), measured in the "
        "same run, without the garbage collector's pauses that began there; *GC pauses* = every "
        "collector pause of the run (a full collection walks the whole heap, and which code's "
        "allocation triggers it is chance, so it counts with the rest of the iteration); *stage "
        "share* = window stage / (run - window stage); *vs none* = run time over the same agent "
        "with no strategy. Target: the window stage adds at most 25%.",
        [
            "strategy",
            "iterations",
            "run (s)",
            "window stage (s)",
            "GC pauses (s)",
            "stage share",
            "no strategy (s)",
            "vs none",
            "target (vs none)",
            "target (stage share)",
        ],
    )

    def repeats(n: int) -> int:
        # Short runs are noisy on a shared 2-core machine: take the median of three.
        return 3 if n <= 2_000 else 1

    baseline = {n: sorted(_run(n, None) for _ in range(repeats(n)))[repeats(n) // 2] for n in sizes}
    for label, make in strategies.items():
        _run(20, make())  # warm-up: first-use imports and caches stay out of the numbers
        for n in sizes:
            samples = []
            for _ in range(repeats(n)):
                with timed_window_stage() as clock:
                    total = _run(n, make())
                samples.append((total, clock.stage, clock.gc_total))
            total, stage, collector = sorted(samples)[len(samples) // 2]
            added = stage / max(total - stage, 1e-9)
            versus = total / baseline[n]
            section.rows.append(
                [
                    label,
                    n,
                    total,
                    stage,
                    collector,
                    f"{added:.1%}",
                    baseline[n],
                    f"{versus:.2f}x",
                    verdict(versus <= 1.25),
                    verdict(added <= 0.25),
                ]
            )
    section.notes.append(
        "Without a strategy every request carries the whole history, so the scripted "
        "provider's work grows each iteration: the no-strategy run is quadratic and slower "
        "than every managed run, which makes 'vs none' easy to meet. The stage share is the "
        "stricter reading: the rest of a scripted iteration costs well under 0.1 ms (no model, "
        "no network), so a boundary that files a record, a notice and eviction events every "
        "iteration (sliding_window here) is a large share of almost nothing. Against a real "
        "model call (hundreds of ms) the same boundary is far below 1%."
    )
    return section
