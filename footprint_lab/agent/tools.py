"""Tools: the ``@tool`` decorator, argument validation and safe execution.

Layer: agent. A tool that raises, an unknown tool, invalid arguments, a return value that
cannot be turned into text and a tool that outlives its timeout all become an error result the
model sees — never a crash of the run, never a call left without a result. An interrupt
(``KeyboardInterrupt``, ``SystemExit``) or a cancellation is not a tool error: it propagates, and
the loop records the run as cancelled.

Sync tools run in a worker thread (:mod:`footprint_lab.agent._workers`), so a blocking tool
never blocks the event loop: a timeout (``@tool(timeout=...)``, ``Agent.create(tool_timeout=
...)``), ``asyncio.wait_for`` around ``arun`` and a task cancellation all fire while it runs.
An async tool runs on the agent's event loop — unless a timeout applies to it: then it runs on
a loop of its own in a worker thread, so one that blocks the loop or swallows its cancellation
still ends at the bound. Python cannot stop a thread, so a call that timed out keeps running
in the background (an async one is cancelled there); its late result is discarded, and at most
``STRANDED_LIMIT`` such calls of one tool may linger before its next call is refused. A batch
of calls runs in :mod:`footprint_lab.agent._batch`.
A tool reads the id of the call it serves with :func:`current_call_id`.

Two kinds of tool stop the run for a person: ``ask_human`` (the person's answer becomes the
result) and a tool declared with ``check_in=True`` (it runs only after the person approves).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from footprint_lab.agent._workers import (
    STRANDED_LIMIT,
    StrandedError,
    coroutine_in_thread,
    in_thread,
)
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


_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "footprint_lab_tool_call_id", default=None
)


def current_call_id() -> str | None:
    """The id of the tool call being run, read from inside the tool (sync or async); None
    outside a call.

    It is the call's ``ToolCall.id``, committed to the ledger with the model's reply before
    any tool of the batch runs, so a resume that runs the call again (it was killed before
    its result was committed) gives the tool the same id: key a side effect that must happen
    once on it (an idempotency key, a primary key, a file name). It is unique within a reply
    (a reply repeating one is a ``ProviderError``); OpenAI and Anthropic mint a new one per
    call, while ``ScriptedProvider`` counts ``call_1``, ``call_2``, ... from its first reply —
    a store shared by several conversations pairs it with a key of its own.
    """
    return _CALL_ID.get()


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
        token = _CALL_ID.set(call.id)  # what current_call_id() reads, in this task only
        try:
            return await self._bounded(call, timeout)
        finally:
            _CALL_ID.reset(token)

    async def _bounded(self, call: ToolCall, timeout: float | None) -> Message:
        if timeout is None:
            return await self._answer(call, threaded=False)
        try:  # under a bound an async tool runs in a thread too: it cannot hold the loop up
            return await asyncio.wait_for(self._answer(call, threaded=True), timeout)
        except TimeoutError:  # only the bound: _answer turns the tool's own errors into text
            return Message.tool(
                call.id,
                call.name,
                f"error: TimeoutError: tool '{self.name}' did not finish within {float(timeout)} s",
            )

    async def _answer(self, call: ToolCall, *, threaded: bool) -> Message:
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
            if not inspect.iscoroutinefunction(self.fn):
                outcome = await in_thread(functools.partial(self._run_sync, call, kwargs), self)
            elif threaded:
                return await coroutine_in_thread(lambda: self._run_async(call, kwargs), self)
            else:
                return await self._run_async(call, kwargs)
        except StrandedError as exc:
            return Message.tool(
                call.id,
                call.name,
                f"error: tool '{self.name}' was not run: {exc.stranded} of its calls that "
                f"outlived their timeout still hold their threads (at most {STRANDED_LIMIT} "
                "may); a call runs again once one of them returns",
            )
        if isinstance(outcome, Message):
            return outcome
        try:  # a sync function that returned an awaitable: awaited here, on the loop
            result = await outcome
        except Exception as exc:
            return Message.tool(call.id, call.name, f"error: {_describe(exc)}")
        return self._message(call, result)

    async def _run_async(self, call: ToolCall, kwargs: dict[str, Any]) -> Message:
        """The call's result message, on whichever loop runs it."""
        try:
            result = await self.fn(**kwargs)
        except Exception as exc:
            return Message.tool(call.id, call.name, f"error: {_describe(exc)}")
        return self._message(call, result)

    def _run_sync(self, call: ToolCall, kwargs: dict[str, Any]) -> Message | Awaitable[Any]:
        """In the worker thread: the call's result message, or the awaitable it returned."""
        try:
            result = self.fn(**kwargs)
        except Exception as exc:
            return Message.tool(call.id, call.name, f"error: {_describe(exc)}")
        if inspect.isawaitable(result):
            return result
        return self._message(call, result)

    def _message(self, call: ToolCall, result: Any) -> Message:
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


def unknown_tool_result(tools: Mapping[str, Tool], call: ToolCall) -> Message:
    """The error result for a call to a tool the agent does not have."""
    available = ", ".join(sorted(tools)) or "none"
    return Message.tool(
        call.id, call.name, f"error: unknown tool '{call.name}'; available: {available}"
    )


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
