"""The Tuner on your own run: how long a slider move takes to replay and redraw."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

from bench._common import Section, verdict
from footprint_lab.importers import from_openai, load
from footprint_lab.lab import Tuner

DATA = Path(__file__).resolve().parents[1] / "data"
TAU_BENCH = DATA / "tau-bench" / "gpt-4o-airline-dev.json"
OPENHANDS = DATA / "transcripts" / "openhands" / "multi-swe-bench-example-1.jsonl"
TARGET_MS = 150.0
"""A slider move on a 200-call imported run redraws within this much CPU (median)."""


def chained_transcript(calls: int) -> list[dict[str, Any]]:
    """An OpenAI-format transcript of at least ``calls`` assistant turns: the tau-bench
    conversations of ``data/tau-bench`` one after another (the first one's system prompt
    kept, the others' dropped). No single real file here has 200 calls (the longest, an
    OpenHands run, has 23; a tau-bench conversation at most 30), so the 200-call run is real
    conversations, chained."""
    entries = json.loads(TAU_BENCH.read_text(encoding="utf-8"))
    messages: list[dict[str, Any]] = []
    for entry in entries:
        traj = entry["traj"]
        messages.extend(traj if not messages else [m for m in traj if m["role"] != "system"])
        if sum(1 for m in messages if m["role"] == "assistant") >= calls:
            return messages
    raise ValueError(f"{TAU_BENCH} holds fewer than {calls} assistant turns")


def _moves(tuner: Tuner, values: list[int]) -> tuple[list[float], list[float]]:
    """Move the keep_recent_turns slider through ``values``: each move's wall time (ms, the
    larger of the slider's set and the Tuner's own ``latency_ms``) and its CPU time (ms, this
    process), checking that each move redrew (a new setting was run)."""
    wall: list[float] = []
    cpu: list[float] = []
    for value in values:
        before = tuner.runs
        start, started = time.perf_counter(), time.process_time()
        tuner.sliders["keep_recent_turns"].value = value
        cpu.append((time.process_time() - started) * 1000)
        took = (time.perf_counter() - start) * 1000
        assert tuner.runs == before + 1 and tuner.latency_ms is not None
        wall.append(max(took, tuner.latency_ms))
    return wall, cpu


def run(calls: int = 200, moves: int = 7) -> Section:
    """Slider-move latency of the Tuner on imported runs; target 150 ms of CPU at 200 calls."""
    section = Section(
        "11. Tuner on your own run",
        f"A Tuner over an imported run under sliding_window: each move of keep_recent_turns "
        f"replays the run, captures it, prices it against no policy, finds the evidence it "
        f"lost and redraws both charts in place (median and worst of {moves} moves, after the "
        f"first draw). Target: under {TARGET_MS:.0f} ms of CPU a move at {calls} calls.",
        [
            "run",
            "calls",
            "messages",
            "first draw (s)",
            "move CPU median (ms)",
            "move wall median (ms)",
            "move wall max (ms)",
            "target (CPU)",
        ],
    )
    workloads = {
        f"tau-bench conversations chained ({calls}+ calls)": from_openai(chained_transcript(calls)),
        "OpenHands multi-swe-bench-example-1 (largest real file)": load(OPENHANDS)[0],
    }
    for label, imported in workloads.items():
        start = time.perf_counter()
        tuner = Tuner(imported, "sliding_window", frontier=False, keep_recent_turns=(1, 12))
        first = time.perf_counter() - start
        values = [(k % 11) + 2 for k in range(moves)]
        wall, cpu = _moves(tuner, values)
        median = statistics.median(cpu)
        target = verdict(median < TARGET_MS) if len(imported.calls) >= calls else "–"
        section.rows.append(
            [
                label,
                len(imported.calls),
                len(imported.ledger.messages),
                first,
                median,
                statistics.median(wall),
                max(wall),
                target,
            ]
        )
        tuner.close()
    section.notes.append(
        "The target is judged on CPU time: a move is single-threaded, so on an idle machine its "
        "wall time is its CPU time; on a machine shared with other work (this one is shared by "
        "several jobs) the wall time is longer by the wait for a core, and is shown beside it."
    )
    section.notes.append(
        "A move's wall time is the larger of the time setting the slider took and the Tuner's "
        "own `latency_ms` (what its readout shows and the JupyterLab test reads); the first draw "
        "includes the replay with no policy the costs are relative to, and plotly's FigureWidget "
        "import when it is the first."
    )
    return section
