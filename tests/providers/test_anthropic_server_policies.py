"""AnthropicProvider's server-side window policies (context editing, compaction) and extended
thinking, driven through the official SDK against the fake Messages API, which enforces and
applies them as Anthropic documents (:mod:`tests.providers.anthropic_policies`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import pytest

from footprint_lab import Message, Reply, ToolCall
from footprint_lab.messages import ContentPart
from footprint_lab.providers import AnthropicProvider, ProviderRequest, ProviderResponse
from footprint_lab.providers.anthropic import to_anthropic_messages
from footprint_lab.window.apply import run_sync
from footprint_lab.window.records import ServerEdit
from tests.providers.anthropic_policies import (
    CLEARED_RESULT_PLACEHOLDER,
    COMPACTION_BETA,
    CONTEXT_MANAGEMENT_BETA,
)
from tests.providers.servers import MODEL, AnthropicServer, count_input_tokens, provider_for

Server = Callable[..., AnthropicServer]

THINKING = {"type": "enabled", "budget_tokens": 2048}
CLEAR_TOOLS = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"


def _call(provider: AnthropicProvider, messages: list[Message], **kw: Any) -> ProviderResponse:
    request = ProviderRequest(model=MODEL["anthropic"], messages=messages, **kw)
    return run_sync(provider.complete(request))


def _tool_history(names: list[str], result_chars: int = 400) -> list[Message]:
    """A user request, then one call per name (ids t0, t1, ...), each answered."""
    messages = [Message.user("Investigate.")]
    for k, name in enumerate(names):
        call = ToolCall(id=f"t{k}", name=name, arguments={"query": f"q{k}"})
        messages.append(Message.assistant("", tool_calls=[call]))
        messages.append(Message.tool(f"t{k}", name, f"{k}" * result_chars))
    return messages


# -- what goes out ---------------------------------------------------------------------------


def test_beta_headers_and_config_arrive_as_sent(anthropic_server: Server) -> None:
    server = anthropic_server([Reply.text("ok"), Reply.text("ok")])
    config = {
        "edits": [
            {"type": CLEAR_THINKING, "keep": {"type": "thinking_turns", "value": 2}},
            {
                "type": CLEAR_TOOLS,
                "trigger": {"type": "input_tokens", "value": 30_000},
                "keep": {"type": "tool_uses", "value": 2},
                "clear_at_least": {"type": "input_tokens", "value": 5_000},
                "exclude_tools": ["memory"],
                "clear_tool_inputs": ["search"],
            },
            {"type": COMPACT, "trigger": {"type": "input_tokens", "value": 60_000}},
        ]
    }
    provider = provider_for(
        server,
        context_management=config,
        thinking=THINKING,
        default_headers={"anthropic-beta": "some-other-beta"},
    )
    assert provider.context_management == config and provider.thinking == THINKING
    response = _call(provider, [Message.user("hi")])
    assert response.message.content == "ok"
    assert response.server_edits == []
    sent, headers = server.requests[0], server.headers[0]
    assert sent["context_management"] == config
    assert sent["thinking"] == THINKING
    assert headers["anthropic-beta"].split(",") == [
        "some-other-beta",
        CONTEXT_MANAGEMENT_BETA,
        COMPACTION_BETA,
    ]
    assert server.applied == [[]]  # context_management sent, nothing applied

    plain = provider_for(server)
    _call(plain, [Message.user("hi")])
    assert "anthropic-beta" not in server.headers[1]
    assert "context_management" not in server.requests[1] and "thinking" not in server.requests[1]


def test_only_the_betas_the_edits_need(anthropic_server: Server) -> None:
    server = anthropic_server([Reply.text("a"), Reply.text("b")])
    _call(
        provider_for(server, context_management={"edits": [{"type": CLEAR_TOOLS}]}),
        [Message.user("x")],
    )
    _call(provider_for(server, thinking=THINKING), [Message.user("x")])
    assert server.headers[0]["anthropic-beta"] == CONTEXT_MANAGEMENT_BETA
    assert "anthropic-beta" not in server.headers[1]
    assert server.requests[1]["thinking"] == THINKING


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"context_management": {"edit": []}}, r"must be a mapping \{'edits'"),
        ({"context_management": {"edits": []}}, "non-empty list"),
        ({"context_management": {"edits": [{"type": "clear_all"}]}}, "'type' is one of"),
        (
            {"context_management": {"edits": [{"type": CLEAR_TOOLS, "keeps": 1}]}},
            "unknown field",
        ),
        (
            {"context_management": {"edits": [{"type": CLEAR_TOOLS}, {"type": CLEAR_TOOLS}]}},
            "give each edit type once",
        ),
        (
            {
                "context_management": {"edits": [{"type": CLEAR_TOOLS}, {"type": CLEAR_THINKING}]},
                "thinking": THINKING,
            },
            "must be the first edit",
        ),
        ({"context_management": {"edits": [{"type": CLEAR_THINKING}]}}, "needs extended thinking"),
        (
            {
                "context_management": {"edits": [{"type": CLEAR_THINKING}]},
                "thinking": {"type": "disabled"},
            },
            "needs extended thinking",
        ),
        (
            {
                "context_management": {
                    "edits": [{"type": CLEAR_TOOLS, "trigger": {"type": "turns", "value": 3}}]
                }
            },
            r"trigger must be \{'type': 'input_tokens' or 'tool_uses'",
        ),
        (
            {
                "context_management": {
                    "edits": [{"type": CLEAR_TOOLS, "trigger": {"type": "tool_uses", "value": 0}}]
                }
            },
            ">= 1",
        ),
        (
            {
                "context_management": {
                    "edits": [{"type": CLEAR_TOOLS, "keep": {"type": "tool_uses", "value": -1}}]
                }
            },
            r"keep must be \{'type': 'tool_uses'",
        ),
        (
            {
                "context_management": {
                    "edits": [
                        {"type": CLEAR_TOOLS, "clear_at_least": {"type": "tool_uses", "value": 1}}
                    ]
                }
            },
            "clear_at_least must be",
        ),
        (
            {"context_management": {"edits": [{"type": CLEAR_TOOLS, "exclude_tools": "memory"}]}},
            "exclude_tools must be a list of tool names",
        ),
        (
            {"context_management": {"edits": [{"type": CLEAR_TOOLS, "clear_tool_inputs": "yes"}]}},
            "clear_tool_inputs",
        ),
        (
            {
                "context_management": {
                    "edits": [
                        {"type": CLEAR_THINKING, "keep": {"type": "thinking_turns", "value": 0}}
                    ]
                },
                "thinking": THINKING,
            },
            r"keep must be \{'type': 'thinking_turns'",
        ),
        (
            {
                "context_management": {
                    "edits": [
                        {"type": COMPACT, "trigger": {"type": "input_tokens", "value": 49_999}}
                    ]
                }
            },
            ">= 50000",
        ),
        (
            {
                "context_management": {
                    "edits": [{"type": COMPACT, "trigger": {"type": "tool_uses", "value": 60_000}}]
                }
            },
            r"trigger must be \{'type': 'input_tokens'",
        ),
        ({"thinking": {"type": "enabled", "budget_tokens": 1000}}, ">= 1024"),
        ({"thinking": {"type": "enabled", "budget_tokens": 4096}}, "raise default_max_tokens"),
        ({"thinking": {"type": "on"}}, r"thinking must be \{'type': 'enabled'"),
    ],
)
def test_malformed_configs_are_refused_at_construction(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        AnthropicProvider(api_key="k", **kwargs)


# -- what the fake refuses -------------------------------------------------------------------

_USER = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("betas", "extra", "fragment"),
    [
        (
            [CONTEXT_MANAGEMENT_BETA],
            {"context_management": {"edits": [{"type": "x"}]}},
            "Input tag",
        ),
        (
            [],
            {"context_management": {"edits": [{"type": CLEAR_TOOLS}]}},
            CONTEXT_MANAGEMENT_BETA,
        ),
        (
            [CONTEXT_MANAGEMENT_BETA],
            {"context_management": {"edits": [{"type": COMPACT}]}},
            COMPACTION_BETA,
        ),
        (
            [CONTEXT_MANAGEMENT_BETA],
            {
                "context_management": {
                    "edits": [
                        {"type": CLEAR_TOOLS, "trigger": {"type": "input_tokens", "value": 0}}
                    ]
                }
            },
            "greater than or equal to 1",
        ),
        (
            [CONTEXT_MANAGEMENT_BETA],
            {
                "context_management": {
                    "edits": [{"type": CLEAR_TOOLS, "keep": {"type": "thinking_turns", "value": 1}}]
                }
            },
            "keep",
        ),
        (
            [CONTEXT_MANAGEMENT_BETA],
            {
                "context_management": {
                    "edits": [
                        {
                            "type": CLEAR_TOOLS,
                            "clear_at_least": {"type": "input_tokens", "value": -5},
                        }
                    ]
                }
            },
            "clear_at_least.value",
        ),
        (
            [CONTEXT_MANAGEMENT_BETA],
            {"context_management": {"edits": [{"type": CLEAR_THINKING}]}},
            "requires thinking to be enabled",
        ),
        (
            [CONTEXT_MANAGEMENT_BETA],
            {
                "context_management": {"edits": [{"type": CLEAR_TOOLS}, {"type": CLEAR_THINKING}]},
                "thinking": THINKING,
            },
            "listed first",
        ),
        (
            [COMPACTION_BETA],
            {
                "context_management": {
                    "edits": [{"type": COMPACT, "trigger": {"type": "input_tokens", "value": 1000}}]
                }
            },
            "greater than or equal to 50000",
        ),
        ([], {"thinking": {"type": "enabled", "budget_tokens": 512}}, "1024"),
        ([], {"thinking": {"type": "enabled", "budget_tokens": 9000}}, "max_tokens"),
        ([], {"thinking": {"type": "sometimes"}}, "Input tag"),
        (
            [COMPACTION_BETA],
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": [{"type": "compaction", "content": ""}]},
                    {"role": "user", "content": "go on"},
                ]
            },
            "Empty string content is not allowed",
        ),
        (
            [],
            {
                "messages": [
                    {"role": "user", "content": [{"type": "thinking", "thinking": "hm"}]},
                ]
            },
            "only allowed in assistant messages",
        ),
    ],
)
def test_the_fake_rejects_malformed_configs_sent_through_the_sdk(
    anthropic_server: Server, betas: list[str], extra: dict[str, Any], fragment: str
) -> None:
    server = anthropic_server([Reply.text("never")])
    client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
    kwargs: dict[str, Any] = {
        "model": MODEL["anthropic"],
        "max_tokens": 4096,
        "messages": _USER,
        "stream": True,
        **extra,
    }
    if betas:
        kwargs["betas"] = betas
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.beta.messages.create(**kwargs)
    status, body = server.rejections[-1]
    assert status == 400 and caught.value.status_code == 400
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert fragment in body["error"]["message"]
    assert server.replied == 0


# -- thinking --------------------------------------------------------------------------------


def test_thinking_round_trips_byte_for_byte(anthropic_server: Server) -> None:
    thought = "The user wants a sum. 2 + 3 — add it with the tool. ünïcode ✓"
    server = anthropic_server(
        [Reply.tool_calls([("add", {"a": 2, "b": 3})]).with_thinking(thought), Reply.text("5")]
    )
    provider = provider_for(server, thinking=THINKING)
    first = _call(provider, [Message.user("Add 2 and 3.")])
    (part,) = first.message.parts
    assert part.kind == "thinking" and part.text == thought
    assert part.original["type"] == "thinking" and part.original["thinking"] == thought
    signature = part.original["signature"]
    assert signature and first.usage.output_tokens > len(thought) // 4
    call = first.message.tool_calls[0]
    history = [Message.user("Add 2 and 3."), first.message, Message.tool(call.id, "add", "5")]
    second = _call(provider, history)
    assert second.message.content == "5" and second.message.parts == []
    sent_block = server.requests[1]["messages"][1]["content"][0]
    assert json.dumps(sent_block) == json.dumps(part.original)
    assert sent_block["signature"] == signature
    # thinking goes before the tool use in the assistant turn
    assert [b["type"] for b in server.requests[1]["messages"][1]["content"]] == [
        "thinking",
        "tool_use",
    ]
    # counted like text: the thinking is in the second request's input tokens
    assert count_input_tokens(server.requests[1]) == second.usage.input_tokens


def test_a_tampered_thinking_block_is_rejected(anthropic_server: Server) -> None:
    server = anthropic_server([Reply.text("ok").with_thinking("secret plan"), Reply.text("no")])
    provider = provider_for(server, thinking=THINKING)
    first = _call(provider, [Message.user("q")])
    part = first.message.parts[0]
    forged = ContentPart(
        kind="thinking", text="other", original={**part.original, "thinking": "other plan"}
    )
    changed = first.message.model_copy(update={"parts": [forged]})
    with pytest.raises(Exception, match="Invalid `signature`"):
        _call(provider, [Message.user("q"), changed, Message.user("again")])


def test_thinking_is_streamed_only_when_enabled(anthropic_server: Server) -> None:
    server = anthropic_server([Reply.text("plain").with_thinking("hidden")])
    response = _call(provider_for(server), [Message.user("q")])
    assert response.message.content == "plain" and response.message.parts == []


def test_redacted_thinking_and_compaction_go_back_first_and_verbatim() -> None:
    redacted = {"type": "redacted_thinking", "data": "EqQBCgIYAhIM"}
    compaction = {"type": "compaction", "content": "Summary.", "encrypted_content": "opaque"}
    thinking = {"type": "thinking", "thinking": "t", "signature": "sig"}
    message = Message.assistant(
        "text",
        tool_calls=[ToolCall(id="c1", name="f", arguments={})],
        parts=[
            ContentPart(kind="thinking", text="t", original=thinking),
            ContentPart(kind="redacted-thinking", data_chars=12, original=redacted),
            ContentPart(kind="compaction", text="Summary.", original=compaction),
            ContentPart(kind="image", data_chars=3, original={"type": "image_url"}),
        ],
    )
    _, wire = to_anthropic_messages([Message.user("u"), message])
    assert wire[1]["content"] == [
        compaction,
        thinking,
        redacted,
        {"type": "text", "text": "text"},
        {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
    ]


# -- compaction ------------------------------------------------------------------------------

_BIG = "word " * 44_000  # 220,000 chars: 55,000 tokens


def test_compaction_block_and_its_iteration(anthropic_server: Server) -> None:
    server = anthropic_server(
        [Reply.text("Carrying on."), Reply.text("Still here.")],
        compaction_summary=lambda body: f"The user sent {len(body['messages'])} message(s).",
    )
    config = {"edits": [{"type": COMPACT, "trigger": {"type": "input_tokens", "value": 50_000}}]}
    provider = provider_for(server, context_management=config)
    history = [Message.user(_BIG)]
    response = _call(provider, history, system="Be brief.")
    summary = "The user sent 1 message(s)."
    first = response.message.parts[0]
    assert first.kind == "compaction" and first.text == summary
    assert first.original == {"type": "compaction", "content": summary}
    assert response.message.content == "Carrying on."
    (edit,) = response.server_edits
    assert edit == ServerEdit(
        type=COMPACT,
        input_tokens=count_input_tokens(server.requests[0]),
        output_tokens=-(-len(summary) // 4),
    )
    assert edit.input_tokens is not None and edit.input_tokens > 50_000
    # the top-level usage is the message iteration's: the summary (and the system prompt)
    assert response.usage.input_tokens == -(-len("Be brief." + summary) // 4)
    assert server.headers[0]["anthropic-beta"] == COMPACTION_BETA

    # the next request carries the compaction block first; what precedes it is dropped
    history += [response.message, Message.user("And now?")]
    again = _call(provider, history, system="Be brief.")
    sent = server.requests[1]["messages"][1]["content"]
    assert sent[0] == first.original and sent[1] == {"type": "text", "text": "Carrying on."}
    assert server.seen[1]["messages"][0]["content"][0] == first.original
    assert len(server.seen[1]["messages"]) == 2
    assert again.server_edits == [] and again.message.content == "Still here."
    assert again.usage.input_tokens == count_input_tokens(server.requests[1]) < 100


def test_a_request_may_start_at_the_compaction_block(anthropic_server: Server) -> None:
    server = anthropic_server([Reply.text("ok")])
    block = {"type": "compaction", "content": "We were adding numbers."}
    provider = provider_for(server, context_management={"edits": [{"type": COMPACT}]})
    compacted = Message.assistant(
        "", parts=[ContentPart(kind="compaction", text=block["content"], original=block)]
    )
    response = _call(provider, [compacted, Message.user("Go on.")])
    assert response.message.content == "ok"
    assert server.requests[0]["messages"][0] == {"role": "assistant", "content": [block]}
    assert server.rejections == []


def test_pause_after_compaction_ends_the_reply_at_the_block(anthropic_server: Server) -> None:
    server = anthropic_server([Reply.text("after the pause")])
    config = {"edits": [{"type": COMPACT, "pause_after_compaction": True}]}
    provider = provider_for(server, context_management=config)
    big = Message.user("x" * 620_000)  # 155,000 tokens: over the default 150,000 trigger
    paused = _call(provider, [big])
    assert paused.finish_reason == "compaction"
    assert [p.kind for p in paused.message.parts] == ["compaction"]
    assert paused.message.content == "" and paused.message.tool_calls == []
    assert paused.server_edits[0].type == COMPACT and paused.server_edits[0].input_tokens == 155_000
    resumed = _call(provider, [big, paused.message, Message.user("continue")])
    assert resumed.message.content == "after the pause"  # the pause used no scripted reply


# -- context editing -------------------------------------------------------------------------


def _clear(**edit: Any) -> dict[str, Any]:
    return {"edits": [{"type": CLEAR_TOOLS, **edit}]}


_TOOL_USES_2 = {"type": "tool_uses", "value": 2}


@pytest.mark.parametrize(
    ("names", "edit", "cleared", "emptied"),
    [
        # default keep 3: the two oldest of five go
        (["a"] * 5, {"trigger": _TOOL_USES_2}, ["t0", "t1"], []),
        # keep counts the excluded tool's uses too; its own uses never go
        (
            ["memory", "a", "memory", "a", "a"],
            {
                "trigger": _TOOL_USES_2,
                "keep": {"type": "tool_uses", "value": 1},
                "exclude_tools": ["memory"],
            },
            ["t1", "t3"],
            [],
        ),
        # keep 0 clears all; inputs cleared for every tool
        (
            ["a", "b"],
            {
                "trigger": {"type": "tool_uses", "value": 1},
                "keep": {"type": "tool_uses", "value": 0},
                "clear_tool_inputs": True,
            },
            ["t0", "t1"],
            ["t0", "t1"],
        ),
        # inputs cleared only for the tools named
        (
            ["a", "b", "a", "b"],
            {
                "trigger": _TOOL_USES_2,
                "keep": {"type": "tool_uses", "value": 1},
                "clear_tool_inputs": ["b"],
            },
            ["t0", "t1", "t2"],
            ["t1"],
        ),
        # under the trigger: nothing
        (["a"] * 5, {"trigger": {"type": "tool_uses", "value": 5}}, [], []),
        # an input-token trigger (5 results of 400 chars ~ 500 tokens)
        (["a"] * 5, {"trigger": {"type": "input_tokens", "value": 400}}, ["t0", "t1"], []),
        (["a"] * 5, {"trigger": {"type": "input_tokens", "value": 600}}, [], []),
        # clear_at_least: two results are ~190 tokens saved; 150 is met, 250 is not
        (
            ["a"] * 5,
            {"trigger": _TOOL_USES_2, "clear_at_least": {"type": "input_tokens", "value": 150}},
            ["t0", "t1"],
            [],
        ),
        (
            ["a"] * 5,
            {"trigger": _TOOL_USES_2, "clear_at_least": {"type": "input_tokens", "value": 250}},
            [],
            [],
        ),
    ],
)
def test_which_tool_uses_are_cleared(
    anthropic_server: Server,
    names: list[str],
    edit: dict[str, Any],
    cleared: list[str],
    emptied: list[str],
) -> None:
    server = anthropic_server([Reply.text("done")])
    provider = provider_for(server, context_management=_clear(**edit))
    history = _tool_history(names)
    response = _call(provider, history)
    assert server.cleared == [cleared]
    seen = server.seen[0]["messages"]
    results = {
        b["tool_use_id"]: b["content"]
        for m in seen
        for b in m["content"]
        if b["type"] == "tool_result"
    }
    assert [i for i, c in results.items() if c == CLEARED_RESULT_PLACEHOLDER] == cleared
    inputs = {b["id"]: b["input"] for m in seen for b in m["content"] if b["type"] == "tool_use"}
    assert [i for i, value in inputs.items() if value == {}] == emptied
    # the client's history is untouched; the usage is the edited request's
    assert server.requests[0]["messages"][2]["content"][0]["content"] == "0" * 400
    assert response.usage.input_tokens == count_input_tokens(server.seen[0])
    if cleared:
        saved = count_input_tokens(server.requests[0]) - count_input_tokens(server.seen[0])
        assert response.server_edits == [
            ServerEdit(type=CLEAR_TOOLS, cleared_tool_uses=len(cleared), cleared_input_tokens=saved)
        ]
        assert server.applied[0] == [
            {"type": CLEAR_TOOLS, "cleared_tool_uses": len(cleared), "cleared_input_tokens": saved}
        ]
    else:
        assert response.server_edits == [] and server.applied == [[]]


def _thinking_turns(count: int) -> list[Message]:
    messages = [Message.user("Start.")]
    for k in range(count):
        block = {"type": "thinking", "thinking": f"thought {k} " * 20, "signature": f"s{k}"}
        part = ContentPart(kind="thinking", text=block["thinking"], original=block)
        messages += [Message.assistant(f"answer {k}", parts=[part]), Message.user(f"next {k}")]
    return messages


@pytest.mark.parametrize(
    ("keep", "cleared"),
    [(None, 2), ({"type": "thinking_turns", "value": 2}, 1), ("all", 0)],
)
def test_clear_thinking_keeps_the_latest_turns(
    anthropic_server: Server, keep: Any, cleared: int
) -> None:
    server = anthropic_server([Reply.text("done")])
    edit: dict[str, Any] = {"type": CLEAR_THINKING}
    if keep is not None:
        edit["keep"] = keep
    config = {"edits": [edit, {"type": CLEAR_TOOLS}]}
    provider = provider_for(server, context_management=config, thinking=THINKING)
    response = _call(provider, _thinking_turns(3))
    holders = [
        i
        for i, m in enumerate(server.seen[0]["messages"])
        if any(b["type"] == "thinking" for b in m["content"])
    ]
    assert len(holders) == 3 - cleared
    if cleared:
        saved = count_input_tokens(server.requests[0]) - count_input_tokens(server.seen[0])
        assert response.server_edits == [
            ServerEdit(
                type=CLEAR_THINKING, cleared_thinking_turns=cleared, cleared_input_tokens=saved
            )
        ]
    else:
        assert response.server_edits == []


def test_applied_edits_and_compaction_iteration_are_parsed_from_the_stream() -> None:
    from types import SimpleNamespace as NS

    from footprint_lab.providers.anthropic import _MessageStream

    stream = _MessageStream()
    events = [
        NS(type="message_start", message=NS(usage=NS(input_tokens=40, output_tokens=1))),
        NS(type="content_block_start", index=0, content_block=NS(type="compaction", content=None)),
        NS(
            type="content_block_delta",
            index=0,
            delta=NS(type="compaction_delta", content="Sum.", encrypted_content="enc"),
        ),
        NS(
            type="content_block_start",
            index=1,
            content_block=NS(type="redacted_thinking", data="abc"),
        ),
        NS(type="content_block_start", index=2, content_block=NS(type="text", text="hi")),
        NS(
            type="message_delta",
            delta=NS(stop_reason="end_turn"),
            usage=NS(
                output_tokens=7,
                iterations=[
                    NS(type="compaction", input_tokens=900, output_tokens=30),
                    NS(type="message", input_tokens=40, output_tokens=7),
                ],
            ),
            context_management=NS(
                applied_edits=[
                    NS(type=CLEAR_TOOLS, cleared_tool_uses=2, cleared_input_tokens=300),
                ]
            ),
        ),
        NS(type="message_stop"),
    ]
    for event in events:
        stream.feed(event)
    message = stream.message()
    assert [p.kind for p in message.parts] == ["compaction", "redacted-thinking"]
    assert message.parts[0].original == {
        "type": "compaction",
        "content": "Sum.",
        "encrypted_content": "enc",
    }
    assert message.parts[1].original == {"type": "redacted_thinking", "data": "abc"}
    assert message.parts[1].data_chars == 3
    assert stream.server_edits() == [
        ServerEdit(type=CLEAR_TOOLS, cleared_tool_uses=2, cleared_input_tokens=300),
        ServerEdit(type=COMPACT, input_tokens=900, output_tokens=30),
    ]
    assert stream.usage().input_tokens == 40 and stream.usage().output_tokens == 7
