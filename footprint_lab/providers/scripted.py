"""``ScriptedProvider``: the embedded default. Deterministic replies, deterministic usage.

Layer: providers. It needs no key and no network, so notebooks, tests and the demo run the
same way everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.pricing import estimate_tokens
from footprint_lab.providers.base import (
    ContextLengthError,
    ProviderError,
    ProviderRequest,
    ProviderResponse,
)
from footprint_lab.usage import Usage

SCRIPTED_NAME = "scripted"
"""The scripted provider's default name (and the prefix of its variants' names): a run whose
provider is named so is counted by its rule even once it has lost its agent (a replay)."""


class Reply(BaseModel):
    """One scripted assistant turn."""

    content: str = ""
    """The reply's text."""
    calls: list[tuple[str, dict[str, Any]]] = Field(default_factory=list)
    """Tool calls as (name, arguments)."""
    failure: str | None = None
    """When set, the call fails with a ProviderError carrying this message."""
    thinking: str | None = None
    """The model's thinking before this reply, when it thinks: the reply carries it as a
    ``thinking`` part (shaped as Anthropic's block, with a signature), so it is sent back,
    counted and cleared with its turn."""

    def with_thinking(self, thinking: str) -> Reply:
        """This reply, thought through first (``thinking`` set)."""
        return self.model_copy(update={"thinking": thinking})

    @classmethod
    def text(cls, text: str) -> Reply:
        """A final text answer."""
        return cls(content=text)

    @classmethod
    def tool_calls(cls, calls: Iterable[tuple[str, dict[str, Any]]], text: str = "") -> Reply:
        """One or more tool calls (several = a parallel batch)."""
        return cls(content=text, calls=[(name, dict(args)) for name, args in calls])

    @classmethod
    def tool_call(cls, tool_name: str, /, **arguments: Any) -> Reply:
        """A single tool call."""
        return cls(calls=[(tool_name, arguments)])

    @classmethod
    def fail(cls, message: str) -> Reply:
        """A call that fails with a provider error (for fault-injection)."""
        return cls(failure=message)


ReplySource = Sequence[Reply] | Callable[[ProviderRequest], Reply]


def call_chars(call: ToolCall) -> int:
    """Characters a tool call bills for: its name and its arguments as JSON."""
    return len(call.name) + len(json.dumps(call.arguments, sort_keys=True))


def request_chars(
    request: ProviderRequest, memo: dict[str, tuple[ToolCall, int]] | None = None
) -> int:
    """Characters the scripted provider bills for: system, contents and tool-call arguments.

    ``memo`` caches each call's size by call id (checked against the call object itself, since
    foreign transcripts may reuse ids), so a long run does not re-serialise every earlier
    call's arguments at every request.
    """
    total = len(request.system or "")
    for message in request.messages:
        total += len(message.content)
        for part in message.parts:
            total += part.chars
        for call in message.tool_calls:
            if memo is None:
                total += call_chars(call)
                continue
            known = memo.get(call.id)
            if known is None or known[0] is not call:
                known = memo[call.id] = (call, call_chars(call))
            total += known[1]
    return total


class ScriptedProvider:
    """Replies from a list (in order) or from a function of the request.

    Args:
        replies: The replies, or a function returning one for each request.
        report_usage: Report deterministic usage (the one token estimate,
            :func:`~footprint_lab.pricing.estimate_tokens`: chars / 4, rounded up); False
            reports zeros, like an OpenAI-compatible stream that sends no usage.
        context_window: When set, a request whose input tokens exceed it raises
            ``ContextLengthError`` (and consumes no reply).
        name: The provider's name in records and errors.
        record_requests: Keep every request in ``requests`` (for tests and notebooks). Turn it
            off for long runs: without a window strategy each request holds the whole history.
    """

    def __init__(
        self,
        replies: ReplySource,
        *,
        report_usage: bool = True,
        context_window: int | None = None,
        name: str = SCRIPTED_NAME,
        record_requests: bool = True,
    ) -> None:
        self._source = replies if callable(replies) else list(replies)
        self.report_usage = report_usage
        self._context_window = context_window
        self.name = name
        self.calls = 0
        self._call_ids = 0
        self.record_requests = record_requests
        self.requests: list[ProviderRequest] = []
        self._call_chars: dict[str, tuple[ToolCall, int]] = {}

    def __repr__(self) -> str:
        return f"ScriptedProvider(name={self.name!r}, report_usage={self.report_usage})"

    def context_window(self, model: str) -> int | None:
        """The configured context window (None when unlimited)."""
        return self._context_window

    def export_state(self) -> dict[str, Any]:
        """Where the script stands, so a checkpoint can resume it in another process."""
        return {"calls": self.calls, "call_ids": self._call_ids}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Continue the script from an exported state."""
        self.calls = int(state["calls"])
        self._call_ids = int(state["call_ids"])

    def _next_reply(self, request: ProviderRequest) -> Reply:
        if callable(self._source):
            return self._source(request)
        if self.calls >= len(self._source):
            raise ProviderError(
                f"ScriptedProvider '{self.name}' has no reply for call {self.calls + 1}: it was "
                f"scripted with {len(self._source)}",
                provider=self.name,
            )
        return self._source[self.calls]

    def count_tokens(self, request: ProviderRequest) -> int | None:
        """The input tokens :meth:`complete` would report for ``request`` (None when this
        provider reports no usage); consumes no reply."""
        if not self.report_usage:
            return None
        return self._input_tokens(request)

    def _input_tokens(self, request: ProviderRequest) -> int:
        return max(1, estimate_tokens(request_chars(request, self._call_chars)))

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Answer with the next scripted reply."""
        if self.record_requests:
            self.requests.append(request)
        input_tokens = self._input_tokens(request)
        if self._context_window is not None and input_tokens > self._context_window:
            raise ContextLengthError(
                f"{self.name}: this request is {input_tokens} tokens, over the model's context "
                f"window of {self._context_window} tokens",
                provider=self.name,
            )
        reply = self._next_reply(request)
        self.calls += 1
        if reply.failure is not None:
            raise ProviderError(reply.failure, status=500, provider=self.name)
        tool_calls = []
        if reply.calls:
            # Never an id the conversation already holds: one this provider did not mint (a
            # fork of a recorded run, a conversation continued by a new provider) goes on
            # past the latest call_N it is shown.
            self._call_ids = max(self._call_ids, _latest_minted(request))
        for name, arguments in reply.calls:
            self._call_ids += 1
            tool_calls.append(ToolCall(id=f"call_{self._call_ids}", name=name, arguments=arguments))
        parts = [] if reply.thinking is None else [thinking_part(reply.thinking, self.calls)]
        message = Message.assistant(reply.content, tool_calls=tool_calls, parts=parts)
        out_chars = len(reply.content) + sum(call_chars(c) for c in tool_calls)
        out_chars += sum(part.chars for part in parts)
        usage = (
            Usage(
                input_tokens=input_tokens,
                output_tokens=max(1, estimate_tokens(out_chars)),
            )
            if self.report_usage
            else Usage()
        )
        return ProviderResponse(
            message=message,
            usage=usage,
            finish_reason="tool_calls" if tool_calls else "stop",
        )


def thinking_part(text: str, call: int) -> ContentPart:
    """A scripted thinking block, shaped as Anthropic's (``thinking`` and a ``signature``,
    here a deterministic stand-in naming the call): sent back untouched, sized by its text."""
    block = {"type": "thinking", "thinking": text, "signature": f"scripted-signature-{call}"}
    return ContentPart(kind="thinking", text=text, original=block)


_MINTED_ID = re.compile(r"call_(\d+)")
"""The call ids a :class:`ScriptedProvider` mints (``call_1``, ``call_2``, ...)."""


def _latest_minted(request: ProviderRequest) -> int:
    """The highest ``call_N`` of the latest assistant message in ``request`` that calls tools
    (a scripted model numbers its calls in order, so the latest are the highest); 0 if none."""
    for message in reversed(request.messages):
        if message.role == "assistant" and message.tool_calls:
            return max(
                (int(m.group(1)) for c in message.tool_calls if (m := _MINTED_ID.fullmatch(c.id))),
                default=0,
            )
    return 0


def echo_provider() -> ScriptedProvider:
    """The default when no provider is given: answers every request with its own text."""

    def _echo(request: ProviderRequest) -> Reply:
        last_user = next((m for m in reversed(request.messages) if m.role == "user"), None)
        return Reply.text(f"(scripted) {last_user.content if last_user else ''}")

    return ScriptedProvider(_echo, name="scripted-echo")
