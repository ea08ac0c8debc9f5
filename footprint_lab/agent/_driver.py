"""The sync driver: runs an agent's coroutine to completion from sync code, in a script or
inside Jupyter's running event loop, without ever losing the run to an interrupt.

Layer: agent. ``Agent.run`` / ``resume`` / ``resume_on_error`` hand their coroutine to
:func:`drive`. In a notebook the work runs on a fresh loop in a worker thread while the caller
waits in short slices: a first Ctrl-C asks the loop (:mod:`footprint_lab.agent._loop`) to stop
at its next stage boundary (it raises :class:`StopRequested` there), a second cancels the task.
Whatever stopped the run, the run rides on the exception as ``exc.run`` (:func:`attach_run`);
a fault the run keeps as ``run.error`` is :func:`detached` from its frames first.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import traceback
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from footprint_lab.agent.run import Run

_WAIT_SLICE_S = 0.05
"""How long the notebook driver waits on its worker at a time: between slices a Ctrl-C
(a ``KeyboardInterrupt`` in the main thread) is seen at once, not when the run ends."""


class InFlight(Protocol):
    """What the driver needs of a run's loop in flight (the agent loop, ``_Loop``)."""

    @property
    def run(self) -> Run:
        """The run the loop writes."""

    def record_cancel(self, exc: BaseException) -> None:
        """Record the run as cancelled (once) and attach it to ``exc``."""


@dataclass
class Flight:
    """An agent's run in flight as its driver sees it: the loop running it, and the stop a
    first Ctrl-C asks for. One per agent; the driver names neither the agent nor the loop."""

    stop: threading.Event = field(default_factory=threading.Event)
    """Set by the driver on a first interrupt: the loop stops at its next stage boundary."""
    loop: InFlight | None = None
    """The loop running the agent's run (None between runs)."""


class StopRequested(Exception):
    """Raised inside the loop at a stage boundary once the driver saw a Ctrl-C."""


def attach_run(exc: BaseException, run: Run) -> None:
    """Carry the run on the exception as ``.run`` when the exception takes attributes."""
    with contextlib.suppress(AttributeError, TypeError):
        exc.run = run  # type: ignore[attr-defined]


def detached(exc: Exception) -> Exception:
    """``exc`` as a run keeps it in ``run.error``: the same object (its type, message and
    attributes, such as a ``ProviderError``'s ``status``) with no traceback, ``__cause__`` or
    ``__context__``. A traceback holds the frames it passed through, and their locals hold the
    agent, its provider and the SDK client with the key; the chain may hold an SDK exception
    and its request. Where it was raised is kept as text, a note ``raise_for_error`` shows."""
    if exc.__traceback__ is not None:
        where = "".join(traceback.format_tb(exc.__traceback__))
        exc.add_note(f"raised at (run.error keeps no frames):\n{where.rstrip()}")
    exc.__traceback__ = None
    exc.__cause__ = exc.__context__ = None
    return exc


def drive(flight: Flight, work: Coroutine[Any, Any, Run]) -> Run:
    """Run ``work`` to completion from sync code without ever losing the run.

    In a script it runs on ``asyncio.run``: a Ctrl-C cancels the task, the loop records the
    run as cancelled and the ``KeyboardInterrupt`` reaches the caller with ``.run``. Inside
    a running event loop (Jupyter) it runs on a fresh loop in a worker thread, and this
    thread waits in short slices so a kernel interrupt is seen at once: the first asks the
    loop to stop at its next stage boundary (the stage in flight finishes and commits), a
    second cancels the task where it stands.
    """
    flight.stop.clear()
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        in_a_loop = False
    else:
        in_a_loop = True
    if not in_a_loop:
        # Outside the except block above: inside it, every exception the run raises would
        # carry "RuntimeError: no running event loop" as its __context__.
        try:
            return asyncio.run(work)
        except BaseException as exc:
            if not isinstance(exc, Exception):  # an interrupt, or any other BaseException
                _interrupted(flight, exc)
            raise
        finally:
            flight.loop = None
    try:
        return _drive_in_thread(flight, work)
    finally:
        flight.loop = None
        flight.stop.clear()


def _drive_in_thread(flight: Flight, work: Coroutine[Any, Any, Run]) -> Run:
    handle: dict[str, Any] = {}
    box: dict[str, Any] = {}  # written by the worker: "result" or "error", then "done"
    ready = threading.Event()
    abandon = threading.Event()

    async def main() -> Run:
        handle["loop"] = asyncio.get_running_loop()
        handle["task"] = asyncio.current_task()
        return await work

    def worker() -> None:
        # The work waits until this thread's caller stands inside its interrupt handling:
        # an interrupt the work itself causes (a tool raising SIGINT) can then never land
        # where the caller would lose the run.
        ready.wait()
        try:
            if abandon.is_set():
                work.close()  # interrupted before anything ran: nothing to record
                return
            box["result"] = asyncio.run(main())
        except BaseException as exc:  # handed to the caller's thread, which raises it
            box["error"] = exc
        finally:
            box["done"] = True

    thread = threading.Thread(target=worker, name="footprint-lab-run", daemon=True)
    interrupt: KeyboardInterrupt | None = None
    # Poll with sleep, never wait on a condition: an interrupt landing inside
    # Condition.wait can leave its lock held. A signal may land on any bytecode here, so
    # every step sits in the try.
    while True:
        try:
            if not ready.is_set():
                thread.start()
                ready.set()
            while "done" not in box:
                time.sleep(_WAIT_SLICE_S)
            break
        except KeyboardInterrupt as exc:
            if not ready.is_set():  # nothing ran yet: release the worker unrun
                abandon.set()
                ready.set()
                raise
            if interrupt is None:  # first Ctrl-C: stop at the next stage boundary
                interrupt = exc
                flight.stop.set()
            elif "loop" in handle:  # a second one: cancel the task where it stands
                with contextlib.suppress(RuntimeError):  # its loop already closed
                    handle["loop"].call_soon_threadsafe(handle["task"].cancel)
    failure: BaseException | None = box.get("error")
    if failure is None:
        outcome: Run = box["result"]
        if interrupt is not None:  # stopped at a boundary (or finished meanwhile)
            attach_run(interrupt, outcome)
            raise interrupt
        return outcome
    if interrupt is not None and isinstance(failure, asyncio.CancelledError):
        failure = interrupt  # the person's Ctrl-C, not the cancellation it caused
    if not isinstance(failure, Exception):  # an interrupt or a cancellation
        _interrupted(flight, failure)
    raise failure


def _interrupted(flight: Flight, exc: BaseException) -> None:
    """Make sure the run in flight is recorded as cancelled and rides on ``exc``."""
    loop = flight.loop
    if loop is not None:
        loop.record_cancel(exc)
        attach_run(exc, loop.run)
