"""Tools: the ``@tool`` decorator, argument validation and safe execution.

Layer: agent. A tool that raises, an unknown tool and invalid arguments all become an error
result the model sees — never a crash of the run.

Two kinds of tool stop the run for a person: ``ask_human`` (the person's answer becomes the
result) and a tool declared with ``check_in=True`` (it runs only after the person approves).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Callable
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from footprint_lab.messages import Message, ToolCall
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
        f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, default=str, ensure_ascii=False)


class Tool:
    """A callable the model may ask for, with validated arguments."""

    def __init__(
        self,
        fn: ToolFunction,
        *,
        name: str | None = None,
        description: str | None = None,
        kind: ToolKind = "auto",
    ) -> None:
        if not callable(fn):
            raise WindowConfigError(f"a tool must be a callable, got {fn!r}")
        self.fn = fn
        self.kind: ToolKind = kind
        self.name = name or fn.__name__
        self.description = description or inspect.getdoc(fn) or ""
        self.arguments = _arguments_model(fn, self.name)

    def __repr__(self) -> str:
        return f"Tool({self.name!r})"

    @functools.cached_property
    def spec(self) -> ToolSpec:
        """How the tool is advertised to the model (built once)."""
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        return ToolSpec(name=self.name, description=self.description, parameters=schema)

    async def invoke(self, call: ToolCall) -> Message:
        """Run the call; any failure becomes an error result the model can read."""
        try:
            args = self.arguments.model_validate(call.arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors()
            )
            return Message.tool(call.id, call.name, f"error: invalid arguments — {problems}")
        try:
            result = self.fn(**{k: getattr(args, k) for k in type(args).model_fields})
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:
            return Message.tool(call.id, call.name, f"error: {type(exc).__name__}: {exc}")
        return Message.tool(call.id, call.name, _as_text(result))


def is_error_result(message: Message) -> bool:
    """Whether a tool message reports an error."""
    return message.role == "tool" and message.content.startswith("error: ")


def unknown_tool_result(tools: dict[str, Tool], call: ToolCall) -> Message:
    """The error result for a call to a tool the agent does not have."""
    available = ", ".join(sorted(tools)) or "none"
    return Message.tool(
        call.id, call.name, f"error: unknown tool '{call.name}'; available: {available}"
    )


async def run_tool_calls(tools: dict[str, Tool], calls: list[ToolCall]) -> list[Message]:
    """Run a batch (possibly parallel) and return results in call order."""

    async def one(call: ToolCall) -> Message:
        tool = tools.get(call.name)
        if tool is None:
            return unknown_tool_result(tools, call)
        return await tool.invoke(call)

    if len(calls) == 1:
        return [await one(calls[0])]

    return list(await asyncio.gather(*(one(c) for c in calls)))


@overload
def tool(fn: ToolFunction, /) -> Tool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None, check_in: bool = False
) -> Callable[[ToolFunction], Tool]: ...
def tool(
    fn: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    check_in: bool = False,
) -> Tool | Callable[[ToolFunction], Tool]:
    """Make a function a tool: name from the function, description from its docstring,
    arguments validated from its signature. Use as ``@tool`` or ``@tool(name=...)``.

    Args:
        check_in: The tool acts on the world: the run pauses for a person's consent before
            each call (``run.approve()`` / ``run.deny(reason)``).
    """
    kind: ToolKind = "check-in" if check_in else "auto"
    if fn is not None:
        return Tool(fn, name=name, description=description, kind=kind)

    def wrap(f: ToolFunction) -> Tool:
        return Tool(f, name=name, description=description, kind=kind)

    return wrap


def _ask_human(question: str) -> str:
    """Ask the person running this agent a question and wait for their answer."""
    raise RuntimeError("ask_human is answered by a person through run.resume(answer)")


ask_human = Tool(_ask_human, name="ask_human", kind="ask-human")
"""A built-in tool: the run pauses until ``run.resume(answer)``."""
