"""The offline twins make the server's decisions: for the same history and settings, what a
twin removes is what the (fake) server reports, through the official SDKs.

Each generated history is sent by ``AnthropicProvider`` / ``OpenAIProvider`` (with
``context_management``) to the local fake API, whose policies are written from the vendors'
documentation in :mod:`tests.providers.anthropic_policies` and :mod:`tests.providers.
responses_server`, independently of the twins; the twin plans the same request with a counter
that counts as the server counts (the fake's ``ceil(chars / 4)`` over the body the provider
sends). Pins are off (``keep_last_tool_results=0``), and results are larger than the twin's
placeholder, so the law has nothing to refuse that the server would take — except the request,
which a compaction folds into its summary and the twin keeps (the law): that one difference is
asserted, not hidden.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Message,
    Reply,
    ToolCall,
    anthropic_compaction,
    anthropic_context_editing,
    clear_thinking,
    openai_compaction,
)
from footprint_lab.messages import has_thinking
from footprint_lab.providers import ProviderRequest, ToolSpec
from footprint_lab.window import apply_window
from tests.budget import examples
from tests.builders import TWIN_TOOLS, tool_histories
from tests.providers.responses_server import ResponsesServer, count_response_tokens
from tests.providers.servers import AnthropicServer, count_input_tokens, provider_for

TOOLS = TWIN_TOOLS
SPECS = [ToolSpec(name=name) for name in TOOLS]
MODEL = "claude-sonnet-4-6"
EXAMPLES = settings(
    max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


histories = tool_histories


def _request(history: Sequence[Message]) -> ProviderRequest:
    return ProviderRequest(model=MODEL, system="You audit.", messages=list(history), tools=SPECS)


def _counter(provider: Any) -> Any:
    """Counts a window as the fake server counts the body the provider sends for it."""

    def count(messages: Sequence[Message]) -> int:
        return count_input_tokens(provider.build_request(_request(messages)))

    return count


def _send(provider: Any, history: Sequence[Message]) -> None:
    asyncio.run(provider.complete(_request(history)))


def _cleared_call_ids(result: Any, history: Sequence[Message]) -> list[str]:
    """The calls whose results the twin's window sends as placeholders (a parallel batch's
    results share a stage id, so they are read off the window, not the record)."""
    return [
        m.tool_call_id or ""
        for m in result.window
        if m.role == "tool" and m.authored == "cleared-result"
    ]


def test_context_editing_clears_what_the_server_clears() -> None:
    server = AnthropicServer(lambda body: Reply.text("ok"))
    with server:

        @EXAMPLES
        @given(
            histories(),
            st.integers(0, 4),
            st.sets(st.sampled_from(TOOLS), max_size=2),
            st.sampled_from([-200, -1, 0, 50]),
            # clear_at_least is measured against each side's own placeholder (the API's wording
            # is unpublished; the fake's is 37 characters, ours names the tool and iteration),
            # so the boundary itself is not compared: none, always met, never met.
            st.sampled_from([None, 0, 10**6]),
        )
        def check(
            history: list[Message], keep: int, excluded: set[str], margin: int, least: int | None
        ) -> None:
            twin = anthropic_context_editing(
                trigger=1, keep=keep, exclude_tools=sorted(excluded), clear_at_least=least
            )
            probe = provider_for(server, context_management={"edits": [twin.edit()]})
            tokens = _counter(probe)(history)
            twin = twin.with_knobs(trigger=max(1, tokens + margin))
            provider = provider_for(server, context_management={"edits": [twin.edit()]})
            _send(provider, history)
            result = apply_window(
                twin,
                history,
                iteration=9,
                keep_last_tool_results=0,
                count_window=_counter(provider),
            )
            # the server names tool uses; the twin names each result it cleared by its stage
            assert sorted(_cleared_call_ids(result, history)) == sorted(server.cleared[-1])
            if server.cleared[-1]:
                (applied,) = server.applied[-1] or []
                assert applied["cleared_tool_uses"] == len(server.cleared[-1])
                assert result.record is not None
                assert result.record.cleared_tokens is not None
                assert result.record.tokens_from == "counted"
                assert result.record.measured_tokens == tokens

        check()


def test_clear_thinking_keeps_what_the_server_keeps() -> None:
    server = AnthropicServer(lambda body: Reply.text("ok"))
    with server:

        @EXAMPLES
        @given(histories(), st.sampled_from([1, 2, 3, "all"]))
        def check(history: list[Message], keep: int | str) -> None:
            twin = clear_thinking(keep_turns=keep)  # type: ignore[arg-type]
            provider = provider_for(
                server,
                context_management={"edits": [twin.edit()]},
                thinking={"type": "enabled", "budget_tokens": 1024},
            )
            _send(provider, history)
            seen = server.seen[-1]["messages"]
            server_kept = [
                i
                for i, m in enumerate(seen)
                if m["role"] == "assistant"
                and any(b.get("type") == "thinking" for b in m["content"])
            ]
            result = apply_window(twin, history, iteration=9, keep_last_tool_results=0)
            replies = [m for m in result.window if m.role == "assistant"]
            twin_kept = [k for k, m in enumerate(replies) if has_thinking(m)]
            wire_replies = [i for i, m in enumerate(seen) if m["role"] == "assistant"]
            assert [wire_replies.index(i) for i in server_kept] == twin_kept

        check()


def _compaction_history(rounds: int, size: int) -> list[Message]:
    out = [Message.user("audit the deployment", stage_id="seed#0")]
    for r in range(rounds):
        call = ToolCall(id=f"toolu_{r}", name="read", arguments={"n": r})
        out.append(Message.assistant("", tool_calls=[call], stage_id=f"call-llm#{2 * r + 1}"))
        out.append(Message.tool(call.id, "read", "z" * size, stage_id=f"tool-calls#{2 * r + 2}"))
    return out


def _twin_fires_as_the_server(
    twin: Any, history: list[Message], count: Any, server_fired: bool
) -> None:
    """The compaction twin, planning the same request with the server's counter, folds
    exactly when the server compacted — everything but the request (the server folds the
    request too: the law keeps it)."""
    result = apply_window(twin, history, iteration=9, keep_last_tool_results=0, count_window=count)
    twin_fired = result.record is not None and result.record.removed_message_count > 0
    assert twin_fired == server_fired
    if twin_fired:
        assert result.record is not None
        assert result.window[0] is history[0] and len(result.window) == 2
        assert result.record.removed_message_count == len(history) - 1


def test_anthropic_compaction_fires_when_the_server_fires() -> None:
    server = AnthropicServer(lambda body: Reply.text("ok"))
    with server:

        @EXAMPLES
        @given(st.integers(1, 6), st.integers(20_000, 80_000), st.sampled_from([-500, -1, 0, 1]))
        def check(rounds: int, size: int, margin: int) -> None:
            history = _compaction_history(rounds, size)
            probe = provider_for(
                server, context_management={"edits": [{"type": "compact_20260112"}]}
            )
            tokens = _counter(probe)(history)
            trigger = max(50_000, tokens + margin)
            twin = anthropic_compaction(trigger=trigger)
            provider = provider_for(
                server,
                context_management={
                    "edits": [
                        {
                            "type": "compact_20260112",
                            "trigger": {"type": "input_tokens", "value": trigger},
                        }
                    ]
                },
            )
            _send(provider, history)
            assert server.compacted[-1] == (tokens > trigger)
            _twin_fires_as_the_server(twin, history, _counter(provider), server.compacted[-1])

        check()


def test_openai_compaction_fires_when_the_server_fires() -> None:
    server = ResponsesServer(lambda body: Reply.text("ok"))
    with server:

        @EXAMPLES
        # results larger than the twin's summary of them: a frame no smaller than what it would
        # replace is refused (the law), where the server compacts anyway
        @given(st.integers(1, 6), st.integers(1000, 3000), st.sampled_from([-50, -1, 0, 1]))
        def check(rounds: int, size: int, margin: int) -> None:
            history = _compaction_history(rounds, size)
            probe = provider_for_responses(server, 10**9)
            tokens = _responses_counter(probe)(history)
            threshold = max(1, tokens + margin)
            provider = provider_for_responses(server, threshold)
            _send(provider, history)
            _twin_fires_as_the_server(
                openai_compaction(compact_threshold=threshold),
                history,
                _responses_counter(provider),
                server.renderings[-1].compacted,
            )

        check()


def provider_for_responses(server: ResponsesServer, threshold: int) -> Any:
    from footprint_lab.providers import OpenAIProvider

    return OpenAIProvider(
        base_url=server.url,
        max_retries=0,
        context_management=[{"type": "compaction", "compact_threshold": threshold}],
    )


def _responses_counter(provider: Any) -> Any:
    def count(messages: Sequence[Message]) -> int:
        return count_response_tokens(provider.build_request(_request(messages)))

    return count


def test_the_counter_is_the_servers() -> None:
    """The twins' counter here is the fake's own rule (so the test compares decisions, not
    tokenizers): one ``ceil(chars / 4)``."""
    assert count_input_tokens({"messages": [{"role": "user", "content": "x" * 9}]}) == math.ceil(
        9 / 4
    )
