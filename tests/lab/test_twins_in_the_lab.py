"""The providers' policies' twins in the lab's tools: replay, the Tuner, sweep and the evidence
frame answer "what would this policy remove from my run, and what would it cost" on a real
tau-bench run (and the scenario a sweep re-runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from footprint_lab import (
    anthropic_compaction,
    anthropic_context_editing,
    clear_thinking,
    openai_compaction,
    replay,
)
from footprint_lab.costs import cost_frame
from footprint_lab.importers import load_tau_bench
from footprint_lab.lab import Tuner, evidence_frame, evidence_grid, no_policy
from footprint_lab.lab.sweeps import sweep
from footprint_lab.scenarios import deploy_audit

DATA = Path(__file__).resolve().parents[2] / "data" / "tau-bench" / "gpt-4o-airline-dev.json"


@pytest.fixture(scope="module")
def tau_run():  # type: ignore[no-untyped-def]
    runs = load_tau_bench(DATA)
    return max(runs, key=lambda r: (len(r.calls), r.meta["label"]))


def test_a_replay_under_each_twin_says_what_left_and_how_it_measured(tau_run) -> None:  # type: ignore[no-untyped-def]
    for twin in (
        anthropic_context_editing(trigger=2_000, keep=3),
        openai_compaction(compact_threshold=2_500),
    ):
        replayed = replay(tau_run, twin, keep_last_tool_results=0)
        assert replayed.records, twin.name
        first = replayed.records[0]
        # the file records no usage: the request was estimated, and the record says so
        assert first.measured_request and first.tokens_from == "estimated"
        assert "the request's" in first.explain()
        costs = cost_frame(replayed)
        assert costs["estimated"].all() and (costs["policy_cost"] == 0).all()


def test_anthropic_compaction_at_its_minimum_never_fires_on_a_short_run(tau_run) -> None:  # type: ignore[no-untyped-def]
    replayed = replay(tau_run, anthropic_compaction(trigger=50_000))
    assert replayed.records == []


def test_the_tuner_takes_a_twin_by_name_and_moves_its_knobs(tau_run) -> None:  # type: ignore[no-untyped-def]
    for name in ("anthropic_context_editing", "openai-compaction", "clear_thinking"):
        tuner = Tuner(tau_run, name, frontier=False)
        assert tuner.base.knobs()  # type: ignore[attr-defined]
    tuner = Tuner(tau_run, anthropic_context_editing(trigger=2_000, keep=3), frontier=False)
    assert tuner.config["keep"] == 3


def test_a_sweep_over_a_twins_knobs() -> None:
    frame = sweep(
        deploy_audit(),
        lambda keep: anthropic_context_editing(trigger=300, keep=keep),
        {"keep": [0, 1, 3]},
        executor="inline",  # type: ignore[arg-type]
        progress=False,
    )
    assert list(frame["keep"]) == [0, 1, 3]
    removed = list(frame["removed_messages"])
    assert removed[0] >= removed[1] >= removed[2]


def test_the_evidence_frame_prices_and_measures_the_twins(tau_run) -> None:  # type: ignore[no-untyped-def]
    configs = [
        no_policy(),
        *evidence_grid(anthropic_context_editing, {"trigger": [2_000], "keep": [1, 3]}),
        openai_compaction(compact_threshold=2_500),
        clear_thinking(keep_turns=1),
    ]
    frame = evidence_frame([tau_run], configs, progress=False)
    assert len(frame) == len(configs)
    assert frame["input_cost"].notna().all()
