"""Sweeps: one row per configuration, equal to running each configuration alone."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pandas as pd
import pytest

from footprint_lab import sliding_window, sweep, token_budget
from footprint_lab.lab.schema import build_frame, spec
from footprint_lab.scenarios import deploy_audit, screen_driver
from footprint_lab.sweeps import configuration_row, summarize_run

GRID = {"keep_recent_turns": [1, 2, 3], "keep_last_tool_results": [0, 1, 2]}


def _alone(source: Any, factory: Any) -> pd.DataFrame:
    """The sweep's frame, each configuration run alone in this process (built to the spec)."""
    configs = [
        {"keep_recent_turns": keep, "keep_last_tool_results": pins}
        for keep in GRID["keep_recent_turns"]
        for pins in GRID["keep_last_tool_results"]
    ]
    rows = [configuration_row(source, factory, config) for config in configs]
    return build_frame(
        "sweep",
        {c: [row[c] for row in rows] for c in spec("sweep").columns},
        knobs={k: [config[k] for config in configs] for k in GRID},
    )


def test_scenario_sweep_on_the_default_process_pool() -> None:
    scenario = screen_driver()
    frame = sweep(scenario, lambda keep_recent_turns: sliding_window(keep_recent_turns), GRID)
    assert len(frame) == 9
    assert list(frame.columns[:2]) == ["keep_recent_turns", "keep_last_tool_results"]
    pd.testing.assert_frame_equal(
        frame, _alone(scenario, lambda keep_recent_turns: sliding_window(keep_recent_turns))
    )
    # Pins matter on this story: with them, fewer removals can be made at keep=1.
    assert frame["pins"].max() > 0 and (frame[frame.keep_last_tool_results == 0]["pins"] == 0).all()
    # Every row is priced against the same no-policy run; trimming rewrites the prefix.
    assert frame["baseline_input_cost"].nunique() == 1
    assert frame["cache_share"].between(0, 1).all() and (frame["cost_ratio"] > 0).all()


def test_a_configuration_that_never_trims_costs_what_no_policy_costs() -> None:
    scenario = screen_driver()
    row = configuration_row(scenario, lambda: sliding_window(1000), {})
    assert row["removals"] == 0
    assert row["cost_ratio"] == pytest.approx(1.0)


def test_replay_sweep_of_a_recorded_run() -> None:
    recorded = deploy_audit().run(None)

    def factory(keep_recent_turns: int) -> Any:
        return token_budget(600, keep_recent_turns=keep_recent_turns)

    with ThreadPoolExecutor(max_workers=2) as pool:
        frame = sweep(recorded, factory, GRID, executor=pool)
    pd.testing.assert_frame_equal(frame, _alone(recorded, factory))
    assert (frame["peak_window_chars"] <= summarize_run(recorded)["peak_window_chars"]).all()


def test_sweep_on_a_dask_local_cluster() -> None:
    import distributed  # the dask extra is part of dev: a missing install must fail here

    scenario = deploy_audit()

    def factory(keep_recent_turns: int) -> Any:
        return sliding_window(keep_recent_turns)

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        frame = sweep(scenario, factory, GRID, executor=client.get_executor())
    pd.testing.assert_frame_equal(frame, _alone(scenario, factory))


def test_bad_grid_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="must be a list"):
        sweep(deploy_audit(), sliding_window, {"keep_recent_turns": 3})  # type: ignore[dict-item]
