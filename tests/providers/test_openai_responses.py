"""``OpenAIProvider`` over the Responses API (``api="responses"``, server-side compaction)
against the fake ``POST /v1/responses`` (official SDK inside)."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from footprint_lab import Agent, ContextLengthError, Message, ProviderError, Reply, tool
from footprint_lab.messages import ContentPart
from footprint_lab.providers import OpenAIProvider, ProviderRequest, ToolSpec
from footprint_lab.window.apply import run_sync
from footprint_lab.window.records import ServerEdit
from tests.providers.conftest import _factory
from tests.providers.responses_server import (
    ResponsesServer,
    count_response_tokens,
    tokens_of,
)
from tests.providers.servers import Fault, HttpError

MODEL = "gpt-5-mini"
SYSTEM = "You add numbers."
COMPACTION = [{"type": "compaction", "compact_threshold": 50}]

Server = Callable[..., ResponsesServer]


@pytest.fixture
def responses_server() -> Iterator[Server]:
    """``responses_server(script, **options)`` starts a fake Responses API."""
    yield from _factory(ResponsesServer)


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _provider(server: ResponsesServer, **kwargs: Any) -> OpenAIProvider:
    kwargs.setdefault("api", "responses")
    return OpenAIProvider(base_url=server.url, max_retries=0, **kwargs)


def _complete(provider: OpenAIProvider, *messages: Message, tools: bool = False) -> Any:
    request = ProviderRequest(
        model=MODEL,
        system=SYSTEM,
        messages=list(messages),
        tools=[ToolSpec(name="add", description="Add.")] if tools else [],
    )
    return run_sync(provider.complete(request))


def _agent(provider: OpenAIProvider) -> Agent:
    built: Agent = Agent.create(provider=provider, model=MODEL).system(SYSTEM).tools(add).build()
    return built


# -- plain Responses ---------------------------------------------------------------------


def test_a_text_reply_over_responses(responses_server: Server) -> None:
    server = responses_server([Reply.text("Hello there, friend.")])
    response = _complete(_provider(server), Message.user("hi", name="ann"))
    assert response.message.content == "Hello there, friend."
    assert response.finish_reason == "stop"
    assert response.truncated is False
    assert response.server_edits == []
    assert response.message.parts == []
    body = server.requests[0]
    assert body["model"] == MODEL
    assert body["instructions"] == SYSTEM
    assert body["input"] == [{"role": "user", "content": "hi"}]
    assert body["store"] is False
    assert body["stream"] is True
    assert body["include"] == ["reasoning.encrypted_content"]
    assert "context_management" not in body
    assert "messages" not in body and "stream_options" not in body


def test_parallel_tool_calls_over_responses(responses_server: Server) -> None:
    server = responses_server(
        [Reply.tool_calls([("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})], text="Adding.")]
    )
    response = _complete(_provider(server), Message.user("add twice"), tools=True)
    message = response.message
    assert message.content == "Adding."
    assert [(c.name, c.arguments) for c in message.tool_calls] == [
        ("add", {"a": 1, "b": 2}),
        ("add", {"a": 3, "b": 4}),
    ]
    assert all(c.id.startswith("call_") for c in message.tool_calls)
    assert len({c.id for c in message.tool_calls}) == 2
    assert response.finish_reason == "tool_calls"
    assert server.requests[0]["tools"] == [
        {
            "type": "function",
            "name": "add",
            "description": "Add.",
            "parameters": {"type": "object", "properties": {}},
        }
    ]


def test_a_multi_turn_agent_run_over_responses(responses_server: Server) -> None:
    server = responses_server(
        [
            Reply.tool_calls([("add", {"a": 2, "b": 3}), ("add", {"a": 4, "b": 5})], "On it."),
            Reply.tool_calls([("add", {"a": 40, "b": 2})]),
            Reply.text("5, 9 and 42."),
        ]
    )
    run = _agent(_provider(server)).run("Add 2+3 and 4+5, then 40+2.")
    run.raise_for_error()
    assert run.output == "5, 9 and 42."
    assert server.rejections == []
    assert len(server.requests) == 3
    last = server.requests[-1]["input"]
    kinds = [item.get("type", item.get("role")) for item in last]
    assert kinds == [
        "user",
        "assistant",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
        "function_call",
        "function_call_output",
    ]
    first_calls = next(m for m in run.window if m.role == "assistant").tool_calls
    assert [item["call_id"] for item in last[2:4]] == [c.id for c in first_calls]
    assert [item["output"] for item in last[4:6]] == ["5", "9"]
    # usage is the server's own count of each request
    for call, body in zip(run.calls, server.requests, strict=True):
        assert call.usage is not None
        assert call.usage.input_tokens == count_response_tokens(body)
        assert call.usage.output_tokens > 0


def test_usage_is_read_from_response_completed(responses_server: Server) -> None:
    server = responses_server([Reply.text("cached reply")], cache_read_tokens=3)
    response = _complete(_provider(server), Message.user("What is in the cache today?"))
    assert response.usage.input_tokens == count_response_tokens(server.requests[0])
    assert response.usage.output_tokens == tokens_of(len("cached reply"))
    assert response.usage.cache_read_tokens == 3


def test_without_usage_the_reply_reports_zeros(responses_server: Server) -> None:
    server = responses_server([Reply.text("no usage")], report_usage=False)
    response = _complete(_provider(server), Message.user("hi"))
    assert response.message.content == "no usage"
    assert not response.usage.reported


def test_the_output_cap_marks_the_reply_truncated(responses_server: Server) -> None:
    server = responses_server([Fault("length", Reply.text("The answer is forty-"))])
    response = _complete(_provider(server), Message.user("hi"))
    assert response.truncated is True
    assert response.finish_reason == "max_output_tokens"
    assert response.message.content == "The answer is forty-"


def test_reasoning_items_are_thinking_parts_sent_back_verbatim(responses_server: Server) -> None:
    server = responses_server(
        [
            Reply.tool_calls([("add", {"a": 1, "b": 1})]).with_thinking("One plus one."),
            Reply.text("2"),
        ]
    )
    run = _agent(_provider(server)).run("Add 1 and 1.")
    run.raise_for_error()
    reply = next(m for m in run.window if m.role == "assistant")
    part = reply.parts[0]
    assert part.kind == "thinking"
    assert part.text == "One plus one."
    assert part.data_chars == len(part.original["encrypted_content"])
    second = server.requests[1]["input"]
    at = second.index(part.original)
    assert second[at + 1]["type"] == "function_call"


# -- errors ------------------------------------------------------------------------------


def test_context_length_rejection_raises_context_length_error(responses_server: Server) -> None:
    server = responses_server([Reply.text("never")], context_window=5)
    with pytest.raises(ContextLengthError, match="context window"):
        _complete(_provider(server), Message.user("This request is far too long for five tokens."))
    assert server.rejections[0][1]["error"]["code"] == "context_length_exceeded"


def test_an_error_event_inside_the_stream_is_a_provider_error(responses_server: Server) -> None:
    body = {"error": {"message": "overloaded, try later", "type": "server_error", "code": "busy"}}
    server = responses_server([HttpError(500, body, mid_stream=True)])
    with pytest.raises(ProviderError, match="overloaded, try later") as caught:
        _complete(_provider(server), Message.user("hi"))
    assert not isinstance(caught.value, ContextLengthError)


def test_an_http_error_keeps_its_status(responses_server: Server) -> None:
    body = {"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}}
    server = responses_server([HttpError(429, body)])
    with pytest.raises(ProviderError, match="slow down") as caught:
        _complete(_provider(server), Message.user("hi"))
    assert caught.value.status == 429


@pytest.mark.parametrize("mode", ["no-terminator", "drop", "garbage", "invalid-json"])
def test_a_stream_cut_short_or_broken_is_a_provider_error(
    responses_server: Server, mode: Any
) -> None:
    server = responses_server([Fault(mode)])
    with pytest.raises(ProviderError) as caught:
        _complete(_provider(server), Message.user("hi"))
    if mode == "no-terminator":
        assert "ended before the reply did" in str(caught.value)


def test_a_repeated_call_id_is_a_provider_error(responses_server: Server) -> None:
    reply = Reply.tool_calls([("add", {"a": 1, "b": 1}), ("add", {"a": 2, "b": 2})])
    server = responses_server([Fault("duplicate-ids", reply)])
    with pytest.raises(ProviderError, match="repeats tool call id"):
        _complete(_provider(server), Message.user("hi"), tools=True)


# -- server-side compaction --------------------------------------------------------------


def test_context_management_arrives_as_sent(responses_server: Server) -> None:
    server = responses_server([Reply.text("ok")])
    provider = OpenAIProvider(base_url=server.url, max_retries=0, context_management=COMPACTION)
    assert provider.api == "responses"
    _complete(provider, Message.user("hi"))
    body = server.requests[0]
    assert body["context_management"] == COMPACTION
    assert body["store"] is False
    assert server.compacted == [False]


def test_a_compaction_item_is_the_first_part_and_a_server_edit(responses_server: Server) -> None:
    server = responses_server(
        [Reply.tool_calls([("add", {"a": 1, "b": 2})], text="Adding.").with_thinking("Easy.")]
    )
    provider = _provider(server, context_management=COMPACTION)
    response = _complete(provider, Message.user("Please add these. " * 20), tools=True)
    rendering = server.renderings[0]
    assert rendering.compacted and rendering.counted_tokens > 50
    kinds = [part.kind for part in response.message.parts]
    assert kinds == ["compaction", "thinking"]
    compaction = response.message.parts[0]
    assert compaction.text is None
    assert compaction.original["type"] == "compaction"
    assert compaction.original["id"].startswith("cmp_")
    assert compaction.original["encrypted_content"] == rendering.encrypted_content
    assert compaction.data_chars == len(rendering.encrypted_content or "")
    assert response.server_edits == [ServerEdit(type="compaction")]
    # the reported input is the compacted context (the fake's reading; docs are silent)
    assert response.usage.input_tokens == rendering.input_tokens < rendering.counted_tokens
    assert response.message.content == "Adding."
    assert response.message.tool_calls[0].arguments == {"a": 1, "b": 2}


def test_the_next_request_sends_the_compaction_item_back_verbatim(
    responses_server: Server,
) -> None:
    server = responses_server(
        [Reply.tool_calls([("add", {"a": 2, "b": 2})], "Adding."), Reply.text("It is 4.")]
    )
    run = _agent(_provider(server, context_management=COMPACTION)).run(
        "Please add two and two for me. " * 12
    )
    run.raise_for_error()
    assert run.output == "It is 4."
    assert server.rejections == []
    assert server.compacted == [True, False]
    carrier = next(m for m in run.window if m.parts and m.parts[0].kind == "compaction")
    item = carrier.parts[0].original
    second = server.requests[1]["input"]
    # compaction first, then the message's own text and call, then the result (what came
    # before the compaction item may or may not still be sent: the agent's choice)
    at = second.index(item)
    assert [entry.get("type", entry.get("role")) for entry in second[at:]] == [
        "compaction",
        "assistant",
        "function_call",
        "function_call_output",
    ]
    # counted from the compaction item on: the long request before it is ignored
    rendered = len(SYSTEM) + len(item["encrypted_content"]) + len("Adding.")
    rendered += len("add") + len(second[at + 2]["arguments"]) + len("4")
    assert server.renderings[1].counted_tokens == tokens_of(rendered)
    assert run.calls[1].usage is not None
    assert run.calls[1].usage.input_tokens == tokens_of(rendered)


def test_an_input_starting_at_the_compaction_item_is_counted_from_there(
    responses_server: Server,
) -> None:
    encrypted = "QUJD" * 10
    original = {"type": "compaction", "id": "cmp_earlier", "encrypted_content": encrypted}
    part = ContentPart(kind="compaction", data_chars=len(encrypted), original=original)
    carrier = Message.assistant("", parts=[part])
    server = responses_server([Reply.text("continuing"), Reply.text("again")])
    provider = _provider(server, context_management=COMPACTION)
    response = _complete(provider, carrier, Message.user("go on"))
    assert response.message.content == "continuing"
    assert server.requests[0]["input"] == [original, {"role": "user", "content": "go on"}]
    expected = tokens_of(len(SYSTEM) + len(encrypted) + len("go on"))
    assert server.renderings[0].counted_tokens == expected
    assert server.compacted == [False]
    # what came before the latest compaction item is not counted
    _complete(provider, Message.user("old words " * 100), carrier, Message.user("go on"))
    assert server.renderings[1].counted_tokens == expected
    assert server.rejections == []


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"type": "compaction", "compact_threshold": 10}, "list"),
        ([], "empty"),
        (["compaction"], "object"),
        ([{"type": "clear_tool_uses", "compact_threshold": 10}], "'compaction'"),
        ([{"type": "compaction"}], "compact_threshold"),
        ([{"type": "compaction", "compact_threshold": 0}], "compact_threshold"),
        ([{"type": "compaction", "compact_threshold": "9"}], "compact_threshold"),
        ([{"type": "compaction", "compact_threshold": True}], "compact_threshold"),
        ([{"type": "compaction", "compact_threshold": 9, "keep": 1}], "unknown field"),
    ],
)
def test_malformed_context_management_is_refused_at_construction(value: Any, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment) as caught:
        OpenAIProvider(base_url="http://127.0.0.1:9/v1", context_management=value)
    assert "compact_threshold" in str(caught.value)


def test_context_management_with_chat_completions_is_refused() -> None:
    with pytest.raises(ValueError, match='api="responses"') as caught:
        OpenAIProvider(base_url="http://127.0.0.1:9/v1", context_management=COMPACTION, api="chat")
    assert "Chat Completions has no server-side compaction" in str(caught.value)
    with pytest.raises(ValueError, match="api must be"):
        OpenAIProvider(base_url="http://127.0.0.1:9/v1", api="assistants")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "param"),
    [
        ({"type": "compaction", "compact_threshold": 10}, "context_management"),
        ([{"type": "truncate", "compact_threshold": 10}], "context_management[0].type"),
        ([{"type": "compaction"}], "context_management[0].compact_threshold"),
        (
            [{"type": "compaction", "compact_threshold": 0}],
            "context_management[0].compact_threshold",
        ),
        (
            [{"type": "compaction", "compact_threshold": 5.5}],
            "context_management[0].compact_threshold",
        ),
    ],
)
def test_the_fake_refuses_malformed_context_management_from_the_sdk(
    responses_server: Server, value: Any, param: str
) -> None:
    server = responses_server([Reply.text("never")])
    client = openai.OpenAI(base_url=server.url, api_key="sk-test", max_retries=0)
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(
            model=MODEL, input="hi", context_management=value, stream=True, store=False
        )
    client.close()
    assert caught.value.status_code == 400
    error = server.rejections[0][1]["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param


def test_the_fake_refuses_an_output_answering_no_call(responses_server: Server) -> None:
    server = responses_server([Reply.text("never")])
    stray = Message.tool("call_nowhere", "add", "5")
    with pytest.raises(ProviderError, match="No tool call found") as caught:
        _complete(_provider(server), Message.user("hi"), stray)
    assert caught.value.status == 400


# -- the Chat Completions default ---------------------------------------------------------


def test_chat_completions_stays_the_default() -> None:
    provider = OpenAIProvider(base_url="http://127.0.0.1:9/v1")
    assert provider.api == "chat" and provider.context_management is None
    request = ProviderRequest(model=MODEL, system=SYSTEM, messages=[Message.user("hi")])
    assert provider.build_request(request) == {
        "model": MODEL,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_the_api_choice_survives_pickling() -> None:
    provider = OpenAIProvider(base_url="http://127.0.0.1:9/v1", context_management=COMPACTION)
    copy = pickle.loads(pickle.dumps(provider))
    assert copy.api == "responses"
    assert copy.context_management == COMPACTION


def test_a_failed_response_event_is_kept_for_the_provider_to_raise() -> None:
    from footprint_lab.providers._responses import ResponsesStream

    stream = ResponsesStream()
    error = {"code": "context_length_exceeded", "message": "Your input exceeds the window."}
    stream.feed({"type": "response.failed", "response": {"status": "failed", "error": error}})
    assert stream.failure == error
    assert not stream.terminated
    provider = OpenAIProvider(base_url="http://127.0.0.1:9/v1", api="responses")
    assert isinstance(provider._status_error(None, stream.failure, "failed"), ContextLengthError)
    stream = ResponsesStream()
    stream.feed({"type": "error", "code": "server_error", "message": "boom", "param": None})
    assert stream.failure == {"code": "server_error", "message": "boom"}
    failure = provider._status_error(None, stream.failure, "failed")
    assert not isinstance(failure, ContextLengthError) and "boom" in str(failure)
