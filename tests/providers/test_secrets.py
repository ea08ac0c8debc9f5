"""API keys stay inside the provider: never in a repr, the ledger, events, records, frames,
checkpoints, saved runs or error messages — even when an API echoes the key back."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import ProviderError, Reply, summarize_oldest
from footprint_lab.agent import Run
from footprint_lab.lab import capture
from footprint_lab.providers import provider_summarizer
from footprint_lab.scenarios import deploy_audit
from tests.providers.servers import MODEL, HttpError, WireServer, provider_for

KEY = "sk-fplab-DISTINCTIVE-7c1d9e55aa04b3f2"
FRAGMENT = KEY[4:-4]  # what an API echoing a masked key would still show


def _dump(value: Any) -> str:
    def default(obj: Any) -> Any:
        if hasattr(obj, "model_dump"):
            return obj.model_dump(mode="json")
        return repr(obj)

    return json.dumps(value, default=default)


def _everything_about(run: Run, tmp_path: Path) -> Iterator[tuple[str, str]]:
    ledger = run.ledger
    yield "repr(run)", repr(run)
    yield (
        "ledger commits",
        _dump(
            [
                [c.index, c.stage_id, c.key, c.at_ms, ledger.value_at(c.index, c.key)]
                for c in ledger.commits
            ]
        ),
    )
    yield "ledger messages", _dump(list(ledger.messages))
    yield "events", "\n".join(e.model_dump_json() for e in run.events)
    yield "records", "\n".join(r.model_dump_json() for r in run.records)
    yield "calls", "\n".join(c.model_dump_json() for c in run.calls)
    yield "window", _dump(run.window)
    yield "error", repr(run.error) + str(run.error)
    yield "checkpoint", run.checkpoint().model_dump_json()
    yield "saved run", run.save(tmp_path / "run.json").read_text()
    frames = capture(run)
    for name in ("records", "refusals", "pins", "evictions", "commits", "calls", "messages"):
        yield f"frames.{name}", getattr(frames, name).to_csv()


def _assert_clean(label: str, text: str) -> None:
    assert KEY not in text, f"the API key leaked into {label}"
    assert FRAGMENT not in text, f"part of the API key leaked into {label}"


def _run_without_strategy(provider: Any, server: WireServer) -> Run:
    scenario = deploy_audit()
    return scenario.run(None, provider=provider, model=MODEL[server.kind])


def test_a_run_through_the_provider_leaves_no_trace_of_the_key(
    wire: Callable[..., WireServer], tmp_path: Path
) -> None:
    scenario = deploy_audit()
    replies = iter(scenario.replies())

    def script(body: dict[str, Any]) -> Reply:
        # the summary call carries no tools; the agent's calls do
        return next(replies) if "tools" in body else Reply.text("- d1 to d3 were fine")

    server = wire(script, api_key=KEY)
    provider = provider_for(server, api_key=KEY)
    summarizer = provider_summarizer(provider, MODEL[server.kind])
    strategy = summarize_oldest(threshold_tokens=1_500, summarizer=summarizer, keep_recent_turns=3)
    agent = scenario.agent(strategy, provider=provider, model=MODEL[server.kind])
    run = agent.run(scenario.request)
    run.raise_for_error()
    assert server.rejections == []
    assert any(r.summarizer_tokens for r in run.records)  # the summarizer ran through it too
    sent = server.headers[0].get("authorization", "") + server.headers[0].get("x-api-key", "")
    assert KEY in sent  # the key did go where it belongs

    for label, text in [
        ("repr(provider)", repr(provider)),
        ("str(provider)", str(provider)),
        ("vars(provider)", repr(vars(provider))),
        ("repr(agent)", repr(agent)),
        ("repr(summarizer)", repr(summarizer)),
        *_everything_about(run, tmp_path),
    ]:
        _assert_clean(label, text)


def test_an_error_that_echoes_the_key_is_redacted(
    wire: Callable[..., WireServer], tmp_path: Path
) -> None:
    server = wire()
    echo = f"Incorrect API key provided: {KEY} (also known as {FRAGMENT})."
    server.script = [HttpError(401, server.error_body("authentication_error", echo))]
    provider = provider_for(server, api_key=KEY)
    run = _run_without_strategy(provider, server)
    assert isinstance(run.error, ProviderError)
    assert run.error.status == 401
    assert "Incorrect API key provided: ***" in str(run.error)
    for label, text in _everything_about(run, tmp_path):
        _assert_clean(label, text)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_the_key_can_come_from_the_environment(
    kind: str,
    openai_server: Callable[..., WireServer],
    anthropic_server: Callable[..., WireServer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from footprint_lab.providers import AnthropicProvider, OpenAIProvider

    make = openai_server if kind == "openai" else anthropic_server
    server = make([Reply.text("hello")], api_key=KEY)
    monkeypatch.setenv("OPENAI_API_KEY" if kind == "openai" else "ANTHROPIC_API_KEY", KEY)
    provider = (
        OpenAIProvider(base_url=server.url, max_retries=0)
        if kind == "openai"
        else AnthropicProvider(base_url=server.url, max_retries=0)
    )
    run = _run_without_strategy(provider, server)
    assert server.rejections == []
    _assert_clean("repr(provider)", repr(provider))
    _assert_clean("repr(run)", repr(run))
