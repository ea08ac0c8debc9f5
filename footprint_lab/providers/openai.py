"""``OpenAIProvider``: OpenAI Chat Completions (and OpenAI-compatible servers), or the
Responses API with server-side compaction, streamed.

Layer: providers. Built on the official ``openai`` SDK (``AsyncOpenAI``). Every call streams
with ``stream_options={"include_usage": True}``; text and tool calls (parallel ones included,
their arguments arriving in fragments) are assembled from the chunks, and the usage comes from
the stream's final chunk. A server that sends no usage (several OpenAI-compatible ones) yields
``Usage()`` — zeros — which ``sliding_window`` does not need and which makes the token
strategies raise ``CompactionUnmeasurableError`` rather than guess.

Errors: the API's own over-length rejection (400, code ``context_length_exceeded``, or the
"maximum context length" message OpenAI-compatible servers send without a code) raises
``ContextLengthError``, which drives the agent's one forced window visit and retry; every other
failure raises ``ProviderError`` with the HTTP status and the API's message — transport
failures, malformed event streams, a stream that ends without a ``finish_reason`` (cut short)
and a reply repeating a tool-call id included. A reply stopped by the output cap
(``finish_reason="length"``) is returned with ``truncated=True``. The API key, and any
credentials in ``base_url``, never appear in a repr, a name or an error message.

With ``api="responses"`` (the default when ``context_management`` is given) the same provider
speaks the Responses API instead (:mod:`footprint_lab.providers._responses`): stateless
(``store=False``), the system prompt as ``instructions``, reasoning and compaction items kept in
the reply's parts and sent back verbatim, the server's compaction reported as a
:class:`~footprint_lab.window.records.ServerEdit`. Its errors translate the same way; a stream
that ends without ``response.completed`` / ``response.incomplete`` is cut short.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from footprint_lab.messages import Message, ToolCall
from footprint_lab.providers._common import (
    SDKProvider,
    complete_with,
    error_body_fields,
    parse_arguments,
)
from footprint_lab.providers._context_windows import (
    OPENAI_CONTEXT_WINDOWS,
    OPENAI_FALLBACK_CONTEXT_WINDOW,
    check_override,
    resolve_context_window,
)
from footprint_lab.providers._responses import (
    ResponsesStream,
    build_responses_request,
    choose_api,
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
    from openai import AsyncOpenAI

__all__ = ["OpenAIProvider", "to_openai_messages", "to_openai_tools"]

IDENTITY = {
    "url_env": "OPENAI_BASE_URL",
    "official_host": "api.openai.com",
    "official": "openai",
    "compatible": "openai-compatible",
}
"""How the provider names itself: the vendor's own API, or ``openai-compatible@host:port``."""

API_KEY_ENV = "OPENAI_API_KEY"
"""The environment variable the key is read from when none is given."""

TRUNCATING_FINISH_REASONS = frozenset({"length"})
"""``finish_reason`` values that mean the reply was cut short by the output cap."""

_CONTEXT_LENGTH_MESSAGE = re.compile(
    r"maximum context length|context length|context window|prompt is too long|"
    r"too many tokens|reduce the length",
    re.IGNORECASE,
)


def to_openai_messages(messages: list[Message], system: str | None = None) -> list[dict[str, Any]]:
    """Our window as Chat Completions ``messages``.

    The system prompt goes first as a ``system`` message; assistant tool calls carry their
    arguments as JSON strings; tool results are ``tool`` messages with ``tool_call_id``.
    Library-authored messages (drop notices, compaction frames) are ordinary ``user`` messages.
    A system, user or assistant message's participant ``name`` (:attr:`Message.name`) is sent
    as its ``name``.
    """
    wire: list[dict[str, Any]] = []
    if system:
        wire.append({"role": "system", "content": system})
    for message in messages:
        if message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant"}
            if message.tool_calls:
                entry["content"] = message.content or None
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.name,
                            "arguments": json.dumps(call.arguments, ensure_ascii=False),
                        },
                    }
                    for call in message.tool_calls
                ]
            else:
                entry["content"] = message.content
            if message.name is not None:
                entry["name"] = message.name
            wire.append(entry)
        elif message.role == "tool":
            wire.append(
                {
                    "role": "tool",
                    "tool_call_id": message.tool_call_id or "",
                    "content": message.content,
                }
            )
        else:
            entry = {"role": message.role, "content": message.content}
            if message.name is not None:
                entry["name"] = message.name
            wire.append(entry)
    return wire


def to_openai_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Our tool specs as Chat Completions ``tools``."""
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
            },
        }
        for spec in tools
    ]


@dataclass
class _PendingCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class _ChatStream:
    """Assembles one streamed Chat Completion."""

    text: list[str] = field(default_factory=list)
    calls: list[_PendingCall] = field(default_factory=list)
    usage: Any = None
    finish_reason: str | None = None

    def feed(self, chunk: Any) -> None:
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage = usage
        for choice in getattr(chunk, "choices", None) or []:
            if getattr(choice, "index", 0) not in (0, None):
                continue
            finish = getattr(choice, "finish_reason", None)
            if finish:
                self.finish_reason = str(finish)
            delta = getattr(choice, "delta", None)
            if delta is None:
                continue
            content = getattr(delta, "content", None)
            if content:
                self.text.append(content)
            for position, fragment in enumerate(getattr(delta, "tool_calls", None) or []):
                self._feed_call(position, fragment)

    def _feed_call(self, position: int, fragment: Any) -> None:
        index = getattr(fragment, "index", None)
        call_id = getattr(fragment, "id", None)
        if index is None:
            # Some compatible servers omit the index; fall back on ids, then on position.
            known = [c.id for c in self.calls]
            if call_id and call_id in known:
                index = known.index(call_id)
            elif call_id or not self.calls:
                index = len(self.calls)
            else:
                index = min(position, len(self.calls) - 1)
        while len(self.calls) <= index:
            self.calls.append(_PendingCall())
        pending = self.calls[index]
        if call_id:
            pending.id = call_id
        function = getattr(fragment, "function", None)
        if function is not None:
            name = getattr(function, "name", None)
            if name and name != pending.name:
                # Sent once by OpenAI; a server that splits it sends fragments to join.
                pending.name = pending.name + name
            arguments = getattr(function, "arguments", None)
            if arguments:
                pending.arguments.append(arguments)

    def message(self, call_id_prefix: str) -> Message:
        tool_calls = [
            ToolCall(
                id=pending.id or f"{call_id_prefix}_{n}",
                name=pending.name,
                arguments=parse_arguments("".join(pending.arguments)),
            )
            for n, pending in enumerate(self.calls, start=1)
            if pending.name or pending.id
        ]
        return Message.assistant("".join(self.text), tool_calls=tool_calls)

    def reported_usage(self) -> Usage:
        usage = self.usage
        if usage is None:
            return Usage()
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None) if details is not None else None
        return Usage(
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cache_read_tokens=None if cached is None else int(cached),
        )


class OpenAIProvider(SDKProvider["AsyncOpenAI"]):
    """OpenAI Chat Completions through the official SDK, streamed, usage from the stream.

    Args:
        api_key: The key; defaults to the ``OPENAI_API_KEY`` environment variable. With a
            ``base_url`` and no key anywhere, a placeholder is sent (local servers such as
            Ollama and vLLM need none).
        base_url: An OpenAI-compatible endpoint, e.g. ``http://localhost:11434/v1`` (Ollama)
            or ``http://localhost:8000/v1`` (vLLM). Defaults to the SDK's (``OPENAI_BASE_URL``
            or api.openai.com).
        context_window_override: The context window to report instead of the lookup table:
            one number for every model, or a mapping of model id to window. The table's
            fallback (128_000) is wrong for most models on compatible servers, so set this
            when you use a relative threshold there.
        name: The provider's name in runs, records and errors; defaults to ``'openai'``, or
            ``'openai-compatible@host:port'`` for a custom ``base_url``.
        organization: The OpenAI organization id, if any.
        max_retries: SDK retries on connection errors, 429 and 5xx (default 2).
        timeout: Seconds before a call times out (default: the SDK's).
        max_tokens_param: Which request field carries ``max_output_tokens``:
            ``'max_completion_tokens'`` (default for api.openai.com) or ``'max_tokens'``
            (default for a custom ``base_url``, which older compatible servers understand).
        stream_usage: Send ``stream_options={"include_usage": True}`` (default True). Turn it
            off only for a server that rejects the option; it will then report no usage.
        extra_body: Extra JSON fields for every request (e.g. Ollama's ``{"options":
            {"num_ctx": 32768}}``).
        default_headers: Extra HTTP headers for every request. The values of credential
            headers (``Authorization``, ``Proxy-Authorization``, ``api-key``, ``x-api-key``,
            ``Cookie``, any name holding ``auth``, ``key``, ``token``, ``secret``,
            ``password`` or ``cookie``) are kept like the key and redacted from every error.
        secret_headers: More header names (case-insensitive) whose values are credentials,
            kept and redacted the same way.
        context_management: OpenAI's server-side compaction, sent with every request:
            ``[{"type": "compaction", "compact_threshold": N}]`` (``N`` >= 1 input tokens).
            Only the Responses API has it, so it selects ``api="responses"``.
        api: ``'chat'`` (Chat Completions) or ``'responses'`` (the Responses API); default
            ``'responses'`` when ``context_management`` is given, else ``'chat'``.
            ``max_tokens_param`` and ``stream_usage`` apply to Chat Completions only.

    Raises:
        MissingAPIKeyError: no key was given, ``OPENAI_API_KEY`` is unset and there is no
            ``base_url``.
        ValueError: ``context_management`` is malformed, or given with ``api="chat"``.

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
        organization: str | None = None,
        max_retries: int = 2,
        timeout: float | None = None,
        max_tokens_param: Literal["max_tokens", "max_completion_tokens"] | None = None,
        stream_usage: bool = True,
        extra_body: Mapping[str, Any] | None = None,
        default_headers: Mapping[str, str] | None = None,
        secret_headers: Collection[str] = (),
        context_management: Sequence[Mapping[str, Any]] | None = None,
        api: Literal["chat", "responses"] | None = None,
    ) -> None:
        self.context_management, self.api = choose_api(context_management, api)
        custom_url = self._setup(
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
        self.context_window_override = context_window_override
        self.organization = organization
        self.max_tokens_param = max_tokens_param or (
            "max_completion_tokens" if custom_url is None else "max_tokens"
        )
        self.stream_usage = stream_usage
        self.extra_body = dict(extra_body) if extra_body else None

    def _new_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI

        kwargs = self._client_kwargs()
        if self.organization:
            kwargs["organization"] = self.organization
        return AsyncOpenAI(**kwargs)

    def context_window(self, model: str) -> int:
        """The override, else the lookup table (longest id prefix), else 128_000."""
        return resolve_context_window(
            self.context_window_override,
            OPENAI_CONTEXT_WINDOWS,
            model,
            OPENAI_FALLBACK_CONTEXT_WINDOW,
        )

    def build_request(self, request: ProviderRequest) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for ``request`` (of
        ``responses.create`` with ``api="responses"``)."""
        if self.api == "responses":
            return build_responses_request(
                request, context_management=self.context_management, extra_body=self.extra_body
            )
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": to_openai_messages(request.messages, request.system),
            "stream": True,
        }
        if request.tools:
            kwargs["tools"] = to_openai_tools(request.tools)
        if self.stream_usage:
            kwargs["stream_options"] = {"include_usage": True}
        if request.max_output_tokens is not None:
            kwargs[self.max_tokens_param] = request.max_output_tokens
        if self.extra_body:
            kwargs["extra_body"] = dict(self.extra_body)
        return kwargs

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Stream one Chat Completion (one Responses API response with ``api="responses"``)
        and assemble the reply and its usage.

        Raises:
            ContextLengthError: the API rejected the request as over the context window.
            ProviderError: any other failure, with the HTTP status and the API's message; also
                a stream that ended without a ``finish_reason``, a malformed stream, a broken
                connection, and a reply repeating a tool-call id.
        """
        import openai

        if self.api == "responses":
            return await self._complete_responses(request)
        assembled = _ChatStream()
        kwargs = self.build_request(request)

        async def open_stream(client: AsyncOpenAI) -> Any:
            return await client.chat.completions.create(**kwargs)

        await complete_with(self, openai, open_stream, assembled.feed)
        message = assembled.message("call")
        self._check_reply(
            message, terminated=assembled.finish_reason is not None, terminator="finish_reason"
        )
        return ProviderResponse(
            message=message,
            usage=assembled.reported_usage(),
            finish_reason=assembled.finish_reason,
            truncated=assembled.finish_reason in TRUNCATING_FINISH_REASONS,
        )

    async def _complete_responses(self, request: ProviderRequest) -> ProviderResponse:
        """One streamed Responses API call: the reply, its usage and the server's edits."""
        import openai

        assembled = ResponsesStream()
        kwargs = self.build_request(request)

        async def open_stream(client: AsyncOpenAI) -> Any:
            return await client.responses.create(**kwargs)

        await complete_with(self, openai, open_stream, assembled.feed)
        if assembled.failure is not None:
            raise self._status_error(None, assembled.failure, "the response failed")
        message, edits = assembled.message()
        self._check_reply(
            message,
            terminated=assembled.terminated,
            terminator="response.completed or response.incomplete event",
        )
        return ProviderResponse(
            message=message,
            usage=assembled.reported_usage(),
            finish_reason=assembled.finish_reason(bool(message.tool_calls)),
            truncated=assembled.truncated,
            server_edits=edits,
        )

    def _status_error(
        self, status: int | None, body: object, fallback: str
    ) -> ContextLengthError | ProviderError:
        if status is not None and status < 400:
            status = None  # an error event inside a 200 stream
        message, type_, code = error_body_fields(body)
        message = message or fallback
        if code == "context_length_exceeded" or (
            status in (400, 413, None) and _CONTEXT_LENGTH_MESSAGE.search(message or "")
        ):
            return ContextLengthError(
                self._clean(f"{self.name}: {message} (HTTP {status}, context_length_exceeded)"),
                provider=self.name,
            )
        label = " ".join(p for p in (f"HTTP {status}" if status else None, type_, code) if p)
        return ProviderError(
            self._clean(f"{self.name}: {label + ': ' if label else ''}{message}"),
            status=status,
            provider=self.name,
        )
