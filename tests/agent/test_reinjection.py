"""Re-injection after a compaction does not pile up (#37 item 4).

Spec 001: after a compaction the loop re-injects what the model must keep (the skill listing,
standing instructions), "fresh on each compaction". Before, every earlier copy stayed as an
ordinary user turn and the copies took ``keep_recent_turns`` slots (``sliding_window(4)`` kept 2
tool rounds instead of 4). Now each compaction delivers one fresh copy where its removal was,
the previous copy leaves with the next compacted span (named in the record), and a copy never
counts against the keep window.
"""

from __future__ import annotations

from typing import Any

import pytest

from footprint_lab import (
    Agent,
    Reply,
    ScriptedProvider,
    after_compaction,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)
from footprint_lab.agent.run import Run

RULES = "Standing order: cite the ticket id."


@tool
def look(n: int) -> str:
    """Look something up."""
    return f"result {n} " + "x" * 200


def _run(strategy: Any, rounds: int = 12, *, inject: bool = True) -> Run:
    replies = [Reply.tool_calls([("look", {"n": i})]) for i in range(rounds)]
    builder = (
        Agent.create(provider=ScriptedProvider([*replies, Reply.text("done")]), max_iterations=40)
        .tool(look)
        .window(strategy)
    )
    if inject:
        builder = builder.inject(after_compaction(RULES))
    return builder.build().run("Audit every ticket.")


def _copies(window: list[Any]) -> list[Any]:
    return [m for m in window if m.authored == "injection"]


def _rounds(window: list[Any]) -> int:
    return sum(1 for m in window if m.role == "assistant" and m.tool_calls)


@pytest.mark.parametrize("keep", [1, 2, 4])
def test_sliding_window_keeps_its_rounds_and_one_fresh_copy(keep: int) -> None:
    run = _run(sliding_window(keep))
    plain = _run(sliding_window(keep), inject=False)
    compacted = False
    for i in range(len(run.calls)):
        window = run.window_sent(i)
        # The copies take no slot: the same rounds are kept as with no injection at all.
        assert _rounds(window) == _rounds(plain.window_sent(i))
        assert len(_copies(window)) <= 1
        compacted = compacted or bool(_copies(window))
    assert compacted
    assert _rounds(run.window_sent(len(run.calls) - 1)) == keep


def test_the_previous_copy_leaves_with_the_next_compacted_span() -> None:
    run = _run(sliding_window(4))
    delivered = [m.stage_id for m in run.ledger.messages if m.authored == "injection"]
    assert len(delivered) > 3
    removed = {s for r in run.records for s in r.removed_stage_ids}
    # Every copy but the last left, by a record that names it; each left with the turns the
    # compaction took (one contiguous span, checked by the law on every visit).
    assert set(delivered[:-1]) <= removed
    assert delivered[-1] not in removed
    for record in run.records:
        copies = [s for s in record.removed_stage_ids if s.startswith("inject#")]
        assert len(copies) <= 1
        if copies:
            assert any(s.startswith("call-llm#") for s in record.removed_stage_ids)


@pytest.mark.parametrize(
    "strategy",
    [
        summarize_oldest(
            threshold_tokens=600,
            keep_recent_turns=2,
            summarizer=lambda ms: f"Summary of {len(ms)} messages.",
        ),
        token_budget(threshold_tokens=600, keep_recent_turns=2),
    ],
    ids=["summarize-oldest", "token-budget"],
)
def test_other_compactions_deliver_one_copy_after_their_stand_in(strategy: Any) -> None:
    run = _run(strategy)
    assert any(r.removed_message_count for r in run.records)
    for i in range(len(run.calls)):
        window = run.window_sent(i)
        assert len(_copies(window)) <= 1
        for k, m in enumerate(window):
            if m.authored == "injection":
                # Right after the stand-in the compaction wrote (or the request).
                assert window[k - 1].role == "user"
