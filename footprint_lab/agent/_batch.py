"""The tools stage: a batch of tool calls run, and each result committed as it finishes.

Layer: agent. The loop (:mod:`footprint_lab.agent._loop`) calls :func:`tool_calls` at its
``tools`` step; :mod:`footprint_lab.agent._pauses` commits a person's answer through
:func:`commit_result`. Functions of the loop, not methods: this module names ``_Loop`` only for
type checking, so it imports nothing above. :func:`run_tool_calls` runs a batch, in parallel,
and hands over each result the moment its call finishes — together with every other result of
the batch that finished by then, from a worker thread too (see
:mod:`footprint_lab.agent._workers`) — so a result never waits behind a slower call.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from footprint_lab.agent._parts import LoopParts
from footprint_lab.agent._workers import ARRIVAL
from footprint_lab.agent.run import PauseState, open_batch
from footprint_lab.agent.tools import Tool, is_error_result, unknown_tool_result
from footprint_lab.events import ToolEnd
from footprint_lab.messages import Message, ToolCall


def commit_result(
    loop: LoopParts,
    iteration: int,
    stage: str,
    result: Message,
    order: Mapping[str, int] | None = None,
) -> None:
    """Commit one tool result under ``stage``, placed in call order when ``order`` (the open
    batch's call ids by position) is given (see :meth:`RunWriter.result
    <footprint_lab.agent.writer.RunWriter.result>`), and say that its call ended."""
    committed = loop.writer.result(stage, result, order)
    loop.recorder.emit(
        ToolEnd(
            iteration=iteration,
            at_ms=loop.now(),
            call_id=committed.tool_call_id or "",
            name=committed.name or "",
            error=is_error_result(committed),
        )
    )


async def tool_calls(loop: LoopParts, iteration: int) -> None:
    """Run the calls of the open batch that have no result yet (all of them, unless the
    run resumes mid-batch), committing each result the moment its call finishes, whatever its
    position in the batch — under the batch's one stage id, one history commit per result —
    with a checkpoint after each (after each group, when several finished at once), so a resume
    never runs a call whose result was committed.
    The window keeps the batch's call order (see :func:`commit_result`). A call to a tool
    that waits for a person pauses the run instead."""
    assistant, answered = open_batch(loop.window)
    assert assistant is not None, "the tools step follows an assistant message"
    done = set(answered)
    calls = [c for c in assistant.tool_calls if c.id not in done]
    # A batch resumed mid-way goes on under the stage its first results were committed in.
    results = (m for m in loop.window if m.role == "tool" and m.tool_call_id in done)
    stage = next((m.stage_id for m in results), None) if done else None
    tools = loop.agent.tools
    human = [c for c in calls if c.name in tools and tools[c.name].kind != "auto"]
    auto = [c for c in calls if c not in human]
    order = {c.id: i for i, c in enumerate(assistant.tool_calls)}
    if auto:
        # Taken at the first result, not before: a batch cancelled before any result
        # consumed no id, so its re-run is numbered as an uninterrupted run's.
        batch: dict[str, str] = {} if stage is None else {"stage": stage}

        def commit(results: list[Message]) -> None:
            if "stage" not in batch:
                batch["stage"] = loop.writer.stage("tool-calls")
            for result in results:
                commit_result(loop, iteration, batch["stage"], result, order)
            loop.checkpoint_hook()

        await run_tool_calls(
            tools,
            auto,
            default_timeout=loop.agent.tool_timeout,
            on_result=commit,
            unknown=loop.agent.unknown_tool,
        )
    if human:
        first = human[0]
        kind = tools[first.name].kind
        assert kind != "auto"
        loop.run.pause = PauseState(
            call_id=first.id,
            tool_name=first.name,
            kind=kind,
            arguments=dict(first.arguments),
            pending=[c.id for c in human[1:]],
            iteration=iteration,
        )


@dataclass(frozen=True, slots=True)
class _Raised:
    """What a call of a parallel batch raised (an interrupt, any other ``BaseException``, or an
    error of the result hook), carried out of its task: asyncio re-raises an interrupt straight
    out of the event loop (it does that for tasks) before the batch could record it."""

    exc: BaseException


ResultHook = Callable[[list[Message]], None]
"""Called with results the moment their calls finished: one call's, or — when several
finished by the time the loop takes one — all of them, in call order."""


class _Arrivals:
    """Results handed over by worker threads the moment they are ready (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: list[tuple[int, Message]] = []

    def put(self, index: int, message: Message) -> None:
        with self._lock:
            self._ready.append((index, message))

    def take(self) -> list[tuple[int, Message]]:
        with self._lock:
            ready, self._ready = self._ready, []
        return ready


async def run_tool_calls(
    tools: Mapping[str, Tool],
    calls: list[ToolCall],
    *,
    default_timeout: float | None = None,
    on_result: ResultHook | None = None,
    unknown: Callable[[ToolCall], Message] | None = None,
) -> list[Message]:
    """Run a batch (possibly parallel) and return results in call order.

    ``on_result`` receives each result the moment its call finishes, whatever its position in
    the batch: a finished call never waits behind a slower one. With it come the results of
    every other call that finished by then — a sync tool's as soon as its worker thread has
    it, before the event loop wakes its task — so one commit takes them all. For a tool on
    the event loop (an async tool without a timeout, an unknown tool, invalid arguments)
    nothing else runs between its return and the hook; each call is delivered once.

    ``unknown`` answers a call to a tool not in ``tools`` (default: an error result naming the
    tools there are; a fork says the tool was not passed to it).

    Raises:
        BaseException: an interrupt (or any other ``BaseException``) a tool raised, or what
            ``on_result`` raised; the results delivered before it stay delivered, the calls
            still running are cancelled.
    """
    results: dict[int, Message] = {}
    arrivals = _Arrivals()

    def deliver(index: int, message: Message) -> None:
        group = dict(arrivals.take())  # a result that arrived first wins over a late timeout
        group.setdefault(index, message)
        fresh = sorted(i for i in group if i not in results)
        for i in fresh:
            results[i] = group[i]
        if fresh and on_result is not None:
            on_result([group[i] for i in fresh])

    async def one(index: int, call: ToolCall) -> None:
        tool = tools.get(call.name)
        if tool is None:
            message = unknown_tool_result(tools, call) if unknown is None else unknown(call)
        else:
            message = await tool.invoke(call, default_timeout=default_timeout)
        deliver(index, message)  # no await from the tool's return to the hook

    if len(calls) == 1:
        await one(0, calls[0])
        return [results[0]]

    async def guarded(index: int, call: ToolCall) -> _Raised | None:
        ARRIVAL.set(lambda m: arrivals.put(index, m))  # in this call's own task context
        try:
            await one(index, call)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            return _Raised(exc)
        return None

    tasks = [asyncio.ensure_future(guarded(i, c)) for i, c in enumerate(calls)]
    try:
        pending = set(tasks)
        while pending:
            finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                outcome = task.result() if task in finished else None
                if outcome is not None:
                    raise outcome.exc
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
    return [results[i] for i in range(len(calls))]
