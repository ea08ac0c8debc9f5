"""Evidence at scale: importing a long OpenAI transcript and running ``evidence_frame`` on it,
at growing lengths, to check both stay linear in the run's length."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from typing import Any

from bench._common import Section, verdict
from footprint_lab import bulk_work
from footprint_lab.importers import from_openai
from footprint_lab.lab.evidence import evidence_frame, no_policy

SIZES = (10_000, 100_000, 200_000)
"""Messages per run in the full bench."""

LOOKBACK = 3
"""Each call's argument repeats the id a tool result gave this many rounds earlier."""

REPEATS = 2
"""Measurements per size; the best is shown (load that comes and goes only slows a run)."""

TEN_X = 11.0
"""The corpus issue's target, with margin: a 10x step in messages costs evidence at most this
many times as much (stricter than the 1.2x-per-growth linear limit)."""


def openai_transcript(n_messages: int) -> list[dict[str, Any]]:
    """An OpenAI Chat Completions transcript of about ``n_messages`` messages: a system prompt,
    one request, then tool rounds (a call, its result) and a final answer. Every call after the
    first few takes its argument from an earlier tool result, so every one is a dependent call
    and its evidence is checked against the window it was sent from."""
    rounds = max(1, (n_messages - 3) // 2)
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "You manage reservations."},
        {"role": "user", "content": "Check my bookings, user_abcde."},
    ]
    for i in range(rounds):
        ref = f"RES{max(0, i - LOOKBACK):07d}"
        # A short page number stays under the evidence minimum at every size, so every size
        # does the same work per message (a 5-digit page would start counting at 10k).
        arguments = json.dumps({"reservation_id": ref, "page": i % 50})
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": "get_reservation", "arguments": arguments},
                    }
                ],
            }
        )
        out.append(
            {
                "role": "tool",
                "tool_call_id": f"call_{i}",
                "name": "get_reservation",
                "content": f"reservation RES{i:07d}: flight FL{i % 9973:04d}, seat {i % 30}A, "
                + "status confirmed; " * 4,
            }
        )
    out.append({"role": "assistant", "content": "All checked."})
    return out


class _FullCollections:
    """Seconds the collector spent in full (generation 2) collections while active."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Seconds ``fn`` took inside ``bulk_work``, seconds of full collections within it (none
    while it holds), and its value."""
    # From a collected heap, as a user doing bulk work runs it: inside bulk_work, the
    # collector paused (the README says why).
    gc.collect()
    full = _FullCollections()
    gc.callbacks.append(full)
    try:
        start = time.perf_counter()
        with bulk_work():
            value = fn()
        elapsed = time.perf_counter() - start
    finally:
        gc.callbacks.remove(full)
    return elapsed, full.seconds, value


def run(sizes: tuple[int, ...] = SIZES) -> Section:
    """Time the import and the evidence analysis at each size; judge each growth step."""
    section = Section(
        "7. Evidence at scale",
        "One synthetic OpenAI transcript per size (a request, then tool rounds whose every call "
        f"repeats an id a tool result gave {LOOKBACK} rounds earlier): "
        "`footprint_lab.importers.from_openai`, then `evidence_frame` with no window "
        "management — the case where windows grow with the run, so any per-call work on the "
        f"window is quadratic. The best of {REPEATS} measurements per size, in one process, "
        "inside `bulk_work()` (the collector paused, as the README advises for bulk work). "
        "Target: "
        "linear, i.e. each step costs at most 1.2x its growth in messages (<= 12x for 10x, "
        "<= 2.4x for 2x).",
        [
            "messages",
            "import (s)",
            "evidence_frame (s)",
            "of which full GC (s)",
            "evidence us/msg",
            "import ratio",
            "evidence ratio",
            "limit",
            "linear",
        ],
    )
    previous: tuple[int, float, float] | None = None
    ten_x: list[str] = []
    for n in sizes:
        transcript = openai_transcript(n)
        messages = len(transcript)
        imported = analysed = collecting = float("inf")
        for _ in range(REPEATS):
            seconds, _, run_ = _timed(lambda t=transcript: from_openai(t))
            imported = min(imported, seconds)
            seconds, full, frame = _timed(
                lambda r=run_: evidence_frame([r], [no_policy()], progress=False)
            )
            if seconds < analysed:
                analysed, collecting = seconds, full
            del run_
        # The input dicts are the caller's, not the analysis's: dropped before the next size.
        del transcript
        expected = max(1, (n - 3) // 2) - 1  # every call but the first depends on a result
        if int(frame["dependent_calls"].iloc[0]) != expected:
            raise AssertionError(f"{n} messages: {frame['dependent_calls'].iloc[0]} dependent")
        row: list[Any] = [
            f"{messages:,}",
            imported,
            analysed,
            collecting,
            analysed * 1e6 / messages,
        ]
        if previous is None:
            row.extend(["-", "-", "-", "-"])
        else:
            limit = messages / previous[0] * 1.2
            import_ratio, evidence_ratio = imported / previous[1], analysed / previous[2]
            if messages / previous[0] > 9:
                ten_x.append(
                    f"{previous[0]:,} to {messages:,} messages: evidence {evidence_ratio:.2f}x "
                    f"(target <= {TEN_X:g}x: {verdict(evidence_ratio <= TEN_X)})"
                )
            row.extend(
                [
                    import_ratio,
                    evidence_ratio,
                    f"<= {limit:.1f}",
                    f"import {verdict(import_ratio <= limit)}, "
                    f"evidence {verdict(evidence_ratio <= limit)}",
                ]
            )
        section.rows.append(row)
        previous = (messages, imported, analysed)
        del frame
    if ten_x:
        section.notes.append(
            "The corpus issue's stricter target, with margin, for a 10x step: "
            + "; ".join(ten_x)
            + "."
        )
    section.notes.extend(
        [
            "Ratios are to the row above (e.g. 100k/10k, 200k/100k); evidence_frame replays the "
            "run and checks every dependent call, every window's wire shape and its request.",
            "Full GC: time in CPython's generation-2 collections during evidence_frame (none "
            "inside bulk_work). Without it each walks the whole heap, and they come more often "
            "once the run, not the interpreter's own objects, dominates the heap: part of a "
            "small-to-large ratio would be the collector's.",
        ]
    )
    return section
