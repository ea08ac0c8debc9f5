"""Tools: the ``@tool`` decorator, argument validation and safe execution.

Layer: agent. A tool that raises, an unknown tool, invalid arguments, a return value that
cannot be turned into text and a tool that outlives its timeout all become an error result the
model sees — never a crash of the run, never a call left without a result. An interrupt
(``KeyboardInterrupt``, ``SystemExit``) or a cancellation is not a tool error: it propagates, and
the loop records the run as cancelled.

Sync tools run in a worker thread, so a blocking tool never blocks the event loop: a timeout
(``@tool(timeout=...)``, ``Agent.create(tool_timeout=...)``), ``asyncio.wait_for`` around
``arun`` and a task cancellation all fire while it runs. Python cannot stop a thread, so a
sync tool that timed out keeps running in the background; its late result is discarded.

Two kinds of tool stop the run for a person: ``ask_human`` (the person's answer becomes the
result) and a tool declared with ``check_in=True`` (it runs only after the person approves).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import json
import math
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from footprint_lab.messages import Message, ToolCall, storable_text, storable_value
from footprint_lab.providers.base import ToolSpec
from footprint_lab.window.errors import WindowConfigError

ToolFunction = Callable[..., Any]
ToolKind = Literal["auto", "ask-human", "check-in"]


def _arguments_model(fn: ToolFunction, name: str) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    try:
        hints = inspect.get_annotations(fn, eval_str=True)
    except Exception:  # unresolvable annotations: fall back to Any
        hints = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    model: type[BaseModel] = create_model(
        # A class name holds no NUL (a tool's name may): the name only shows in reprs.
        f"{name}_arguments".replace("\x00", "\\x00"),
        __config__=ConfigDict(extra="forbid"),
        **fields,
    )
    return model


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, default=str, ensure_ascii=False)


def _describe(exc: BaseException) -> str:
    """``Type: message`` of an exception, even when its ``__str__`` raises."""
    try:
        text = str(exc)
    except Exception:
        text = "<unprintable exception>"
    return f"{type(exc).__name__}: {text}"


def check_timeout(value: object, what: str) -> float | None:
    """Validate a timeout: None (no bound) or a finite number of seconds > 0.

    Raises:
        WindowConfigError: anything else (the message names ``what``).
    """
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise WindowConfigError(f"{what} must be a number of seconds > 0 or None, got {value!r}")
    return float(value)


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


_WORKERS = _DaemonWorkers()


async def _in_thread(fn: ToolFunction, kwargs: dict[str, Any]) -> Any:
    """Run ``fn(**kwargs)`` on a daemon worker (with the caller's context variables) and await
    its outcome; a call that times out is abandoned to its worker (see :class:`_DaemonWorkers`).
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: Any, failed: bool) -> None:
        if future.done():  # timed out or cancelled meanwhile: the late outcome is discarded
            return
        if failed:
            future.set_exception(outcome)
        else:
            future.set_result(outcome)

    def work() -> None:
        try:
            outcome, failed = context.run(fn, **kwargs), False
        except BaseException as exc:  # carried to the loop: an interrupt is not lost here
            outcome, failed = exc, True
        with contextlib.suppress(RuntimeError):  # the loop closed while an abandoned tool ran
            loop.call_soon_threadsafe(settle, outcome, failed)

    _WORKERS.submit(work)
    return await future


class Tool:
    """A callable the model may ask for, with validated arguments."""

    def __init__(
        self,
        fn: ToolFunction,
        *,
        name: str | None = None,
        description: str | None = None,
        kind: ToolKind = "auto",
        timeout: float | None = None,
    ) -> None:
        if not callable(fn):
            raise WindowConfigError(f"a tool must be a callable, got {fn!r}")
        self.fn = fn
        self.kind: ToolKind = kind
        self.name = storable_text(name or fn.__name__)
        self.timeout = check_timeout(timeout, f"tool '{self.name}' timeout")
        """Seconds after which a call gets an error result (None: the agent's default)."""
        self.description = storable_text(description or inspect.getdoc(fn) or "")
        self.arguments = _arguments_model(fn, self.name)

    def __repr__(self) -> str:
        return f"Tool({self.name!r})"

    @functools.cached_property
    def spec(self) -> ToolSpec:
        """How the tool is advertised to the model (built once)."""
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        return ToolSpec(
            name=self.name, description=self.description, parameters=storable_value(schema)
        )

    async def invoke(self, call: ToolCall, *, default_timeout: float | None = None) -> Message:
        """Run the call; any failure becomes an error result the model can read.

        Args:
            call: The call to answer.
            default_timeout: The agent's bound, used when the tool declares none.
        """
        timeout = self.timeout if self.timeout is not None else default_timeout
        if timeout is None:
            return await self._answer(call)
        try:
            return await asyncio.wait_for(self._answer(call), timeout)
        except TimeoutError:  # only the bound: _answer turns the tool's own errors into text
            return Message.tool(
                call.id,
                call.name,
                f"error: TimeoutError: tool '{self.name}' did not finish within {float(timeout)} s",
            )

    async def _answer(self, call: ToolCall) -> Message:
        try:
            args = self.arguments.model_validate(call.arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors()
            )
            return Message.tool(call.id, call.name, f"error: invalid arguments — {problems}")
        kwargs = {k: getattr(args, k) for k in type(args).model_fields}
        try:
            if inspect.iscoroutinefunction(self.fn):
                result = await self.fn(**kwargs)
            else:
                result = await _in_thread(self.fn, kwargs)
                if inspect.isawaitable(result):
                    result = await result
        except Exception as exc:
            return Message.tool(call.id, call.name, f"error: {_describe(exc)}")
        try:
            text = _as_text(result)
        except Exception as exc:  # tuple keys, a cycle, a __str__ that raises ...
            return Message.tool(
                call.id,
                call.name,
                f"error: tool '{self.name}' returned a {type(result).__name__} that cannot be "
                f"turned into text ({_describe(exc)})",
            )
        return Message.tool(call.id, call.name, text)


def is_error_result(message: Message) -> bool:
    """Whether a tool message reports an error."""
    return message.role == "tool" and message.content.startswith("error: ")


def unknown_tool_result(tools: dict[str, Tool], call: ToolCall) -> Message:
    """The error result for a call to a tool the agent does not have."""
    available = ", ".join(sorted(tools)) or "none"
    return Message.tool(
        call.id, call.name, f"error: unknown tool '{call.name}'; available: {available}"
    )


@dataclass(frozen=True, slots=True)
class _Interrupted:
    """An interrupt a tool raised, carried out of its task so asyncio does not re-raise it
    straight out of the event loop (it does that for tasks) before the batch can record it."""

    exc: BaseException


ResultHook = Callable[[Message], None]
"""Called with each result as it is committed to the batch (in call order)."""


async def run_tool_calls(
    tools: dict[str, Tool],
    calls: list[ToolCall],
    *,
    default_timeout: float | None = None,
    on_result: ResultHook | None = None,
) -> list[Message]:
    """Run a batch (possibly parallel) and return results in call order.

    ``on_result`` receives each result as soon as it and every earlier call of the batch have
    finished: results are delivered in call order (the order the window shows), one at a time,
    so a caller can commit each before the next is delivered.

    Raises:
        KeyboardInterrupt, SystemExit: a tool raised it; the results before it were delivered,
            the calls still running are cancelled.
    """
    results: list[Message] = []

    def deliver(message: Message) -> None:
        results.append(message)
        if on_result is not None:
            on_result(message)

    async def one(call: ToolCall) -> Message:
        tool = tools.get(call.name)
        if tool is None:
            return unknown_tool_result(tools, call)
        return await tool.invoke(call, default_timeout=default_timeout)

    if len(calls) == 1:
        deliver(await one(calls[0]))
        return results

    async def guarded(call: ToolCall) -> Message | _Interrupted:
        try:
            return await one(call)
        except (KeyboardInterrupt, SystemExit) as exc:
            return _Interrupted(exc)

    tasks = [asyncio.ensure_future(guarded(c)) for c in calls]
    try:
        for task in tasks:  # awaiting in call order delivers each complete prefix at once
            outcome = await task
            if isinstance(outcome, _Interrupted):
                raise outcome.exc
            deliver(outcome)
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
    return results


@overload
def tool(fn: ToolFunction, /) -> Tool: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    check_in: bool = False,
    timeout: float | None = None,
) -> Callable[[ToolFunction], Tool]: ...
def tool(
    fn: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    check_in: bool = False,
    timeout: float | None = None,
) -> Tool | Callable[[ToolFunction], Tool]:
    """Make a function a tool: name from the function, description from its docstring,
    arguments validated from its signature. Use as ``@tool`` or ``@tool(name=...)``.

    Args:
        check_in: The tool acts on the world: the run pauses for a person's consent before
            each call (``run.approve()`` / ``run.deny(reason)``).
        timeout: Seconds after which a call gets an error result
            (``error: TimeoutError: tool 'x' did not finish within 2.0 s``); overrides the
            agent's ``tool_timeout``. Checked here: not a number > 0 raises WindowConfigError.
    """
    kind: ToolKind = "check-in" if check_in else "auto"
    if fn is not None:
        return Tool(fn, name=name, description=description, kind=kind, timeout=timeout)

    def wrap(f: ToolFunction) -> Tool:
        return Tool(f, name=name, description=description, kind=kind, timeout=timeout)

    return wrap


def _ask_human(question: str) -> str:
    """Ask the person running this agent a question and wait for their answer."""
    raise RuntimeError("ask_human is answered by a person through run.resume(answer)")


ask_human = Tool(_ask_human, name="ask_human", kind="ask-human")
"""A built-in tool: the run pauses until ``run.resume(answer)``."""
