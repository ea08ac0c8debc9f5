"""The providers without a network: wire mapping, stream assembly, context windows, keys,
names and reprs."""

from __future__ import annotations

import json
from types import SimpleNamespace as NS
from typing import Any

import pytest

from footprint_lab import Message, ToolCall
from footprint_lab.providers import (
    ANTHROPIC_FALLBACK_CONTEXT_WINDOW,
    OPENAI_FALLBACK_CONTEXT_WINDOW,
    AnthropicProvider,
    MissingAPIKeyError,
    OpenAIProvider,
    ProviderError,
    ProviderRequest,
    lookup_context_window,
)
from footprint_lab.providers._common import UNPARSED_ARGUMENTS_KEY, parse_arguments, redact
from footprint_lab.providers.anthropic import EMPTY_TEXT, _MessageStream, to_anthropic_messages
from footprint_lab.providers.openai import _ChatStream, to_openai_messages

CALLS = [
    ToolCall(id="c1", name="get_weather", arguments={"city": "Oslo"}),
    ToolCall(id="c2", name="get_news", arguments={"topic": "energy"}),
]
WINDOW = [
    Message.user("Brief me."),
    Message.assistant("", tool_calls=CALLS),
    Message.tool("c1", "get_weather", "18C"),
    Message.tool("c2", "get_news", "calm"),
    Message.user("[1 earlier message dropped]", authored="drop-notice"),
    Message.assistant("Calm and 18C."),
]


# -- wire mapping --------------------------------------------------------------------------


def test_openai_mapping() -> None:
    wire = to_openai_messages(WINDOW, system="Be brief.")
    assert wire[0] == {"role": "system", "content": "Be brief."}
    assert wire[1] == {"role": "user", "content": "Brief me."}
    assert wire[2]["content"] is None
    assert [
        (c["id"], c["type"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in wire[2]["tool_calls"]
    ] == [
        ("c1", "function", "get_weather", {"city": "Oslo"}),
        ("c2", "function", "get_news", {"topic": "energy"}),
    ]
    assert wire[3] == {"role": "tool", "tool_call_id": "c1", "content": "18C"}
    assert wire[4] == {"role": "tool", "tool_call_id": "c2", "content": "calm"}
    assert wire[5] == {"role": "user", "content": "[1 earlier message dropped]"}
    assert wire[6] == {"role": "assistant", "content": "Calm and 18C."}
    assert to_openai_messages([Message.user("x")]) == [{"role": "user", "content": "x"}]


def test_anthropic_mapping_merges_results_and_neighbours() -> None:
    system, wire = to_anthropic_messages([Message.system("Extra rule."), *WINDOW])
    assert system == ["Extra rule."]
    assert [t["role"] for t in wire] == ["user", "assistant", "user", "assistant"]
    assert wire[1]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Oslo"}},
        {"type": "tool_use", "id": "c2", "name": "get_news", "input": {"topic": "energy"}},
    ]
    # both results in one user turn, first; the drop notice after them
    assert wire[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": "18C"},
        {"type": "tool_result", "tool_use_id": "c2", "content": "calm"},
        {"type": "text", "text": "[1 earlier message dropped]"},
    ]


def test_anthropic_mapping_merges_a_notice_after_the_request_and_fills_empty_turns() -> None:
    _, wire = to_anthropic_messages(
        [
            Message.user("Do it."),
            Message.user("notice", authored="drop-notice"),
            Message.assistant("  "),
        ]
    )
    assert wire == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Do it."}, {"type": "text", "text": "notice"}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": EMPTY_TEXT}]},
    ]


def test_anthropic_request_carries_system_and_default_max_tokens() -> None:
    provider = AnthropicProvider(api_key="k")
    kwargs = provider.build_request(
        ProviderRequest(
            model="claude-haiku-4-5",
            system="Be brief.",
            messages=[Message.system("Also this."), Message.user("hi")],
        )
    )
    assert kwargs["system"] == "Be brief.\n\nAlso this."
    assert kwargs["max_tokens"] == 4096
    assert "tools" not in kwargs
    assert (
        AnthropicProvider(api_key="k", default_max_tokens=100).build_request(
            ProviderRequest(model="m", messages=[Message.user("hi")])
        )["max_tokens"]
        == 100
    )


# -- stream assembly -----------------------------------------------------------------------


def _chunk(delta: Any = None, usage: Any = None) -> Any:
    choices = [] if delta is None else [NS(index=0, delta=delta)]
    return NS(choices=choices, usage=usage)


def _tc(
    index: int | None, id: str | None = None, name: str | None = None, arguments: str | None = None
) -> Any:
    return NS(index=index, id=id, function=NS(name=name, arguments=arguments))


def test_openai_stream_assembles_interleaved_parallel_fragments() -> None:
    stream = _ChatStream()
    stream.feed(_chunk(NS(content="Let me ", tool_calls=None)))
    stream.feed(_chunk(NS(content="check.", tool_calls=None)))
    stream.feed(_chunk(NS(content=None, tool_calls=[_tc(0, "a", "f", ""), _tc(1, "b", "g", "")])))
    stream.feed(
        _chunk(NS(content=None, tool_calls=[_tc(1, arguments='{"y"'), _tc(0, arguments='{"x": ')]))
    )
    stream.feed(
        _chunk(NS(content=None, tool_calls=[_tc(0, arguments="1}"), _tc(1, arguments=": 2}")]))
    )
    stream.feed(
        _chunk(
            usage=NS(
                prompt_tokens=10, completion_tokens=4, prompt_tokens_details=NS(cached_tokens=6)
            )
        )
    )
    message = stream.message("call")
    assert message.content == "Let me check."
    assert message.tool_calls == [
        ToolCall(id="a", name="f", arguments={"x": 1}),
        ToolCall(id="b", name="g", arguments={"y": 2}),
    ]
    usage = stream.reported_usage()
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (10, 4, 6)


def test_openai_stream_without_indexes_or_ids() -> None:
    stream = _ChatStream()
    stream.feed(_chunk(NS(content=None, tool_calls=[_tc(None, None, "f", '{"x": 1}')])))
    stream.feed(_chunk(NS(content=None, tool_calls=[_tc(None, "id2", "g", "{}")])))
    message = stream.message("call")
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("call_1", "f", {"x": 1}),
        ("id2", "g", {}),
    ]
    assert stream.reported_usage().reported is False


def test_anthropic_stream_assembly_and_usage() -> None:
    stream = _MessageStream()
    events = [
        NS(
            type="message_start",
            message=NS(
                usage=NS(
                    input_tokens=5,
                    output_tokens=1,
                    cache_read_input_tokens=90,
                    cache_creation_input_tokens=5,
                )
            ),
        ),
        NS(type="content_block_start", index=0, content_block=NS(type="text", text="")),
        NS(type="content_block_delta", index=0, delta=NS(type="text_delta", text="On it")),
        NS(type="content_block_stop", index=0),
        NS(
            type="content_block_start",
            index=1,
            content_block=NS(type="tool_use", id="t1", name="f", input={}),
        ),
        NS(
            type="content_block_delta",
            index=1,
            delta=NS(type="input_json_delta", partial_json='{"a": '),
        ),
        NS(
            type="content_block_delta",
            index=1,
            delta=NS(type="input_json_delta", partial_json="1}"),
        ),
        NS(
            type="content_block_start",
            index=2,
            content_block=NS(type="tool_use", id="t2", name="g", input={}),
        ),
        NS(type="message_delta", delta=NS(stop_reason="tool_use"), usage=NS(output_tokens=12)),
        NS(type="message_stop"),
    ]
    for event in events:
        stream.feed(event)
    message = stream.message()
    assert message.content == "On it"
    assert message.tool_calls == [
        ToolCall(id="t1", name="f", arguments={"a": 1}),
        ToolCall(id="t2", name="g", arguments={}),
    ]
    usage = stream.usage()
    assert usage.input_tokens == 100  # uncached + cache reads + cache writes: the whole prompt
    assert (usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (12, 90, 5)


def test_arguments_that_are_not_a_json_object_are_kept_raw() -> None:
    assert parse_arguments("") == {}
    assert parse_arguments('{"a": [1, 2]}') == {"a": [1, 2]}
    assert parse_arguments('{"a": 1') == {UNPARSED_ARGUMENTS_KEY: '{"a": 1'}
    assert parse_arguments("[1]") == {UNPARSED_ARGUMENTS_KEY: "[1]"}


# -- context windows -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4o", 128_000),
        ("gpt-4o-mini-2024-07-18", 128_000),
        ("gpt-4.1-nano", 1_047_576),
        ("gpt-4-0613", 8_192),
        ("gpt-4-turbo-2024-04-09", 128_000),
        ("gpt-3.5-turbo", 16_385),
        ("o1-mini", 128_000),
        ("o3-mini", 200_000),
        ("openai/gpt-4o", 128_000),
        ("llama3.1:8b", OPENAI_FALLBACK_CONTEXT_WINDOW),
    ],
)
def test_openai_context_windows(model: str, window: int) -> None:
    assert OpenAIProvider(api_key="k").context_window(model) == window


def test_context_window_overrides() -> None:
    assert OpenAIProvider(api_key="k", context_window_override=8_192).context_window("gpt-4o") == (
        8_192
    )
    mapped = OpenAIProvider(base_url="http://h/v1", context_window_override={"qwen2.5": 32_768})
    assert mapped.context_window("qwen2.5") == 32_768
    assert mapped.context_window("other") == 128_000
    assert AnthropicProvider(api_key="k").context_window("claude-3-5-haiku-latest") == 200_000
    assert AnthropicProvider(api_key="k").context_window("claude-2.0") == 100_000
    assert AnthropicProvider(api_key="k").context_window("claude-next") == (
        ANTHROPIC_FALLBACK_CONTEXT_WINDOW
    )
    assert AnthropicProvider(api_key="k", context_window_override=50_000).context_window("x") == (
        50_000
    )
    with pytest.raises(ValueError, match="context_window_override"):
        OpenAIProvider(api_key="k", context_window_override=0)


def test_longest_prefix_wins() -> None:
    table = {"a": 1, "ab": 2, "abc": 3}
    assert lookup_context_window(table, "abz", 9) == 2
    assert lookup_context_window(table, "ABC-1", 9) == 3
    assert lookup_context_window(table, "zzz", 9) == 9


# -- keys, names, reprs --------------------------------------------------------------------


def test_missing_keys_name_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        OpenAIProvider()
    with pytest.raises(MissingAPIKeyError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider()
    assert issubclass(MissingAPIKeyError, ProviderError)
    # a local OpenAI-compatible server needs no key
    assert OpenAIProvider(base_url="http://localhost:11434/v1").name == (
        "openai-compatible@localhost:11434"
    )


def test_names() -> None:
    assert OpenAIProvider(api_key="k").name == "openai"
    assert OpenAIProvider(api_key="k", base_url="https://api.openai.com/v1").name == "openai"
    assert OpenAIProvider(base_url="http://localhost:8000/v1", name="vllm").name == "vllm"
    assert AnthropicProvider(api_key="k").name == "anthropic"
    assert AnthropicProvider(api_key="k", base_url="https://gw.example:8443").name == (
        "anthropic@gw.example:8443"
    )


def test_reprs_hide_the_key_and_url_credentials() -> None:
    key = "sk-very-secret-key-000111222333"
    for provider in (
        OpenAIProvider(api_key=key, base_url="https://user:pw@proxy.example/v1?token=abc"),
        AnthropicProvider(api_key=key, base_url="https://user:pw@proxy.example/?token=abc"),
    ):
        text = repr(provider) + provider.name + repr(vars(provider))
        assert key not in text
        for leak in ("pw", "token=abc", "user:"):
            assert leak not in repr(provider)
        assert "api_key='***'" in repr(provider)


def test_redact_masks_the_key_and_its_middle() -> None:
    key = "sk-proj-abcdefghijklmnop"
    assert redact(f"bad key {key}", key) == "bad key ***"
    assert redact("bad key sk-p...ghijklmn...", key) == "bad key sk-p...ghijklmn..."
    assert redact(f"masked {key[4:-4]}", key) == "masked ***"
    assert redact("anything", None) == "anything"
