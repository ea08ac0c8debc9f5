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
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from footprint_lab.messages import Message, ToolCall
from footprint_lab.providers._common import (
    SDKProvider,
    complete_with,
    error_body_fields,
    parse_arguments,
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
from footprint_lab.usage import Usage

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
        alternate and results directly follow their ``tool_use`` blocks.
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


def to_anthropic_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Our tool specs as Messages API ``tools``."""
    wire: list[dict[str, Any]] = []
    for spec in tools:
        entry: dict[str, Any] = {"name": spec.name, "input_schema": spec.parameters}
        if spec.description:
            entry["description"] = spec.description
        wire.append(entry)
    return wire


@dataclass
class _Block:
    type: str
    text: list[str] = field(default_factory=list)
    id: str = ""
    name: str = ""
    start_input: dict[str, Any] | None = None
    partial_json: list[str] = field(default_factory=list)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass
class _MessageStream:
    """Assembles one streamed Messages API reply."""

    blocks: dict[int, _Block] = field(default_factory=dict)
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    stop_reason: str | None = None
    stopped: bool = False

    def _usage(self, usage: Any) -> None:
        if usage is None:
            return
        for attr, key in (
            ("input_tokens", "input_tokens"),
            ("output_tokens", "output_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
        ):
            value = _int(getattr(usage, key, None))
            if value is not None:  # message_delta's counts are cumulative: latest wins
                setattr(self, attr, value)

    def feed(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._usage(getattr(getattr(event, "message", None), "usage", None))
        elif kind == "message_delta":
            self._usage(getattr(event, "usage", None))
            reason = getattr(getattr(event, "delta", None), "stop_reason", None)
            if reason:
                self.stop_reason = str(reason)
        elif kind == "message_stop":
            self.stopped = True
        elif kind == "content_block_start":
            block = getattr(event, "content_block", None)
            btype = getattr(block, "type", "")
            entry = _Block(type=btype)
            if btype == "text":
                text = getattr(block, "text", "") or ""
                entry.text.append(text)
            elif btype == "tool_use":
                entry.id = getattr(block, "id", "") or ""
                entry.name = getattr(block, "name", "") or ""
                start = getattr(block, "input", None)
                entry.start_input = start if isinstance(start, dict) else None
            self.blocks[int(getattr(event, "index", len(self.blocks)))] = entry
        elif kind == "content_block_delta":
            index = int(getattr(event, "index", 0))
            delta = getattr(event, "delta", None)
            dtype = getattr(delta, "type", "")
            block = self.blocks.setdefault(
                index, _Block(type="tool_use" if dtype == "input_json_delta" else "text")
            )
            if dtype == "text_delta":
                block.text.append(getattr(delta, "text", "") or "")
            elif dtype == "input_json_delta":
                block.partial_json.append(getattr(delta, "partial_json", "") or "")

    def message(self) -> Message:
        texts: list[str] = []
        calls: list[ToolCall] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if block.type == "text":
                text = "".join(block.text)
                if text:
                    texts.append(text)
            elif block.type == "tool_use":
                raw = "".join(block.partial_json)
                arguments = parse_arguments(raw) if raw.strip() else dict(block.start_input or {})
                calls.append(ToolCall(id=block.id, name=block.name, arguments=arguments))
        return Message.assistant("\n\n".join(texts), tool_calls=calls)

    def usage(self) -> Usage:
        uncached = self.input_tokens or 0
        cache_read = self.cache_read
        cache_write = self.cache_write
        return Usage(
            input_tokens=uncached + (cache_read or 0) + (cache_write or 0),
            output_tokens=self.output_tokens or 0,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
        )


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

    Raises:
        MissingAPIKeyError: no key was given, ``ANTHROPIC_API_KEY`` is unset and there is no
            ``base_url``.

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

    def build_request(self, request: ProviderRequest) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for ``request``."""
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
        return kwargs

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Stream one reply and assemble its text, tool calls and usage.

        Raises:
            ContextLengthError: the API rejected the prompt as too long.
            ProviderError: any other failure, with the HTTP status and the API's message; also
                a stream that ended without ``message_stop``, a malformed stream, a broken
                connection, and a reply repeating a tool-use id.
        """
        import anthropic

        assembled = _MessageStream()
        kwargs = self.build_request(request)

        async def open_stream(client: AsyncAnthropic) -> Any:
            return await client.messages.create(**kwargs)

        await complete_with(self, anthropic, open_stream, assembled.feed)
        message = assembled.message()
        self._check_reply(message, terminated=assembled.stopped, terminator="message_stop")
        return ProviderResponse(
            message=message,
            usage=assembled.usage(),
            finish_reason=assembled.stop_reason,
            truncated=assembled.stop_reason in TRUNCATING_STOP_REASONS,
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
