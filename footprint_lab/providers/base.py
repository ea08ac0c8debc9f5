"""The provider protocol: what the agent loop needs from an LLM API.

Layer: providers (above the window core, below the agent). A provider turns a request into an
assistant message plus the usage the API reported; it never estimates tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from footprint_lab._context_length import ContextLengthError
from footprint_lab.messages import Message, StorableStr, storable_text
from footprint_lab.usage import Usage
from footprint_lab.window.records import ServerEdit

__all__ = [
    "UNPARSED_ARGUMENTS_KEY",
    "ContextLengthError",
    "Provider",
    "ProviderError",
    "ProviderRequest",
    "ProviderResponse",
    "ToolSpec",
    "checked_response",
    "repeated_call_ids",
    "window_counter",
]

UNPARSED_ARGUMENTS_KEY = "__unparsed_arguments__"
"""When a model streams tool-call arguments that are not a JSON object (cut off by the output
cap, or malformed), the call keeps the raw text under this key so the tool reports the problem
to the model instead of the run crashing."""


class ToolSpec(BaseModel):
    """A tool as the provider advertises it to the model."""

    name: str
    """The tool's name."""
    description: str = ""
    """What it does, for the model."""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON schema of its arguments."""


class ProviderRequest(BaseModel):
    """One call: the system prompt, the window, the tools and the output cap."""

    model: str
    """The model id."""
    system: str | None = None
    """The system prompt (request-level, never part of the window)."""
    messages: list[Message]
    """The window."""
    tools: list[ToolSpec] = Field(default_factory=list)
    """Tools the model may call."""
    max_output_tokens: int | None = None
    """Cap on the reply's tokens."""


class ProviderResponse(BaseModel):
    """The assistant's reply and the usage the API reported for it."""

    message: Message
    """The assistant message (text and/or tool calls)."""
    usage: Usage = Field(default_factory=Usage)
    """Reported usage; zeros when the API reported none."""
    finish_reason: StorableStr | None = None
    """Why the reply ended, as the API said it ('stop', 'tool_calls', 'length', 'end_turn',
    'tool_use', 'max_tokens', ...); None when the provider does not say."""
    truncated: bool = False
    """True when the reply was cut short by the output cap (OpenAI ``length``, Anthropic
    ``max_tokens``): its text or its last tool call's arguments may be incomplete."""
    server_edits: list[ServerEdit] = Field(default_factory=list)
    """What the response said the provider's own server-side window policy did to this
    request (``context_management``): Anthropic's applied edits and compaction iteration,
    OpenAI's compaction. A compaction's block or item itself rides first in
    ``message.parts`` (a :class:`~footprint_lab.messages.ContentPart` of kind
    ``'compaction'``, its ``original`` the block or item exactly as received)."""


class ProviderError(RuntimeError):
    """A provider call failed for a reason other than context length. Its message is storable
    text (a lone surrogate a server sent is escaped)."""

    def __init__(self, message: str, *, status: int | None = None, provider: str | None = None):
        super().__init__(storable_text(message))
        self.status = status
        self.provider = provider


@runtime_checkable
class Provider(Protocol):
    """What the agent loop calls."""

    name: str

    def context_window(self, model: str) -> int | None:
        """The model's context window in tokens, or None when unknown."""
        ...

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Send one request and return the reply.

        Raises:
            ContextLengthError: the API rejected the request as too long.
            ProviderError: any other failure, with the API's status and message.
        """
        ...


@runtime_checkable
class TokenCounter(Protocol):
    """A provider that can count a request's input tokens without sending it (optional: a
    replay hands token strategies the counterfactual window's count when it has one)."""

    def count_tokens(self, request: ProviderRequest) -> int | None:
        """The input tokens ``request`` would be billed for, exactly as a call would report
        them; None when this provider cannot say."""
        ...


def count_tokens(provider: object, request: ProviderRequest) -> int | None:
    """``provider.count_tokens(request)`` when the provider can count, else None."""
    if isinstance(provider, TokenCounter):
        counted = provider.count_tokens(request)
        if counted is not None and (isinstance(counted, bool) or not isinstance(counted, int)):
            raise TypeError(
                f"{type(provider).__name__}.count_tokens must return an int or None, "
                f"got {counted!r}"
            )
        return counted
    return None


def window_counter(
    provider: object, request_for: Callable[[Sequence[Message]], ProviderRequest]
) -> Callable[[Sequence[Message]], int | None] | None:
    """A function counting the input tokens of a window, sent as ``request_for`` builds its
    request, by ``provider.count_tokens`` (None when the provider cannot count): what a
    :class:`~footprint_lab.window.Boundary` hands a strategy as ``count_window``."""
    # A replay asks at every boundary, mostly of no provider: the protocol check is slow.
    if provider is None or not isinstance(provider, TokenCounter):
        return None

    def count(messages: Sequence[Message]) -> int | None:
        return count_tokens(provider, request_for(messages))

    return count


def repeated_call_ids(message: Message) -> list[str]:
    """The tool-call ids that occur more than once in ``message``, sorted."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for call in message.tool_calls:
        (repeated if call.id in seen else seen).add(call.id)
    return sorted(repeated)


def checked_response(provider: str, response: object) -> ProviderResponse:
    """``response`` when it is a usable reply; else a :class:`ProviderError` is raised.

    Every provider's reply goes through this (the agent calls it), so a custom provider that
    returns ``None`` or something else, or a reply that repeats a tool-call id within one batch,
    stops the run with a clear error instead of a crash further on.

    Raises:
        ProviderError: ``response`` is not a :class:`ProviderResponse`, or it repeats a call id.
    """
    if not isinstance(response, ProviderResponse):
        what = "None" if response is None else f"a {type(response).__name__}"
        raise ProviderError(
            f"{provider}: complete() returned {what}, not a ProviderResponse",
            provider=provider,
        )
    repeated = repeated_call_ids(response.message)
    if repeated:
        raise ProviderError(
            f"{provider}: the reply repeats tool call id(s) {', '.join(repeated)} within one batch",
            provider=provider,
        )
    return response
