"""Replay: a strategy re-applied over a recorded history, calling no model."""

from __future__ import annotations

import pytest

from footprint_lab import Agent, Reply, ScriptedProvider, replay, sliding_window, token_budget
from footprint_lab.lab import capture
from footprint_lab.scenarios import SCENARIOS, deploy_audit
from tests.builders import by_content


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_replay_under_its_own_strategy_reproduces_the_records_exactly(name: str) -> None:
    scenario = SCENARIOS[name]()
    for strategy in scenario.strategies().values():
        run = scenario.run(strategy)
        again = replay(run, strategy)
        # The replay keeps the source's ids for the source's messages, and numbers its own
        # window stages after them (#37 item 1): a record is compared by what its ids name
        # (``span_key`` hashes them). The walker commits the conversation as the run did, a
        # batch's results in the order they finished, so every ``commit`` is the same.
        assert [by_content(again, r.model_dump(exclude={"span_key"})) for r in again.records] == [
            by_content(run, r.model_dump(exclude={"span_key"})) for r in run.records
        ]
        for i in range(len(run.calls)):
            assert [m.content for m in again.window_sent(i)] == [
                m.content for m in run.window_sent(i)
            ]


def test_replay_is_counterfactual_and_calls_no_model() -> None:
    scenario = deploy_audit()
    original = scenario.run(None)
    provider = ScriptedProvider([Reply.fail("replay must not call a model")])
    assert provider.calls == 0
    counterfactual = replay(original, sliding_window(2))
    assert provider.calls == 0
    assert counterfactual.origin.kind == "replay"
    assert counterfactual.origin.source_id == "deploy-audit"
    assert "counterfactual" in capture(counterfactual).info["note"]
    assert counterfactual.output == original.output
    # Replies are the original's, so are their output tokens; input tokens are those of the
    # window the replay sent: the original's until the first removal, counted after it.
    assert [c.usage.output_tokens for c in counterfactual.calls if c.usage] == [
        c.usage.output_tokens for c in original.calls if c.usage
    ]
    first = next(r.iteration for r in counterfactual.records if r.removed_message_count)
    for ours, theirs in zip(counterfactual.calls, original.calls, strict=True):
        if ours.iteration < first:
            assert ours.usage == theirs.usage and ours.tokens_from is None
        else:
            assert ours.tokens_from == "counted" and ours.chars < theirs.chars
            assert ours.usage is not None and theirs.usage is not None
            assert ours.usage.input_tokens < theirs.usage.input_tokens
    assert counterfactual.records and not original.records
    # Every reply is the original's, verbatim.
    replies = [m.content for m in counterfactual.ledger.messages if m.role == "assistant"]
    assert replies == [m.content for m in original.ledger.messages if m.role == "assistant"]


def test_replay_feeds_token_strategies_the_counterfactual_windows_tokens() -> None:
    """Each measured figure is the tokens of the window the replay itself sent at the last
    call (its own calls' usage), never the original's untrimmed window's."""
    original = deploy_audit().run(None)
    counterfactual = replay(original, token_budget(1000, keep_recent_turns=2))
    assert counterfactual.records
    by_iteration = {c.iteration: c for c in counterfactual.calls}
    for record in counterfactual.records:
        last = by_iteration[record.iteration - 1]
        assert last.usage is not None
        assert record.measured_tokens == last.usage.input_tokens
        assert record.tokens_from == (last.tokens_from or "reported")
    assert any(r.tokens_from == "counted" for r in counterfactual.records)


def test_replay_drops_the_source_strategy_authored_messages() -> None:
    scenario = deploy_audit()
    trimmed = scenario.run(sliding_window(2))
    bare = replay(trimmed, None)
    assert not any(m.authored for m in bare.ledger.messages)
    assert bare.records == []


def test_replay_of_a_conversation_moves_the_anchor() -> None:
    agent = (
        Agent.create(
            provider=ScriptedProvider([Reply.text("one"), Reply.text("two"), Reply.text("three")])
        )
        .window(sliding_window(1))
        .build()
    )
    agent.run("a")
    agent.run("b")
    run = agent.run("c")
    again = replay(run, sliding_window(1))
    assert again.requests == ["a", "b", "c"]
    assert [r.model_dump() for r in again.records] == [r.model_dump() for r in run.records]


def test_replay_accepts_transcripts_directly() -> None:
    from footprint_lab import Message, ToolCall
    from tests.importers.test_importers import ANTHROPIC, LANGCHAIN, OPENAI

    for transcript in (OPENAI, ANTHROPIC, LANGCHAIN):
        replayed = replay(transcript, sliding_window(1))
        assert replayed.origin.kind == "replay"
        assert [m.role for m in replayed.ledger.messages if m.authored is None][:2] == [
            "user",
            "assistant",
        ]
    ours = [
        Message.system("rules"),
        Message.user("go"),
        Message.assistant("", tool_calls=[ToolCall("c1", "f", {})]),
        Message.tool("c1", "f", "r" * 300),
        Message.assistant("", tool_calls=[ToolCall("c2", "f", {})]),
        Message.tool("c2", "f", "r" * 300),
        Message.assistant("done"),
    ]
    replayed = replay(ours, sliding_window(1), keep_last_tool_results=0)
    assert replayed.system == "rules" and replayed.records
    with pytest.raises(ValueError, match="expected a Run or a list of messages"):
        replay([1, 2, 3], sliding_window(1))  # type: ignore[list-item]
