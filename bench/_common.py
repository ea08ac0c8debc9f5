"""Shared benchmark helpers: medians, tool-loop histories, markdown tables."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from footprint_lab import Message, ToolCall


def median_seconds(fn: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``fn`` over ``repeat`` runs (one warm-up run first)."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(
    contenders: dict[str, Callable[[int], Any]], rounds: int, calls: int = 1
) -> dict[str, tuple[list[float], list[float]]]:
    """Each contender timed once per round, the contenders taking turns within a round (one
    warm-up round first), so a change in the machine's load falls on all of them alike. A
    contender is called with ``calls`` and makes that many calls its own best way (an async
    peer awaits them inside one running event loop); the time is divided by ``calls``.
    Returns, per contender, its wall times and the CPU times of the timed thread
    (``time.thread_time``) per call, one per round, in seconds."""
    for fn in contenders.values():
        fn(calls)
    out: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in contenders}
    for _ in range(rounds):
        for label, fn in contenders.items():
            cpu, wall = time.thread_time(), time.perf_counter()
            fn(calls)
            out[label][0].append((time.perf_counter() - wall) / calls)
            out[label][1].append((time.thread_time() - cpu) / calls)
    return out


def per_round_ratio(a: Sequence[float], b: Sequence[float]) -> float:
    """The median over rounds of ``a[i] / b[i]``: a ratio taken round by round, so both sides
    of each ratio ran under the same load."""
    return statistics.median(x / y for x, y in zip(a, b, strict=True) if y > 0)


def load_words() -> str:
    """The machine's load averages (1, 5, 15 minutes) and its cores, in words."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def tool_loop(n_messages: int, *, tools: int = 7, result_chars: int = 100) -> list[Message]:
    """A tool-loop window: the request, then call/result pairs, with stage ids."""
    window = [Message.user("the request", stage_id="seed#0")]
    i = 0
    while len(window) < n_messages:
        name = f"tool_{i % tools}"
        window.append(
            Message.assistant(
                "",
                tool_calls=[ToolCall(id=f"c{i}", name=name, arguments={"i": i})],
                stage_id=f"call-llm#{2 * i + 1}",
            )
        )
        window.append(
            Message.tool(f"c{i}", name, "x" * result_chars, stage_id=f"tool-calls#{2 * i + 2}")
        )
        i += 1
    return window


@dataclass
class Section:
    """One section of the results file."""

    title: str
    intro: str
    header: Sequence[str]
    rows: list[Sequence[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        """The section as markdown."""
        lines = [f"## {self.title}", "", self.intro, ""]
        lines.append("| " + " | ".join(self.header) + " |")
        lines.append("|" + "|".join("---" for _ in self.header) + "|")
        for row in self.rows:
            lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
        if self.notes:
            lines.append("")
            lines.extend(f"- {note}" for note in self.notes)
        lines.append("")
        return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value >= 100:
            return f"{value:,.0f}"
        if value >= 1:
            return f"{value:.2f}"
        return f"{value:.3f}"
    return str(value)


def verdict(ok: bool) -> str:
    """A target's outcome, in words."""
    return "met" if ok else "MISSED"
