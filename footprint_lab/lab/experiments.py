"""The one grid runner: run many jobs, anywhere, and get their results back in order.

Layer: lab (below :mod:`footprint_lab.lab.sweeps`; used by :func:`footprint_lab.sweep` and by
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

Spawned workers re-import the main program. From a plain script without an
``if __name__ == "__main__":`` guard, or from ``python -`` on standard input, that would
re-run (or fail to find) the program in every worker, so ``"processes"`` falls back to a
thread pool there and says so once, with what to add to get processes.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import (
    BrokenExecutor,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    as_completed,
)
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Literal, TypeVar

import cloudpickle

from footprint_lab.lab.progress import progress as progress_bar

__all__ = ["Where", "WorkerDied", "run_jobs", "spawn_problem"]

J = TypeVar("J")
R = TypeVar("R")

Where = Executor | Literal["inline", "processes"]
"""Where :func:`run_jobs` runs: here, in a fresh local process pool, or on an executor."""


_warned: set[str] = set()


def spawn_problem() -> str | None:
    """Why spawned worker processes cannot run from this main program (None when they can):
    a worker re-imports the main program, which must be a file whose work sits under an
    ``if __name__ == "__main__":`` guard. Jupyter, ``python -c`` and the REPL have no main
    file to re-import, so they are fine."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None:
        return None
    if not os.path.isfile(path):
        return (
            f"the main program ({path}) is not a file a worker process can re-import; "
            'save it as a .py file with its work under `if __name__ == "__main__":`'
        )
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if "__name__" in text and "__main__" in text:
        return None
    return (
        f'{path} has no `if __name__ == "__main__":` guard, so every worker process '
        "would run it again; put the code that calls sweep / evidence_frame under one"
    )


class WorkerDied(RuntimeError):
    """A worker process died mid-grid (killed, out of memory, a crash in native code): the
    pool is broken and the jobs it held did not finish. The results handed back before it
    (``on_result``) stand."""

    def __init__(self, unfinished: list[int], total: int, cause: BaseException) -> None:
        self.unfinished = unfinished
        """The indexes of the jobs that did not finish, in order."""
        self.total = total
        """How many jobs there were."""
        super().__init__(
            f"a worker process died (killed, out of memory, or crashed: {cause}); "
            f"{total - len(unfinished)} of {total} job(s) had finished, {len(unfinished)} did not"
        )


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
    on_result: Callable[[int, R], None] | None = None,
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
        on_result: Called here with ``(index, result)`` as each job finishes, in the order
            they finish (a corpus build files each imported file as it arrives); an error it
            raises stops the grid as a job's would.

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
            for i, (job, step) in enumerate(zip(jobs, steps, strict=True)):
                result = fn(job)
                if on_result is not None:
                    on_result(i, result)
                out.append(result)
                bar.update(step)
            return out
        if executor == "processes" and (problem := spawn_problem()) is not None:
            if problem not in _warned:  # say so once per program, not once per grid
                _warned.add(problem)
                warnings.warn(
                    f"footprint_lab runs this grid on threads instead of processes: {problem}.",
                    RuntimeWarning,
                    stacklevel=3,
                )
            with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as threads:
                return _on(threads, fn, jobs, steps, bar, on_result)
        if executor == "processes":
            with ProcessPoolExecutor(
                max_workers=max(1, min(len(jobs), os.cpu_count() or 1)),
                mp_context=get_context("spawn"),
            ) as pool:
                return _on(pool, fn, jobs, steps, bar, on_result)
        if not isinstance(executor, Executor):
            raise TypeError(
                f"executor must be 'inline', 'processes' or a concurrent.futures.Executor, "
                f"got {executor!r}"
            )
        return _on(executor, fn, jobs, steps, bar, on_result)
    finally:
        bar.close()


def _on(
    executor: Executor,
    fn: Callable[[J], R],
    jobs: Sequence[J],
    steps: Sequence[int],
    bar: Any,
    on_result: Callable[[int, R], None] | None = None,
) -> list[R]:
    futures: dict[Future[R], int] = {
        executor.submit(_call, cloudpickle.dumps((fn, job))): i for i, job in enumerate(jobs)
    }
    results: dict[int, R] = {}
    try:
        for future in as_completed(futures):
            i = futures[future]
            try:
                results[i] = future.result()
            except BrokenExecutor as exc:
                unfinished = [j for j in range(len(jobs)) if j not in results]
                raise WorkerDied(unfinished, len(jobs), exc) from exc
            if on_result is not None:
                on_result(i, results[i])
            bar.update(steps[i])
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    return [results[i] for i in range(len(jobs))]
