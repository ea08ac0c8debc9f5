"""Worker threads for tools: where a sync tool (or an async tool under a timeout) runs, how its
result gets back, and how many abandoned calls a tool may leave running.

Layer: agent (private; used by :mod:`footprint_lab.agent.tools` and the batch runner in
:mod:`footprint_lab.agent._batch`). A call runs on a reused daemon thread with the caller's
context variables (so ``current_call_id()`` works there); an async tool runs there on an event
loop of its own, so one that blocks its loop (``time.sleep``) or swallows its cancellation
cannot hold up the agent's. Its result travels back two ways at once: to the awaiting task
through the event loop, and — the moment it is ready, before the loop hears of it — to the batch
through :data:`ARRIVAL`, so a commit of any result of the batch takes every result already
finished with it (and no result waits for the loop to wake its task).

Python cannot stop a thread. A call whose caller stopped waiting (its timeout fired, its task
was cancelled) is *stranded*: it keeps its thread until it returns (an async tool is asked to
stop: its task is cancelled), and its late result is discarded; a call abandoned before its
thread picked it up never runs. At most :data:`STRANDED_LIMIT` calls of one tool may be
stranded at once: past that, a new call of the tool is refused (:class:`StrandedError`) until
one of them returns, so a tool that keeps hanging cannot pile up threads without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from footprint_lab.messages import Message

T = TypeVar("T")

ARRIVAL: contextvars.ContextVar[Callable[[Message], None] | None] = contextvars.ContextVar(
    "footprint_lab_tool_arrival", default=None
)
"""Set by a parallel batch around each of its calls: called, from the worker thread, with the
call's result the moment it is ready. Must be thread-safe."""

STRANDED_LIMIT = 8
"""How many calls of one tool may still run in their threads after their caller stopped
waiting for them; a further call of that tool is refused until one returns."""


class StrandedError(RuntimeError):
    """A call refused because :data:`STRANDED_LIMIT` calls of its tool are still stranded."""

    def __init__(self, stranded: int) -> None:
        super().__init__(f"{stranded} stranded calls (the limit is {STRANDED_LIMIT})")
        self.stranded = stranded


class _Job:
    """One call on a worker: whether its thread started it, whether it ended, whether its
    caller gave up on it, and how to ask it to stop (an async tool's task)."""

    __slots__ = ("abandoned", "ended", "owner", "started", "stop")

    def __init__(self, owner: object) -> None:
        self.owner = owner
        self.started = False
        self.ended = False
        self.abandoned = False
        self.stop: Callable[[], None] | None = None


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
        self._stranded: dict[object, int] = {}  # per owner (a tool): calls abandoned running

    def stranded(self, owner: object) -> int:
        """How many calls of ``owner`` run on though their caller stopped waiting."""
        with self._lock:
            return self._stranded.get(owner, 0)

    def begin(self, job: _Job) -> bool:
        """In the worker: start ``job``, unless its caller gave up before (it never runs)."""
        with self._lock:
            job.started = not job.abandoned
            return job.started

    def end(self, job: _Job) -> None:
        """In the worker: ``job`` returned; a stranded one frees its place."""
        with self._lock:
            job.ended = True
            if job.abandoned and job.started:
                left = self._stranded[job.owner] - 1
                if left:
                    self._stranded[job.owner] = left
                else:
                    del self._stranded[job.owner]

    def abandon(self, job: _Job) -> None:
        """The caller stopped waiting for ``job``: count it stranded if it runs, and ask it
        to stop (an async tool's task is cancelled)."""
        with self._lock:
            if job.ended or job.abandoned:
                return
            job.abandoned = True
            if job.started:
                self._stranded[job.owner] = self._stranded.get(job.owner, 0) + 1
            stop = job.stop
        if stop is not None:
            stop()

    def stoppable(self, job: _Job, stop: Callable[[], None]) -> None:
        """In the worker: how to stop ``job``; called at once when it was abandoned already."""
        with self._lock:
            job.stop = stop
            abandoned = job.abandoned
        if abandoned:
            stop()

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


async def in_thread(work: Callable[[], T], owner: object) -> T:
    """Run ``work()`` on a daemon worker (with the caller's context variables) and await its
    outcome; a :class:`Message` outcome also goes to :data:`ARRIVAL` at once. A call whose
    caller stops waiting is stranded (see the module docstring).

    Raises:
        StrandedError: :data:`STRANDED_LIMIT` calls of ``owner`` are stranded already; the
            call was not run.
    """
    return await _submit(work, owner, _Job(owner))


async def coroutine_in_thread(make: Callable[[], Coroutine[Any, Any, T]], owner: object) -> T:
    """Run the coroutine ``make()`` returns on an event loop of its own in a daemon worker, as
    :func:`in_thread` runs a function; a caller that stops waiting cancels its task there."""
    job = _Job(owner)

    async def main() -> T:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None

        def stop() -> None:
            with contextlib.suppress(RuntimeError):  # its loop already closed
                loop.call_soon_threadsafe(task.cancel)

        WORKERS.stoppable(job, stop)
        return await make()

    return await _submit(lambda: asyncio.run(main()), owner, job)


async def _submit(work: Callable[[], T], owner: object, job: _Job) -> T:
    stranded = WORKERS.stranded(owner)
    if stranded >= STRANDED_LIMIT:
        raise StrandedError(stranded)
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

    def run() -> None:
        if not WORKERS.begin(job):
            return  # abandoned before a thread picked it up: it never runs
        failed = False
        try:
            outcome: T | BaseException = context.run(work)
        except BaseException as exc:  # carried to the loop: an interrupt is not lost here
            outcome, failed = exc, True
        finally:
            WORKERS.end(job)
        if arrival is not None and isinstance(outcome, Message):
            arrival(outcome)
        with contextlib.suppress(RuntimeError):  # the loop closed while a stranded tool ran
            loop.call_soon_threadsafe(settle, outcome, failed)

    WORKERS.submit(run)
    try:
        return await future
    finally:
        if future.cancelled() or not future.done():  # the caller stopped waiting
            WORKERS.abandon(job)
