"""The rule that fired at a record is decided and worded in one module (``lab/_record_words``):
the record's sentence and a chart's hover name the same rule, from the record or from its row
of the ``records`` frame."""

from __future__ import annotations

from footprint_lab import Run
from footprint_lab.lab import _record_words as record_words
from footprint_lab.lab import capture
from footprint_lab.lab.plots import _common as plots_common
from footprint_lab.lab.views import record_rule, record_trigger, rule_fired


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
