"""Credential headers are redacted like keys (#24 item 14).

A gateway that echoes the request's headers into its error body (some do, to say which
credential it refused) must not put a credential into anything a run keeps: ``run.error``,
events, checkpoints, saved runs, OTel files, the report, the Inspector's page, frames, logs.
The credentials: the values of ``Authorization``, ``Proxy-Authorization``, ``api-key``,
``x-api-key``, ``Cookie``, of any header whose name holds ``auth``/``key``/``token``/...,
and of any header the caller marks with ``secret_headers=`` (case-insensitive), with their
forms on the wire (the token after ``Bearer``, what a ``Basic`` token decodes to, a cookie's
value); and the ``Basic`` header a ``base_url``'s userinfo becomes. The real SDKs talk to the
local wire servers of ``tests.providers.servers``.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import ProviderError
from footprint_lab.agent import Run
from footprint_lab.export import to_otel
from footprint_lab.lab import Inspector
from tests.providers.servers import HttpError, WireServer, provider_for
from tests.providers.test_secrets import (
    KEY,
    URL_SECRET,
    _artifacts,
    _assert_chain_clean,
    _run_without_strategy,
    _url_with_credentials,
)

BEARER = "bearer-TOKEN-0a9b8c7d6e5f4a3b"
AZURE = "azure-KEY-1b2c3d4e5f6a7b8c"
GATEWAY = "gw-KEY-2c3d4e5f6a7b8c9d"
PROXY_PASSWORD = "proxy-PASSWORD-3d4e5f6a7b8c"
SESSION = "session-COOKIE-4e5f6a7b8c9d0e1f"
AUTH_TOKEN = "auth-TOKEN-5f6a7b8c9d0e1f2a"
MARKED = "tenant-SIG-6a7b8c9d0e1f2a3b"
VISIBLE = "trace-VISIBLE-7b8c9d0e"  # an ordinary header: it stays readable in the error

PROXY_BASIC = base64.b64encode(f"proxy-user:{PROXY_PASSWORD}".encode()).decode()

HEADERS = {
    "Authorization": f"Bearer {BEARER}",
    "api-key": AZURE,
    "X-API-Key": GATEWAY,
    "Proxy-Authorization": f"Basic {PROXY_BASIC}",
    "Cookie": f"theme=dark; session={SESSION}",
    "X-Auth-Token": AUTH_TOKEN,
    "X-Tenant-Sig": MARKED,
    "X-Trace": VISIBLE,
}
SECRETS = [
    BEARER,
    AZURE,
    GATEWAY,
    PROXY_BASIC,
    PROXY_PASSWORD,
    f"proxy-user:{PROXY_PASSWORD}",
    SESSION,
    AUTH_TOKEN,
    MARKED,
]


def _echoing(server: WireServer, *, mid_stream: bool = False) -> None:
    """Every request is refused with an error that echoes the headers it carried: as sent,
    each value's credentials after its scheme, and what a ``Basic`` token decodes to."""

    def script(body: dict[str, Any]) -> HttpError:
        headers = server.headers[-1]
        tokens = [v.partition(" ")[2] for v in headers.values() if " " in v]
        decoded = []
        for value in headers.values():
            if value.lower().startswith("basic "):
                decoded.append(base64.b64decode(value[6:]).decode())
        echo = f"denied. headers: {json.dumps(headers)}; tokens: {tokens}; basic: {decoded}"
        return HttpError(401, server.error_body("authentication_error", echo), mid_stream)

    server.script = script


def _everything(run: Run, provider: Any, tmp_path: Path, logs: str) -> Iterator[tuple[str, str]]:
    yield "run.error", str(run.error)
    yield from _artifacts(run, tmp_path)
    yield "otel file", to_otel(run, tmp_path / "run.otel.json").read_text(encoding="utf-8")
    yield "inspector", Inspector(run).to_html(tmp_path / "inspector.html").read_text("utf-8")
    yield "repr(provider)", repr(provider) + repr(vars(provider))
    yield "logs", logs


def _assert_clean(run: Run, provider: Any, tmp_path: Path, logs: str, secrets: list[str]) -> None:
    assert isinstance(run.error, ProviderError)
    _assert_chain_clean(run.error, *secrets)
    for label, text in _everything(run, provider, tmp_path, logs):
        for secret in secrets:
            assert secret not in text, f"{secret!r} leaked into {label}"
            assert secret[4:-4] not in text, f"part of {secret!r} leaked into {label}"


@pytest.mark.parametrize("mid_stream", [False, True], ids=["http-error", "stream-error"])
def test_an_error_echoing_credential_headers_leaks_none_of_them(
    wire: Callable[..., WireServer],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    mid_stream: bool,
) -> None:
    server = wire()
    _echoing(server, mid_stream=mid_stream)
    provider = provider_for(
        server, api_key=KEY, default_headers=HEADERS, secret_headers=["x-TENANT-sig"]
    )
    with caplog.at_level(logging.DEBUG):
        run = _run_without_strategy(provider, server)
    sent = server.headers[0]
    for name, value in HEADERS.items():
        assert sent[name.lower()] == value  # every header reached the API as given
    assert run.status == "error"
    message = str(run.error)
    assert "denied. headers:" in message and VISIBLE in message  # the echo, redacted
    assert "***" in message
    _assert_clean(run, provider, tmp_path, caplog.text, [KEY, *SECRETS])


def test_the_basic_auth_form_of_base_url_userinfo_is_redacted(
    wire: Callable[..., WireServer], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from footprint_lab.providers import AnthropicProvider, OpenAIProvider

    server = wire()
    _echoing(server)
    cls = OpenAIProvider if server.kind == "openai" else AnthropicProvider
    provider = cls(base_url=_url_with_credentials(server, "userinfo"), api_key=KEY, max_retries=0)
    with caplog.at_level(logging.DEBUG):
        run = _run_without_strategy(provider, server)
    basic = base64.b64encode(f"user:{URL_SECRET}".encode()).decode()
    assert server.headers[0]["authorization"] == f"Basic {basic}"  # what the URL became
    _assert_clean(run, provider, tmp_path, caplog.text, [KEY, URL_SECRET, basic])


def test_credential_headers_reach_the_api_and_stay_out_of_the_provider_face(
    wire: Callable[..., WireServer],
) -> None:
    from footprint_lab import Reply

    server = wire([Reply.text("hello")])
    provider = provider_for(
        server, api_key=KEY, default_headers=HEADERS, secret_headers="X-Tenant-Sig"
    )
    run = _run_without_strategy(provider, server)
    assert run.status == "done", run.error
    assert server.headers[0]["x-tenant-sig"] == MARKED
    face = repr(provider) + repr(vars(provider))
    assert VISIBLE in face  # ordinary headers are kept as given
    for secret in SECRETS:
        assert secret not in face


def test_secret_headers_takes_names() -> None:
    from footprint_lab.providers import OpenAIProvider

    with pytest.raises(TypeError, match="secret_headers= takes header names"):
        OpenAIProvider(api_key=KEY, secret_headers=[3])  # type: ignore[list-item]
