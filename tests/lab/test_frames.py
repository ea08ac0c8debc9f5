"""capture(): columns and dtypes, one row per fact, and agreement with the run."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from footprint_lab import (
    Agent,
    Ledger,
    Message,
    Reply,
    Run,
    ScriptedProvider,
    WindowRecord,
    load_run,
    sliding_window,
    token_budget,
    tool,
)
from footprint_lab.lab import Frames, capture, capture_many
from footprint_lab.lab.frames import RECORD_FIELD_COLUMNS
from footprint_lab.lab.schema import MEMBERSHIP_STATES, SCHEMAS, STATE_DTYPE, record_field_dtype
from footprint_lab.scenarios import SCENARIOS
from tests.lab.invariants import as_rows, check_all, check_membership, check_schema

LABELS = ("none", "sliding-window", "token-budget", "summarize-oldest")
CASES = [(name, label) for name in SCENARIOS for label in LABELS]


@pytest.mark.parametrize(("scenario", "label"), CASES, ids=[f"{s}/{lb}" for s, lb in CASES])
def test_frames_agree_with_every_scenario_run(
    scenario_runs: dict[tuple[str, str], Run], scenario: str, label: str
) -> None:
    run = scenario_runs[(scenario, label)]
    frames = capture(run)
    assert frames.membership_mode == "full"
    check_all(run, frames)
    window_form = capture(run, membership="window")
    assert window_form.membership_mode == "window"
    check_membership(run, window_form)


def test_full_and_window_membership_agree_on_shared_rows(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    for key, run in scenario_runs.items():
        full = capture(run, membership="full").membership
        window = capture(run, membership="window").membership
        keys = ["iteration", "position"]
        merged = window.merge(full, on=keys, how="left", suffixes=("", "_full"))
        assert merged["state_full"].notna().all(), key
        assert (merged["state"].astype(str) == merged["state_full"].astype(str)).all(), key
        # the window form holds every in-window row and one row per eviction
        assert int(window["in_window"].sum()) == int(full["in_window"].sum()), key
        out = window[~window["in_window"].astype(bool)]
        assert len(out) == len(capture(run).evictions), key


def test_empty_frames_have_the_documented_columns_and_dtypes() -> None:
    check_schema(Frames.empty())
    for name, schema in SCHEMAS.items():
        assert list(Frames.empty()[name].columns) == list(schema)
    assert STATE_DTYPE.categories.tolist() == list(MEMBERSHIP_STATES)


def test_every_record_field_has_a_column() -> None:
    columns = set(SCHEMAS["records"])
    for name, info in WindowRecord.model_fields.items():
        mapped = RECORD_FIELD_COLUMNS.get(name, (name,))
        assert set(mapped) <= columns, f"WindowRecord.{name} is not captured"
        if record_field_dtype(info.annotation) is not None:  # a scalar field: its own column
            assert name in columns, f"WindowRecord.{name} has no column of its name"
        else:
            assert name in RECORD_FIELD_COLUMNS, f"WindowRecord.{name} is not flattened"


def test_records_flatten_pins_and_observations(scenario_runs: dict[tuple[str, str], Run]) -> None:
    run = scenario_runs[("screen-driver", "sliding-window")]
    frames = capture(run)
    records = frames.records
    for row, rec in zip(records.to_dict("records"), run.records, strict=True):
        obs = rec.observations
        assert obs is not None
        assert row["pins"] == len(obs.pinned)
        assert row["pinned_tools"] == ", ".join(p.tool_name for p in obs.pinned)
        assert row["yielded"] == obs.yielded and row["pin_limit"] == obs.limit
        assert row["stand_down"] == obs.stand_down
        assert row["window_chars_before"] - row["window_chars_after"] == row["chars_removed"]
        assert row["keep_recent_turns"] == rec.keep_recent_turns
    # the whats_here result is held by a pin, and the membership says so
    pins = frames.pins[frames.pins["kind"] == "pinned"]
    assert "whats_here" in set(pins["tool_name"])
    held = pins[pins["tool_name"] == "whats_here"].iloc[0]
    mem = frames.membership
    state = mem[(mem["iteration"] == held["iteration"]) & (mem["position"] == held["position"])]
    assert state["state"].astype(str).tolist() == ["pinned"]
    assert run.ledger.messages[int(held["position"])].name == "whats_here"


def test_no_strategy_run_has_no_records_and_everything_in_window(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    run = scenario_runs[("deploy-audit", "none")]
    frames = capture(run)
    for name in ("records", "refusals", "pins", "evictions"):
        assert frames[name].empty, name
    assert frames.membership["state"].astype(str).eq("in-window").all()
    assert set(frames.messages["left"]) <= {"still-in", "never-sent"}
    # the final answer was never sent; everything before it was
    assert frames.messages["left"].iloc[-1] == "never-sent"
    assert frames.commits["key"].tolist() == [c.key for c in run.ledger.commits]


@tool
def fetch(n: int) -> str:
    """Fetch page n."""
    return f"page {n}: " + "lorem ipsum " * 30


def test_error_run_is_captured_with_its_failed_call() -> None:
    provider = ScriptedProvider(
        [Reply.tool_call("fetch", n=i) for i in range(4)] + [Reply.fail("upstream 500")]
    )
    run = (
        Agent.create(provider=provider, max_iterations=10)
        .tool(fetch)
        .window(sliding_window(keep_recent_turns=2))
        .build()
        .run("read the pages")
    )
    assert run.status == "error"
    frames = capture(run)
    check_all(run, frames)
    last = frames.calls.iloc[-1]
    assert bool(last["failed"]) and pd.isna(last["input_tokens"])
    assert frames.info["status"] == "error" and "upstream 500" in frames.info["error"]


def test_zero_call_runs_capture_to_empty_frames() -> None:
    bare = Run(request="nothing", ledger=Ledger())
    frames = capture(bare)
    check_schema(frames)
    assert all(frames[name].empty for name in SCHEMAS)

    ledger = Ledger()
    seed = ledger.begin_stage("seed")
    ledger.append(seed, [Message.user("only a seed")])
    seeded = Run(request="only a seed", ledger=ledger, status="error")
    frames = capture(seeded)
    check_schema(frames)
    assert len(frames.messages) == 1 and frames.messages["left"].tolist() == ["never-sent"]
    assert frames.membership.empty and frames.calls.empty


@tool
def dump() -> str:
    """A bulky result."""
    return "x" * 2000


def test_forced_visit_and_retry_show_the_retry_window() -> None:
    provider = ScriptedProvider(
        [Reply.tool_call("dump")] * 3 + [Reply.text("done")], context_window=1100
    )
    run = (
        Agent.create(provider=provider, max_iterations=6, keep_last_tool_results=0)
        .tool(dump)
        .window(token_budget(100_000, keep_recent_turns=1))
        .build()
        .run("go")
    )
    assert run.status == "done", run.error
    frames = capture(run)
    check_all(run, frames)
    retry = frames.calls[frames.calls["retry"].astype(bool)]
    assert len(retry) == 1
    k = int(retry["iteration"].iloc[0])
    assert set(frames.membership[frames.membership["iteration"] == k]["call"]) == {
        int(retry["call"].iloc[0])
    }
    assert frames.evictions["forced"].astype(bool).all()
    assert frames.records["forced"].astype(bool).tolist() == [r.forced for r in run.records]


def test_summarized_messages_are_folded(scenario_runs: dict[tuple[str, str], Run]) -> None:
    run = scenario_runs[("deploy-audit", "summarize-oldest")]
    frames = capture(run)
    assert (frames.evictions["how"] == "summarized").all() and len(frames.evictions)
    assert set(frames.messages[frames.messages["left"] == "summarized"]["position"]) == set(
        frames.evictions["position"]
    )
    states = set(frames.membership["state"].astype(str))
    assert {"folded", "frame"} <= states
    assert frames.messages["authored"].eq("compaction-frame").sum() >= 1


def test_capture_many_stacks_runs_with_a_run_column(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    runs = {
        label: scenario_runs[("deploy-audit", label)]
        for label in ("none", "sliding-window", "summarize-oldest")
    }
    many = capture_many(runs)
    singles = {label: capture(run) for label, run in runs.items()}
    for name, schema in SCHEMAS.items():
        frame = many[name]
        assert list(frame.columns) == ["run", *schema], name
        assert frame["run"].dtype == "string"
        assert len(frame) == sum(len(f[name]) for f in singles.values())
        for col, dtype in schema.items():
            assert frame[col].dtype == dtype, (name, col)
    assert many.records["run"].unique().tolist() == ["sliding-window", "summarize-oldest"]
    assert many.info["runs"] == list(runs)
    # already-captured frames are accepted as they are
    again = capture_many(singles)
    assert as_rows(again.records) == as_rows(many.records)
    check_schema(Frames.empty())
    empty = capture_many({})
    assert empty.records.columns[0] == "run" and empty.records.empty


def test_to_parquet_round_trips(scenario_runs: dict[tuple[str, str], Run], tmp_path: Path) -> None:
    frames = capture(scenario_runs[("screen-driver", "summarize-oldest")])
    paths = frames.to_parquet(tmp_path / "frames")
    assert sorted(p.name for p in paths) == sorted(f"{n}.parquet" for n in SCHEMAS)
    for name in SCHEMAS:
        back = pd.read_parquet(tmp_path / "frames" / f"{name}.parquet")
        assert list(back.columns) == list(SCHEMAS[name])
        assert as_rows(back) == as_rows(frames[name]), name


def test_a_saved_and_loaded_run_captures_the_same(
    scenario_runs: dict[tuple[str, str], Run], tmp_path: Path
) -> None:
    run = scenario_runs[("screen-driver", "sliding-window")]
    path = run.save(tmp_path / "run.json")
    loaded = load_run(path)
    a, b = capture(run), capture(loaded)
    check_all(loaded, b)
    for name in SCHEMAS:
        assert as_rows(a[name]) == as_rows(b[name]), name


def test_a_big_run_switches_to_the_window_form_and_stays_exact(big_run: Run) -> None:
    # Its speed is measured in bench/ (lab cost), never asserted here.
    frames = capture(big_run)
    assert frames.membership_mode == "window"  # the full form would be quadratic
    assert len(frames.records) == len(big_run.records)
    assert len(frames.calls) == big_run.iterations
    check_all(big_run, frames)


def _as_saved_before_records_named_identity(run: Run, folder: Path) -> Run:
    """``run`` saved as files were before records named their commit and stage ids (all
    null, and no checksum), then loaded: the loader reads the commits back from the ledger."""
    data = json.loads(run.save(folder / "run.json").read_text())
    data.pop("checksum")

    def unnamed(record: dict[str, Any]) -> None:
        record["commit"] = None
        for refusal in record["refusals"]:
            refusal["stage_id"] = None
        for pin in (record["observations"] or {}).get("pinned", []):
            pin["stage_id"] = None

    for record in data["records"]:
        unnamed(record)
    for commit in data["ledger"]["commits"]:
        if commit["key"] == "record":
            unnamed(commit["value"])
    path = folder / "legacy.json"
    path.write_text(json.dumps(data))
    return load_run(path, verify=False)


def test_identity_comes_from_the_records(scenario_runs: dict[tuple[str, str], Run]) -> None:
    run = scenario_runs[("screen-driver", "sliding-window")]
    frames = capture(run)
    assert frames.records["commit"].tolist() == [r.commit for r in run.records]
    assert frames.refusals["stage_id"].tolist() == [
        ref.stage_id for r in run.records for ref in r.refusals
    ]
    pinned = frames.pins[frames.pins["kind"] == "pinned"]
    assert pinned["stage_id"].tolist() == [
        p.stage_id for r in run.records if r.observations for p in r.observations.pinned
    ]
    for pos, sid in zip(pinned["position"], pinned["stage_id"], strict=True):
        assert run.ledger.messages[int(pos)].stage_id == sid
    # capture takes the record's word for it: a refusal naming another stage shows that stage
    first = next(j for j, r in enumerate(run.records) if r.refusals)
    rec = run.records[first]
    marked = rec.model_copy(
        update={"refusals": [rec.refusals[0].model_copy(update={"stage_id": "marker#0"})]}
    )
    records = [*run.records[:first], marked, *run.records[first + 1 :]]
    refusals = capture(dataclasses.replace(run, records=records)).refusals
    assert refusals[refusals["record"] == first]["stage_id"].tolist() == ["marker#0"]


@pytest.mark.parametrize(
    "key",
    [
        ("screen-driver", "sliding-window"),
        ("deploy-audit", "summarize-oldest"),
        ("parallel-tools", "token-budget"),
    ],
)
def test_records_saved_before_they_named_their_identity_capture_the_same(
    scenario_runs: dict[tuple[str, str], Run], key: tuple[str, str], tmp_path: Path
) -> None:
    run = scenario_runs[key]
    legacy = _as_saved_before_records_named_identity(run, tmp_path)
    assert [r.commit for r in legacy.records] == [r.commit for r in run.records]
    a, b = capture(run), capture(legacy)
    check_all(legacy, b)
    for name in SCHEMAS:
        assert as_rows(a[name]) == as_rows(b[name]), name


def test_the_capture_context_reads_each_list_and_the_events_once(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    # several frames read the messages' texts and the events: the context converts each list
    # and groups the events once, into what each frame would have made of them itself
    from footprint_lab.lab._frames.context import build_context

    for run in scenario_runs.values():
        ctx = build_context(run)
        for name in ("stage_ids", "roles", "tool_names", "authored"):
            texts = ctx.texts(name)
            assert texts is ctx.texts(name)
            fresh = pd.array(getattr(ctx, name), dtype="string")
            assert pd.Series(texts).equals(pd.Series(fresh)), name
        by_type = ctx.events_by_type
        assert by_type is ctx.events_by_type
        assert sum(len(events) for events in by_type.values()) == len(run.events)
        for kind, events in by_type.items():
            assert events == [e for e in run.events if e.type == kind]
