"""Observed windows: what a recorded run's own policy sent, rebuilt from the recorded inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from footprint_lab import Message, ToolCall, replay, sliding_window
from footprint_lab.evidence import losses
from footprint_lab.importers import TranscriptError, build_run
from footprint_lab.lab import capture

from .helpers import saved

SYSTEM = "You are a coder."


def _history() -> list[Message]:
    """A request, then three tool rounds, then an answer."""
    out = [Message.user("fix the bug")]
    for k in range(3):
        out.append(
            Message.assistant(
                f"step {k}", tool_calls=[ToolCall(id=f"c{k}", name="run", arguments={"k": k})]
            )
        )
        out.append(Message.tool(f"c{k}", "run", f"output {k} " + "x" * 200))
    out.append(Message.assistant("done"))
    return out


def _masked(message: Message) -> Message:
    """SWE-agent's stand-in for an old observation: same role and call id, short text."""
    return Message.tool(message.tool_call_id or "", message.name or "run", "Old output omitted")


def _sent_masking(history: list[Message]) -> list[list[Message] | None]:
    """Each call's input: the system prompt, then history with all but the last result masked."""
    sent: list[list[Message] | None] = []
    for i, message in enumerate(history):
        if message.role != "assistant":
            continue
        before = history[:i]
        results = [j for j, m in enumerate(before) if m.role == "tool"]
        masked = set(results[:-1])
        sent.append(
            [Message.system(SYSTEM)]
            + [_masked(m) if j in masked else m.model_copy() for j, m in enumerate(before)]
        )
    return sent


def test_observed_windows_equal_the_recorded_inputs() -> None:
    history = _history()
    sent = _sent_masking(history)
    run = build_run(history, [None] * 4, system=SYSTEM, source="test", sent=sent, policy="masking")
    assert len(run.calls) == 4
    for call, inputs in zip(run.calls, sent, strict=True):
        assert inputs is not None
        window = run.ledger.window_at(call.sent_commit)
        expected = inputs[1:]
        assert [(m.role, m.content, m.tool_call_id) for m in window] == [
            (m.role, m.content, m.tool_call_id) for m in expected
        ]
        assert call.messages == len(window)
        assert call.chars == sum(m.chars for m in window)
    # Calls 3 and 4 each masked one more result: two observed records, one message each.
    assert [r.iteration for r in run.records] == [3, 4]
    assert all(r.observed and r.strategy == "masking" for r in run.records)
    assert [r.removed_stage_ids for r in run.records] == [["tool-calls#2"], ["tool-calls#4"]]
    # Masking in place is the move clear_tool_results makes: named as cleared too.
    assert [r.cleared_stage_ids for r in run.records] == [r.removed_stage_ids for r in run.records]
    assert run.strategy == "masking"
    # In-place stand-ins keeping role and call id split no pair and need no frame.
    assert all(r.violations == [] for r in run.records)
    stand_ins = [m for m in run.ledger.messages if m.authored is not None]
    assert [m.authored for m in stand_ins] == ["cleared-result", "cleared-result"]
    assert all((m.stage_id or "").startswith("window#") for m in stand_ins)
    # The originals stay in the ledger, verbatim.
    for record in run.records:
        for stage_id in record.removed_stage_ids:
            assert run.ledger.message(stage_id).content.startswith("output ")


def test_a_mask_is_reused_not_rewritten_at_every_call() -> None:
    history = _history()
    run = build_run(history, [None] * 4, system=SYSTEM, source="test", sent=_sent_masking(history))
    # Two results were masked in all: two stand-ins, though call 4 was sent both.
    assert sum(1 for m in run.ledger.messages if m.authored is not None) == 2
    assert run.records[0].strategy == "test"  # the policy defaults to the source


def test_a_summary_in_place_of_history_is_an_inserted_frame() -> None:
    history = _history()
    summary = Message.user("<summary>earlier work: three runs</summary>")
    sent: list[list[Message] | None] = [None, None, None, [summary, *history[5:7]]]
    run = build_run(history, [None] * 4, system=SYSTEM, source="test", sent=sent, policy="cc")
    (record,) = run.records
    assert record.iteration == 4 and record.observed
    assert record.cleared_stage_ids == []  # a summary inserted, nothing replaced in place
    assert record.removed_message_count == 5
    assert record.removed_stage_ids == [
        "seed#0",
        "call-llm#1",
        "tool-calls#2",
        "call-llm#3",
        "tool-calls#4",
    ]
    # The summary took the request's place: the audit names the lost request.
    assert [v.kind for v in record.violations or []] == ["lost-current-request"]
    frame = run.ledger.window_at(run.calls[-1].sent_commit)[0]
    assert frame.authored == "compaction-frame"
    assert record.window_chars_after == sum(
        m.chars for m in run.ledger.window_at(run.calls[-1].sent_commit)
    )


def test_an_input_that_splits_a_pair_is_a_violation_not_a_repair() -> None:
    history = _history()
    # The last call is sent the second result without its call.
    cut = [*history[:3], history[4], *history[5:7]]
    run = build_run(history, [None] * 4, system=SYSTEM, source="test", sent=[None, None, None, cut])
    (record,) = run.records
    assert [v.kind for v in record.violations or []] == ["split-tool-pair"]
    assert record.removed_stage_ids == ["call-llm#3"]


def test_observed_runs_flow_through_the_lab_replay_evidence_and_files(tmp_path: Path) -> None:
    history = _history()
    run = build_run(history, [None] * 4, system=SYSTEM, source="test", sent=_sent_masking(history))
    frames = capture(run)
    assert set(frames.evictions["stage_id"]) == {"tool-calls#2", "tool-calls#4"}
    # Replay starts from the history, not from what the source's policy sent.
    other = replay(run, sliding_window(keep_recent_turns=1))
    assert not any(m.authored == "cleared-result" for m in other.ledger.messages)
    assert len([m for m in other.ledger.messages if m.authored is None]) == len(history)
    losses(run)
    again = saved(run, tmp_path)
    assert again.records == run.records


@pytest.mark.parametrize(
    ("sent", "field"),
    [
        ("not a list", "sent"),
        ([None], "sent"),
        ([None, None, None, "x"], "sent[3]"),
        ([None, None, None, [1]], "sent[3]"),
    ],
)
def test_bad_sent_windows_are_named(sent: object, field: str) -> None:
    with pytest.raises(TranscriptError) as caught:
        build_run(_history(), [None] * 4, system=SYSTEM, source="test", sent=sent)  # type: ignore[arg-type]
    assert caught.value.field == field
