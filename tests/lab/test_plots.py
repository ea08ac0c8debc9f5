"""Figures: trace data equals the frames; WebGL and downsampling above the thresholds."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from footprint_lab import Run
from footprint_lab.lab import Frames, capture, capture_many, plots
from footprint_lab.lab.schema import IN_WINDOW_STATES, MEMBERSHIP_STATES


def _trace(fig: go.Figure, name: str) -> Any:
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, [t.name for t in fig.data]
    return matches[0]


def _num(values: Any) -> list[float | None]:
    return [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in values]


def _col(series: pd.Series) -> list[Any]:
    return [None if pd.isna(v) else v for v in series.tolist()]


@pytest.fixture(scope="module")
def frames_by_label(scenario_runs: dict[tuple[str, str], Run]) -> dict[str, Frames]:
    return {
        label: capture(scenario_runs[("screen-driver", label)], label=label)
        for label in ("none", "sliding-window", "token-budget", "summarize-oldest")
    }


def test_window_size_traces_equal_the_frames(frames_by_label: dict[str, Frames]) -> None:
    frames = frames_by_label["summarize-oldest"]
    fig = plots.window_size(frames)
    chars = _trace(fig, "chars sent")
    assert isinstance(chars, go.Scatter)
    assert list(chars.x) == _col(frames.calls["iteration"])
    assert list(chars.y) == _col(frames.calls["chars"])
    tokens = _trace(fig, "input tokens (reported)")
    assert list(tokens.y) == _col(frames.calls["input_tokens"])
    assert tokens.yaxis == "y2"
    removals = frames.records[frames.records["removed_anything"].astype(bool)]
    marker = _trace(fig, "removal")
    assert list(marker.x) == _col(removals["iteration"])
    assert list(marker.y) == _col(removals["window_chars_after"])
    for text, (_, row) in zip(marker.hovertext, removals.iterrows(), strict=True):
        assert f"removed {row['removed_message_count']} message(s)" in text
        assert str(row["removed_stage_ids"]).split(", ")[0] in text
    threshold = _trace(fig, "threshold (tokens)")
    assert set(threshold.y) == set(_col(frames.records["threshold_tokens"].dropna()))
    assert threshold.yaxis == "y2"


def test_window_size_without_records_or_usage(frames_by_label: dict[str, Frames]) -> None:
    frames = frames_by_label["none"]
    fig = plots.window_size(frames)
    assert {t.name for t in fig.data} == {"chars sent", "input tokens (reported)"}
    empty = plots.window_size(Frames.empty())
    assert list(_trace(empty, "chars sent").x) == []


def test_window_map_cells_equal_membership(frames_by_label: dict[str, Frames]) -> None:
    for frames in frames_by_label.values():
        fig = plots.window_map(frames)
        (heat,) = fig.data
        assert isinstance(heat, go.Heatmap)
        meta = fig.layout.meta
        assert meta["row_stride"] == 1 and meta["col_stride"] == 1
        states = meta["states"]
        assert list(heat.colorbar.ticktext) == states
        assert states == [s for s in MEMBERSHIP_STATES if s in states]  # documented order
        pivot = frames.membership.pivot(index="position", columns="iteration", values="state")
        assert list(heat.x) == [int(c) for c in pivot.columns]
        assert list(heat.y) == [int(i) for i in pivot.index]
        for i, position in enumerate(pivot.index):
            for j, iteration in enumerate(pivot.columns):
                state = pivot.loc[position, iteration]
                value = heat.z[i][j]  # a float array: NaN where nothing was committed yet
                cell = None if np.isnan(value) else int(value)
                if pd.isna(state):
                    assert cell is None, (position, iteration)
                else:
                    assert states[cell] == state, (position, iteration)
        labels = frames.messages["label"].tolist()
        assert list(fig.layout.yaxis.ticktext) == [labels[int(p)] for p in pivot.index]


def test_window_map_of_a_window_form_capture_matches_the_full_form(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    run = scenario_runs[("deploy-audit", "sliding-window")]
    full = plots.window_map(capture(run, membership="full"))
    window = plots.window_map(capture(run, membership="window"))
    assert np.array_equal(full.data[0].z, window.data[0].z, equal_nan=True)
    assert full.layout.meta == window.layout.meta


def test_pins_timeline_traces_equal_the_pins_frame(frames_by_label: dict[str, Frames]) -> None:
    frames = frames_by_label["sliding-window"]
    fig = plots.pins_timeline(frames)
    pins = frames.pins
    pinned = pins[pins["kind"] == "pinned"]
    trace = _trace(fig, "pinned")
    assert list(trace.x) == _col(pinned["iteration"])
    assert list(trace.y) == _col(pinned["tool_name"])
    for kind in ("yielded", "stand-down"):
        rows = pins[pins["kind"] == kind]
        names = [t.name for t in fig.data]
        if len(rows):
            assert list(_trace(fig, kind).x) == _col(rows["iteration"])
        else:
            assert kind not in names
    assert plots.pins_timeline(Frames.empty()).data == ()


def test_pins_timeline_marks_yielded_and_stand_down() -> None:
    frames = Frames.empty()
    from footprint_lab.lab.schema import build_frame

    frames.pins = build_frame(
        "pins",
        {
            "record": [0, 1, 2],
            "iteration": [3, 4, 5],
            "strategy": ["s"] * 3,
            "kind": ["pinned", "yielded", "stand-down"],
            "tool_name": ["focus", None, None],
            "turn_index": [1, None, None],
            "chars": [10, None, None],
            "count": [1, 2, 1],
            "position": [2, None, None],
            "stage_id": ["tool-calls#3", None, None],
        },
    )
    fig = plots.pins_timeline(frames)
    assert list(_trace(fig, "yielded").x) == [4]
    assert list(_trace(fig, "yielded").customdata) == [2]
    assert list(_trace(fig, "stand-down").x) == [5]


def test_refusals_by_reason_bars_equal_the_refusals_frame(
    frames_by_label: dict[str, Frames],
) -> None:
    for frames in frames_by_label.values():
        fig = plots.refusals_by_reason(frames)
        refusals = frames.refusals
        counts = refusals.groupby(["reason", "iteration"]).size()
        assert fig.layout.barmode == "stack"
        assert {t.name for t in fig.data} == set(refusals["reason"])
        for trace in fig.data:
            assert isinstance(trace, go.Bar)
            expected = counts.loc[trace.name]
            assert list(trace.x) == [int(i) for i in expected.index]
            assert list(trace.y) == [int(v) for v in expected.to_numpy()]
        assert sum(sum(t.y) for t in fig.data) == len(refusals)


def test_compare_draws_one_line_per_run(frames_by_label: dict[str, Frames]) -> None:
    fig = plots.compare(frames_by_label)
    assert [t.name for t in fig.data] == list(frames_by_label)
    for trace in fig.data:
        calls = frames_by_label[trace.name].calls
        assert isinstance(trace, go.Scatter)
        assert list(trace.x) == _col(calls["iteration"])
        assert list(trace.y) == _col(calls["chars"])
    stacked = capture_many(frames_by_label)
    again = plots.compare(stacked)
    assert [t.name for t in again.data] == list(frames_by_label)
    assert [list(t.y) for t in again.data] == [list(t.y) for t in fig.data]
    by_calls = plots.compare(stacked.calls, metric="input_tokens")
    assert list(by_calls.data[0].y) == _col(frames_by_label["none"].calls["input_tokens"])
    with pytest.raises(ValueError, match="compare"):
        plots.window_size(stacked)


def test_big_runs_switch_to_webgl_and_stay_light(big_run: Run) -> None:
    frames = capture(big_run)
    assert len(frames.calls) > plots.WEBGL_THRESHOLD
    size = plots.window_size(frames)
    assert all(isinstance(t, go.Scattergl) for t in size.data)
    chars = _trace(size, "chars sent")
    assert np.array_equal(np.asarray(chars.y), frames.calls["chars"].to_numpy(dtype=np.int64))
    assert isinstance(plots.compare({"big": frames}).data[0], go.Scattergl)

    heat_fig = plots.window_map(frames)
    (heat,) = heat_fig.data
    rows, cols = len(heat.y), len(heat.x)
    assert rows <= plots.MAP_MAX_ROWS and cols <= plots.MAP_MAX_COLS
    meta = heat_fig.layout.meta
    assert meta["row_stride"] > 1 and meta["col_stride"] > 1
    assert "dropped" in meta["states"]
    # the diagonal band of the window survives the blocks: each column shows messages sent
    sent_codes = [i for i, s in enumerate(meta["states"]) if s in IN_WINDOW_STATES]
    z = np.array([[np.nan if v is None else v for v in row] for row in heat.z], dtype=float)
    assert all(np.isin(z[:, j], sent_codes).any() for j in range(cols))

    refusals = plots.refusals_by_reason(frames)
    assert refusals.layout.meta["bin_width"] > 1
    assert sum(sum(t.y) for t in refusals.data) == len(frames.refusals)
    assert all(len(t.x) <= plots.BAR_MAX_BINS for t in refusals.data)


def test_small_runs_stay_svg(frames_by_label: dict[str, Frames]) -> None:
    for frames in frames_by_label.values():
        for fig in (plots.window_size(frames), plots.compare({"a": frames})):
            assert not any(isinstance(t, go.Scattergl) for t in fig.data)


def test_every_figure_builds_from_empty_frames() -> None:
    empty = Frames.empty()
    for build in (plots.window_size, plots.window_map, plots.pins_timeline):
        assert isinstance(build(empty), go.Figure)
    assert plots.refusals_by_reason(empty).data == ()
    assert plots.window_map(empty).layout.meta["states"] == []
    assert plots.compare({}).data == ()


def test_the_package_keeps_every_public_name_of_the_module() -> None:
    from footprint_lab.lab.plots import evidence_tradeoff, window_map

    assert window_map is plots.window_map and evidence_tradeoff is plots.evidence_tradeoff
    names = {
        "BAR_MAX_BINS",
        "LabFigure",
        "COUNTERFACTUAL_SUFFIX",
        "LOSS_COLOR",
        "MAP_HOVER_MAX_CELLS",
        "MAP_MAX_COLS",
        "MAP_MAX_ROWS",
        "MAP_TICK_LABEL_MAX_ROWS",
        "PAUSE_COLOR",
        "PAUSE_OFFSET",
        "REASON_COLORS",
        "RUNS_TRACE",
        "STAND_DOWN_ROW",
        "STATE_COLORS",
        "TITLE_BREAK",
        "TITLE_LINE_CHARS",
        "VIOLATION_COLOR",
        "WEBGL_THRESHOLD",
        "YIELDED_ROW",
        "cache_prefix",
        "compare",
        "corpus_frontier",
        "cost_per_call",
        "evidence_tradeoff",
        "fit_title",
        "is_counterfactual",
        "pins_timeline",
        "policy_frontier",
        "refusals_by_reason",
        "removal_summary",
        "run_distributions",
        "runs_by",
        "source_policies",
        "window_map",
        "window_size",
    }
    assert set(plots.__all__) == names
    assert all(hasattr(plots, name) for name in names)
    assert plots.__doc__ and "Layer: lab" in plots.__doc__


def test_token_figures_say_where_they_came_from() -> None:
    """#37 item 3: a replay's tokens that no provider reported are labelled as what they are
    (scaled from the source's own reported ones here), in the chart and the Boundary caption,
    never "reported"."""
    from pathlib import Path

    from footprint_lab import replay, token_budget
    from footprint_lab.importers import load
    from footprint_lab.lab.views import boundary_caption, window_at

    data = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "inspect"
    [run] = load(data / "browser.json")
    replayed = replay(run, token_budget(threshold_tokens=2000, keep_recent_turns=2))
    frames = capture(replayed)
    sources = set(frames.calls["tokens_from"].dropna())
    assert sources == {"scaled"}
    names = [t.name for t in plots.window_size(frames).data]
    assert "input tokens (reported / scaled)" in names
    scaled = frames.calls[frames.calls["tokens_from"] == "scaled"].iloc[0]
    iteration = int(scaled["iteration"])
    window, sent = window_at(replayed, frames, iteration)
    caption = boundary_caption(frames, iteration, window, sent)
    original = run.calls[int(scaled["call"])].usage
    assert original is not None and int(scaled["scaled_from"]) == original.input_tokens
    assert (
        f"{int(scaled['input_tokens']):,} input tokens scaled from the "
        f"{original.input_tokens:,} reported." in caption
    )
    assert caption.count("reported") == 1  # the source's figure, never the scaled one
