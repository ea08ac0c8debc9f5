"""The fake servers reject what the real APIs reject, in the real APIs' error shapes.

These talk to the servers with the bare official SDKs, so the rejections below are exactly what
a provider bug would run into in the suites that use the servers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
import openai
import pytest

from footprint_lab import Reply
from tests.providers.servers import AnthropicServer, OpenAIServer

TOOL = {"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}


def _call(call_id: str, name: str = "add", arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _openai(server: OpenAIServer, messages: list[dict[str, Any]], **kw: Any) -> str:
    client = openai.OpenAI(api_key="k", base_url=server.url, max_retries=0)
    stream = client.chat.completions.create(
        model="gpt-4o",
        messages=messages,
        stream=True,
        **kw,  # type: ignore[arg-type]
    )
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    client.close()
    return text


def _anthropic(server: AnthropicServer, messages: list[dict[str, Any]], **kw: Any) -> str:
    client = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0)
    kw.setdefault("max_tokens", 100)
    stream = client.messages.create(
        model="claude-haiku-4-5",
        messages=messages,
        stream=True,
        **kw,  # type: ignore[arg-type]
    )
    text = "".join(
        e.delta.text
        for e in stream
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    )
    client.close()
    return text


# -- OpenAI --------------------------------------------------------------------------------


def test_openai_server_streams_a_valid_parallel_exchange(
    openai_server: Callable[..., OpenAIServer],
) -> None:
    server = openai_server([Reply.text("fine")])
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [_call("a"), _call("b")]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
    ]
    assert _openai(server, messages, tools=[TOOL]) == "fine"
    assert server.rejections == []


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        (
            [
                {"role": "user", "content": "go"},
                {"role": "tool", "tool_call_id": "a", "content": "1"},
            ],
            "must be a response to a preceeding message with 'tool_calls'",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": None, "tool_calls": [_call("a")]},
                {"role": "tool", "tool_call_id": "zzz", "content": "1"},
            ],
            "must be a response to a preceeding message with 'tool_calls'",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": None, "tool_calls": [_call("a"), _call("b")]},
                {"role": "tool", "tool_call_id": "a", "content": "1"},
                {"role": "user", "content": "and?"},
            ],
            "did not have response messages: b",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": None, "tool_calls": [_call("a")]},
            ],
            "did not have response messages: a",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": None, "tool_calls": [_call("a")]},
                {"role": "tool", "tool_call_id": "a", "content": "1"},
                {"role": "assistant", "content": "ok"},
                {"role": "tool", "tool_call_id": "a", "content": "again"},
            ],
            "must be a response to a preceeding message with 'tool_calls'",
        ),
    ],
    ids=["orphan-result", "wrong-id", "unanswered-then-user", "unanswered-at-end", "stale-id"],
)
def test_openai_server_rejects_broken_tool_pairing(
    openai_server: Callable[..., OpenAIServer], messages: list[dict[str, Any]], expected: str
) -> None:
    server = openai_server([Reply.text("never")])
    with pytest.raises(openai.BadRequestError) as info:
        _openai(server, messages)
    assert expected in info.value.message
    assert info.value.type == "invalid_request_error"
    assert server.replied == 0


def test_openai_server_context_length_error_has_the_api_shape(
    openai_server: Callable[..., OpenAIServer],
) -> None:
    server = openai_server([Reply.text("never")], context_window=10)
    with pytest.raises(openai.BadRequestError) as info:
        _openai(server, [{"role": "user", "content": "x" * 80}])
    assert info.value.code == "context_length_exceeded"
    assert "maximum context length is 10 tokens" in info.value.message
    assert server.rejections[0][1]["error"]["type"] == "invalid_request_error"


def test_openai_server_rejects_an_empty_tools_array(
    openai_server: Callable[..., OpenAIServer],
) -> None:
    server = openai_server([Reply.text("never")])
    with pytest.raises(openai.BadRequestError) as info:
        _openai(server, [{"role": "user", "content": "go"}], tools=[])
    assert info.value.code == "empty_array"


def test_openai_server_omits_usage_when_configured(
    openai_server: Callable[..., OpenAIServer],
) -> None:
    for report in (True, False):
        server = openai_server([Reply.text("hi")], report_usage=report)
        client = openai.OpenAI(api_key="k", base_url=server.url, max_retries=0)
        chunks = list(
            client.chat.completions.create(
                model="m",
                messages=[{"role": "user", "content": "hello"}],
                stream=True,
                stream_options={"include_usage": True},
            )
        )
        client.close()
        usages = [c.usage for c in chunks if c.usage is not None]
        assert (len(usages) == 1) is report
        if report:
            assert chunks[-1].choices == []
            assert usages[0].prompt_tokens == 2  # ceil(len("hello") / 4)


# -- Anthropic -----------------------------------------------------------------------------


def _use(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "add", "input": {}}


def _result(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "1"}


def test_anthropic_server_streams_a_valid_parallel_exchange(
    anthropic_server: Callable[..., AnthropicServer],
) -> None:
    server = anthropic_server([Reply.text("fine")])
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [_use("a"), _use("b")]},
        {"role": "user", "content": [_result("a"), _result("b"), {"type": "text", "text": "n"}]},
    ]
    assert _anthropic(server, messages, system="s") == "fine"
    assert server.rejections == []


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([{"role": "assistant", "content": "hi"}], 'first message must use the "user" role'),
        (
            [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
            'found multiple "user" roles in a row',
        ),
        (
            [{"role": "system", "content": "s"}, {"role": "user", "content": "b"}],
            'Unexpected role "system"',
        ),
        ([{"role": "user", "content": [{"type": "text", "text": ""}]}], "must be non-empty"),
        (
            [{"role": "user", "content": [_result("a")]}],
            "unexpected `tool_use_id` found in `tool_result` blocks: a",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [_use("a")]},
                {"role": "user", "content": [_result("a"), _result("b")]},
            ],
            "unexpected `tool_use_id` found in `tool_result` blocks: b",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [_use("a"), _use("b")]},
                {"role": "user", "content": [_result("a"), {"type": "text", "text": "next"}]},
            ],
            "`tool_use` ids were found without `tool_result` blocks immediately after: b",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [_use("a")]},
                {"role": "user", "content": [{"type": "text", "text": "x"}, _result("a")]},
            ],
            "`tool_result` blocks must come first",
        ),
    ],
    ids=[
        "assistant-first",
        "not-alternating",
        "system-role",
        "empty-text",
        "orphan-result",
        "wrong-id",
        "unanswered-then-user",
        "result-after-text",
    ],
)
def test_anthropic_server_rejects_what_the_messages_api_rejects(
    anthropic_server: Callable[..., AnthropicServer],
    messages: list[dict[str, Any]],
    expected: str,
) -> None:
    server = anthropic_server([Reply.text("never")])
    with pytest.raises(anthropic.BadRequestError) as info:
        _anthropic(server, messages)
    assert info.value.status_code == 400
    body = info.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert expected in body["error"]["message"]
    assert server.replied == 0


def test_anthropic_server_context_length_error_has_the_api_shape(
    anthropic_server: Callable[..., AnthropicServer],
) -> None:
    server = anthropic_server([Reply.text("never")], context_window=10)
    with pytest.raises(anthropic.BadRequestError) as info:
        _anthropic(server, [{"role": "user", "content": "x" * 80}])
    body = info.value.body
    assert isinstance(body, dict)
    assert body["error"]["message"] == "prompt is too long: 20 tokens > 10 maximum"


def test_anthropic_server_requires_max_tokens(
    anthropic_server: Callable[..., AnthropicServer],
) -> None:
    server = anthropic_server([Reply.text("never")])
    client = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="max_tokens: Field required"):
        client.post(
            "/v1/messages",
            body={"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": True},
            cast_to=object,
        )
    client.close()
