"""Run a coroutine to completion from sync code, inside a running event loop or not.

Layer: bottom (standard library only). Every sync face of async work goes through
:func:`run_sync` (``replay``, tests of providers and summarizers); it belongs to no layer's
concept, so it lives here rather than in the window core, which re-exports it from
:mod:`footprint_lab.window.apply` (its old home). The agent's own driver,
:func:`footprint_lab.agent._driver.drive`, is not this function: it must also record a run an
interrupt stops.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")

__all__ = ["run_sync"]


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run an awaitable to completion from sync code, even inside a running event loop
    (Jupyter): then it runs on a fresh loop in a worker thread."""
    box: list[T] = []

    async def _wrap() -> None:
        # The result is handed back through ``box``, not as the task's result: on Python 3.11
        # ``asyncio.run`` reprs its main task (result included) while restoring the SIGINT
        # handler, and the repr of a long window costs seconds.
        box.append(await awaitable)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    # Outside the except clause, so a fault raised by the run carries no "no running event
    # loop" error on its __context__.
    if not running:
        asyncio.run(_wrap())
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, _wrap()).result()
    return box[0]
