"""A failed run's ``run.error`` keeps its type, message and status, and nothing live: no frame,
no SDK client, no key — walked by the garbage collector's own referents (traceback frames and
their locals included), not by a list of attributes someone thought of (#24 item 15)."""

from __future__ import annotations

import gc
import sys
import types
from collections.abc import Callable, Iterator

import pytest

from footprint_lab import Agent, ProviderError, Reply, ScriptedProvider
from tests.providers.servers import MODEL, HttpError, WireServer, provider_for

KEY = "sk-fplab-LIVECLIENT-0b6e2f94d1c7a853"
SDK_MODULES = ("openai", "anthropic", "httpx", "httpcore")
_SKIPPED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.CodeType)


def _reachable(root: object, *, limit: int = 500_000) -> Iterator[object]:
    """Every object the collector says is reachable from ``root``: an exception's traceback,
    its frames with their locals, ``__context__``, ``__cause__``, args and attributes, and
    everything below them. Classes, functions, code and module namespaces are not entered
    (they reach the whole interpreter, not the error's own data)."""
    namespaces = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}
    seen: set[int] = set()
    stack: list[object] = [root]
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, _SKIPPED) or id(obj) in namespaces:
            continue
        stack.extend(gc.get_referents(obj))
        if isinstance(obj, BaseException):  # the chain, named even where gc would see it
            stack.extend(x for x in (obj.__traceback__, obj.__context__, obj.__cause__) if x)


def _assert_holds_nothing_live(error: BaseException) -> None:
    for obj in _reachable(error):
        module = type(obj).__module__.split(".")[0]
        assert module not in SDK_MODULES, f"an SDK object is reachable from run.error: {obj!r}"
        assert not isinstance(obj, types.FrameType), f"a frame is reachable from run.error: {obj}"
        if isinstance(obj, str | bytes):
            text = obj if isinstance(obj, str) else obj.decode("latin-1")
            assert KEY not in text, "the API key is reachable from run.error"


def _failing_run(server: WireServer, how: str) -> Agent:
    if how == "401":
        server.script = [HttpError(401, server.error_body("authentication_error", "bad key"))]
    else:
        server.script = [Reply.fail("upstream broke")]
    return Agent.create(provider=provider_for(server, api_key=KEY), model=MODEL[server.kind])


@pytest.mark.parametrize("how", ["401", "500"])
def test_a_failed_runs_error_holds_no_frame_no_client_and_no_key(
    wire: Callable[..., WireServer], how: str
) -> None:
    server = wire()
    agent = _failing_run(server, how).build()
    run = agent.run("hi")
    assert run.status == "error"
    error = run.error
    assert isinstance(error, ProviderError)  # the type callers catch is kept
    assert error.status == (401 if how == "401" else 500)
    assert error.provider == run.provider
    assert str(error) == run.checkpoint().error.message  # type: ignore[union-attr]
    assert error.__traceback__ is None
    assert error.__context__ is None and error.__cause__ is None
    _assert_holds_nothing_live(error)
    # Re-raised, it still says where it came from — as text, not as frames.
    with pytest.raises(ProviderError) as info:
        run.raise_for_error()
    assert info.value is error
    notes = "\n".join(getattr(error, "__notes__", []))
    assert "complete" in notes and ".py" in notes


def test_the_walk_finds_the_key_through_a_frame() -> None:
    """The walk above is not vacuous: an error raised where a client is a local reaches it."""
    import openai

    def raising() -> None:
        client = openai.AsyncOpenAI(api_key=KEY, base_url="http://127.0.0.1:9")
        assert client is not None
        raise ProviderError("boom", status=500)

    with pytest.raises(ProviderError) as info:
        raising()
    with pytest.raises(AssertionError):
        _assert_holds_nothing_live(info.value)


def test_no_stray_event_loop_error_rides_on_any_run_error() -> None:
    agent = Agent.create(provider=ScriptedProvider([Reply.fail("overloaded")])).build()
    run = agent.run("hi")
    assert isinstance(run.error, ProviderError)
    chain: list[BaseException] = []
    link: BaseException | None = run.error
    while link is not None:
        chain.append(link)
        link = link.__cause__ or link.__context__
    assert chain == [run.error], [repr(e) for e in chain]
    assert not any("no running event loop" in str(e) for e in chain)
