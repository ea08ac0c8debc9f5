"""The one grid runner: results in the jobs' order wherever they run; the first error stops it."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from footprint_lab.lab.experiments import run_jobs


def _square_late_first(n: int) -> int:
    time.sleep(0.01 * (5 - n))  # the first jobs finish last
    return n * n


def test_inline_runs_here_in_order_without_pickling() -> None:
    seen: list[int] = []
    unpicklable = object()

    def job(n: int) -> tuple[int, object]:
        seen.append(n)
        return n, unpicklable

    out = run_jobs(job, [3, 1, 2], executor="inline", progress=False)
    assert out == [(3, unpicklable), (1, unpicklable), (2, unpicklable)] and seen == [3, 1, 2]


def test_an_executor_returns_results_in_job_order_and_ships_closures() -> None:
    offset = 100
    with ThreadPoolExecutor(max_workers=5) as pool:
        out = run_jobs(lambda n: _square_late_first(n) + offset, range(5), executor=pool)
    assert out == [n * n + offset for n in range(5)]


def test_the_default_process_pool_runs_a_lambda() -> None:
    assert run_jobs(lambda n: n + 1, [1, 2, 3], progress=False) == [2, 3, 4]


def test_the_first_error_reaches_the_caller() -> None:
    def job(n: int) -> int:
        if n == 2:
            raise ValueError("job 2 failed")
        return n

    with ThreadPoolExecutor(max_workers=2) as pool, pytest.raises(ValueError, match="job 2"):
        run_jobs(job, [1, 2, 3], executor=pool)
    with pytest.raises(ValueError, match="job 2"):
        run_jobs(job, [1, 2, 3], executor="inline")


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="2 weights for 3 jobs"):
        run_jobs(str, [1, 2, 3], executor="inline", weights=[1, 1])
    with pytest.raises(TypeError, match="executor must be"):
        run_jobs(str, [1], executor="threads")  # type: ignore[arg-type]
