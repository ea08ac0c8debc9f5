"""Every frame the lab builds holds to its one spec in ``lab.schema`` (#25 item 5): its columns
in order (knob columns where the spec puts them, named in ``frame.attrs["knobs"]``) and their
dtypes, on a run of the agent and on a real file imported from ``data/``."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from footprint_lab import Run, replay, sliding_window
from footprint_lab.costs import COST_COLUMNS, Pricing, cost_frame
from footprint_lab.importers import load
from footprint_lab.lab import capture
from footprint_lab.lab.evidence import (
    EVIDENCE_COLUMNS,
    EVIDENCE_SUMMARY_COLUMNS,
    evidence_frame,
    evidence_grid,
    evidence_summary,
)
from footprint_lab.lab.report import SUMMARY_TABLE_COLUMNS, _summary_table
from footprint_lab.lab.schema import (
    COLUMN_HEADERS,
    CORPUS_SPECS,
    FRAME_SPECS,
    RESULT_SPECS,
    SPECS,
    build_frame,
    describe,
    knobs_of,
    spec,
)
from footprint_lab.lab.summary import (
    KEY_NUMBER_COLUMNS,
    RUN_SUMMARY_KEYS,
    key_numbers_frame,
    run_summary,
)
from footprint_lab.lab.views import BOUNDARY_COLUMNS, LEFT_COLUMNS, boundary_frame, left_frame
from footprint_lab.scenarios import SCENARIOS
from footprint_lab.sweeps import sweep

REAL = (
    Path(__file__).parents[2]
    / "data"
    / "transcripts"
    / "openhands"
    / "multi-swe-bench-example-1.jsonl"
)
PRICE = Pricing(
    input_per_mtok=1.0, cached_input_per_mtok=0.1, cache_write_per_mtok=1.25, output_per_mtok=4.0
)


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    """A run of the agent (a scenario under its first strategy) and an imported real file."""
    scenario = SCENARIOS["deploy-audit"]()
    [imported] = load(REAL)
    return {
        "agent": scenario.run(next(iter(scenario.strategies().values()))),
        "imported": imported,
    }


def _holds(frame: pd.DataFrame, name: str, knobs: list[str] | None = None) -> None:
    """``frame``'s columns and dtypes are its spec's (knobs where the spec says, by attrs)."""
    frame_spec = spec(name)
    if frame_spec.knobs_after is None:
        assert "knobs" not in frame.attrs, name
        assert list(frame.columns) == list(frame_spec.columns), name
    else:
        assert frame.attrs["knobs"] == knobs, name
        assert list(frame.columns) == frame_spec.order(knobs or []), name
    for column, c in frame_spec.columns.items():
        assert frame[column].dtype == c.dtype, (name, column, frame[column].dtype, c.dtype)


def test_every_spec_is_named_documented_and_headed() -> None:
    assert SPECS == {**FRAME_SPECS, **RESULT_SPECS, **CORPUS_SPECS}
    assert set(CORPUS_SPECS) == {"corpus_runs", "corpus_problems"}
    assert set(RESULT_SPECS) == {
        "evidence",
        "evidence_summary",
        "cost",
        "run_summary",
        "sweep",
        "key_numbers",
        "report_summary",
        "boundary",
        "left",
        "parting",
        "search",
        "window_diff",
        "call_costs",
        "tuner",
    }
    for name, frame_spec in SPECS.items():
        assert frame_spec.name == name and frame_spec.doc.strip(), name
        for column, c in frame_spec.columns.items():
            assert c.doc.strip() and "\n" not in c.doc, (name, column)
            assert frame_spec.header(column).strip(), (name, column)
        assert describe(name)["column"].tolist() == list(frame_spec.columns)


def test_the_old_column_constants_are_read_from_the_specs() -> None:
    assert spec("evidence").dtypes() == EVIDENCE_COLUMNS
    assert tuple(spec("evidence_summary").columns) == EVIDENCE_SUMMARY_COLUMNS
    assert {c: col.doc for c, col in spec("cost").columns.items()} == COST_COLUMNS
    assert tuple(spec("run_summary").columns) == RUN_SUMMARY_KEYS
    assert tuple(spec("key_numbers").columns) == KEY_NUMBER_COLUMNS
    assert spec("report_summary").headers() == SUMMARY_TABLE_COLUMNS
    assert tuple(spec("boundary").columns) == BOUNDARY_COLUMNS
    assert tuple(spec("left").columns) == LEFT_COLUMNS


def test_rendered_headers_come_from_the_specs() -> None:
    for name in ("records", "boundary", "left"):
        for column in SPECS[name].columns:
            assert COLUMN_HEADERS[column] == SPECS[name].header(column), (name, column)
    assert COLUMN_HEADERS["removed_message_count"] == "Messages removed"
    assert COLUMN_HEADERS["index"] == "#" and COLUMN_HEADERS["who"] == "From"


@pytest.mark.parametrize("which", ["agent", "imported"])
def test_capture_cost_and_summary_frames_hold_to_their_specs(
    runs: dict[str, Run], which: str
) -> None:
    run = runs[which]
    frames = capture(run, label=which, evidence=True)
    for name in FRAME_SPECS:
        _holds(frames[name], name)
    _holds(cost_frame(run, PRICE), "cost")
    numbers = run_summary(run)
    assert tuple(numbers) == tuple(spec("run_summary").columns)
    _holds(key_numbers_frame({which: run}), "key_numbers")
    table = _summary_table({which: frames}, {which: run})
    assert table["columns"] == list(SUMMARY_TABLE_COLUMNS.values())


@pytest.mark.parametrize("which", ["agent", "imported"])
def test_boundary_and_left_frames_hold_to_their_specs(runs: dict[str, Run], which: str) -> None:
    replayed = replay(runs[which], sliding_window(1), keep_last_tool_results=0)
    frames = capture(replayed)
    left_at = frames.evictions["iteration"].dropna().astype(int).tolist()
    assert left_at, "the replay removed nothing"
    iteration = left_at[0]
    boundary = boundary_frame(replayed, frames, iteration)
    left = left_frame(replayed, frames, iteration)
    assert len(boundary) and len(left)
    _holds(boundary, "boundary")
    _holds(left, "left")


def test_evidence_frames_name_their_knobs_and_hold_to_their_specs(runs: dict[str, Run]) -> None:
    configs = [
        *evidence_grid(sliding_window, {"keep_recent_turns": [1, 2]}),
        {"label": "k=3 named", "strategy": sliding_window(3), "n": 3, "mode": "x"},
    ]
    frame = evidence_frame(list(runs.values()), configs, progress=False)
    _holds(frame, "evidence", ["keep_recent_turns", "n", "mode"])
    summary = evidence_summary(frame)
    _holds(summary, "evidence_summary", ["keep_recent_turns", "n", "mode"])
    # The summary reads the knobs by name, not by position: a frame whose columns were
    # reordered (knobs moved to the end) summarises the same.
    moved = frame[
        [c for c in frame.columns if c not in ("keep_recent_turns", "n", "mode")]
        + ["mode", "n", "keep_recent_turns"]
    ]
    assert knobs_of(moved, "evidence") == ["keep_recent_turns", "n", "mode"]
    assert evidence_summary(moved).equals(summary)
    # Attributes lost (a file read back): the knobs are the columns the spec does not name.
    bare = frame.copy()
    bare.attrs = {}
    assert knobs_of(bare, "evidence") == ["keep_recent_turns", "n", "mode"]


def test_a_sweep_names_its_grid_keys_and_holds_to_its_spec(runs: dict[str, Run]) -> None:
    grid = {"keep_recent_turns": [1, 3], "keep_last_tool_results": [0, 2]}
    with ThreadPoolExecutor(1) as pool:
        frame = sweep(runs["imported"], sliding_window, grid, pool, progress=False)
    assert len(frame) == 4
    _holds(frame, "sweep", ["keep_recent_turns", "keep_last_tool_results"])
    assert frame["keep_recent_turns"].tolist() == [1, 1, 3, 3]


def test_a_frame_built_off_its_spec_is_refused_and_says_how() -> None:
    with pytest.raises(ValueError, match=r"frame 'left' \(lab.schema\): missing columns"):
        build_frame("left", {"position": [1]})
    columns = {c: [] for c in spec("sweep").columns}
    with pytest.raises(ValueError, match="named like columns of the frame"):
        build_frame("sweep", columns, knobs={"calls": []})
    with pytest.raises(KeyError, match="no frame 'nope'; frames are records"):
        spec("nope")
