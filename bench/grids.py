"""Grids that scale out: replay + evidence for many tau-bench runs under many configurations
through ``evidence_frame``, inline, on a local process pool and on a Dask ``LocalCluster`` of one
and of two worker processes (``client.get_executor()``), as run × configuration pairs per second.

Timed: the grid on a ready executor (its start-up, and a small warm-up grid that makes its
workers import the library, are reported apart). Every executor is started first; the process
pool and the 2-worker cluster, the pair the target compares, then run alternately and keep
their best round, so load that comes and goes on a shared machine hits both alike. From the
measured per-task cost and per-job overhead, what a sweep ten times the size would take on a
cluster of N workers.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pandas as pd

from bench._common import Section, _fmt, median_seconds, verdict
from footprint_lab import Run, bulk_work, clear_tool_results, sliding_window
from footprint_lab.importers import load_tau_bench
from footprint_lab.lab.evidence import EvidenceConfig, evidence_frame, evidence_grid

DATA = Path(__file__).resolve().parents[1] / "data" / "tau-bench"
PROJECTED_WORKERS = (1, 2, 8, 32, 128)
SCALE_UP = 10  # the projected sweep: ten times the configurations, the same runs
POOL = "process pool (spawn)"
ONE_WORKER = "Dask LocalCluster, 1 worker"
TWO_WORKERS = "Dask LocalCluster, 2 workers"


def runs_of(n: int) -> dict[str, Run]:
    """``n`` tau-bench runs: the repository's 50, loaded afresh as often as needed (so no
    copy shares objects with another), each copy under its own label."""
    out: dict[str, Run] = {}
    copy = 0
    while len(out) < n:
        for run in load_tau_bench(DATA):
            if len(out) == n:
                break
            out[f"copy{copy}/{run.meta.get('label')}"] = run
        copy += 1
    return out


def configurations(keeps: tuple[int, ...], pins: tuple[int, ...]) -> list[EvidenceConfig]:
    """``sliding_window`` and ``clear_tool_results`` (its other knobs at their defaults), each
    over keep_recent_turns ``keeps`` x keep_last_tool_results ``pins``."""
    grid = {"keep_recent_turns": list(keeps), "keep_last_tool_results": list(pins)}
    return [*evidence_grid(sliding_window, grid), *evidence_grid(clear_tool_results, grid)]


@dataclass
class Ready:
    """An executor, started and warmed (None: inline, in this process)."""

    label: str
    workers: int
    executor: Executor | None
    startup: float | None  # seconds to ready: start plus the warm-up grid (None: inline)


@dataclass
class Measured:
    """One executor's figures (its best round)."""

    label: str
    workers: int
    startup: float | None
    seconds: float
    cpu: float  # CPU seconds this process spent during the grid (client, scheduler, pickling)
    load: float  # the machine's 1-minute load average just before the grid
    frame: pd.DataFrame
    transport: float | None = None  # seconds to send one job's runs and back, no work


def _span(values: tuple[int, ...]) -> str:
    return f"{values[0]}-{values[-1]}" if len(values) > 1 else str(values[0])


def _grid(runs: dict[str, Run], configs: list[EvidenceConfig], executor: Executor | None) -> Any:
    with bulk_work():  # bulk work, as a user measuring a grid would run it (and its workers)
        return evidence_frame(runs, configs, executor=executor, progress=False)


def _start(
    label: str,
    workers: int,
    opened: Callable[[], AbstractContextManager[Executor]],
    stack: ExitStack,
    runs: dict[str, Run],
    configs: list[EvidenceConfig],
) -> Ready:
    """Start an executor (closed with ``stack``) and warm it with a one-run grid."""
    start = time.perf_counter()
    executor = stack.enter_context(opened())
    first = next(iter(runs))
    _grid({first: runs[first]}, configs[:workers], executor)
    return Ready(label, workers, executor, time.perf_counter() - start)


def _timed(ready: Ready, runs: dict[str, Run], configs: list[EvidenceConfig]) -> Measured:
    load = os.getloadavg()[0]
    cpu = time.process_time()
    start = time.perf_counter()
    frame = _grid(runs, configs, ready.executor)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    return Measured(ready.label, ready.workers, ready.startup, seconds, cpu, load, frame)


def _pool(workers: int) -> AbstractContextManager[Executor]:
    # Spawned, as footprint_lab's own "processes" executor does: forking a process that may
    # already run threads (earlier sections) is unsafe.
    return ProcessPoolExecutor(workers, mp_context=get_context("spawn"))


def _dask(workers: int) -> Callable[[], AbstractContextManager[Executor]]:
    """A LocalCluster of ``workers`` single-threaded worker processes on 127.0.0.1, no
    dashboard, quiet; its client's executor.

    Raises:
        ImportError: ``distributed`` is not installed.
    """
    from distributed import Client, LocalCluster

    @contextmanager
    def opened() -> Iterator[Executor]:
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.ERROR,
                # Without a dashboard the scheduler still serves HTTP, on 8787 by default (a
                # clash with the other cluster open here) and, given only a port, on every
                # interface: a free port on loopback instead.
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client.get_executor()

    return opened


def run(n_runs: int, keeps: tuple[int, ...], pins: tuple[int, ...], rounds: int = 1) -> Section:
    """Time the grid on every executor (the pool and the 2-worker cluster alternately, best of
    ``rounds``); project a sweep ten times its size onto N workers."""
    runs = runs_of(n_runs)
    configs = configurations(keeps, pins)
    tasks = len(runs) * len(configs)
    shipped = [r.checkpoint().model_dump_json() for r in runs.values()]
    shipped_mb = sum(map(len, shipped)) / 1e6
    missing: list[str] = []
    best: dict[str, Measured] = {}
    with ExitStack() as stack:
        ready = [
            Ready("inline", 1, None, None),
            _start(POOL, 2, lambda: _pool(2), stack, runs, configs),
        ]
        for workers in (1, 2):
            try:
                opened = _dask(workers)
            except ImportError as exc:
                missing.append(f"Dask LocalCluster: not installed ({exc.name})")
                break
            label = ONE_WORKER if workers == 1 else TWO_WORKERS
            ready.append(_start(label, workers, opened, stack, runs, configs))
        # The pair the target compares runs alternately, best of `rounds`, so load that comes
        # and goes on a shared machine hits both alike; the others run once, first.
        compared = {POOL, TWO_WORKERS}
        for r in ready:
            if r.label not in compared:
                best[r.label] = _timed(r, runs, configs)
        for _ in range(rounds):
            for r in ready:
                if r.label in compared:
                    m = _timed(r, runs, configs)
                    if r.label not in best or m.seconds < best[r.label].seconds:
                        best[r.label] = m
        for r in ready:
            if (executor := r.executor) is not None:
                best[r.label].transport = median_seconds(
                    lambda e=executor: e.submit(len, shipped).result(), 3
                )
    measured = [best[r.label] for r in ready]
    section = Section(
        "10. Grids that scale out",
        f"`evidence_frame` on {len(runs)} tau-bench runs (the repository's 50, loaded again to "
        f"make up the number, each copy under its own label) x {len(configs)} configurations "
        f"(`sliding_window` and `clear_tool_results`, each over keep_recent_turns "
        f"{_span(keeps)} x keep_last_tool_results {'/'.join(map(str, pins))}) = "
        f"{tasks:,} run x configuration pairs, on each executor: inline; a local "
        "`ProcessPoolExecutor(2)` (spawned workers); a Dask `distributed.LocalCluster` of 1 and "
        "of 2 worker processes (one thread each, 127.0.0.1 only, no dashboard) through "
        "`client.get_executor()`. `evidence_frame` submits one job per configuration, each "
        f"carrying every run as a checkpoint ({shipped_mb:.1f} MB of JSON). *Start-up* = until "
        "the executor is ready: pool or cluster start plus a one-run warm-up grid (the "
        "workers import the library), not in *seconds*. Every executor is started first; the "
        "pair the target compares (the pool, the 2-worker cluster) then runs alternately, "
        f"best of {rounds}, so load that comes and goes on a shared machine hits both alike. "
        "*Job transport* = one job's runs sent "
        "to a worker and a number back, no work (median of 3). *Our CPU* = CPU seconds this "
        "process spent during the grid (inline: the work; otherwise the client, the "
        "scheduler's threads, pickling). *Load* = the machine's 1-minute load average just "
        "before that round. Target: the Dask 2-worker rate within 20% of the process pool's.",
        [
            "executor",
            "workers",
            "start-up (s)",
            "seconds",
            "run x configs per second",
            "rate vs process pool",
            "job transport (ms)",
            "our CPU (s)",
            "load",
        ],
    )
    reference = measured[0].frame
    pool = measured[1]
    for m in measured:
        section.rows.append(
            [
                m.label,
                m.workers,
                "—" if m.startup is None else m.startup,
                m.seconds,
                tasks / m.seconds,
                pool.seconds / m.seconds,
                "—" if m.transport is None else m.transport * 1e3,
                m.cpu,
                f"{m.load:.2f}",
            ]
        )
    same = all(m.frame.equals(reference) for m in measured)
    section.notes.append(
        f"Every executor returned the same frame as inline: {'yes' if same else 'NO'}. "
        f"Machine: {os.cpu_count()} cores; a load above that means other work shared them."
    )
    by_label = {m.label: m for m in measured}
    two = by_label.get(TWO_WORKERS)
    one = by_label.get(ONE_WORKER)
    if two is not None:
        share = pool.seconds / two.seconds
        section.notes.append(
            f"Dask with 2 workers runs {tasks / two.seconds:,.0f} run x configs per second, the "
            f"process pool {tasks / pool.seconds:,.0f}: {share:.0%} of the pool's rate (target "
            f">= 80%: {verdict(share >= 0.8)})."
        )
        if share < 0.8:
            section.notes.append(_why(measured[0], pool, two, len(configs)))
    if one is not None:
        section.notes.extend(_projection(measured[0], one, len(runs), len(configs), shipped_mb))
    section.notes.extend(missing)
    return section


def _overhead(inline: Measured, m: Measured, jobs: int) -> float:
    """Seconds per job an executor adds to the work, if its workers split the work evenly."""
    return max(0.0, (m.seconds * m.workers - inline.seconds) / jobs)


def _why(inline: Measured, pool: Measured, dask: Measured, jobs: int) -> str:
    """What the measured figures say about a Dask rate below the pool's."""
    dask_ms = (dask.transport or 0.0) * 1e3
    pool_ms = (pool.transport or 0.0) * 1e3
    return (
        f"Why: {jobs} jobs (one per configuration), each taking in every run again. Per job, "
        f"on top of the work ({inline.seconds / jobs:.3f} s inline), the pool adds "
        f"{_overhead(inline, pool, jobs):.3f} s and Dask "
        f"{_overhead(inline, dask, jobs):.3f} s (assuming an even split). Moving a job's runs "
        f"costs Dask {dask_ms:.0f} ms against the pool's {pool_ms:.0f} ms, and this process "
        f"spent {dask.cpu:.1f} s of CPU on the Dask grid against {pool.cpu:.1f} s on the "
        "pool's (client and scheduler share the cores with the workers); load before the "
        f"grids: pool {pool.load:.2f}, Dask {dask.load:.2f}."
    )


def project(jobs: int, job_seconds: float) -> dict[int, float]:
    """Seconds ``jobs`` jobs of ``job_seconds`` each take on a cluster of N workers, for each N
    of :data:`PROJECTED_WORKERS`: a linear split of whole jobs, ceil(jobs / N) per worker."""
    return {n: math.ceil(jobs / n) * job_seconds for n in PROJECTED_WORKERS}


def _projection(
    inline: Measured, one: Measured, n_runs: int, n_configs: int, shipped_mb: float
) -> list[str]:
    """What a sweep ``SCALE_UP`` times the configurations would take on N workers."""
    tasks = n_runs * n_configs
    per_task = inline.seconds / tasks  # the replay + evidence work itself, one core
    # What one job costs a worker beyond that work: shipping the runs, re-reading them from
    # checkpoints, and returning rows (one worker, so nothing overlaps).
    per_job = max(0.0, (one.seconds - inline.seconds) / n_configs)
    jobs = n_configs * SCALE_UP
    job_seconds = per_job + n_runs * per_task
    projected = [f"N = {n}: {_fmt(s)} s" for n, s in project(jobs, job_seconds).items()]
    return [
        f"Measured on one Dask worker: {per_task * 1e3:.2f} ms per run x configuration (the "
        f"inline figure) plus {per_job:.3f} s per job, against {n_runs * per_task:.3f} s of "
        f"work per job: {per_job / job_seconds:.0%} of a worker's time is overhead. Every job "
        f"takes in all the runs again ({shipped_mb:.1f} MB of checkpoints, unpickled and "
        "parsed anew for each configuration) and returns its rows.",
        f"Projected: a sweep {SCALE_UP}x the size ({n_runs} runs x {jobs:,} configurations = "
        f"{n_runs * jobs:,} pairs, {jobs:,} jobs) on a cluster of N workers: "
        + "; ".join(projected)
        + ". Assumes a linear split of whole jobs (ceil(jobs / N) per worker, each one the "
        "per-task cost as measured times the runs plus the measured per-job overhead), a "
        "scheduler that keeps up, and transfers as fast as over loopback here; over a real "
        f"network every job ships its {shipped_mb:.1f} MB again "
        f"({_fmt(jobs * shipped_mb / 1e3)} GB in all).",
    ]
