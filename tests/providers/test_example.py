"""``examples/real_provider.py`` runs: scripted without keys, for real against a fake API."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType

import pytest

from footprint_lab.scenarios import deploy_audit
from tests.providers.servers import OpenAIServer

ENV = (
    "OLLAMA_MODEL",
    "OLLAMA_BASE_URL",
    "OLLAMA_NUM_CTX",
    "OPENAI_API_KEY",
    "OPENAI_MODEL",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_BASE_URL",
)


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "real_provider_example", "examples/real_provider.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_keys_it_stays_scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ENV:
        monkeypatch.delenv(var, raising=False)
    run = _example().main()
    assert run.status == "done"
    assert run.provider == "scripted"


def test_with_ollama_settings_it_talks_to_an_openai_compatible_server(
    monkeypatch: pytest.MonkeyPatch, openai_server: Callable[..., OpenAIServer]
) -> None:
    scenario = deploy_audit()
    replies = iter(scenario.replies())
    server = openai_server(
        lambda body: next(replies) if "tools" in body else scenario.replies()[-1]
    )
    for var in ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OLLAMA_MODEL", "llama3.1:8b")
    monkeypatch.setenv("OLLAMA_BASE_URL", server.url)
    run = _example().main()
    assert run.status == "done"
    assert run.provider == "ollama"
    assert server.rejections == []
    assert server.requests[0]["options"] == {"num_ctx": 8192}
    assert any(r.summary_chars for r in run.records)
