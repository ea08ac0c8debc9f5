"""Lab cost: capture a long run into frames, build every chart and the records table."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bench._common import Section, verdict
from footprint_lab import Agent, Reply, ScriptedProvider, bulk_work, sliding_window, tool
from footprint_lab.lab import capture, plots
from footprint_lab.lab.views import records_view
from footprint_lab.lab.widgets._html import records_html


@tool
def look(i: int) -> str:
    """A small tool result."""
    return f"seen {i}: " + "x" * 80


def long_run(iterations: int) -> Any:
    """A scripted run of ``iterations`` iterations under sliding_window(6)."""
    tools = [f"t{i % 5}" for i in range(iterations)]
    replies = [Reply.tool_call("look", i=i) for i in range(len(tools) - 1)] + [Reply.text("done")]
    agent = (
        Agent.create(
            provider=ScriptedProvider(replies, record_requests=False), max_iterations=iterations
        )
        .tool(look)
        .window(sliding_window(6))
        .build()
    )
    return agent.run("go")


def _time(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """The median wall seconds and the median CPU seconds of this thread of ``repeat`` calls."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        start, started = time.perf_counter(), time.thread_time()
        fn()
        cpu.append(time.thread_time() - started)
        wall.append(time.perf_counter() - start)
    return sorted(wall)[len(wall) // 2], sorted(cpu)[len(cpu) // 2]


def run(iterations: int, repeat: int) -> Section:
    """Seconds to capture and to build each chart; target under 1 s of CPU each."""
    section = Section(
        "5. Lab cost",
        f"A {iterations:,}-iteration scripted run under sliding_window(6): capture into frames, "
        "then every chart builder on those frames (median of repeated runs). Target: under 1 s "
        "of CPU each on this 2-core machine.",
        ["step", "seconds", "CPU seconds", "target (CPU)"],
    )
    run = long_run(iterations)
    frames = capture(run)
    steps: dict[str, Callable[[], Any]] = {
        "capture(run)": bulk_work()(lambda: capture(run)),  # bulk work: the collector paused
        "plots.window_size": lambda: plots.window_size(frames),
        "plots.window_map": lambda: plots.window_map(frames),
        "plots.pins_timeline": lambda: plots.pins_timeline(frames),
        "plots.refusals_by_reason": lambda: plots.refusals_by_reason(frames),
        "plots.compare": lambda: plots.compare({"a": frames, "b": frames}),
        "records_view (lists said briefly)": lambda: records_view(frames),
        "records_html (table + CSV download)": lambda: records_html(frames),
    }
    for label, fn in steps.items():
        seconds, cpu = _time(fn, repeat)
        section.rows.append([label, seconds, cpu, verdict(cpu < 1.0)])
    section.notes.append(
        "The target is judged on CPU time (the thread's, `time.thread_time`): each step is "
        "single-threaded, so on an idle machine its wall time is its CPU time; on a shared one "
        "the wall time adds the wait for a core."
    )
    section.notes.append(
        f"membership form used: {frames.membership_mode}; "
        f"{len(frames.membership):,} membership rows."
    )
    bare, shared = len(records_html(frames, csv=None)), len(records_html(frames))
    section.notes.append(
        f"records table HTML: {bare:,} characters, {shared:,} with its CSV download "
        f"({len(frames.records):,} records in the CSV; the table shows the first rows)."
    )
    return section
