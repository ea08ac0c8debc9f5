"""Helpers shared by the SDK-backed providers: keys, redaction, names and tool arguments.

Layer: providers. Keys come from an argument or the environment and live only inside the SDK
client; nothing here stores them anywhere a run, a record or an event could reach.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import urlsplit

from footprint_lab.providers.base import ProviderError

PLACEHOLDER_API_KEY = "not-needed"
"""Sent to an OpenAI-compatible ``base_url`` when no key is configured (Ollama, vLLM and most
local servers ignore it, but the SDK insists on some value)."""

UNPARSED_ARGUMENTS_KEY = "__unparsed_arguments__"
"""When a model streams tool-call arguments that are not a JSON object (cut off by the output
cap, or malformed), the call keeps the raw text under this key so the tool reports the problem
to the model instead of the run crashing."""


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


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` (and of its long-enough middle part, which
    some APIs echo in their error messages) replaced by ``***``."""
    if not secret or secret == PLACEHOLDER_API_KEY:
        return text
    text = text.replace(secret, "***")
    if len(secret) >= 16:
        middle = secret[4:-4]
        text = text.replace(middle, "***")
    return text


def public_url(url: str | None) -> str | None:
    """``url`` without credentials, query or fragment: safe for reprs, names and errors."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{host}{path}" if parts.scheme else host + path


def host_of(url: str) -> str:
    """``host[:port]`` of ``url`` (no credentials)."""
    parts = urlsplit(url)
    host = parts.hostname or url
    return f"{host}:{parts.port}" if parts.port is not None else host


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
