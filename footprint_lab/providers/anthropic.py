"""``AnthropicProvider``: the Anthropic Messages API, streamed.

Layer: providers. Built on the official ``anthropic`` SDK (``AsyncAnthropic``). The system
prompt rides the request (``system=``), tool calls are ``tool_use`` blocks and tool results
``tool_result`` blocks; consecutive tool results (a parallel batch) become one ``user`` message
with several blocks, and any other run of same-role messages is merged so roles alternate as
the API requires. Replies are streamed: text and ``input_json_delta`` fragments are assembled
per content block, and usage is read from the stream (``message_start`` for input and cache
tokens, ``message_delta`` for the cumulative output tokens).

``Usage.input_tokens`` is the whole prompt: Anthropic reports uncached input, cache reads and
cache writes separately, and the window's size is their sum (the parts are kept in
``cache_read_tokens`` / ``cache_write_tokens``). That makes it comparable with OpenAI's
``prompt_tokens``, which already include cached tokens, and it is what the token strategies
compare with their threshold.

``max_tokens`` is required by the API: ``request.max_output_tokens`` when the agent sets one,
else ``default_max_tokens`` (4096). Errors: the API's over-length rejection (400
``invalid_request_error``, "prompt is too long: N tokens > M maximum") raises
``ContextLengthError``; anything else raises ``ProviderError`` with the HTTP status and the
API's message — transport failures, malformed event streams, a stream that ends without
``message_stop`` (cut short) and a reply repeating a tool-use id included. A reply stopped by
the output cap (``stop_reason="max_tokens"``) is returned with ``truncated=True``. The key, and
any credentials in ``base_url``, never appear in a repr, a name or an error message.

Server-side window policies and thinking: with ``context_management`` (context editing's
``clear_tool_uses_20250919`` / ``clear_thinking_20251015``, compaction's ``compact_20260112``)
or ``thinking`` set, calls go through ``client.beta.messages.create`` with the betas the edits
need. Thinking, redacted-thinking and compaction blocks ride the reply's ``parts`` (compaction
first) exactly as received and are sent back verbatim; the final ``message_delta``'s
``context_management.applied_edits`` and ``usage.iterations`` (a compaction's own sampling
step) become ``ProviderResponse.server_edits``. Without either setting, requests are exactly
as before. The stream accumulator lives in :mod:`footprint_lab.providers._anthropic_stream`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from footprint_lab.messages import Message
from footprint_lab.providers._anthropic_config import (
    betas_for,
    check_context_management,
    check_thinking,
)
from footprint_lab.providers._anthropic_stream import KEPT_BLOCKS
from footprint_lab.providers._anthropic_stream import (
    _MessageStream as _MessageStream,  # re-exported: tests assemble streams by hand
)
from footprint_lab.providers._common import (
    SDKProvider,
    complete_with,
    error_body_fields,
)
from footprint_lab.providers._context_windows import (
    ANTHROPIC_CONTEXT_WINDOWS,
    ANTHROPIC_FALLBACK_CONTEXT_WINDOW,
    check_override,
    resolve_context_window,
)
from footprint_lab.providers.base import (
    ContextLengthError,
    ProviderError,
    ProviderRequest,
    ProviderResponse,
    ToolSpec,
)

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicProvider", "to_anthropic_messages", "to_anthropic_tools"]

IDENTITY = {
    "url_env": "ANTHROPIC_BASE_URL",
    "official_host": "api.anthropic.com",
    "official": "anthropic",
    "compatible": "anthropic",
}
"""How the provider names itself: the vendor's own API, or ``anthropic@host:port``."""

API_KEY_ENV = "ANTHROPIC_API_KEY"
"""The environment variable the key is read from when none is given."""

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` sent when the agent sets no ``max_output_tokens`` (the API requires one)."""

EMPTY_TEXT = "(empty)"
"""Stands in for a message with no text and no blocks: the API rejects empty content."""

TRUNCATING_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})
"""``stop_reason`` values that mean the reply was cut short (the output cap, or the context
window filling up while the model wrote)."""

_CONTEXT_LENGTH_MESSAGE = re.compile(
    r"prompt is too long|exceed context limit|context window|context length",
    re.IGNORECASE,
)


def to_anthropic_messages(messages: list[Message]) -> tuple[list[str], list[dict[str, Any]]]:
    """Our window as Messages API ``messages``, plus any ``system`` texts found in it.

    Returns:
        ``(system_texts, messages)``: window messages with role ``system`` (which the Messages
        API does not accept as turns) are returned separately, to be appended to the
        request-level system prompt; everything else becomes ``user`` / ``assistant`` turns.
        Same-role neighbours are merged into one turn, ``tool_result`` blocks first, so roles
        alternate and results directly follow their ``tool_use`` blocks. An assistant
        message's parts whose ``original`` is a ``compaction``, ``thinking`` or
        ``redacted_thinking`` block are sent back exactly as received, before its text and
        tool uses (the compaction block first).
    """
    system: list[str] = []
    wire: list[dict[str, Any]] = []
    for message in messages:
        blocks: list[dict[str, Any]] = []
        if message.role == "system":
            if message.content.strip():
                system.append(message.content)
            continue
        if message.role == "tool":
            role = "user"
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id or "",
                    "content": message.content,
                }
            )
        elif message.role == "assistant":
            role = "assistant"
            # Thinking, redacted thinking and compaction blocks go back untouched (their
            # signatures are checked), before the text and tool uses, compaction first.
            kept = [copy.deepcopy(p.original) for p in message.parts if _kept(p.original)]
            blocks.extend(b for b in kept if b["type"] == "compaction")
            blocks.extend(b for b in kept if b["type"] != "compaction")
            if message.content.strip():
                blocks.append({"type": "text", "text": message.content})
            blocks.extend(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                for call in message.tool_calls
            )
        else:
            role = "user"
            if message.content.strip():
                blocks.append({"type": "text", "text": message.content})
        if wire and wire[-1]["role"] == role:
            merged = wire[-1]["content"] + blocks
            results = [b for b in merged if b["type"] == "tool_result"]
            wire[-1]["content"] = results + [b for b in merged if b["type"] != "tool_result"]
        else:
            wire.append({"role": role, "content": blocks})
    for turn in wire:
        if not turn["content"]:
            turn["content"] = [{"type": "text", "text": EMPTY_TEXT}]
    return system, wire


def _kept(original: Mapping[str, Any]) -> bool:
    """Whether a part's ``original`` is an Anthropic block sent back verbatim."""
    return isinstance(original, Mapping) and original.get("type") in KEPT_BLOCKS


def to_anthropic_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Our tool specs as Messages API ``tools``."""
    wire: list[dict[str, Any]] = []
    for spec in tools:
        entry: dict[str, Any] = {"name": spec.name, "input_schema": spec.parameters}
        if spec.description:
            entry["description"] = spec.description
        wire.append(entry)
    return wire


class AnthropicProvider(SDKProvider["AsyncAnthropic"]):
    """The Anthropic Messages API through the official SDK, streamed, usage from the stream.

    Args:
        api_key: The key; defaults to the ``ANTHROPIC_API_KEY`` environment variable. With a
            ``base_url`` and no key anywhere, a placeholder is sent.
        base_url: A Messages-API endpoint (a proxy or gateway); defaults to the SDK's.
        context_window_override: The context window to report instead of the lookup table
            (200_000 for every current Claude model, and the fallback): one number, or a
            mapping of model id to window.
        name: The provider's name in runs, records and errors; defaults to ``'anthropic'``, or
            ``'anthropic@host:port'`` for a custom ``base_url``.
        default_max_tokens: ``max_tokens`` when the agent sets no ``max_output_tokens``
            (default 4096; the API requires the field).
        max_retries: SDK retries on connection errors, 429, 529 and 5xx (default 2).
        timeout: Seconds before a call times out (default: the SDK's).
        default_headers: Extra HTTP headers for every request (e.g. ``anthropic-beta``).
            The values of credential headers (``Authorization``, ``Proxy-Authorization``,
            ``api-key``, ``x-api-key``, ``Cookie``, any name holding ``auth``, ``key``,
            ``token``, ``secret``, ``password`` or ``cookie``) are kept like the key and
            redacted from every error.
        secret_headers: More header names (case-insensitive) whose values are credentials,
            kept and redacted the same way.
        context_management: Anthropic's server-side window policies, sent with every call:
            ``{"edits": [...]}`` with ``clear_thinking_20251015`` (first, and only with
            thinking enabled), ``clear_tool_uses_20250919`` and/or ``compact_20260112``, each
            shaped as Anthropic documents. The call then goes through
            ``client.beta.messages.create`` with the betas the edits need
            (``context-management-2025-06-27``, ``compact-2026-01-12``); what the server did
            comes back in ``ProviderResponse.server_edits``.
        thinking: Extended thinking: ``{"type": "enabled", "budget_tokens": N}`` (``1024 <=
            N < default_max_tokens``) or ``{"type": "disabled"}``. Thinking blocks ride the
            reply's ``parts`` and are sent back untouched.

    Raises:
        MissingAPIKeyError: no key was given, ``ANTHROPIC_API_KEY`` is unset and there is no
            ``base_url``.
        ValueError: ``context_management`` or ``thinking`` is malformed (the message says
            what to change), or another setting is out of range.

    A provider pickles (for sweeps in worker processes) without its SDK clients, which are
    rebuilt on first use; the key travels as a ``SecretStr``.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        context_window_override: int | Mapping[str, int] | None = None,
        *,
        name: str | None = None,
        default_max_tokens: int = DEFAULT_MAX_TOKENS,
        max_retries: int = 2,
        timeout: float | None = None,
        default_headers: Mapping[str, str] | None = None,
        secret_headers: Collection[str] = (),
        context_management: Mapping[str, Any] | None = None,
        thinking: Mapping[str, Any] | None = None,
    ) -> None:
        self._setup(
            api_key=api_key,
            base_url=base_url,
            name=name,
            identity=IDENTITY,
            env_var=API_KEY_ENV,
            max_retries=max_retries,
            timeout=timeout,
            default_headers=default_headers,
            secret_headers=secret_headers,
        )
        check_override(context_window_override)
        if isinstance(default_max_tokens, bool) or default_max_tokens < 1:
            raise ValueError(f"default_max_tokens must be >= 1, got {default_max_tokens!r}")
        self.context_window_override = context_window_override
        self.default_max_tokens = default_max_tokens
        self.thinking: dict[str, Any] | None = check_thinking(thinking, default_max_tokens)
        """The checked thinking config (a plain dict), or None."""
        self.context_management: dict[str, Any] | None = check_context_management(
            context_management, self.thinking
        )
        """The checked ``context_management`` (a plain dict), or None."""

    def _new_client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(**self._client_kwargs())

    def context_window(self, model: str) -> int:
        """The override, else the lookup table (longest id prefix), else 200_000."""
        return resolve_context_window(
            self.context_window_override,
            ANTHROPIC_CONTEXT_WINDOWS,
            model,
            ANTHROPIC_FALLBACK_CONTEXT_WINDOW,
        )

    @property
    def uses_beta(self) -> bool:
        """Whether calls go through ``client.beta.messages.create`` (a server-side policy or
        thinking is configured)."""
        return self.context_management is not None or self.thinking is not None

    def betas(self) -> list[str]:
        """The ``anthropic-beta`` values sent: those of any ``anthropic-beta`` default header
        (the SDK's ``betas=`` replaces that header, so they are carried over), then those the
        edits need; empty when the edits need none."""
        needed = betas_for(self.context_management)
        if not needed:
            return []
        given = [
            value.strip()
            for name, values in (self._default_headers or {}).items()
            if name.lower() == "anthropic-beta"
            for value in str(values).split(",")
            if value.strip()
        ]
        return list(dict.fromkeys([*given, *needed]))

    def build_request(self, request: ProviderRequest) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for ``request`` (of
        ``beta.messages.create`` when :attr:`uses_beta`: ``context_management``, ``thinking``
        and ``betas`` added)."""
        extra_system, messages = to_anthropic_messages(request.messages)
        system = "\n\n".join(p for p in [request.system or "", *extra_system] if p)
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": messages,
            "max_tokens": request.max_output_tokens or self.default_max_tokens,
            "stream": True,
        }
        if system:
            kwargs["system"] = system
        if request.tools:
            kwargs["tools"] = to_anthropic_tools(request.tools)
        if self.context_management is not None:
            kwargs["context_management"] = copy.deepcopy(self.context_management)
        if self.thinking is not None:
            kwargs["thinking"] = dict(self.thinking)
        betas = self.betas()
        if betas:
            kwargs["betas"] = betas
        return kwargs

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Stream one reply and assemble its text, tool calls, usage, thinking and
        compaction blocks (``message.parts``) and the server's edits (``server_edits``).

        Raises:
            ContextLengthError: the API rejected the prompt as too long.
            ProviderError: any other failure, with the HTTP status and the API's message; also
                a stream that ended without ``message_stop``, a malformed stream, a broken
                connection, and a reply repeating a tool-use id.
        """
        import anthropic

        assembled = _MessageStream()
        kwargs = self.build_request(request)

        beta = self.uses_beta

        async def open_stream(client: AsyncAnthropic) -> Any:
            if beta:
                return await client.beta.messages.create(**kwargs)
            return await client.messages.create(**kwargs)

        await complete_with(self, anthropic, open_stream, assembled.feed)
        message = assembled.message()
        self._check_reply(message, terminated=assembled.stopped, terminator="message_stop")
        return ProviderResponse(
            message=message,
            usage=assembled.usage(),
            finish_reason=assembled.stop_reason,
            truncated=assembled.stop_reason in TRUNCATING_STOP_REASONS,
            server_edits=assembled.server_edits(),
        )

    def _status_error(
        self, status: int | None, body: object, fallback: str
    ) -> ContextLengthError | ProviderError:
        if status is not None and status < 400:
            status = None  # an error event inside a 200 stream
        message, type_, _ = error_body_fields(body)
        message = message or fallback
        if status == 400 and _CONTEXT_LENGTH_MESSAGE.search(message):
            return ContextLengthError(
                self._clean(
                    f"{self.name}: {message} (HTTP 400, {type_ or 'invalid_request_error'})"
                ),
                provider=self.name,
            )
        label = " ".join(p for p in (f"HTTP {status}" if status else None, type_) if p)
        return ProviderError(
            self._clean(f"{self.name}: {label + ': ' if label else ''}{message}"),
            status=status,
            provider=self.name,
        )
