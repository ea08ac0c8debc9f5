"""``footprint_lab.explain(run, stage_id)`` and ``WindowRecord.explain()``: every view's "why",
said once. On live scripted runs of every shipped strategy, on a real imported run (its own
policy observed, and replayed under ours), and for ids the run does not hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import footprint_lab
from footprint_lab import (
    Run,
    clear_tool_results,
    explain,
    replay,
    sliding_window,
    tool,
)
from footprint_lab.agent.explain import Explainer, UnknownStageError, record_stage_id
from footprint_lab.importers import load
from footprint_lab.lab.views import record_sentence
from footprint_lab.scenarios import SCENARIOS, deploy_audit, screen_driver
from footprint_lab.window.words import departure_words, refusal_meaning
from tests.lab.conftest import tool_loop

SWE = Path(__file__).resolve().parent.parent / "data" / "transcripts" / "swe-agent"
OBSERVED = SWE / "marshmallow-1867.function-calling-replace-from-source.traj"
"""A real SWE-agent trajectory whose own history processor cleared tool results in place."""


def _stages(run: Run) -> list[str]:
    return list(dict.fromkeys(c.stage_id for c in run.ledger.commits))


def _message_stages(run: Run) -> list[str]:
    return list(dict.fromkeys(m.stage_id for m in run.ledger.messages if m.stage_id))


def _runs() -> dict[str, Run]:
    runs: dict[str, Run] = {}
    for name in ("deploy-audit", "screen-driver", "parallel-tools"):
        scenario = SCENARIOS[name]()
        runs[f"{name}/none"] = scenario.run(None)
        for label, strategy in scenario.strategies().items():
            runs[f"{name}/{label}"] = scenario.run(strategy)
    audit = deploy_audit()
    runs["deploy-audit/clear-tool-results"] = audit.run(
        clear_tool_results(keep_recent_turns=1, keep_results=1)
    )
    return runs


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    return _runs()


def _check_every_stage(run: Run) -> set[str]:
    """Explain every stage of ``run`` and hold each sentence to what the run says; return the
    kinds of answer seen."""
    seen: set[str] = set()
    filed = {record_stage_id(run, r): r for r in run.records}
    explainer = Explainer(run)  # the run read once: says what explain() says, id for id
    for stage in _stages(run):
        said = explain(run, stage)
        assert said and "\n" not in said
        assert explainer.explain(stage) == said
        if stage in filed:
            # a record's stage: the record's own sentence, the one the report prints
            record = filed[stage]
            assert record.explain() == record_sentence(record)
            assert said.startswith(record.explain())
            seen.add("record")
            continue
        removing = [r for r in run.records if stage in r.removed_stage_ids]
        if removing:
            first = removing[0]
            assert f"left the window: {departure_words(first, stage)}." in said
            assert said.endswith(first.explain())
            assert f"at iteration {first.iteration} because" in said
            seen.add("cleared" if stage in first.cleared_stage_ids else "left")
            continue
        assert " never left the window: " in said, said
        if run.strategy is None and not run.records:
            assert said.endswith("the run has no window strategy.")
            seen.add("no strategy")
        elif "refused to remove its turn" in said:
            reason = said.split(" — ")[-1].split(":")[0]
            assert reason in {x.reason for r in run.records for x in r.refusals}
            assert said.endswith(f"{refusal_meaning(reason)}.")
            seen.add("refused")
        elif "pinned it:" in said:
            seen.add("pinned")
        else:
            seen.add("other")
    return seen


def test_every_stage_of_every_strategy_is_explained(runs: dict[str, Run]) -> None:
    seen: set[str] = set()
    for run in runs.values():
        seen |= _check_every_stage(run)
    assert {"record", "left", "refused", "pinned", "no strategy", "cleared"} <= seen


def test_the_sentence_of_a_removed_message_names_the_visit_and_the_rule() -> None:
    scenario = deploy_audit()
    run = scenario.run(sliding_window(keep_recent_turns=3))
    record = next(r for r in run.records if r.removed_message_count)
    stage = record.removed_stage_ids[0]
    assert explain(run, stage) == (
        f"{stage} (assistant) left the window: dropped by sliding-window at iteration "
        f"{record.iteration} because the window held {record.turns_before} turns, more than the "
        f"3 it keeps. {record.explain()}"
    )
    assert record.explain().startswith(f"iteration {record.iteration}: sliding-window removed ")
    # the request's turn never leaves, and says why
    assert explain(run, "seed#0").endswith(
        "refused to remove its turn (turn 0) — current-request: the turn holds the request the "
        "run is executing: it never leaves."
    )


def test_a_pinned_result_says_it_is_pinned() -> None:
    scenario = screen_driver()
    run = scenario.run(scenario.strategies()["sliding-window"])
    last = run.records[-1]
    assert last.observations is not None and last.observations.pinned
    pin = last.observations.pinned[0]
    assert pin.stage_id is not None
    said = explain(run, pin.stage_id)
    assert f"pinned it: {pin.tool_name}'s latest result" in said
    assert f"at the last visit (iteration {last.iteration})" in said


def test_a_drop_notice_stage_says_the_record_and_what_became_of_the_notice() -> None:
    run = deploy_audit().run(sliding_window(keep_recent_turns=3))
    noticed = [r for r in run.records if r.notice]
    assert len(noticed) >= 2
    stage = record_stage_id(run, noticed[0])
    assert stage is not None
    said = explain(run, stage)
    later = next(r for r in run.records if stage in r.removed_stage_ids)
    assert said == (
        f"{noticed[0].explain()} The user (drop-notice) it wrote left the window later: "
        f"{departure_words(later, stage)}."
    )


def test_a_real_imported_run_explains_its_own_policy_and_a_replay_of_it() -> None:
    (observed,) = load(OBSERVED)
    assert observed.records and all(r.observed for r in observed.records)
    assert "cleared" in _check_every_stage(observed)
    record = next(r for r in observed.records if r.cleared_stage_ids)
    said = explain(observed, record.cleared_stage_ids[0])
    assert "cleared in place (a placeholder stands for it) by swe-agent" in said
    assert "the recorded run's own policy changed the window here (observed, not replayed)" in said
    replayed = replay(observed, sliding_window(keep_recent_turns=3))
    assert {"left", "refused"} <= _check_every_stage(replayed)


def test_an_unknown_stage_id_says_how_to_find_ids() -> None:
    run = deploy_audit().run(sliding_window(keep_recent_turns=3))
    with pytest.raises(UnknownStageError) as caught:
        explain(run, "call-llm#200")
    text = str(caught.value)
    assert "no stage 'call-llm#200' in this run's ledger" in text
    assert "seed#0, call-llm#2" in text  # the run's first stages
    assert "Did you mean call-llm#20" in text
    for where in ("run.ledger.commits", "record.removed_stage_ids", "capture(run).messages"):
        assert where in text
    with pytest.raises(UnknownStageError, match="no stage 5"):
        explain(run, 5)  # type: ignore[arg-type]
    assert isinstance(caught.value, LookupError)


def test_the_root_exports_explain_and_records_explain_themselves() -> None:
    assert footprint_lab.explain is explain and "explain" in footprint_lab.__all__
    run = deploy_audit().run(sliding_window(keep_recent_turns=3))
    for record in run.records:
        assert record.explain() == record_sentence(record)


@tool
def probe(n: int) -> str:
    """A cheap tool for loops."""
    return f"probe {n}: " + "x" * (10 + 7 * n)


def _loop(iterations: int, keep: int) -> Run:
    return tool_loop(iterations, keep, probe_tool=probe)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(iterations=st.integers(2, 14), keep=st.integers(1, 5))
def test_every_message_either_left_once_by_a_named_rule_or_says_why_it_stayed(
    iterations: int, keep: int
) -> None:
    run = _loop(iterations, keep)
    window = {m.stage_id for m in run.window}
    filed = {record_stage_id(run, r) for r in run.records}
    for stage in _message_stages(run):
        said = explain(run, stage)
        if stage in filed:  # a visit's own stage (a notice it wrote): its record's sentence
            assert said.startswith(
                next(r for r in run.records if record_stage_id(run, r) == stage).explain()
            )
            continue
        if stage in window:
            assert " never left the window: " in said
        elif any(stage in r.removed_stage_ids for r in run.records):
            assert " left the window: " in said
    _check_every_stage(run)
