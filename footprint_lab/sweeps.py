"""Sweeps: run every configuration of a grid and get one row per configuration.

Layer: top (uses the agent, replay and pandas). A source is a scenario (each configuration is
a scripted re-run) or a recorded run (each configuration is a counterfactual replay). Jobs go
to any ``concurrent.futures.Executor`` — by default a local process pool; a
``dask.distributed`` client's ``get_executor()`` runs the same sweep across a cluster. Jobs are
shipped with cloudpickle, so a lambda works as a strategy factory.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any

import cloudpickle
import pandas as pd
from tqdm.auto import tqdm

from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.run import Run
from footprint_lab.auditing.violations import VIOLATION_KINDS
from footprint_lab.counterfactual import replay
from footprint_lab.scenarios import Scenario
from footprint_lab.window.records import REFUSAL_REASONS

PIN_KEY = "keep_last_tool_results"
"""A grid key with this name goes to the run (pins are agent-level), not to the factory."""


def summarize_run(run: Run) -> dict[str, Any]:
    """The sweep's numbers for one run (plain Python, no pandas)."""
    chars = [c.chars for c in run.calls]
    tokens = [c.usage.input_tokens for c in run.calls if c.usage is not None]
    reasons: Counter[str] = Counter(ref.reason for r in run.records for ref in r.refusals)
    kinds = Counter(v.kind for r in run.records for v in (r.violations or []))
    row: dict[str, Any] = {
        "strategy": run.strategy or "none",
        "status": run.status,
        "iterations": run.iterations,
        "calls": len(run.calls),
        "peak_window_chars": max(chars, default=0),
        "mean_window_chars": sum(chars) / len(chars) if chars else 0.0,
        "peak_input_tokens": max(tokens, default=0),
        "records": len(run.records),
        "removals": sum(1 for r in run.records if r.removed_message_count),
        "removed_messages": sum(r.removed_message_count for r in run.records),
        "refusals": sum(reasons.values()),
        "pins": sum(len(r.observations.pinned) for r in run.records if r.observations),
        "yielded": sum(r.observations.yielded for r in run.records if r.observations),
        "stand_downs": sum(1 for r in run.records if r.observations and r.observations.stand_down),
        "violations": sum(kinds.values()),
    }
    for reason in REFUSAL_REASONS:
        row[f"refusals_{reason}"] = reasons.get(reason, 0)
    for kind in VIOLATION_KINDS:
        row[f"violations_{kind}"] = kinds.get(kind, 0)
    return row


def _configurations(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    if not grid:
        return [{}]
    keys = list(grid)
    for key in keys:
        if isinstance(grid[key], (str, bytes)) or not isinstance(grid[key], Sequence):
            raise ValueError(f"grid[{key!r}] must be a list of values, got {grid[key]!r}")
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*grid.values())]


def run_configuration(
    source: Scenario | Run, factory: Callable[..., Any], config: Mapping[str, Any]
) -> Run:
    """Run one configuration in this process (what each sweep job does)."""
    knobs = {k: v for k, v in config.items() if k != PIN_KEY}
    keep_last = config.get(PIN_KEY, 2)
    strategy = factory(**knobs)
    if isinstance(source, Scenario):
        return source.run(strategy, keep_last_tool_results=keep_last)
    return replay(source, strategy, keep_last_tool_results=keep_last)


def _job(payload: bytes) -> dict[str, Any]:
    source, factory, config = cloudpickle.loads(payload)
    if isinstance(source, str):
        source = run_from_checkpoint(Checkpoint.model_validate_json(source))
    return summarize_run(run_configuration(source, factory, config))


def _quiet() -> bool:
    return os.environ.get("FOOTPRINT_LAB_QUIET") == "1"


def sweep(
    source: Scenario | Run,
    strategy_factory: Callable[..., Any],
    grid: Mapping[str, Sequence[Any]] | None = None,
    executor: Executor | None = None,
    *,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Run every configuration of ``grid`` and return one row per configuration.

    Args:
        source: A scenario (scripted re-runs) or a recorded run (replays).
        strategy_factory: Called with each configuration's keywords (except
            ``keep_last_tool_results``, which goes to the run) and returns a strategy.
        grid: ``{"keep_recent_turns": [1, 2, 3], ...}``; the rows are its cartesian product.
        executor: Any ``concurrent.futures.Executor``; default a local process pool.
        progress: Show a progress bar (default: on, unless ``FOOTPRINT_LAB_QUIET=1``).

    Returns:
        A DataFrame with a column per grid key, then the numbers of :func:`summarize_run`,
        in grid order.
    """
    configs = _configurations(grid or {})
    shipped: Scenario | str = (
        source if isinstance(source, Scenario) else source.checkpoint().model_dump_json()
    )
    payloads = [cloudpickle.dumps((shipped, strategy_factory, c)) for c in configs]
    own = executor is None
    pool = executor or ProcessPoolExecutor(
        max_workers=max(1, min(len(configs), os.cpu_count() or 1)),
        mp_context=get_context("spawn"),
    )
    try:
        futures: dict[Future[dict[str, Any]], int] = {
            pool.submit(_job, payload): i for i, payload in enumerate(payloads)
        }
        rows: list[dict[str, Any] | None] = [None] * len(configs)
        show = (not _quiet()) if progress is None else progress
        for future in tqdm(
            as_completed(futures), total=len(futures), disable=not show, desc="sweep"
        ):
            rows[futures[future]] = future.result()
    finally:
        if own:
            pool.shutdown()
    frame = pd.DataFrame(
        [{**config, **(row or {})} for config, row in zip(configs, rows, strict=True)]
    )
    return frame
