"""Sweeps: run every configuration of a grid and get one row per configuration.

Layer: lab (uses the agent, replay, pandas and the lab's grid runner; ``footprint_lab.sweeps``,
its old path, re-exports it). A source is a scenario (each configuration is a scripted re-run)
or a recorded run (each configuration is a counterfactual replay). Jobs go through
:func:`footprint_lab.lab.experiments.run_jobs` to any ``concurrent.futures.Executor`` — by
default a local process pool; a ``dask.distributed`` client's ``get_executor()`` runs the same
sweep across a cluster. Jobs are shipped with cloudpickle, so a lambda works as a strategy
factory.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import pandas as pd

from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.replay import replay
from footprint_lab.agent.run import Run
from footprint_lab.applicability import blocked, reasons_of, reasons_text
from footprint_lab.lab._evidence_rows import baseline_input_cost, estimated_input_cost
from footprint_lab.lab.experiments import run_jobs
from footprint_lab.lab.schema import build_frame, spec
from footprint_lab.lab.summary import run_summary
from footprint_lab.scenarios import Scenario
from footprint_lab.window.pins import PIN_KEY

__all__ = [
    "COST_KEYS",
    "PIN_KEY",
    "Job",
    "baseline_cost",
    "configuration_row",
    "grid_configurations",
    "run_configuration",
    "summarize_run",
    "sweep",
]


def summarize_run(run: Run) -> dict[str, Any]:
    """The sweep's numbers for one run (plain Python, no pandas): the lab's one run summary,
    :func:`footprint_lab.lab.summary.run_summary`."""
    return run_summary(run)


def grid_configurations(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every configuration of ``grid``, its cartesian product in order (``[{}]`` for none).

    Raises:
        ValueError: a grid value is not a list of values.
    """
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


Job = tuple[Scenario | str, Callable[..., Any], Mapping[str, Any], float]
"""One sweep job: the source (a scenario, or a run as checkpoint JSON), the factory, the
configuration, and the no-policy input cost its cost is measured against."""


COST_KEYS: tuple[str, ...] = tuple(
    c for c in spec("sweep").columns if c not in spec("run_summary").columns
)
"""The cost columns of every sweep row — request characters a prefix cache could reuse, the
estimated input cost in uncached-token equivalents (cached input at a tenth), the same with no
window management, and their ratio, every row on the one cache rule ``"prefix"``
(:mod:`footprint_lab.pricing`) — and why the configuration cannot apply to a recorded run, in
words (None when it can; :mod:`footprint_lab.applicability`): one that cannot engage at all has
no cost ratio, never a ratio of 1.0. The ``sweep`` spec of :mod:`footprint_lab.lab.schema` says
what each means."""


def _costs(run: Run, baseline: float) -> dict[str, Any]:
    cost = estimated_input_cost(run)
    reasons = reasons_of(run)
    return {
        "cache_share": cost["prefix_chars"] / cost["request_chars"]
        if cost["request_chars"]
        else None,
        "input_cost": cost["input_cost"],
        "baseline_input_cost": baseline,
        "cost_ratio": cost["input_cost"] / baseline if baseline and not blocked(reasons) else None,
        "not_applicable": reasons_text(reasons),
    }


def baseline_cost(source: Scenario | Run) -> float:
    """The input cost of ``source`` with no window management (a scenario is run once)."""
    if isinstance(source, Scenario):
        return float(estimated_input_cost(source.run(None))["input_cost"])
    return baseline_input_cost(source)


def configuration_row(
    source: Scenario | Run,
    factory: Callable[..., Any],
    config: Mapping[str, Any],
    baseline: float | None = None,
) -> dict[str, Any]:
    """One sweep row's numbers, in this process: :func:`summarize_run` of the configuration's
    run, then its costs against ``baseline`` (:func:`baseline_cost` of the source when None)."""
    run = run_configuration(source, factory, config)
    return {
        **summarize_run(run),
        **_costs(run, baseline_cost(source) if baseline is None else baseline),
    }


def _job(job: Job) -> dict[str, Any]:
    """One configuration, wherever the grid runner runs it."""
    shipped, factory, config, baseline = job
    source = (
        run_from_checkpoint(Checkpoint.model_validate_json(shipped))
        if isinstance(shipped, str)
        else shipped
    )
    return configuration_row(source, factory, config, baseline)


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
        executor: Any ``concurrent.futures.Executor``; default a local process pool (see
            :func:`footprint_lab.lab.experiments.run_jobs`, which runs every sweep).
        progress: Show a progress bar (default: on, unless ``FOOTPRINT_LAB_QUIET=1`` or stderr
            is not a terminal; False turns it off).

    Returns:
        The ``sweep`` frame (:mod:`footprint_lab.lab.schema`), one row per configuration in
        grid order: a column per grid key (named in ``frame.attrs["knobs"]``), then the
        numbers of :func:`summarize_run` and the cost columns ``COST_KEYS``, each of the
        spec's dtype.
    """
    configs = grid_configurations(grid or {})
    shipped: Scenario | str = (
        source if isinstance(source, Scenario) else source.checkpoint().model_dump_json()
    )
    baseline = baseline_cost(source)
    rows = run_jobs(
        _job,
        [(shipped, strategy_factory, c, baseline) for c in configs],
        executor="processes" if executor is None else executor,
        progress=progress is not False,
        desc="sweep",
    )
    return build_frame(
        "sweep",
        {c: [row[c] for row in rows] for c in spec("sweep").columns},
        knobs={k: [config[k] for config in configs] for k in (grid or {})},
    )
