"""An executor whose worker dies in the middle of one file, for the interrupted-build tests: the
pool's worker process exits (``os._exit``) right after writing that file's first part."""

from __future__ import annotations

import os
from concurrent.futures import Executor, Future
from typing import Any

import cloudpickle


def die_inside(payload: bytes, target: str) -> Any:
    """Run one job of the grid runner (``experiments._call``'s payload), killing this process
    after the first part of the file whose name is ``target`` is written."""
    fn, job = cloudpickle.loads(payload)
    if os.path.basename(job.path) == target:
        from footprint_lab.corpus.store import Store

        real = Store.write_part

        def write_then_die(self: Store, family: str, part: str, table: Any) -> None:
            real(self, family, part, table)
            os._exit(17)

        Store.write_part = write_then_die  # type: ignore[method-assign]
    return fn(job)


class KillingExecutor(Executor):
    """Sends every job to ``pool`` through :func:`die_inside`."""

    def __init__(self, pool: Executor, target: str) -> None:
        self.pool = pool
        self.target = target

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        (payload,) = args
        return self.pool.submit(die_inside, payload, self.target)
