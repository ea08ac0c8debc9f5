"""Evidence: dependencies and losses on synthetic runs with a known structure, and on the
50 real tau-bench runs in the repository."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import replay, sliding_window, summarize_oldest, token_budget
from footprint_lab.evidence import calls_of, dependencies, losses, tool_calls_in, wire_problems
from footprint_lab.importers import from_openai, load_tau_bench
from tests.builders import EVIDENCE_TRANSCRIPT

DATA = Path(__file__).parents[2] / "data" / "tau-bench"


SYNTHETIC = EVIDENCE_TRANSCRIPT


def test_synthetic_dependencies_are_exact() -> None:
    run = from_openai(SYNTHETIC)
    deps = dependencies(run)
    assert [(d.call_id, d.value, d.source_stage_ids) for d in deps] == [
        ("c2", "RES12345", ["tool-calls#2"]),
        ("c3", "FL9999", ["tool-calls#4"]),
        ("c4", "RES67890", ["tool-calls#2"]),
    ]
    assert tool_calls_in(run) == 4 and calls_of(deps) == 3
    # The minimum length is a parameter: with 7, FL9999 (6 chars) no longer counts.
    assert [d.value for d in dependencies(run, min_chars=7)] == ["RES12345", "RES67890"]


def test_synthetic_losses_are_exact_under_a_small_window() -> None:
    run = from_openai(SYNTHETIC)
    replayed = replay(run, sliding_window(1), keep_last_tool_results=0)
    lost = losses(replayed)
    assert [(x.call_id, x.value) for x in lost] == [("c4", "RES67890")]
    source = replayed.ledger.message(lost[0].source_stage_id)
    assert source.role == "tool" and source.content.startswith("reservations: RES12345")
    remover = lost[0]
    assert remover.removed_by is not None and remover.removed_by_strategy == "sliding-window"
    remover_record = next(r for r in replayed.records if r.iteration == remover.removed_by)
    assert remover.source_stage_id in remover_record.removed_stage_ids
    assert not remover.kept_by_summary
    # With no window management nothing is lost.
    assert losses(replay(run, None)) == []


def test_kept_by_summary_when_a_frame_states_the_value() -> None:
    run = from_openai(SYNTHETIC)

    def verbatim(messages: Any) -> str:
        return " ".join(m.content[:40] for m in messages if m.role == "tool")

    # An imported run with no usage and no estimate allowed: the token trigger cannot engage
    # (the replay says so), so nothing is lost.
    unmeasured = replay(
        run,
        summarize_oldest(1, verbatim, keep_recent_turns=1),
        keep_last_tool_results=0,
        estimate=False,
    )
    assert losses(unmeasured) == []
    assert [r["reason"] for r in [r.model_dump() for r in unmeasured.origin.not_applicable]] == [
        "no-usage"
    ]
    # By default its tokens are estimated from characters, and the policy engages.
    estimated = replay(
        run, summarize_oldest(1, verbatim, keep_recent_turns=1), keep_last_tool_results=0
    )
    assert {r.tokens_from for r in estimated.records} == {"estimated"}
    assert [(x.call_id, x.kept_by_summary) for x in losses(estimated)] == [("c4", True)]
    usage_run = from_openai(
        [
            {**m, "usage": {"prompt_tokens": 500, "completion_tokens": 5}}
            if m["role"] == "assistant"
            else m
            for m in SYNTHETIC
        ]
    )
    folded = replay(
        usage_run, summarize_oldest(1, verbatim, keep_recent_turns=1), keep_last_tool_results=0
    )
    kept = [x for x in losses(folded) if x.value == "RES67890"]
    assert kept and kept[0].kept_by_summary


def test_tau_bench_counts_are_pinned() -> None:
    runs = load_tau_bench(DATA)
    assert len(runs) == 50
    assert {"task_id", "trial", "reward"} <= set(runs[0].meta)
    assert sum(tool_calls_in(r) for r in runs) == 296
    assert sum(calls_of(dependencies(r)) for r in runs) == 146


def test_tau_bench_is_deterministic_and_our_strategies_send_nothing_the_wire_rejects() -> None:
    runs = load_tau_bench(DATA / "gpt-4o-airline-dev.json")
    configs = [
        sliding_window(1),
        sliding_window(4),
        token_budget(1, keep_recent_turns=2),
    ]
    first: list[int] = []
    for strategy in configs:
        for pins in (0, 2):
            for run in runs:
                replayed = replay(run, strategy, keep_last_tool_results=pins)
                first.append(calls_of(losses(replayed)))
                for i in range(len(replayed.calls)):
                    assert wire_problems(replayed.window_sent(i)) == []
    second = [
        calls_of(losses(replay(run, strategy, keep_last_tool_results=pins)))
        for strategy in configs
        for pins in (0, 2)
        for run in runs
    ]
    assert first == second and sum(first) > 0


def test_pins_keep_evidence_on_real_runs() -> None:
    runs = load_tau_bench(DATA)
    without = sum(
        calls_of(losses(replay(r, sliding_window(1), keep_last_tool_results=0))) for r in runs
    )
    with_pins = sum(
        calls_of(losses(replay(r, sliding_window(1), keep_last_tool_results=2))) for r in runs
    )
    assert with_pins < without


def test_wire_problems_detects_what_providers_reject() -> None:
    run = from_openai(SYNTHETIC)
    messages = list(run.ledger.messages)
    assert wire_problems(messages) == []
    assert "without its call" in wire_problems(messages[2:])[0]
    assert any("unanswered" in p for p in wire_problems([messages[0], messages[1], messages[0]]))


def test_bad_tau_file_is_a_clear_error(tmp_path: Path) -> None:
    from footprint_lab.importers import TranscriptError

    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"task_id": 1, "traj": "nope"}]))
    with pytest.raises(TranscriptError, match="entry 0, field 'traj'"):
        load_tau_bench(path)


def test_a_policy_that_rewrites_does_not_shift_the_transcript() -> None:
    from footprint_lab import audit
    from footprint_lab.evidence import transcript

    def shorten_results(messages: list[Any]) -> list[Any]:
        return [
            m.model_copy(update={"content": m.content[:12]}) if m.role == "tool" else m
            for m in messages
        ]

    run = from_openai(SYNTHETIC)
    replayed = replay(run, audit(shorten_results))
    assert any(
        v.kind == "rewritten-without-frame" for r in replayed.records for v in r.violations or []
    )
    assert [m.content for m in transcript(replayed)] == [m.content for m in transcript(run)]
    deps = dependencies(replayed)
    assert [(d.call_id, d.message_index) for d in deps] == [
        (d.call_id, d.message_index) for d in dependencies(run)
    ]
    # The rewritten results no longer carry the ids: those calls lost their evidence.
    assert {x.call_id for x in losses(replayed)} >= {"c4"}
