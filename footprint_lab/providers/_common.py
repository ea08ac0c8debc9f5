"""Helpers shared by the SDK-backed providers: keys, redaction, names, tool arguments, and
:class:`SDKProvider`, the part of ``OpenAIProvider`` and ``AnthropicProvider`` that is the same.

Layer: providers. Keys come from an argument or the environment and live only inside the
provider (as a ``SecretStr``) and the SDK client; credentials inside a ``base_url`` (userinfo
and the ``Basic`` header it becomes, query values) and the values of credential headers in
``default_headers`` (see :mod:`footprint_lab.providers._secrets`) are treated as keys too.
Nothing here stores them anywhere a run, a record or an
event could reach, and every error a provider raises is built outside the ``except`` block that
caught the SDK's exception, so no ``__cause__`` / ``__context__`` chain leads back to an SDK
exception (whose request carries the key in its headers). While a provider is alive, the
SDKs' and httpx's loggers (:data:`SDK_LOGGERS`), which write request URLs, have its key and
other credentials masked in every record.
"""

from __future__ import annotations

import json
import logging
import os
import weakref
from collections.abc import Awaitable, Callable, Collection
from types import ModuleType
from typing import Any, Generic, TypeVar
from urllib.parse import SplitResult, parse_qsl, urlsplit, urlunsplit

from pydantic import SecretStr

from footprint_lab.messages import Message
from footprint_lab.providers._clients import LoopClients
from footprint_lab.providers._secrets import (
    SECRET_MIN_CHARS,
    basic_auth_forms,
    header_secrets,
    split_headers,
)
from footprint_lab.providers.base import (
    UNPARSED_ARGUMENTS_KEY,
    ContextLengthError,
    ProviderError,
    repeated_call_ids,
)

C = TypeVar("C")

ProviderFailure = ProviderError | ContextLengthError
"""What a provider call raises."""

PLACEHOLDER_API_KEY = "not-needed"
"""Sent to an OpenAI-compatible ``base_url`` when no key is configured (Ollama, vLLM and most
local servers ignore it, but the SDK insists on some value)."""


class MissingAPIKeyError(ProviderError):
    """No API key was given and the provider's environment variable is not set."""


def resolve_api_key(
    api_key: str | None, *, env_var: str, provider: str, base_url: str | None
) -> str:
    """The key to use: the argument, else ``env_var``, else a placeholder for a custom server.

    Raises:
        MissingAPIKeyError: neither a key nor ``env_var`` nor a ``base_url`` was given.
    """
    if api_key:
        return api_key
    from_env = os.environ.get(env_var, "").strip()
    if from_env:
        return from_env
    if base_url:
        return PLACEHOLDER_API_KEY
    raise MissingAPIKeyError(
        f"{provider}: no API key. Set the {env_var} environment variable or pass api_key=... "
        "(a local server given as base_url= needs neither)",
        provider=provider,
    )


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every occurrence of each secret (and of a long secret's middle part, which
    some APIs echo in their error messages) replaced by ``***``."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        if secret == PLACEHOLDER_API_KEY:
            continue
        text = text.replace(secret, "***")
        if len(secret) >= 16:
            middle = secret[4:-4]
            text = text.replace(middle, "***")
    return text


def url_secrets(url: str | None) -> list[str]:
    """The credentials inside ``url``: its userinfo (user and password) and its query values,
    each as written and percent-decoded, when at least :data:`SECRET_MIN_CHARS` long, and the
    ``Basic`` form the userinfo is sent in (:func:`basic_auth_forms`)."""
    if not url:
        return []
    parts = _split(url)
    found: list[str] = []
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at:
        user, _, password = userinfo.partition(":")
        found.extend([user, password])
        found.extend(v for v in (parts.username, parts.password) if v)
        found.extend(basic_auth_forms(user, password))
    query = parts.query
    found.extend(piece.partition("=")[2] for piece in query.split("&"))
    found.extend(value for _, value in parse_qsl(query, keep_blank_values=True))
    return sorted({s for s in found if len(s) >= SECRET_MIN_CHARS}, key=len, reverse=True)


def split_base_url(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its query (userinfo kept), and the query as a dict.

    The SDKs join request paths onto the base URL's raw path, query included, so a query in
    ``base_url`` would build ``/v1?key=.../chat/completions``; it is sent as the client's
    ``default_query`` instead.
    """
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), query


def public_url(url: str | None) -> str | None:
    """``url`` without credentials, query or fragment: safe for reprs, names and errors."""
    if not url:
        return None
    parts = _split(url)
    path = parts.path.rstrip("/")
    host = host_of(url)
    return f"{parts.scheme}://{host}{path}" if parts.scheme else host + path


def _split(url: str) -> SplitResult:
    """``urlsplit``, reading a URL written without a scheme (``user:pw@host``,
    ``localhost:8000/v1``) as a network location rather than as ``scheme:path``."""
    return urlsplit(url if "//" in url else f"//{url}")


def host_of(url: str) -> str:
    """``host[:port]`` of ``url``: no credentials, path, query or fragment (also for a URL
    written without a scheme, such as ``localhost:8000/v1``)."""
    parts = _split(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    host = parts.hostname or "custom"
    if ":" in host:  # IPv6
        host = f"[{host}]"
    return f"{host}:{port}" if port is not None else host


def parse_arguments(raw: str | None) -> dict[str, Any]:
    """Tool-call arguments streamed as JSON text, as a dict.

    Empty text means no arguments; anything that is not a JSON object is kept verbatim under
    :data:`UNPARSED_ARGUMENTS_KEY`.
    """
    if raw is None or not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return {UNPARSED_ARGUMENTS_KEY: raw}
    if isinstance(parsed, dict):
        return parsed
    return {UNPARSED_ARGUMENTS_KEY: raw}


def error_body_fields(body: object) -> tuple[str | None, str | None, str | None]:
    """(message, type, code) from an API error body, whether or not it is wrapped in
    ``{"error": {...}}``."""
    if isinstance(body, dict):
        inner = body.get("error")
        data: dict[str, Any] = inner if isinstance(inner, dict) else body
        message = data.get("message")
        type_ = data.get("type")
        code = data.get("code")
        return (
            message if isinstance(message, str) else None,
            type_ if isinstance(type_, str) else None,
            None if code is None else str(code),
        )
    if isinstance(body, str) and body.strip():
        return body.strip(), None, None
    return None, None, None


SDK_LOGGERS = ("openai._base_client", "anthropic._base_client", "httpx", "httpx2")
"""Loggers that write request URLs (query and userinfo included): their records are redacted
while any SDK provider is alive."""

_live_providers: weakref.WeakSet[SDKProvider[Any]] = weakref.WeakSet()


class _RedactingFilter(logging.Filter):
    """Masks every live provider's key and ``base_url`` credentials in a log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = [s for provider in list(_live_providers) for s in provider._secrets()]
        if not secrets:
            return True
        message = record.getMessage()
        cleaned = redact(message, *secrets)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


_REDACTING_FILTER = _RedactingFilter()


def _watch_logs(provider: SDKProvider[Any]) -> None:
    _live_providers.add(provider)
    for name in SDK_LOGGERS:
        logger = logging.getLogger(name)
        if _REDACTING_FILTER not in logger.filters:
            logger.addFilter(_REDACTING_FILTER)


def provider_identity(
    base_url: str | None, *, url_env: str, official_host: str, official: str, compatible: str
) -> tuple[str, str | None]:
    """The default name of an SDK provider and the custom endpoint it talks to, if any.

    Args:
        base_url: The ``base_url`` given (else the SDK's environment variable ``url_env``).
        url_env: The SDK's own base-URL variable (``OPENAI_BASE_URL``, ...).
        official_host: The vendor's API host: a URL on it keeps the plain name.
        official: The plain name (``'openai'``).
        compatible: The prefix for another endpoint: ``f"{compatible}@host:port"`` (only host
            and port, never credentials or a path).

    Returns:
        ``(name, custom_url)``; ``custom_url`` is None for the vendor's own API.
    """
    custom_url = base_url or os.environ.get(url_env) or None
    if custom_url is None or official_host in custom_url:
        return official, custom_url
    return f"{compatible}@{host_of(custom_url)}", custom_url


class SDKProvider(Generic[C]):
    """What ``OpenAIProvider`` and ``AnthropicProvider`` share: the key and the real
    ``base_url`` (both secret), the public face (name, repr, ``base_url``), the per-loop SDK
    clients, pickling, redaction and the translation of any SDK or transport failure into a
    :class:`ProviderError`.

    A subclass calls :meth:`_setup` from ``__init__`` and implements :meth:`_new_client`
    (usually ``SDKClient(**self._client_kwargs())``) and :meth:`_status_error` (the API's
    error body as a ``ProviderError`` or ``ContextLengthError``).
    """

    _api_key: SecretStr
    _url: SecretStr | None
    _clients: LoopClients[C]
    name: str

    def _setup(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        name: str | None,
        identity: dict[str, str],
        env_var: str,
        max_retries: int,
        timeout: float | None,
        default_headers: Any,
        secret_headers: Collection[str] | str | None = None,
    ) -> str | None:
        """Set what every SDK provider keeps; return the custom endpoint (None for the
        vendor's own API). ``identity`` holds :func:`provider_identity`'s keywords; the
        credential headers among ``default_headers`` (:mod:`~footprint_lab.providers._secrets`,
        ``secret_headers`` included) are kept as ``SecretStr`` and redacted like the key."""
        default_name, custom_url = provider_identity(base_url, **identity)
        name = default_name if name is None else name
        self.name = name
        self._url = SecretStr(base_url) if base_url else None
        self._api_key = SecretStr(
            resolve_api_key(api_key, env_var=env_var, provider=name, base_url=base_url)
        )
        self.max_retries = max_retries
        self.timeout = timeout
        public, secret = split_headers(default_headers, secret_headers)
        self._default_headers: dict[str, Any] | None = public or None
        self._secret_headers: dict[str, SecretStr] = secret
        self._clients = LoopClients(self._new_client, self._close_client)
        _watch_logs(self)
        return custom_url

    @property
    def base_url(self) -> str | None:
        """The ``base_url`` given, without credentials, query or fragment (the SDK gets the
        real one)."""
        return public_url(self._real_url())

    def _real_url(self) -> str | None:
        return None if self._url is None else self._url.get_secret_value()

    def __repr__(self) -> str:
        url = self.base_url
        where = f", base_url={url!r}" if url else ""
        return f"{type(self).__name__}(name={self.name!r}{where}, api_key='***')"

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the SDK clients (a lock, sockets); the key stays a ``SecretStr``."""
        state = dict(self.__dict__)
        state.pop("_clients", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled provider with a fresh, empty set of SDK clients."""
        self.__dict__.update(state)
        self._clients = LoopClients(self._new_client, self._close_client)
        _watch_logs(self)

    def _new_client(self) -> C:
        raise NotImplementedError

    @staticmethod
    async def _close_client(client: Any) -> None:
        await client.close()

    def _client_kwargs(self) -> dict[str, Any]:
        """The SDK client's keyword arguments every provider passes the same way."""
        kwargs: dict[str, Any] = {
            "api_key": self._api_key.get_secret_value(),
            "max_retries": self.max_retries,
        }
        url = self._real_url()
        if url:
            kwargs["base_url"], query = split_base_url(url)
            if query:
                kwargs["default_query"] = query
        if self.timeout is not None:
            kwargs["timeout"] = self.timeout
        headers = {
            **(self._default_headers or {}),
            **{k: v.get_secret_value() for k, v in self._secret_headers.items()},
        }
        if headers:
            kwargs["default_headers"] = headers
        return kwargs

    async def aclose(self) -> None:
        """Close the running event loop's SDK client (it is rebuilt on the next call)."""
        await self._clients.aclose()

    def _secrets(self) -> list[str]:
        """Everything redacted from this provider's errors and the SDKs' logs: the key, the
        ``base_url``'s credentials and the credential headers' values."""
        headers = self._secret_headers.values()
        return [
            self._api_key.get_secret_value(),
            *url_secrets(self._real_url()),
            *(s for value in headers for s in header_secrets(value.get_secret_value())),
        ]

    def _clean(self, text: str) -> str:
        return redact(text, *self._secrets())

    def _error(self, message: str, status: int | None = None) -> ProviderError:
        return ProviderError(
            self._clean(f"{self.name}: {message}"), status=status, provider=self.name
        )

    def _status_error(self, status: int | None, body: object, fallback: str) -> ProviderFailure:
        raise NotImplementedError

    def _translate(self, exc: Exception, sdk: ModuleType, *, streaming: bool) -> ProviderFailure:
        """Any failure of a call as a clean :class:`ProviderError` (no reference to ``exc``).

        Args:
            exc: What the SDK, the transport or the stream assembly raised.
            sdk: The ``openai`` or ``anthropic`` module (their error classes are alike).
            streaming: True once the reply's stream had started.
        """
        if isinstance(exc, ProviderError | ContextLengthError):
            exc.__cause__ = exc.__context__ = None
            return exc
        if isinstance(exc, sdk.APIStatusError):
            return self._status_error(exc.status_code, exc.body, exc.message)
        kind = type(exc).__name__
        if isinstance(exc, sdk.APIConnectionError):
            if streaming:
                return self._error(f"the connection broke in the middle of the reply ({kind})")
            where = public_url(self._real_url()) or "the API"
            return self._error(f"could not reach {where}: {exc}")
        if isinstance(exc, sdk.APIError):  # an error event inside the stream
            return self._status_error(None, exc.body, exc.message)
        if isinstance(exc, ValueError):  # invalid JSON or bytes in an event-stream line
            return self._error(f"the reply stream was malformed: {kind}: {exc}")
        what = "the reply stream failed" if streaming else "the request failed"
        return self._error(f"{what}: {kind}: {exc}")

    def _check_reply(self, message: Message, *, terminated: bool, terminator: str) -> None:
        """Raise unless the stream ended with its terminator and no call id repeats."""
        if not terminated:
            raise self._error(
                f"the reply stream ended before the reply did (no {terminator}): the "
                "connection was cut or the server stopped early"
            )
        repeated = repeated_call_ids(message)
        if repeated:
            raise self._error(
                f"the reply repeats tool call id(s) {', '.join(repeated)} within one batch"
            )


async def complete_with(
    provider: SDKProvider[Any],
    sdk: ModuleType,
    open_stream: Callable[[C], Awaitable[Any]],
    feed: Callable[[Any], None],
) -> None:
    """Open the reply's stream with the running loop's client, feed every event to ``feed``,
    and turn any failure into a :class:`ProviderError` raised outside the ``except`` block, so
    its ``__context__`` is empty.

    Args:
        provider: The provider making the call.
        sdk: The SDK module, for its error classes.
        open_stream: Opens the stream with the client (``client.chat.completions.create``).
        feed: Called with each event, in order.
    """
    failure: ProviderFailure | None = None
    streaming = False
    try:
        client = await provider._clients.get()
        stream = await open_stream(client)
        streaming = True
        try:
            async for event in stream:
                feed(event)
        finally:
            await stream.close()
    except Exception as exc:  # every failure, SDK or transport or ours, is a ProviderError
        failure = provider._translate(exc, sdk, streaming=streaming)
    if failure is not None:
        raise failure
