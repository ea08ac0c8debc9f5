"""Boundary cost scaling: ``apply_window`` with every shipped strategy on tool-loop windows,
from a thousand messages to a million, and again in a heap holding a gigabyte of other data."""

from __future__ import annotations

import gc
import resource
import time
from collections.abc import Sequence
from typing import Any

from bench._common import Section, load_words, median_seconds, tool_loop, verdict
from bench.peers import our_strategies
from footprint_lab import Message, apply_window
from footprint_lab.window import Window

HEAP_COLUMN = "in a full heap: ratio last/prev"


def run(sizes: tuple[int, ...], repeat: int, largest: int | None, ballast_mb: int = 0) -> Section:
    """Per-message cost at each size, the largest/middle ratio (also in a heap holding
    ``ballast_mb`` of other objects), and one run at ``largest``."""
    section = Section(
        "1. Boundary cost scaling",
        "`apply_window` on a tool-loop window (request + call/result pairs, 7 tools, every "
        "guard, pin and check of the law on), given as a `Window` (its facts computed once, "
        "not timed) and as a bare list (the facts computed inside the call). Median of "
        "repeated runs, GC on. Targets: linear (the largest size costs at most 11x the next "
        "one down, as a `Window`, and so again in a heap holding other objects: 1 GB in "
        "`make bench`), "
        "under 2 us per message, and a "
        f"{largest or sizes[-1]:,}-message window completes.",
        [
            "strategy",
            *(f"{n:,} msgs (us/msg)" for n in sizes),
            "ratio last/prev",
            f"{largest:,} msgs (s)" if largest else "largest (s)",
            f"from a list: {sizes[-1]:,} msgs (us/msg)",
            "from a list: ratio last/prev",
            HEAP_COLUMN,
            "targets",
        ],
    )
    windows = {n: tool_loop(n) for n in sizes}
    prepared = {n: Window(windows[n]) for n in sizes}
    scale = sizes[-1] / sizes[-2] if len(sizes) > 1 else 1.0
    for label, (strategy, facts) in our_strategies(6).items():

        def visit(window: Sequence[Message], strategy: Any = strategy, facts: Any = facts) -> None:
            apply_window(strategy, window, iteration=9, request="the request", **facts)

        totals = [median_seconds(lambda n=n: visit(prepared[n]), repeat) for n in sizes]
        listed = [median_seconds(lambda n=n: visit(windows[n]), repeat) for n in sizes[-2:]]
        ratio = totals[-1] / totals[-2] if len(totals) > 1 else 1.0
        list_ratio = listed[-1] / listed[-2] if len(listed) > 1 else 1.0
        per_message = [t * 1e6 / n for t, n in zip(totals, sizes, strict=True)]
        section.rows.append(
            [
                label,
                *per_message,
                ratio,
                "-",
                listed[-1] * 1e6 / sizes[-1],
                list_ratio,
                "-",
                f"linear {verdict(ratio <= scale * 1.1)}, <2us {verdict(max(per_message) < 2.0)}",
            ]
        )
    section.notes.append(
        "From a list every call reads every message object once more, and a window of "
        f"{sizes[-1]:,} messages no longer fits in the processor's caches: the reading, pure "
        "C-level passes (the same with the collector off), costs more per message than at "
        f"{sizes[-2]:,}, where the repeated runs find the messages cached. A `Window` reads "
        "them once, when it is built; its visits touch only its flat lists."
    )
    if ballast_mb:
        _in_a_full_heap(section, prepared, sizes, repeat, ballast_mb, scale)
    if largest:
        huge = Window(tool_loop(largest))
        for row, (strategy, facts) in zip(section.rows, our_strategies(6).values(), strict=True):
            start = time.perf_counter()
            apply_window(strategy, huge, iteration=9, request="the request", **facts)
            row[len(sizes) + 2] = time.perf_counter() - start  # type: ignore[index]
        section.notes.append(
            f"The {largest:,}-message window completes with every strategy (one run each, GC on)."
        )
    return section


def _ballast(megabytes: int) -> tuple[list[Any], float]:
    """Objects the collector must walk and nothing here uses (small dicts, each holding a
    list: containers, as an application's data is), about ``megabytes`` of them; returns
    them and the megabytes the process grew by."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    held = [{"row": i, "cells": [i, -i]} for i in range(megabytes * 1_000_000 // 300)]
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    return held, grown


def _in_a_full_heap(
    section: Section,
    prepared: dict[int, Window],
    sizes: tuple[int, ...],
    repeat: int,
    megabytes: int,
    scale: float,
) -> None:
    """The last two sizes again, every strategy, with ``megabytes`` of other objects in the
    heap and the collector on: a visit's allocations trigger collections, and a full one walks
    the whole heap; the ratio must stay linear there too."""
    held, grown = _ballast(megabytes)
    gc.collect()  # the ballast settles in the oldest generation, as long-lived data does
    column = list(section.header).index(HEAP_COLUMN)
    try:
        for row, (strategy, facts) in zip(section.rows, our_strategies(6).values(), strict=True):

            def visit(n: int, strategy: Any = strategy, facts: Any = facts) -> None:
                apply_window(strategy, prepared[n], iteration=9, request="the request", **facts)

            small, big = (median_seconds(lambda n=n: visit(n), repeat) for n in sizes[-2:])
            row[column] = big / small  # type: ignore[index]
            row[-1] = f"{row[-1]}, in a full heap {verdict(big / small <= scale * 1.1)}"  # type: ignore[index]
    finally:
        del held
    section.notes.append(
        f"In a full heap: {grown:,.0f} MB of small dicts and lists (the collector's work) "
        f"allocated before the last two sizes were timed again, GC on; {load_words()}."
    )
