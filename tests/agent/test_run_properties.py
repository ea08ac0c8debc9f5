"""Hypothesis properties over whole scripted runs: the ledger never loses anything."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Agent,
    Reply,
    ScriptedProvider,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)
from footprint_lab.scenarios import extractive_summarizer


@tool
def fetch(key: str) -> str:
    """Return a payload whose size depends on the key."""
    if key == "boom":
        raise ValueError("bad key")
    return f"{key}:" + "data " * (len(key) * 20)


replies = st.lists(
    st.one_of(
        st.builds(
            lambda k: Reply.tool_call("fetch", key=k), st.sampled_from(["a", "bb", "ccc", "boom"])
        ),
        st.builds(
            lambda ks: Reply.tool_calls([("fetch", {"key": k}) for k in ks]),
            st.lists(st.sampled_from(["a", "dddd", "eeeee"]), min_size=2, max_size=3),
        ),
    ),
    max_size=14,
)
strategies = st.one_of(
    st.builds(sliding_window, st.integers(1, 4)),
    st.builds(
        lambda t, k: token_budget(t, keep_recent_turns=k), st.integers(20, 400), st.integers(1, 4)
    ),
    st.builds(
        lambda t, k: summarize_oldest(t, extractive_summarizer, keep_recent_turns=k),
        st.integers(20, 400),
        st.integers(1, 4),
    ),
)


@settings(max_examples=60, deadline=None)
@given(script=replies, strategy=strategies, keep_last=st.sampled_from([0, 1, 2]))
def test_every_message_recoverable_and_every_removed_id_resolves(
    script: list[Reply], strategy: object, keep_last: int
) -> None:
    provider = ScriptedProvider([*script, Reply.text("final")])
    run = (
        Agent.create(provider=provider, max_iterations=20, keep_last_tool_results=keep_last)
        .tool(fetch)
        .window(strategy)  # type: ignore[arg-type]
        .build()
        .run("do the thing")
    )
    assert run.status == "done", run.error
    stored = {id(m) for m in run.ledger.messages}
    for i, request in enumerate(provider.requests):
        sent = run.window_sent(i)
        assert [m.model_dump() for m in sent] == [m.model_dump() for m in request.messages]
        assert all(id(m) in stored for m in sent)  # every message sent was committed first
        assert sent[0].content == "do the thing"  # the request never left
    for record in run.records:
        for stage_id in record.removed_stage_ids:
            assert run.ledger.messages_of(stage_id)  # resolves, verbatim
    # Each message was committed once, and history equals all of them in order.
    assert run.ledger.value_at(len(run.ledger) - 1, "history") == list(run.ledger.messages)
