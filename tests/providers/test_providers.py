"""OpenAIProvider and AnthropicProvider against the fake APIs, through the official SDKs.

Every test that takes ``wire`` runs once per wire protocol.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable

import pytest

from footprint_lab import (
    Agent,
    CompactionUnmeasurableError,
    ContextLengthError,
    Message,
    ProviderError,
    Reply,
    ToolCall,
    Usage,
    sliding_window,
    token_budget,
    tool,
)
from footprint_lab.providers import (
    AnthropicProvider,
    OpenAIProvider,
    ProviderRequest,
    ToolSpec,
)
from footprint_lab.scenarios import deploy_audit
from footprint_lab.window.apply import run_sync
from tests.providers.servers import (
    MODEL,
    AnthropicServer,
    HttpError,
    OpenAIServer,
    WireServer,
    count_input_tokens,
    provider_for,
)

Wire = Callable[..., WireServer]


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: population " + "many " * 10


def _agent(server: WireServer, **provider_kwargs: object) -> Agent:
    built: Agent = (
        Agent.create(provider=provider_for(server, **provider_kwargs), model=MODEL[server.kind])
        .system("You add numbers.")
        .tools(add, lookup)
        .build()
    )
    return built


def test_a_tool_loop_with_parallel_calls_streams_through_the_sdk(wire: Wire) -> None:
    server = wire(
        [
            Reply.tool_calls(
                [("add", {"a": 2, "b": 3}), ("lookup", {"city": "Bergen"})], text="Working on it."
            ),
            Reply.tool_calls([("add", {"a": 40, "b": 2})]),
            Reply.text("The answers are 5 and 42; Bergen has many people."),
        ]
    )
    run = _agent(server).run("Add 2 and 3, look up Bergen, then add 40 and 2.")
    run.raise_for_error()
    assert run.status == "done"
    assert run.output == "The answers are 5 and 42; Bergen has many people."
    assert server.rejections == []
    assert len(server.requests) == 3

    first = run.window[1]
    assert first.role == "assistant"
    assert first.content == "Working on it."
    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        ("add", {"a": 2, "b": 3}),
        ("lookup", {"city": "Bergen"}),
    ]
    assert len({c.id for c in first.tool_calls}) == 2
    results = run.window[2:4]
    assert [m.tool_call_id for m in results] == [c.id for c in first.tool_calls]
    assert results[0].content == "5"

    # usage is what the server streamed: its own count of each request
    for call, body in zip(run.calls, server.requests, strict=True):
        assert call.usage is not None
        assert call.usage.input_tokens == count_input_tokens(body)
        assert call.usage.output_tokens > 0


def test_openai_wire_format(openai_server: Callable[..., OpenAIServer]) -> None:
    server = openai_server(
        [
            Reply.tool_calls([("add", {"a": 1, "b": 1}), ("add", {"a": 2, "b": 2})]),
            Reply.text("2, 4"),
        ]
    )
    _agent(server, context_window_override=50_000).run("Add.").raise_for_error()
    body = server.requests[-1]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["model"] == MODEL["openai"]
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool"]
    assert body["messages"][0]["content"] == "You add numbers."
    assistant = body["messages"][2]
    assert assistant["content"] is None
    assert [json.loads(c["function"]["arguments"]) for c in assistant["tool_calls"]] == [
        {"a": 1, "b": 1},
        {"a": 2, "b": 2},
    ]
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert [m["tool_call_id"] for m in body["messages"][3:]] == ids
    assert {t["function"]["name"] for t in body["tools"]} == {"add", "lookup"}


def test_anthropic_wire_format(anthropic_server: Callable[..., AnthropicServer]) -> None:
    server = anthropic_server(
        [
            Reply.tool_calls([("add", {"a": 1, "b": 1}), ("add", {"a": 2, "b": 2})]),
            Reply.text("2, 4"),
        ]
    )
    _agent(server).run("Add.").raise_for_error()
    body = server.requests[-1]
    assert body["system"] == "You add numbers."
    assert body["max_tokens"] == 4096
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    uses = body["messages"][1]["content"]
    assert [b["type"] for b in uses] == ["tool_use", "tool_use"]
    assert [b["input"] for b in uses] == [{"a": 1, "b": 1}, {"a": 2, "b": 2}]
    results = body["messages"][2]["content"]
    assert [(b["type"], b["tool_use_id"], b["content"]) for b in results] == [
        ("tool_result", uses[0]["id"], "2"),
        ("tool_result", uses[1]["id"], "4"),
    ]
    assert {t["name"] for t in body["tools"]} == {"add", "lookup"}
    assert all("input_schema" in t for t in body["tools"])


def test_max_output_tokens_reaches_the_wire(wire: Wire) -> None:
    server = wire([Reply.text("ok")])
    agent = Agent.create(
        provider=provider_for(server), model=MODEL[server.kind], max_output_tokens=256
    ).build()
    agent.run("hi").raise_for_error()
    assert server.requests[0]["max_tokens"] == 256
    assert "tools" not in server.requests[0]  # no tools: the field is left out, not []


def test_official_openai_uses_max_completion_tokens() -> None:
    provider = OpenAIProvider(api_key="sk-x")
    kwargs = provider.build_request(
        ProviderRequest(model="o3", messages=[Message.user("hi")], max_output_tokens=99)
    )
    assert kwargs["max_completion_tokens"] == 99
    assert "max_tokens" not in kwargs


def test_a_stream_without_usage_reports_zeros(wire: Wire) -> None:
    server = wire(
        [Reply.tool_calls([("add", {"a": 1, "b": 2})]), Reply.text("3")], report_usage=False
    )
    run = _agent(server).run("Add 1 and 2.")
    assert run.status == "done"
    assert [c.usage for c in run.calls] == [Usage(), Usage()]
    assert not run.usage.reported


def test_openai_stream_usage_can_be_switched_off(
    openai_server: Callable[..., OpenAIServer],
) -> None:
    server = openai_server([Reply.text("ok")])
    run = _agent(server, stream_usage=False).run("hi")
    assert run.status == "done"
    assert "stream_options" not in server.requests[0]
    assert run.calls[0].usage == Usage()


def test_without_usage_sliding_window_works_and_token_budget_refuses_to_guess(
    wire: Wire,
) -> None:
    scenario = deploy_audit()
    server = wire(scenario.replies(), report_usage=False)
    run = scenario.run(
        sliding_window(keep_recent_turns=2), provider=provider_for(server), model=MODEL[server.kind]
    )
    assert run.status == "done"
    assert any(r.removed_message_count for r in run.records)
    assert server.rejections == []

    server = wire(scenario.replies(), report_usage=False)
    run = scenario.run(
        token_budget(threshold_tokens=1_000),
        provider=provider_for(server),
        model=MODEL[server.kind],
    )
    assert run.status == "error"
    assert isinstance(run.error, CompactionUnmeasurableError)
    message = str(run.error)
    assert run.provider in message
    assert "include_usage" in message
    assert "sliding_window" in message
    assert len(run.calls) == 1  # the first call went out; the second window visit refused
    assert len(run.ledger.messages) == 3  # request, call, result: nothing lost
    with pytest.raises(CompactionUnmeasurableError):
        run.raise_for_error()


def test_cache_tokens_are_reported(wire: Wire) -> None:
    server = wire([Reply.text("ok")], cache_read_tokens=3)
    run = _agent(server).run("What is in the cache today?")
    usage = run.calls[0].usage
    assert usage is not None
    assert usage.input_tokens == count_input_tokens(server.requests[0])  # the whole prompt
    assert usage.cache_read_tokens == 3


def test_context_length_rejection_raises_context_length_error(wire: Wire) -> None:
    server = wire([Reply.text("never")], context_window=5)
    run = _agent(server).run("This request is far too long for a five-token window.")
    assert run.status == "error"
    assert isinstance(run.error, ContextLengthError)
    assert run.error.provider == run.provider
    expected = "maximum context length" if server.kind == "openai" else "prompt is too long"
    assert expected in str(run.error)
    assert run.calls[0].usage is None


@pytest.mark.parametrize(
    ("status", "error_type", "message"),
    [(429, "rate_limit_error", "Rate limit reached"), (401, "authentication_error", "bad key")],
)
def test_api_errors_surface_with_status_and_message(
    wire: Wire, status: int, error_type: str, message: str
) -> None:
    server = wire()
    server.script = [HttpError(status, server.error_body(error_type, message))]
    run = _agent(server).run("hi")
    assert run.status == "error"
    assert isinstance(run.error, ProviderError)
    assert not isinstance(run.error, ContextLengthError)
    assert run.error.status == status
    assert run.error.provider == run.provider
    assert message in str(run.error)
    assert f"HTTP {status}" in str(run.error)


def test_a_server_failure_is_a_provider_error(wire: Wire) -> None:
    server = wire([Reply.fail("upstream exploded")])
    run = _agent(server).run("hi")
    assert isinstance(run.error, ProviderError)
    assert run.error.status == 500
    assert "upstream exploded" in str(run.error)


def test_an_error_inside_the_stream_is_a_provider_error(wire: Wire) -> None:
    server = wire()
    error_type = "server_error" if server.kind == "openai" else "overloaded_error"
    server.script = [HttpError(200, server.error_body(error_type, "Overloaded"), mid_stream=True)]
    run = _agent(server).run("hi")
    assert isinstance(run.error, ProviderError)
    assert "Overloaded" in str(run.error)


def test_an_unreachable_server_is_a_provider_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    for provider in (
        OpenAIProvider(base_url=f"http://127.0.0.1:{port}/v1", max_retries=0),
        AnthropicProvider(base_url=f"http://127.0.0.1:{port}", max_retries=0),
    ):
        run = Agent.create(provider=provider, model="m").build().run("hi")
        assert isinstance(run.error, ProviderError)
        assert f"127.0.0.1:{port}" in str(run.error)


def test_one_provider_serves_several_runs_and_event_loops(wire: Wire) -> None:
    server = wire([Reply.text(f"answer {i}") for i in range(3)])
    provider = provider_for(server)
    outputs = [
        Agent.create(provider=provider, model=MODEL[server.kind]).build().run(f"q{i}").output
        for i in range(3)
    ]
    assert outputs == ["answer 0", "answer 1", "answer 2"]


def test_complete_can_be_called_directly(wire: Wire) -> None:
    server = wire([Reply.tool_calls([("add", {"a": 1, "b": 2})], text="adding")])
    provider = provider_for(server)
    request = ProviderRequest(
        model=MODEL[server.kind],
        system="sys",
        messages=[Message.user("add")],
        tools=[ToolSpec(name="add", parameters={"type": "object", "properties": {}})],
    )
    response = run_sync(provider.complete(request))
    assert response.message.content == "adding"
    assert response.message.tool_calls == [
        ToolCall(id=response.message.tool_calls[0].id, name="add", arguments={"a": 1, "b": 2})
    ]
    assert response.usage.reported
