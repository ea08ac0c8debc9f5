"""Fixtures: the fake OpenAI and Anthropic servers, started on a free port per test."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.providers.servers import AnthropicServer, OpenAIServer, WireServer


def _factory(kind: type[WireServer]) -> Iterator[Callable[..., Any]]:
    started: list[WireServer] = []

    def make(*args: Any, **kwargs: Any) -> Any:
        server = kind(*args, **kwargs).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(autouse=True)
def _hermetic_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real key, base URL or proxy from the developer's shell reaches these tests."""
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    for var in ("NO_PROXY", "no_proxy"):
        kept = os.environ.get(var)
        monkeypatch.setenv(var, ",".join(p for p in (kept, "127.0.0.1,localhost") if p))


@pytest.fixture
def openai_server() -> Iterator[Callable[..., OpenAIServer]]:
    """``openai_server(script, **options)`` starts a fake Chat Completions API."""
    yield from _factory(OpenAIServer)


@pytest.fixture
def anthropic_server() -> Iterator[Callable[..., AnthropicServer]]:
    """``anthropic_server(script, **options)`` starts a fake Messages API."""
    yield from _factory(AnthropicServer)


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> Iterator[Callable[..., WireServer]]:
    """Either fake API (the test runs once per wire protocol)."""
    kind: type[WireServer] = OpenAIServer if request.param == "openai" else AnthropicServer
    yield from _factory(kind)
