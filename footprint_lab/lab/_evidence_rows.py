"""The per-run measurement behind :func:`footprint_lab.lab.evidence_frame`: replay one run under
one configuration and count the tool evidence its windows lost, what they sent, and what a
provider would reject.

Layer: lab (on top of ``replay`` and the pure :mod:`footprint_lab.evidence`). Each function
here returns plain dicts, one per run; :mod:`footprint_lab.lab.evidence` turns them into the
typed frame. This module names :class:`~footprint_lab.lab.evidence.EvidenceConfig` only for
type checking, so it imports nothing of the public module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.run import Run
from footprint_lab.evidence import (
    SentWindows,
    calls_of,
    dependencies,
    losses,
    request_lost_calls,
    tool_calls_in,
    transcript,
    wire_problem_calls,
)
from footprint_lab.replay import replay

if TYPE_CHECKING:
    from footprint_lab.lab.evidence import EvidenceConfig


def _meta_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def run_facts(label: str, run: Run) -> dict[str, Any]:
    """What a run contributes regardless of the configuration."""
    meta = run.meta if isinstance(run.meta, dict) else {}
    reward = meta.get("reward")
    return {
        "run": label,
        "task_id": meta.get("task_id"),
        "trial": _meta_int(meta.get("trial")),
        "reward": float(reward) if isinstance(reward, int | float) else None,
        "tool_calls": tool_calls_in(run),
        "baseline_window_chars": baseline_window_chars(run),
    }


def baseline_window_chars(run: Run) -> int:
    """Characters every call of ``run`` would send with no window management: what
    ``sum(c.chars for c in replay(run, None).calls)`` gives, without replaying.

    With no strategy the replay sends, before each recorded reply, every transcript message
    before it, so the sum is a running total — one pass, where the replay copies and commits
    every message again.
    """
    total = 0
    sent = 0
    for message in transcript(run):
        if message.role == "assistant":
            total += sent
        sent += message.chars
    return total


def measure(run: Run, strategy: Any, keep_last_tool_results: int, min_chars: int) -> dict[str, Any]:
    """Replay ``run`` under one configuration and measure it (one row's numbers)."""
    replayed = replay(run, strategy, keep_last_tool_results=keep_last_tool_results)
    deps = dependencies(replayed, min_chars)
    # One position-level view of every sent window, walked once: materialising each window
    # (``window_sent``) is quadratic in the run's length when windows are not managed.
    windows = SentWindows(replayed)
    lost = losses(replayed, deps, windows=windows)
    by_call: dict[tuple[int, str], bool] = {}
    for item in lost:
        key = (item.message_index, item.call_id)
        by_call[key] = by_call.get(key, True) and item.kept_by_summary
    chars = [c.chars for c in replayed.calls]
    wire = len(wire_problem_calls(replayed, windows))
    no_request = len(request_lost_calls(replayed, windows))
    return {
        "dependent_calls": calls_of(deps),
        "lost_calls": calls_of(lost),
        "lost_values": len(lost),
        "kept_by_summary": sum(by_call.values()),
        "windows": len(chars),
        "mean_window_chars": float(np.mean(chars)) if chars else 0.0,
        "peak_window_chars": max(chars, default=0),
        "window_chars": sum(chars),
        "wire_violations": wire,
        "request_lost": no_request,
        "violations": sum(len(r.violations or ()) for r in replayed.records),
        "removed_messages": sum(r.removed_message_count for r in replayed.records),
    }


def measure_config(
    runs: Sequence[Run], config: EvidenceConfig, min_chars: int
) -> list[dict[str, Any]]:
    strategy = config.build()
    return [measure(run, strategy, config.keep_last_tool_results, min_chars) for run in runs]


def job(job: tuple[Sequence[str], EvidenceConfig, int]) -> list[dict[str, Any]]:
    """One configuration over every run, in a worker (runs arrive as checkpoints)."""
    shipped, config, min_chars = job
    runs = [run_from_checkpoint(Checkpoint.model_validate_json(text)) for text in shipped]
    return measure_config(runs, config, min_chars)


def labelled_runs(runs: Sequence[Run] | Mapping[str, Run]) -> list[tuple[str, Run]]:
    if isinstance(runs, Mapping):
        return [(str(k), r) for k, r in runs.items()]
    out: list[tuple[str, Run]] = []
    for i, run in enumerate(runs):
        meta = run.meta if isinstance(run.meta, dict) else {}
        out.append((str(meta.get("label") or f"run-{i}"), run))
    return out
