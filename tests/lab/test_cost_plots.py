"""The cost charts: the cache lens per call, the price per call, and the policy frontier."""

from __future__ import annotations

import pytest

from footprint_lab import sliding_window
from footprint_lab.costs import Pricing, cost_frame
from footprint_lab.lab import capture, evidence_summary, plots
from tests.lab.test_cache_lens import _run
from tests.lab.test_evidence_frame import _hand_made

PRICE = Pricing(
    input_per_mtok=3.0, cached_input_per_mtok=0.3, cache_write_per_mtok=3.75, output_per_mtok=15.0
)


def test_cache_prefix_draws_the_calls_frame_and_marks_removals() -> None:
    run = _run(sliding_window(1))
    frames = capture(run)
    fig = plots.cache_prefix(frames)
    by_name = {t.name: t for t in fig.data}
    calls = frames.calls
    assert list(by_name["cacheable prefix"].y) == calls["prefix_chars"].tolist()
    assert (
        list(by_name["rewritten or new"].y)
        == (calls["request_chars"] - calls["prefix_chars"]).tolist()
    )
    assert list(by_name["prefix share"].y) == calls["prefix_share"].tolist()
    removed = [r.iteration for r in run.records if r.removed_anything]
    assert list(by_name["removal"].x) == removed
    assert all("sliding-window" in text for text in by_name["removal"].hovertext)


def test_cost_per_call_stacks_the_parts_and_marks_estimates() -> None:
    costs = cost_frame(_run(sliding_window(2)), PRICE)
    fig = plots.cost_per_call(costs)
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["cached input"].y) == costs["cached_input_cost"].tolist()
    assert list(by_name["uncached input"].y) == costs["input_cost"].tolist()
    assert set(by_name["output"].customdata) == {"estimated"}  # a scripted run
    assert set(by_name["output"].marker.pattern.shape) == {"/"}
    both = cost_frame({"a": _run(), "b": _run(sliding_window(1))}, PRICE)
    with pytest.raises(ValueError, match="label="):
        plots.cost_per_call(both)
    assert len(plots.cost_per_call(both, label="b").data[0].x) == int((both["label"] == "b").sum())


def test_the_frontier_is_cheapest_for_least_loss() -> None:
    frame = _hand_made()  # cost_ratio = 1 - saved share
    fig = plots.policy_frontier(frame)
    summary = evidence_summary(frame)
    points = [t for t in fig.data if t.name != "Pareto front"]
    xs = [x for t in points for x in t.x]
    assert sorted(xs) == sorted(summary["cost_ratio"].tolist())
    assert sorted(fig.layout.meta["pareto"]) == ["A", "B", "D", "F"]
    assert all("estimated input cost" in h for t in points for h in t.hovertext)
