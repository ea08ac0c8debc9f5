"""The rule that fired at a record is decided and worded in one module (``lab/_record_words``):
the record's sentence and a chart's hover name the same rule, from the record or from its row
of the ``records`` frame."""

from __future__ import annotations

from footprint_lab import Run, WindowRecord
from footprint_lab.lab import _record_words as record_words
from footprint_lab.lab import capture
from footprint_lab.lab.plots import _common as plots_common
from footprint_lab.lab.views import record_rule, record_trigger, rule_fired
from footprint_lab.window import words


def test_the_rule_is_decided_and_worded_in_one_module(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    assert plots_common.record_rule is record_words.record_rule
    kinds = set()
    for run in scenario_runs.values():
        rows = capture(run).records.to_dict("records")
        for record, row in zip(run.records, rows, strict=True):
            # a record and its row of the records frame name the same rule, in the same words
            assert rule_fired(row) == rule_fired(record)
            assert record_rule(row) == record_rule(record)
            assert record_trigger(row) == record_trigger(record)
            assert record_trigger(record) in record_words.record_sentence(record)
            kinds.add(rule_fired(record).kind)
    assert {"tokens", "turns"} <= kinds


def test_a_relative_threshold_over_budget_is_over_in_the_hover_too() -> None:
    row = {
        "strategy": "token-budget",
        "forced": False,
        "measured_tokens": 900,
        "threshold_tokens": 1_000,
        "over_budget": True,  # the output reserve took it over
        "tokens_from": "reported",
    }
    assert record_rule(row) == "rule: 900 tokens > threshold 1,000"
    assert "were over the threshold of 1,000" in record_trigger(row)
    missing = {"strategy": "custom", "measured_tokens": float("nan"), "turns_before": None}
    assert rule_fired(missing).kind == "visited"
    assert record_rule(missing) == "rule: custom engaged"


def test_a_remembered_trigger_is_the_one_worded_afresh(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    # record_trigger remembers a record's words by its facts (a long run's records share them):
    # remembered, first seen or read from the row, the words are the rule's
    words._remembered_trigger.cache_clear()
    for run in scenario_runs.values():
        rows = capture(run).records.to_dict("records")
        for record, row in zip(run.records, rows, strict=True):
            fresh = words.trigger_words(rule_fired(record))
            assert record_trigger(record) == fresh  # first seen, or remembered from another
            assert record_trigger(record) == fresh  # remembered
            assert record_trigger(row) == fresh
    assert words._remembered_trigger.cache_info().hits > 0
    # the key holds every fact the rule reads: a rule reading one more would fail here
    record = next(r for run in scenario_runs.values() for r in run.records)
    facts = words.RULE_FACTS
    assert set(facts) >= {"strategy", "measured_tokens", "turns_before", "server_edits"}
    assert words._remembered_trigger(
        (*(getattr(record, f) for f in facts[:-1]), bool(record.server_edits))
    ) == words.trigger_words(rule_fired(record))


def test_a_record_with_a_fact_that_cannot_be_a_key_is_worded_afresh() -> None:
    record = WindowRecord(
        strategy="custom", iteration=1, window_chars_before=10, window_chars_after=10
    )
    odd = record.model_copy(update={"tokens_from": ["not", "hashable"]})
    assert record_trigger(odd) == words.trigger_words(rule_fired(odd))


def test_a_records_hover_reads_only_the_columns_it_names(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    # the charts convert only the columns a record's hover reads: its words are the same
    for run in scenario_runs.values():
        records = capture(run).records
        full = records.to_dict("records")
        for whole, hover in zip(full, plots_common.record_hover_rows(records), strict=True):
            assert set(hover) <= set(whole)
            assert plots_common.removal_summary(hover) == plots_common.removal_summary(whole)
            assert plots_common.record_lines(hover) == plots_common.record_lines(whole)
