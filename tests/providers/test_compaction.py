"""Compaction the provider drives, through the official SDKs against the fake APIs.

Reactive recovery (the API's own context-length error → one forced window visit → one retry),
the relative trigger (a share of ``provider.context_window(model)``), and the provider-backed
summarizer — its usage in the record, its failure, and its cancellation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from footprint_lab import (
    ContextLengthError,
    Message,
    ProviderError,
    Reply,
    ScriptedProvider,
    summarize_oldest,
    token_budget,
)
from footprint_lab.providers import (
    DEFAULT_SUMMARY_INSTRUCTIONS,
    ProviderSummarizer,
    provider_summarizer,
)
from footprint_lab.scenarios import deploy_audit
from footprint_lab.window.apply import run_sync
from footprint_lab.window.notice import is_compaction_frame
from tests.providers.servers import (
    MODEL,
    AnthropicServer,
    OpenAIServer,
    WireServer,
    count_input_tokens,
    provider_for,
)

Wire = Callable[..., WireServer]

# deploy_audit's requests count 28, 322, 670, 1017, 1377, 1724 ... tokens on the fake servers.
NEVER = 100_000


def _is_context_length_rejection(server: WireServer, body: dict[str, Any]) -> bool:
    if server.kind == "openai":
        return bool(body["error"]["code"] == "context_length_exceeded")
    return bool(body["error"]["message"].startswith("prompt is too long"))


# -- reactive recovery ---------------------------------------------------------------------


def test_a_context_length_error_forces_one_window_visit_and_one_retry(wire: Wire) -> None:
    scenario = deploy_audit()
    server = wire(scenario.replies(), context_window=1_400)
    run = scenario.run(
        token_budget(threshold_tokens=NEVER, keep_recent_turns=2),
        provider=provider_for(server),
        model=MODEL[server.kind],
    )
    run.raise_for_error()
    assert run.status == "done"

    assert len(server.rejections) == 1
    status, body = server.rejections[0]
    assert status == 400 and _is_context_length_rejection(server, body)

    # the one record is the forced visit, at the iteration whose call was rejected
    (record,) = run.records
    assert record.forced
    assert record.removed_message_count > 0
    failed = next(i for i, c in enumerate(run.calls) if c.usage is None)
    retry = run.calls[failed + 1]
    assert retry.retry and retry.iteration == run.calls[failed].iteration == record.iteration
    assert [c.retry for c in run.calls].count(True) == 1
    assert retry.chars < run.calls[failed].chars
    compactions = [e for e in run.events if e.type == "context.compaction"]
    assert [e.forced for e in compactions] == [True]
    # the retry is what the server accepted next, and it fits
    assert count_input_tokens(server.requests[failed + 1]) <= 1_400


def test_recovery_is_tried_once_then_the_error_stands(wire: Wire) -> None:
    scenario = deploy_audit()
    # 700 tokens: the fourth call is over; dropping the oldest log is not enough to fit
    server = wire(scenario.replies(), context_window=700)
    run = scenario.run(
        token_budget(threshold_tokens=NEVER, keep_recent_turns=2),
        provider=provider_for(server),
        model=MODEL[server.kind],
    )
    assert run.status == "error"
    assert isinstance(run.error, ContextLengthError)
    assert [c.retry for c in run.calls].count(True) == 1
    assert len(server.rejections) == 2  # the call and its one retry
    assert all(_is_context_length_rejection(server, b) for _, b in server.rejections)
    (record,) = run.records
    assert record.forced and record.removed_message_count > 0
    assert count_input_tokens(server.requests[-1]) < count_input_tokens(server.requests[-2])
    assert len(run.ledger.messages) > 1  # the ledger survives the fault


def test_without_a_strategy_a_context_length_error_is_not_retried(wire: Wire) -> None:
    scenario = deploy_audit()
    server = wire(scenario.replies(), context_window=1_400)
    run = scenario.run(None, provider=provider_for(server), model=MODEL[server.kind])
    assert isinstance(run.error, ContextLengthError)
    assert not any(c.retry for c in run.calls)
    assert len(server.rejections) == 1


# -- relative trigger ----------------------------------------------------------------------


def test_the_relative_trigger_follows_the_providers_context_window(wire: Wire) -> None:
    scenario = deploy_audit()
    server = wire(scenario.replies())
    if server.kind == "openai":
        # an OpenAI-compatible server: the table's 128k fallback is wrong, so override it
        provider = provider_for(server, context_window_override=4_000)
        model, window, reserve = "llama3.1:8b", 4_000, 1_600
        assert provider_for(server).context_window(model) == 128_000
    else:
        # Claude: the lookup table's 200k window, with a reserve that leaves a small budget
        provider = provider_for(server)
        model, window, reserve = "claude-sonnet-4-6", 200_000, 158_400
    assert provider.context_window(model) == window
    threshold = 1_599  # ceil(0.8 * window) - reserve - 1: engage when measured + reserve >= 80%

    run = scenario.run(
        token_budget(threshold_fraction=0.8, reserve_tokens=reserve, keep_recent_turns=2),
        provider=provider,
        model=model,
    )
    run.raise_for_error()
    assert server.rejections == []
    assert run.records, "the relative threshold never engaged"
    first = run.records[0]
    assert first.context_window == window
    assert first.threshold_fraction == 0.8
    assert first.reserve_tokens == reserve
    assert first.threshold_tokens == threshold
    assert first.over_budget and first.removed_message_count > 0
    # it engaged on the first call whose streamed input tokens crossed the line, not before
    measured = [c.usage.input_tokens for c in run.calls if c.usage is not None]
    crossing = next(i for i, tokens in enumerate(measured) if tokens > threshold)
    assert first.measured_tokens == measured[crossing]
    assert first.iteration == crossing + 2
    assert all(tokens <= threshold for tokens in measured[:crossing])


# -- provider summarizer -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("main_kind", "summary_kind"),
    [("openai", "anthropic"), ("anthropic", "openai")],
)
def test_a_summarizer_on_a_second_server(
    openai_server: Callable[..., OpenAIServer],
    anthropic_server: Callable[..., AnthropicServer],
    main_kind: str,
    summary_kind: str,
) -> None:
    servers: dict[str, Callable[..., WireServer]] = {
        "openai": openai_server,
        "anthropic": anthropic_server,
    }
    scenario = deploy_audit()
    main = servers[main_kind](scenario.replies())
    summary_text = "- d1, d2 and d3: rollouts OK, no errors."
    summaries = servers[summary_kind]([Reply.text(summary_text)])
    summarizer = provider_summarizer(
        provider_for(summaries), MODEL[summary_kind], max_output_tokens=512
    )
    run = scenario.run(
        summarize_oldest(threshold_tokens=1_500, summarizer=summarizer, keep_recent_turns=3),
        provider=provider_for(main),
        model=MODEL[main_kind],
    )
    run.raise_for_error()
    assert main.rejections == [] and summaries.rejections == []

    # the summary request: one user message with the transcript, no tools, the output cap
    (request,) = summaries.requests
    assert "tools" not in request
    assert request["max_tokens"] == 512
    (message,) = request["messages"]
    assert message["role"] == "user"
    text = (
        message["content"] if isinstance(message["content"], str) else message["content"][0]["text"]
    )
    assert text.startswith(DEFAULT_SUMMARY_INSTRUCTIONS)
    assert "read_log" in text and "DEPLOY d1 status=OK" in text

    # its reported usage lands in the record
    (record,) = [r for r in run.records if r.summary_chars]
    assert record.summarizer_tokens is not None
    assert record.summarizer_tokens > count_input_tokens(request)
    frame = next(m for m in run.window if is_compaction_frame(m))
    assert summary_text in frame.content
    # and the frame went out to the main API on the next call
    assert any(summary_text in str(body["messages"]) for body in main.requests)


def test_a_failing_summary_call_leaves_the_window_and_the_run_goes_on(wire: Wire) -> None:
    scenario = deploy_audit()
    main = wire(scenario.replies())
    summaries = wire([Reply.fail("summary model unavailable")])
    summarizer = provider_summarizer(provider_for(summaries), MODEL[summaries.kind])
    run = scenario.run(
        summarize_oldest(threshold_tokens=1_500, summarizer=summarizer, keep_recent_turns=3),
        provider=provider_for(main),
        model=MODEL[main.kind],
    )
    assert run.status == "done"
    failed = [r for r in run.records if "summarizer-failed" in {x.reason for x in r.refusals}]
    assert failed
    assert failed[0].removed_message_count == 0
    assert "summary model unavailable" in (failed[0].error or "")


async def test_cancelling_the_run_cancels_the_summary_call(wire: Wire) -> None:
    scenario = deploy_audit()
    main = wire(scenario.replies())
    # the summary server starts its stream, then waits for the client to hang up
    summaries = wire([Reply.text("too late")], hold_seconds=30)
    summarizer = provider_summarizer(provider_for(summaries), MODEL[summaries.kind])
    agent = scenario.agent(
        summarize_oldest(threshold_tokens=1_500, summarizer=summarizer, keep_recent_turns=3),
        provider=provider_for(main),
        model=MODEL[main.kind],
    )
    task = asyncio.create_task(agent.arun(scenario.request))
    assert await asyncio.to_thread(summaries.received.wait, 20)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the SDK closed the connection the summary was streaming on
    assert await asyncio.to_thread(summaries.disconnected.wait, 20)
    assert summaries.replied == 1 and len(summaries.requests) == 1


# -- the summarizer itself -----------------------------------------------------------------


def test_the_summary_request_renders_the_span_as_a_transcript() -> None:
    from footprint_lab import ToolCall

    span = [
        Message.user("Audit d1."),
        Message.assistant(
            "", tool_calls=[ToolCall(id="c1", name="read_log", arguments={"d": "d1"})]
        ),
        Message.tool("c1", "read_log", "DEPLOY d1 status=OK"),
        Message.user("earlier: d0 fine", authored="compaction-frame"),
    ]
    summarizer = provider_summarizer(ScriptedProvider([]), "m", max_output_tokens=64)
    request = summarizer.request(span)
    assert request.tools == [] and request.system is None
    assert request.max_output_tokens == 64
    (message,) = request.messages
    assert message.role == "user"
    assert "[user] Audit d1." in message.content
    assert '[tool call: read_log({"d": "d1"}) (call c1)]' in message.content
    assert "[tool result: read_log (call c1)] DEPLOY d1 status=OK" in message.content
    assert "[earlier summary] earlier: d0 fine" in message.content
    assert (
        repr(summarizer)
        == "provider_summarizer(provider='scripted', model='m', max_output_tokens=64)"
    )


def test_summary_usage_is_none_when_the_provider_reports_none() -> None:
    provider = ScriptedProvider([Reply.text("short")], report_usage=False)
    result = run_sync(provider_summarizer(provider, "m")([Message.user("x" * 100)]))
    assert result.text == "short"
    assert result.input_tokens is None and result.output_tokens is None and result.tokens is None

    provider = ScriptedProvider([Reply.text("short")])
    result = run_sync(provider_summarizer(provider, "m")([Message.user("x" * 100)]))
    assert result.input_tokens and result.output_tokens


def test_an_empty_summary_is_an_error() -> None:
    summarizer = provider_summarizer(ScriptedProvider([Reply.text("  ")]), "m")
    with pytest.raises(ProviderError, match="no text"):
        run_sync(summarizer([Message.user("x")]))


def test_provider_summarizer_validates_its_cap() -> None:
    with pytest.raises(ValueError, match="max_output_tokens"):
        provider_summarizer(ScriptedProvider([]), "m", max_output_tokens=0)
    assert isinstance(provider_summarizer(ScriptedProvider([]), "m"), ProviderSummarizer)
