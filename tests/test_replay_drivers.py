"""The one replay body under its two drivers: ``replay`` runs a sync strategy with no event
loop and starts one only when a plan turns out async (then every await of the replay runs in
that one loop), ``areplay`` awaits in the caller's loop, and inside a running loop (Jupyter)
``replay`` still finishes an async strategy. All give the same run as a sync strategy that
says the same."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from footprint_lab import Message, Run, replay, sliding_window, summarize_oldest
from footprint_lab.agent.replay import areplay
from footprint_lab.importers import from_openai
from tests.builders import EVIDENCE_TRANSCRIPT


def _text(span: Sequence[Message]) -> str:
    return "summary: " + " ".join(m.content[:30] for m in span if m.role == "tool")


def _sync_strategy() -> Any:
    return summarize_oldest(1, _text, keep_recent_turns=1)


class AsyncSummarizer:
    """An async summarizer that really suspends, noting the loop of every call."""

    def __init__(self) -> None:
        self.loops: list[int] = []

    async def __call__(self, span: Sequence[Message]) -> str:
        await asyncio.sleep(0.001)  # a real suspension: needs a running loop
        self.loops.append(id(asyncio.get_running_loop()))
        return _text(span)


def _facts(run: Run) -> Any:
    return (
        [(m.role, m.content, m.stage_id, m.authored) for m in run.ledger.messages],
        [r.model_dump() for r in run.records],
        [c.model_dump() for c in run.calls],
        [[m.content for m in run.window_sent(i)] for i in range(len(run.calls))],
    )


@pytest.fixture
def source() -> Run:
    return from_openai(EVIDENCE_TRANSCRIPT)


def test_a_sync_strategy_replays_with_no_event_loop(
    source: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_loop(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an event loop was started for a sync strategy")

    monkeypatch.setattr(asyncio, "run", no_loop)
    replayed = replay(source, sliding_window(1), keep_last_tool_results=0)
    assert replayed.records and replayed.events


def test_an_async_strategy_replays_in_one_loop_like_its_sync_twin(source: Run) -> None:
    expected = _facts(replay(source, _sync_strategy(), keep_last_tool_results=0))
    summarizer = AsyncSummarizer()
    got = replay(
        source, summarize_oldest(1, summarizer, keep_recent_turns=1), keep_last_tool_results=0
    )
    assert len(summarizer.loops) >= 2 and len(set(summarizer.loops)) == 1
    assert _facts(got) == expected


async def test_areplay_awaits_in_the_caller_s_loop(source: Run) -> None:
    expected = _facts(replay(source, _sync_strategy(), keep_last_tool_results=0))
    summarizer = AsyncSummarizer()
    got = await areplay(
        source, summarize_oldest(1, summarizer, keep_recent_turns=1), keep_last_tool_results=0
    )
    assert set(summarizer.loops) == {id(asyncio.get_running_loop())}
    assert _facts(got) == expected
    assert _facts(await areplay(source, _sync_strategy(), keep_last_tool_results=0)) == expected


async def test_replay_inside_a_running_loop_finishes_an_async_strategy(source: Run) -> None:
    expected = _facts(replay(source, _sync_strategy(), keep_last_tool_results=0))
    summarizer = AsyncSummarizer()
    got = replay(
        source, summarize_oldest(1, summarizer, keep_recent_turns=1), keep_last_tool_results=0
    )
    # Not the caller's loop (it is busy running this test): a fresh one, the same throughout.
    assert len(set(summarizer.loops)) == 1
    assert summarizer.loops[0] != id(asyncio.get_running_loop())
    assert _facts(got) == expected


def test_a_strategy_that_raises_stops_the_replay_with_its_error(source: Run) -> None:
    class Broken:
        name = "broken"

        def plan(self, input: Any) -> Any:
            raise RuntimeError("plan failed")

    with pytest.raises(RuntimeError, match="plan failed"):
        replay(source, Broken(), keep_last_tool_results=0)  # type: ignore[arg-type]
