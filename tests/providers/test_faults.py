"""Nothing lost: replies cut short are said to be cut, and every broken stream, transport
failure or malformed reply is a ``ProviderError`` that stops the run with its ledger intact.

Every test that takes ``wire`` runs once per wire protocol, through the official SDKs against
the local servers (see ``servers.Fault`` for how each failure is produced).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from footprint_lab import Agent, Message, ProviderError, Reply, ScriptedProvider, ToolCall, tool
from footprint_lab.events import EVENT_ADAPTER, ReplyTruncated
from footprint_lab.lab import capture
from footprint_lab.lab.report import render_report
from footprint_lab.providers import ProviderRequest, ProviderResponse
from footprint_lab.window.apply import run_sync
from tests.providers.servers import MODEL, Fault, FaultMode, WireServer, provider_for

Wire = Callable[..., WireServer]

CUT_REASON = {"openai": "length", "anthropic": "max_tokens"}
DONE_REASON = {"openai": "stop", "anthropic": "end_turn"}
CALLS_REASON = {"openai": "tool_calls", "anthropic": "tool_use"}


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _agent(provider: Any, model: str = "m") -> Agent:
    built: Agent = Agent.create(provider=provider, model=model).tools(add).build()
    return built


def _wire_agent(server: WireServer) -> Agent:
    return _agent(provider_for(server), MODEL[server.kind])


# -- truncation ------------------------------------------------------------------------------


def test_a_reply_cut_by_the_output_cap_is_recorded_as_truncated(wire: Wire) -> None:
    server = wire(
        [
            Reply.tool_calls([("add", {"a": 1, "b": 2})]),
            Fault("length", Reply.text("The sum is thr")),
        ]
    )
    run = _wire_agent(server).run("Add 1 and 2.")
    assert run.status == "done"  # a cut reply is still a reply: the run says it was cut
    assert run.output == "The sum is thr"
    first, last = run.calls
    assert (first.finish_reason, first.truncated) == (CALLS_REASON[server.kind], False)
    assert last.truncated is True
    assert last.finish_reason == CUT_REASON[server.kind]

    cut = [e for e in run.events if isinstance(e, ReplyTruncated)]
    assert len(cut) == 1
    assert cut[0].type == "llm.truncated"
    assert (cut[0].iteration, cut[0].stage_id) == (last.iteration, last.stage_id)
    assert cut[0].finish_reason == CUT_REASON[server.kind]
    # the event round-trips through the Event union
    assert EVENT_ADAPTER.validate_json(cut[0].model_dump_json()) == cut[0]

    calls = capture(run).calls
    assert calls["truncated"].tolist() == [False, True]
    assert calls["finish_reason"].tolist() == [CALLS_REASON[server.kind], CUT_REASON[server.kind]]
    assert str(calls["truncated"].dtype) == "boolean"
    assert str(calls["finish_reason"].dtype) == "string"


def test_finish_reasons_of_complete_replies(wire: Wire) -> None:
    server = wire([Reply.text("fine")])
    run = _wire_agent(server).run("hi")
    assert run.status == "done"
    assert run.calls[0].finish_reason == DONE_REASON[server.kind]
    assert run.calls[0].truncated is False
    assert not [e for e in run.events if e.type == "llm.truncated"]


def test_the_truncation_survives_a_checkpoint_and_a_saved_run(wire: Wire, tmp_path: Any) -> None:
    from footprint_lab import load_run

    server = wire([Fault("length")])
    run = _wire_agent(server).run("hi")
    loaded = load_run(run.save(tmp_path / "run.json"))
    assert loaded.calls[-1].truncated is True
    assert loaded.calls[-1].finish_reason == CUT_REASON[server.kind]
    assert [e.type for e in loaded.events if e.type == "llm.truncated"] == ["llm.truncated"]


def test_the_report_says_when_a_reply_was_cut(wire: Wire) -> None:
    server = wire([Fault("length")])
    cut = _wire_agent(server).run("hi")
    server = wire([Reply.text("whole")])
    whole = _wire_agent(server).run("hi")
    page = render_report({"replies": {"cut": cut, "whole": whole}}).html
    cut_part, whole_part = page.split('id="replies--whole"')
    assert '<span class="badge truncated">1 truncated</span>' in cut_part
    assert '<p class="truncated"><b>Truncated</b>: 1 reply was cut short' in cut_part
    assert CUT_REASON[server.kind] in cut_part
    # the call is named as everywhere else: its iteration, then its 0-based index in run.calls
    assert "Iteration 1 · call 0 (calls count from 0), finish reason <code>" in cut_part
    assert "badge truncated" not in whole_part
    assert '<p class="truncated">' not in whole_part


def test_the_scripted_provider_reports_finish_reasons_deterministically() -> None:
    provider = ScriptedProvider([Reply.tool_calls([("add", {"a": 1, "b": 2})]), Reply.text("3")])
    run = _agent(provider).run("Add 1 and 2.")
    assert [(c.finish_reason, c.truncated) for c in run.calls] == [
        ("tool_calls", False),
        ("stop", False),
    ]
    # usage is the scripted provider's deterministic count (chars / 4, rounded up), unchanged:
    # "Add 1 and 2." is 12 chars; add + {"a": 1, "b": 2} is 19; the second call adds both
    assert [(c.usage.input_tokens, c.usage.output_tokens) for c in run.calls if c.usage] == [
        (3, 5),
        (8, 1),
    ]


# -- broken streams ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("no-terminator", "ended before the reply did"),
        ("garbage", "malformed"),
        ("invalid-json", "malformed"),
        ("drop", ""),
        ("cut-mid-event", ""),
        ("duplicate-ids", "repeats tool call id"),
    ],
)
def test_a_broken_reply_stops_the_run_with_a_provider_error(
    wire: Wire, mode: FaultMode, said: str
) -> None:
    reply = Reply.tool_calls([("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})], text="Hm.")
    server = wire([Reply.tool_calls([("add", {"a": 5, "b": 5})]), Fault(mode, reply)])
    run = _wire_agent(server).run("Add.")
    assert run.status == "error"
    assert type(run.error) is ProviderError
    assert run.error.provider == run.provider
    assert str(run.error).startswith(f"{run.provider}: ")
    assert said in str(run.error)
    if mode == "no-terminator":
        terminator = "finish_reason" if server.kind == "openai" else "message_stop"
        assert terminator in str(run.error)
    # nothing lost: the first call, its results and the request are all in the ledger
    assert len(run.calls) == 2
    assert run.calls[0].usage is not None
    assert run.calls[1].usage is None  # the broken call reports nothing
    assert [m.role for m in run.ledger.messages] == ["user", "assistant", "tool"]
    assert run.events[-1].type == "run.error"
    with pytest.raises(ProviderError):
        run.raise_for_error()


def test_a_dropped_connection_is_named_as_such(wire: Wire) -> None:
    server = wire([Fault("drop")])
    run = _wire_agent(server).run("hi")
    assert isinstance(run.error, ProviderError)
    message = str(run.error).lower()
    assert any(w in message for w in ("connection", "peer closed", "incomplete"))


@pytest.mark.parametrize("mode", ["no-terminator", "garbage", "drop", "duplicate-ids"])
def test_complete_raises_provider_error_directly(wire: Wire, mode: FaultMode) -> None:
    reply = Reply.tool_calls([("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})])
    server = wire([Fault(mode, reply)])
    provider = provider_for(server)
    request = ProviderRequest(model=MODEL[server.kind], messages=[Message.user("add")])
    with pytest.raises(ProviderError) as caught:
        run_sync(provider.complete(request))
    assert caught.value.provider == provider.name


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_an_httpx_error_escaping_the_sdk_is_a_provider_error(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx2
    from anthropic.resources.messages import AsyncMessages
    from openai.resources.chat.completions import AsyncCompletions

    from footprint_lab.providers import AnthropicProvider, OpenAIProvider

    async def explode(*args: Any, **kwargs: Any) -> Any:
        raise httpx2.LocalProtocolError("illegal header value")

    target = AsyncCompletions if kind == "openai" else AsyncMessages
    monkeypatch.setattr(target, "create", explode)
    provider = (
        OpenAIProvider(api_key="sk-x", base_url="http://127.0.0.1:9/v1", max_retries=0)
        if kind == "openai"
        else AnthropicProvider(api_key="sk-x", base_url="http://127.0.0.1:9", max_retries=0)
    )
    run = _agent(provider).run("hi")
    assert run.status == "error"
    assert type(run.error) is ProviderError
    assert "LocalProtocolError" in str(run.error)
    assert "illegal header value" in str(run.error)


# -- custom providers ---------------------------------------------------------------------------


class _Custom:
    """A provider written by hand that answers with whatever it was given."""

    name = "hand-made"

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def context_window(self, model: str) -> int | None:
        return None

    async def complete(self, request: ProviderRequest) -> Any:
        return self.answer


@pytest.mark.parametrize(
    ("answer", "said"),
    [(None, "returned None"), ({"content": "hi"}, "returned a dict"), ("hi", "returned a str")],
)
def test_a_custom_provider_returning_no_response_is_a_provider_error(
    answer: object, said: str
) -> None:
    run = _agent(_Custom(answer)).run("hi")
    assert run.status == "error"
    assert isinstance(run.error, ProviderError)
    assert run.error.provider == "hand-made"
    assert str(run.error) == f"hand-made: complete() {said}, not a ProviderResponse"
    assert run.calls[0].usage is None
    assert [m.role for m in run.ledger.messages] == ["user"]


def test_a_custom_provider_repeating_a_call_id_is_a_provider_error() -> None:
    calls = [ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2})] * 2
    answer = ProviderResponse(message=Message.assistant("", tool_calls=calls))
    run = _agent(_Custom(answer)).run("hi")
    assert run.status == "error"
    assert isinstance(run.error, ProviderError)
    assert "repeats tool call id(s) c1" in str(run.error)
    assert len(run.ledger.messages) == 1  # the bad batch was never committed


def test_the_servers_fault_modes_reach_the_wire(wire: Wire) -> None:
    """The fault streams are what they say: inspect one raw body per mode."""
    import httpx2

    bodies: dict[str, bytes] = {}
    for mode in ("length", "no-terminator", "garbage", "invalid-json"):
        server = wire([Fault(mode)])
        path = "/chat/completions" if server.kind == "openai" else "/v1/messages"
        body: dict[str, Any] = {
            "model": "m",
            "max_tokens": 9,
            "stream": True,
            "messages": [{"role": "user", "content": "hi"}],
        }
        bodies[mode] = httpx2.post(server.url + path, content=json.dumps(body)).content
    cut = b"length" if server.kind == "openai" else b"max_tokens"
    end = b"[DONE]" if server.kind == "openai" else b"message_stop"
    assert cut in bodies["length"] and end in bodies["length"]
    assert end not in bodies["no-terminator"]
    assert b"\xff\xfe" in bodies["garbage"]
    assert end in bodies["invalid-json"]
