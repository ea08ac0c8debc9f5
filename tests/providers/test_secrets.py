"""API keys stay inside the provider: never in a repr, the ledger, events, records, frames,
checkpoints, saved runs, reports, pickles, logs or error messages — even when an API echoes the
key back, and nowhere along ``run.error``'s ``__cause__`` / ``__context__`` chain. Credentials
inside a ``base_url`` (a query value, or userinfo) are kept the same way."""

from __future__ import annotations

import base64
import json
import logging
import pickle
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import Agent, ProviderError, Reply, summarize_oldest
from footprint_lab.agent import Run
from footprint_lab.lab import capture
from footprint_lab.lab.report import render_report
from footprint_lab.providers import provider_summarizer
from footprint_lab.scenarios import deploy_audit
from tests.providers.servers import MODEL, Fault, HttpError, WireServer, provider_for

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


# -- the error chain, every artifact, URLs with credentials, pickling, logs ------------------

SDK_MODULES = ("openai", "anthropic", "httpx", "httpx2", "httpcore")


def _walk(root: object, *, limit: int = 8) -> Iterator[object]:
    """Everything reachable from ``root``: an exception's ``__cause__``, ``__context__``, args
    and attributes, and recursively every attribute, mapping, sequence and slot below them
    (httpx requests and responses, their headers, ...)."""
    seen: set[int] = set()
    stack: list[tuple[object, int]] = [(root, 0)]
    while stack:
        obj, depth = stack.pop()
        if id(obj) in seen or depth > limit:
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, str | bytes | bytearray | int | float | bool | type(None)):
            continue
        if isinstance(obj, type) or (callable(obj) and not isinstance(obj, BaseException)):
            continue
        children: list[object] = []
        if isinstance(obj, BaseException):
            children += [obj.__cause__, obj.__context__, *obj.args]
        if isinstance(obj, dict):
            children += [*obj.keys(), *obj.values()]
        elif isinstance(obj, list | tuple | set | frozenset):
            children += list(obj)
        if hasattr(obj, "__dict__"):
            children += list(vars(obj).values())
        for slot in getattr(type(obj), "__slots__", ()):
            if isinstance(slot, str) and hasattr(obj, slot):
                children.append(getattr(obj, slot))
        if hasattr(obj, "raw") and not callable(obj.raw):  # httpx Headers: raw (bytes) pairs
            children.append(obj.raw)
        stack.extend((child, depth + 1) for child in children)


def _assert_chain_clean(error: BaseException | None, *secrets: str) -> None:
    assert error is not None
    for obj in _walk(error):
        if isinstance(obj, BaseException):
            module = type(obj).__module__.split(".")[0]
            assert module not in SDK_MODULES, f"an SDK exception is reachable: {obj!r}"
        if isinstance(obj, str | bytes):
            text = obj if isinstance(obj, str) else obj.decode("latin-1")
            for secret in secrets:
                assert secret not in text, f"{secret!r} is reachable from run.error: {obj!r}"
                assert secret[4:-4] not in text, f"part of {secret!r} is reachable: {obj!r}"


def _artifacts(run: Run, tmp_path: Path) -> Iterator[tuple[str, str]]:
    yield from _everything_about(run, tmp_path)
    yield "saved bytes", (tmp_path / "run.json").read_bytes().decode("latin-1")
    yield "events JSON", json.dumps([e.model_dump(mode="json") for e in run.events])
    frames = capture(run)
    for name in ("records", "refusals", "pins", "evictions", "commits", "calls", "messages"):
        yield f"frames.{name}.to_string", getattr(frames, name).to_string()
    yield "frames.info", repr(frames.info)
    yield "report", render_report({"secrets": {"run": run}}).html
    yield "pickled run", pickle.dumps(run).decode("latin-1")
    yield "error repr", repr(run.error) + repr(getattr(run.error, "args", ()))


def _assert_nowhere(run: Run, tmp_path: Path, *secrets: str) -> None:
    for label, text in _artifacts(run, tmp_path):
        for secret in secrets:
            assert secret not in text, f"{secret!r} leaked into {label}"
            assert secret[4:-4] not in text, f"part of {secret!r} leaked into {label}"


def _unreachable_url(kind: str, template: str = "http://127.0.0.1:{port}") -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return template.format(port=port) + ("/v1" if kind == "openai" else "")


def _failing(server: WireServer, how: str) -> None:
    if how == "401":
        echo = f"Incorrect API key provided: {KEY}."
        server.script = [HttpError(401, server.error_body("authentication_error", echo))]
    elif how == "500":
        server.script = [Reply.fail(f"upstream broke while handling {KEY}")]
    else:
        server.script = [Fault(how)]  # type: ignore[arg-type]


FAILURES = ["401", "500", "garbage", "invalid-json", "drop", "no-terminator", "duplicate-ids"]


@pytest.mark.parametrize("how", FAILURES)
def test_a_failed_call_holds_no_sdk_exception_and_no_key(
    wire: Callable[..., WireServer], tmp_path: Path, how: str
) -> None:
    server = wire()
    _failing(server, how)
    if how == "duplicate-ids":
        server.script = [Fault("duplicate-ids", Reply.tool_calls([("a", {}), ("b", {})]))]
    provider = provider_for(server, api_key=KEY)
    run = _run_without_strategy(provider, server)
    assert run.status == "error"
    assert isinstance(run.error, ProviderError)
    assert run.error.__cause__ is None
    _assert_chain_clean(run.error, KEY)
    _assert_nowhere(run, tmp_path, KEY)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_connection_refused_holds_no_sdk_exception_and_no_key(kind: str, tmp_path: Path) -> None:
    from footprint_lab.providers import AnthropicProvider, OpenAIProvider

    cls = OpenAIProvider if kind == "openai" else AnthropicProvider
    provider = cls(api_key=KEY, base_url=_unreachable_url(kind), max_retries=0)
    run = Agent.create(provider=provider, model="m").build().run("hi")
    assert isinstance(run.error, ProviderError)
    assert "could not reach http://127.0.0.1:" in str(run.error)
    _assert_chain_clean(run.error, KEY)
    _assert_nowhere(run, tmp_path, KEY)


def test_the_walker_finds_a_key_behind_an_sdk_exception() -> None:
    """The check above is not vacuous: the SDK's own exception does carry the key."""
    import openai

    client = openai.OpenAI(api_key=KEY, base_url=_unreachable_url("openai"), max_retries=0)
    try:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    except openai.APIConnectionError as exc:
        caught: BaseException = exc
    finally:
        client.close()
    with pytest.raises(AssertionError):
        _assert_chain_clean(caught, KEY)
    wrapped = ProviderError("x")
    try:
        try:
            raise caught
        except openai.APIConnectionError:
            raise wrapped from None  # what the providers used to do
    except ProviderError:
        pass
    with pytest.raises(AssertionError, match="SDK exception"):
        _assert_chain_clean(wrapped, KEY)


URL_SECRET = "url-SECRET-5f1e0c9d2b7a4e33"


def _url_with_credentials(server: WireServer, style: str) -> str:
    path = "/v1" if server.kind == "openai" else ""
    if style == "query":
        return f"http://127.0.0.1:{server.port}{path}?key={URL_SECRET}"
    return f"http://user:{URL_SECRET}@127.0.0.1:{server.port}{path}"


def _url_provider(server: WireServer, style: str, **kwargs: Any) -> Any:
    from footprint_lab.providers import AnthropicProvider, OpenAIProvider

    cls = OpenAIProvider if server.kind == "openai" else AnthropicProvider
    return cls(base_url=_url_with_credentials(server, style), max_retries=0, **kwargs)


@pytest.mark.parametrize("style", ["query", "userinfo"])
def test_credentials_in_base_url_reach_the_server_and_nothing_else(
    wire: Callable[..., WireServer],
    tmp_path: Path,
    style: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    scenario = deploy_audit()
    server = wire(
        scenario.replies(), require_query={"key": URL_SECRET} if style == "query" else None
    )
    provider = _url_provider(server, style, api_key=KEY)
    with caplog.at_level(logging.DEBUG):
        run = scenario.run(None, provider=provider, model=MODEL[server.kind])
        run.raise_for_error()
    assert server.rejections == []
    # the SDK got the real URL: the query reached the server; the userinfo became Basic auth
    if style == "query":
        assert all(q == {"key": URL_SECRET} for q in server.queries)
    else:
        auth = server.headers[0]["authorization"]
        assert auth.startswith("Basic ")
        assert base64.b64decode(auth.removeprefix("Basic ")).decode() == f"user:{URL_SECRET}"
    assert provider.name == (
        f"openai-compatible@127.0.0.1:{server.port}"
        if server.kind == "openai"
        else f"anthropic@127.0.0.1:{server.port}"
    )
    public = f"http://127.0.0.1:{server.port}" + ("/v1" if server.kind == "openai" else "")
    assert provider.base_url == public
    for label, text in [
        ("repr(provider)", repr(provider)),
        ("vars(provider)", repr(vars(provider))),
        ("logs", caplog.text),
    ]:
        assert URL_SECRET not in text, f"the URL's secret leaked into {label}"
    assert f"127.0.0.1:{server.port}" in caplog.text  # the requests were logged, redacted
    _assert_nowhere(run, tmp_path, KEY, URL_SECRET)


@pytest.mark.parametrize("style", ["query", "userinfo"])
@pytest.mark.parametrize("how", ["401", "500", "garbage", "drop"])
def test_a_failing_call_through_a_credentialed_url_leaks_nothing(
    wire: Callable[..., WireServer],
    tmp_path: Path,
    style: str,
    how: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = wire()
    _failing(server, how)
    provider = _url_provider(server, style, api_key=KEY)
    with caplog.at_level(logging.DEBUG):
        run = _run_without_strategy(provider, server)
    assert isinstance(run.error, ProviderError)
    _assert_chain_clean(run.error, KEY, URL_SECRET)
    _assert_nowhere(run, tmp_path, KEY, URL_SECRET)
    assert URL_SECRET not in caplog.text
    assert KEY not in caplog.text


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
@pytest.mark.parametrize("style", ["query", "userinfo"])
def test_an_unreachable_credentialed_url_is_named_without_its_secret(
    kind: str, style: str, tmp_path: Path
) -> None:
    from footprint_lab.providers import AnthropicProvider, OpenAIProvider

    template = (
        "http://127.0.0.1:{port}"
        if style == "query"
        else f"http://u:{URL_SECRET}@127.0.0.1:{{port}}"
    )
    url = _unreachable_url(kind, template) + (f"?api-key={URL_SECRET}" if style == "query" else "")
    cls = OpenAIProvider if kind == "openai" else AnthropicProvider
    provider = cls(base_url=url, max_retries=0)
    run = Agent.create(provider=provider, model="m").build().run("hi")
    assert isinstance(run.error, ProviderError)
    assert "could not reach http://127.0.0.1:" in str(run.error)
    _assert_chain_clean(run.error, URL_SECRET)
    _assert_nowhere(run, tmp_path, URL_SECRET)


def test_names_never_carry_credentials_or_a_path() -> None:
    from footprint_lab.providers import AnthropicProvider, OpenAIProvider

    for url in (
        f"localhost:8000/v1?api-key={URL_SECRET}",
        f"https://user:{URL_SECRET}@gw.example:8443/v1",
        f"https://gw.example/v1/?token={URL_SECRET}#frag",
        f"user:{URL_SECRET}@gw.example",
    ):
        for provider in (OpenAIProvider(base_url=url), AnthropicProvider(base_url=url)):
            assert URL_SECRET not in provider.name
            assert "/" not in provider.name.split("@", 1)[1]
            assert "?" not in provider.name
            assert URL_SECRET not in repr(provider) + repr(vars(provider))
            assert URL_SECRET not in str(provider.base_url)


# -- pickling ---------------------------------------------------------------------------------


def test_a_finished_run_pickles_without_its_agent_and_without_the_key(
    wire: Callable[..., WireServer],
) -> None:
    server = wire([Reply.text("hello")], api_key=KEY)
    provider = provider_for(server, api_key=KEY)
    run = _run_without_strategy(provider, server)
    assert run.status == "done"
    assert run.agent is not None
    data = pickle.dumps(run)
    assert KEY.encode() not in data
    assert FRAGMENT.encode() not in data
    again = pickle.loads(data)
    assert again.agent is None  # Run.__getstate__ drops the link to the agent
    assert run.agent is not None  # ... of the copy only
    assert again.output == "hello"
    assert again.calls == run.calls
    assert [e.type for e in again.events] == [e.type for e in run.events]


def test_a_failed_run_pickles_without_the_key(wire: Callable[..., WireServer]) -> None:
    server = wire()
    _failing(server, "401")
    run = _run_without_strategy(provider_for(server, api_key=KEY), server)
    data = pickle.dumps(run)
    assert KEY.encode() not in data and FRAGMENT.encode() not in data
    again = pickle.loads(data)
    assert isinstance(again.error, ProviderError)
    assert again.error.status == 401
    assert again.error.provider == run.provider


def test_a_provider_pickles_without_its_clients_and_works_after(
    wire: Callable[..., WireServer],
) -> None:
    server = wire([Reply.text("one"), Reply.text("two")], api_key=KEY)
    provider = provider_for(server, api_key=KEY)
    agent = Agent.create(provider=provider, model=MODEL[server.kind]).build()
    assert agent.run("first").output == "one"
    clone = pickle.loads(pickle.dumps(provider))  # as a sweep's worker process would
    assert clone is not provider
    assert repr(clone) == repr(provider)
    run = Agent.create(provider=clone, model=MODEL[server.kind]).build().run("second")
    assert run.output == "two"
    assert server.rejections == []
