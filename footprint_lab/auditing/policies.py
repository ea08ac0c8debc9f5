"""Foreign window policies, as they are shipped elsewhere, for auditing side by side.

Layer: audit. These are *not* strategies of ours: they see a message list and return one, with
no refusal engine. ``audit`` wraps them so they run at each boundary and their records carry
the violations.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from footprint_lab.messages import Message
from footprint_lab.window.strategies.summarize_oldest import SummaryResult
from footprint_lab.window.strategies.summarizers import extractive_summarizer

SUMMARY_OPENING = "<summary of earlier conversation>\n\n"


class AbortSignal:
    """The Python counterpart of an ``AbortSignal``: ``aborted`` turns true once the task the
    policy runs in is being cancelled (the run was cancelled or timed out).

    A policy that makes its own calls can poll it, or call :meth:`throw_if_aborted` between
    steps; awaiting inside the run's task is cancelled anyway.
    """

    def __init__(self, task: asyncio.Task[Any] | None = None) -> None:
        self._task = task
        self._aborted = False

    @classmethod
    def current(cls) -> AbortSignal:
        """A signal bound to the running task (never aborted outside one)."""
        try:
            return cls(asyncio.current_task())
        except RuntimeError:
            return cls(None)

    @property
    def aborted(self) -> bool:
        """Whether the run this policy serves is being cancelled."""
        task = self._task
        return self._aborted or (task is not None and (task.cancelled() or task.cancelling() > 0))

    def abort(self) -> None:
        """Mark the signal aborted (for callers that cancel by hand)."""
        self._aborted = True

    def throw_if_aborted(self) -> None:
        """Raise ``asyncio.CancelledError`` when :attr:`aborted`."""
        if self.aborted:
            raise asyncio.CancelledError("the run was cancelled")

    def __repr__(self) -> str:
        return f"AbortSignal(aborted={self.aborted})"


@dataclass(frozen=True)
class CompactionContext:
    """What a ``compact(ctx)``-style policy is given (the TypeScript compaction library's
    shape): the real messages, the run's provider and model, and an abort signal."""

    messages: list[Message]
    """The provider-facing view."""
    provider: Any = None
    """The run's provider (it answers ``context_window(model)``); in a replay, which calls no
    model, a stand-in that answers ``context_window`` only."""
    model: str | None = None
    """The agent's model id (None in a replay that does not know it)."""
    signal: AbortSignal | None = None
    """Turns aborted when the run is cancelled."""


@runtime_checkable
class CompactionPolicy(Protocol):
    """The TypeScript compaction library's strategy interface: an ``id`` and ``compact(ctx)``."""

    @property
    def id(self) -> str:
        """The policy's id."""
        ...

    def compact(self, ctx: CompactionContext) -> Any:
        """Return the rewritten message list (or an awaitable of it)."""
        ...


class ContextWindowOracle:
    """Answers ``context_window(model)`` for policies that ask."""

    def __init__(self, window: int | None) -> None:
        self.window = window

    def context_window(self, model: str | None = None) -> int:
        """The known context window, else the compaction library's 128k fallback."""
        return self.window or 128_000


Summarize = Callable[[Sequence[Message]], str | SummaryResult | Awaitable[str | SummaryResult]]


def _default_summary(messages: Sequence[Message]) -> str:
    return extractive_summarizer(messages).text


async def _summarize(fn: Summarize, older: Sequence[Message]) -> str:
    produced = fn(older)
    if inspect.isawaitable(produced):
        produced = await produced
    return produced.text if isinstance(produced, SummaryResult) else str(produced)


class DefaultKeepRecent10:
    """The TypeScript compaction library's ``default-keep-recent-10``: keep from the 10th
    assistant message counted backwards, summarize everything older into one prepended user
    message."""

    def __init__(self, summarizer: Summarize | None = None, keep_assistant: int = 10) -> None:
        self.summarizer: Summarize = summarizer or _default_summary
        self.keep_assistant = keep_assistant
        self.id = f"default-keep-recent-{keep_assistant}"

    async def compact(self, ctx: CompactionContext) -> list[Message]:
        """The heuristic, step by step as the compaction library describes it."""
        messages = ctx.messages
        seen = 0
        cut: int | None = None
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].role == "assistant":
                seen += 1
                if seen == self.keep_assistant:
                    cut = i
                    break
        if cut is None or cut == 0:
            return messages  # fewer than N assistant turns: a no-op
        summary = await _summarize(self.summarizer, messages[:cut])
        return [Message.user(SUMMARY_OPENING + summary), *messages[cut:]]


def default_keep_recent_10(summarizer: Summarize | None = None) -> DefaultKeepRecent10:
    """The TypeScript compaction library's default compaction strategy, for comparison."""
    return DefaultKeepRecent10(summarizer)


def keep_last_messages(n: int) -> Callable[[list[Message]], list[Message]]:
    """A naive trimmer: keep the last ``n`` messages, whatever they are."""

    def keep_last(messages: list[Message]) -> list[Message]:
        return messages[-n:] if len(messages) > n else messages

    keep_last.__name__ = f"keep-last-{n}"
    return keep_last


def langchain_trim(**params: Any) -> Callable[[list[Message]], list[Message]]:
    """LangChain's ``trim_messages`` with the given parameters, over our messages.

    Pass ``token_counter=len`` to count messages, or ``"chars"`` to count characters.
    Needs ``langchain-core`` (the ``peers`` extra).

    Raises:
        ImportError: langchain-core is not installed (the message says how to get it).
    """
    try:
        from langchain_core.messages import (
            AIMessage,
            BaseMessage,
            HumanMessage,
            SystemMessage,
            ToolMessage,
            trim_messages,
        )
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "langchain_trim needs langchain-core: pip install 'footprint-lab[peers]'"
        ) from exc
    if params.get("token_counter") == "chars":

        def count_chars(msgs: list[BaseMessage]) -> int:
            return sum(len(str(m.content)) for m in msgs)

        params["token_counter"] = count_chars
    params.setdefault("strategy", "last")

    def to_langchain(message: Message) -> BaseMessage:
        if message.role == "system":
            return SystemMessage(message.content)
        if message.role == "user":
            return HumanMessage(message.content)
        if message.role == "assistant":
            calls = [
                {"name": c.name, "args": dict(c.arguments), "id": c.id, "type": "tool_call"}
                for c in message.tool_calls
            ]
            return AIMessage(message.content, tool_calls=calls)
        return ToolMessage(
            message.content, tool_call_id=message.tool_call_id or "", name=message.name
        )

    def trim(messages: list[Message]) -> list[Message]:
        converted = [to_langchain(m) for m in messages]
        back = {id(lc): m for lc, m in zip(converted, messages, strict=True)}
        trimmed = trim_messages(converted, **params)
        out: list[Message] = []
        for lc in trimmed:
            original = back.get(id(lc))
            if original is None:  # a partial message: LangChain rewrote its content
                source = next(
                    m
                    for c, m in zip(converted, messages, strict=True)
                    if type(c) is type(lc) and getattr(c, "id", None) == lc.id
                )
                original = source.model_copy(update={"content": str(lc.content)})
            out.append(original)
        return out

    label = ",".join(f"{k}={getattr(v, '__name__', v)}" for k, v in sorted(params.items()))
    trim.__name__ = f"langchain-trim({label})"
    return trim


def policy_name(policy: Any) -> str:
    """A readable id for any policy."""
    for attr in ("id", "name", "__name__"):
        value = getattr(policy, attr, None)
        if isinstance(value, str):
            return value
    return type(policy).__name__
