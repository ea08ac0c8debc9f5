"""The one grid runner: run many jobs, anywhere, and get their results back in order.

Layer: lab (below :mod:`footprint_lab.sweeps`; used by :func:`footprint_lab.sweep` and by
:func:`~footprint_lab.lab.evidence.evidence_frame`). :func:`run_jobs` calls ``fn(job)`` for
every job and returns the results in the jobs' order, whatever order they finish in:

* ``executor="inline"`` runs them here, one after the other (no pickling at all);
* ``executor="processes"`` starts a local pool of spawned worker processes, sized to the
  jobs and the machine, and shuts it down afterwards;
* any ``concurrent.futures.Executor`` (a thread or process pool, a ``dask.distributed``
  client's ``get_executor()``) runs them where it runs things, and stays open.

Off this process, ``fn`` and each job travel together as one cloudpickle payload, so a lambda
or a closure works as a job's strategy factory; the results come back through the executor's
own transport. A progress bar (:mod:`footprint_lab.lab.progress`) advances as jobs finish, by
each job's weight. The first job that raises stops the grid: jobs not yet started are
cancelled and the error reaches the caller.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any, Literal, TypeVar

import cloudpickle

from footprint_lab.lab.progress import progress as progress_bar

__all__ = ["Where", "run_jobs"]

J = TypeVar("J")
R = TypeVar("R")

Where = Executor | Literal["inline", "processes"]
"""Where :func:`run_jobs` runs: here, in a fresh local process pool, or on an executor."""


def _call(payload: bytes) -> Any:
    """One job in a worker: unpack ``(fn, job)`` and run it."""
    fn, job = cloudpickle.loads(payload)
    return fn(job)


def run_jobs(
    fn: Callable[[J], R],
    jobs: Sequence[J],
    *,
    executor: Where = "processes",
    progress: bool = True,
    desc: str = "",
    weights: Sequence[int] | None = None,
) -> list[R]:
    """Run ``fn(job)`` for every job and return the results in the jobs' order.

    Args:
        fn: Called once per job. Off this process it must be picklable by cloudpickle (a
            module-level function is shipped by reference).
        jobs: The jobs; each is shipped with ``fn`` as one cloudpickle payload.
        executor: ``"inline"`` (here), ``"processes"`` (a local spawn pool, default) or any
            ``concurrent.futures.Executor``.
        progress: Show a progress bar (it stays quiet where :func:`~footprint_lab.lab.progress.
            quiet` says so, e.g. ``FOOTPRINT_LAB_QUIET=1``).
        desc: The bar's label.
        weights: How far each job advances the bar (default 1 each).

    Returns:
        ``[fn(job) for job in jobs]``, computed where ``executor`` says.
    """
    steps = list(weights) if weights is not None else [1] * len(jobs)
    if len(steps) != len(jobs):
        raise ValueError(f"{len(steps)} weights for {len(jobs)} jobs")
    bar = progress_bar(total=sum(steps), desc=desc, disable=not progress)
    try:
        if executor == "inline":
            out: list[R] = []
            for job, step in zip(jobs, steps, strict=True):
                out.append(fn(job))
                bar.update(step)
            return out
        if executor == "processes":
            with ProcessPoolExecutor(
                max_workers=max(1, min(len(jobs), os.cpu_count() or 1)),
                mp_context=get_context("spawn"),
            ) as pool:
                return _on(pool, fn, jobs, steps, bar)
        if not isinstance(executor, Executor):
            raise TypeError(
                f"executor must be 'inline', 'processes' or a concurrent.futures.Executor, "
                f"got {executor!r}"
            )
        return _on(executor, fn, jobs, steps, bar)
    finally:
        bar.close()


def _on(
    executor: Executor, fn: Callable[[J], R], jobs: Sequence[J], steps: Sequence[int], bar: Any
) -> list[R]:
    futures: dict[Future[R], int] = {
        executor.submit(_call, cloudpickle.dumps((fn, job))): i for i, job in enumerate(jobs)
    }
    results: dict[int, R] = {}
    try:
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            bar.update(steps[i])
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    return [results[i] for i in range(len(jobs))]
