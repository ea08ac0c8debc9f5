"""Worker threads for tools: where a sync tool runs, and how its result gets back.

Layer: agent (private; used by :mod:`footprint_lab.agent.tools` and the batch runner in
:mod:`footprint_lab.agent._batch`). A call runs on a reused daemon thread with the caller's
context variables (so ``current_call_id()`` works there). Its result travels back two ways at
once: to the awaiting task through the event loop, and — the moment it is ready, before the loop
hears of it — to the batch through :data:`ARRIVAL`, so a commit of any result of the batch
takes every result already finished with it (and no result waits for the loop to wake its task).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import TypeVar

from footprint_lab.messages import Message

T = TypeVar("T")

ARRIVAL: contextvars.ContextVar[Callable[[Message], None] | None] = contextvars.ContextVar(
    "footprint_lab_tool_arrival", default=None
)
"""Set by a parallel batch around each of its calls: called, from the worker thread, with the
call's result the moment it is ready. Must be thread-safe."""


class _DaemonWorkers:
    """Daemon threads reused from call to call for sync tools.

    Not ``asyncio.to_thread``: its pool is the loop's default executor, which ``asyncio.run``
    joins on shutdown, so a tool that timed out would still hold ``agent.run`` until it ended
    (and ``concurrent.futures`` workers are joined at interpreter exit). Not a thread per call
    either: starting one costs more than the rest of a scripted iteration. A worker a
    timed-out tool keeps busy is simply not reused until it returns; the pool grows instead.
    """

    def __init__(self) -> None:
        self._reset()
        # A forked child inherits the counts but none of the threads: it starts afresh.
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # workers waiting for a job (or about to)

    def submit(self, job: Callable[[], None]) -> None:
        """Run ``job`` on an idle worker, or on a new one when none is idle."""
        with self._lock:
            if self._idle:
                self._idle -= 1
            else:
                threading.Thread(target=self._serve, name="footprint-lab-tool", daemon=True).start()
        self._jobs.put(job)

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                job()
            finally:
                with self._lock:
                    self._idle += 1


WORKERS = _DaemonWorkers()


async def in_thread(work: Callable[[], T]) -> T:
    """Run ``work()`` on a daemon worker (with the caller's context variables) and await its
    outcome; a :class:`Message` outcome also goes to :data:`ARRIVAL` at once. A call that
    times out is abandoned to its worker (see :class:`_DaemonWorkers`)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()
    arrival = ARRIVAL.get()

    def settle(outcome: T | BaseException, failed: bool) -> None:
        if future.done():  # timed out or cancelled meanwhile: the late outcome is discarded
            return
        if failed:
            assert isinstance(outcome, BaseException)
            future.set_exception(outcome)
        else:
            future.set_result(outcome)  # type: ignore[arg-type]

    def job() -> None:
        failed = False
        try:
            outcome: T | BaseException = context.run(work)
        except BaseException as exc:  # carried to the loop: an interrupt is not lost here
            outcome, failed = exc, True
        if arrival is not None and isinstance(outcome, Message):
            arrival(outcome)
        with contextlib.suppress(RuntimeError):  # the loop closed while an abandoned tool ran
            loop.call_soon_threadsafe(settle, outcome, failed)

    WORKERS.submit(job)
    return await future
