"""The Tuner on your own runs: recorded, saved and loaded, imported from a real file, several at
once, and scenarios; a strategy by function, either spelling of its name, or instance; the
readouts of a setting against what cost_frame and losses compute for it directly; the frontier
pane's clicks; the pin knob's one name in the charts; titles that fit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from plotly.callbacks import Points

from footprint_lab import Run, load_run, replay, sliding_window, token_budget
from footprint_lab.evidence import calls_of, dependencies, losses
from footprint_lab.importers import load, load_tau_bench
from footprint_lab.lab import Tuner, capture, evidence_frame, plots
from footprint_lab.lab.costs import Pricing, cost_frame
from footprint_lab.lab.plots import TITLE_BREAK, TITLE_LINE_CHARS, fit_title
from footprint_lab.lab.schema import spec
from footprint_lab.lab.views import record_sentence
from footprint_lab.lab.widgets._tuner_frontier import CURRENT, grid_values
from footprint_lab.scenarios import deploy_audit, screen_driver
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies import SHIPPED_STRATEGIES, strategy_key

DATA = Path(__file__).resolve().parents[2] / "data"
OPENHANDS = DATA / "transcripts" / "openhands" / "multi-swe-bench-example-1.jsonl"
TAU_BENCH = DATA / "tau-bench" / "gpt-4o-airline-dev.json"
PRICE = Pricing(
    input_per_mtok=2.5, cached_input_per_mtok=1.25, cache_write_per_mtok=2.5, output_per_mtok=10
)


@pytest.fixture(scope="module")
def imported() -> Run:
    (run,) = load(OPENHANDS)
    return run


@pytest.fixture(scope="module")
def tau_runs() -> list[Run]:
    return load_tau_bench(TAU_BENCH)[:3]


def _trace(fig: Any, name: str) -> Any:
    return next(t for t in fig.data if t.name == name)


def _input_cost(frame: Any) -> float:
    return float(frame[["input_cost", "cached_input_cost", "cache_write_cost"]].to_numpy().sum())


def _expected(source: Run, strategy: Any, pins: int, pricing: Pricing) -> dict[str, Any]:
    """The readouts of one setting, computed directly: replay, capture, cost_frame, losses."""
    replayed = replay(source, strategy, keep_last_tool_results=pins)
    baseline = replay(source, None, keep_last_tool_results=0)
    costs = cost_frame(capture(replayed), pricing, cache="prefix")
    base = cost_frame(capture(baseline), pricing, cache="prefix")
    deps = dependencies(replayed)
    return {
        "replayed": replayed,
        "input_cost": _input_cost(costs),
        "baseline_input_cost": _input_cost(base),
        "cache_share": costs["prefix_chars"].sum() / costs["request_chars"].sum(),
        "dependent_calls": calls_of(deps),
        "lost_calls": calls_of(losses(replayed, deps)),
        "removed_messages": sum(r.removed_message_count for r in replayed.records),
    }


def _assert_readouts(tuner: Tuner, row: int, expected: dict[str, Any]) -> None:
    got = tuner.summary.iloc[row]
    assert got["input_cost"] == pytest.approx(expected["input_cost"])
    assert got["baseline_input_cost"] == pytest.approx(expected["baseline_input_cost"])
    assert got["cost_ratio"] == pytest.approx(
        expected["input_cost"] / expected["baseline_input_cost"]
    )
    assert got["cache_share"] == pytest.approx(expected["cache_share"])
    assert got["dependent_calls"] == expected["dependent_calls"]
    assert got["lost_calls"] == expected["lost_calls"]
    assert got["removed_messages"] == expected["removed_messages"]


# -- sources -----------------------------------------------------------------------------------


def test_a_tuner_on_an_imported_real_run_replays_it_and_its_readouts_are_the_direct_ones(
    imported: Run,
) -> None:
    tuner = Tuner(imported, "sliding-window", pricing=PRICE, frontier=False)
    assert tuner.scenario is None and tuner.run.origin.kind == "replay"
    assert "counterfactual" in tuner.header.value.lower()  # the heading says it is a replay
    assert tuner.config == {"keep_recent_turns": 6, "keep_last_tool_results": 2}
    size = tuner.figures["window_size"]
    tuner.set(keep_recent_turns=2, keep_last_tool_results=1)
    assert tuner.figures["window_size"] is size  # redrawn in place
    expected = _expected(imported, sliding_window(2), 1, PRICE)
    replayed = expected["replayed"]
    assert [c.chars for c in tuner.run.calls] == [c.chars for c in replayed.calls]
    assert list(_trace(size, "chars sent").y) == [c.chars for c in replayed.calls]
    _assert_readouts(tuner, 0, expected)
    totals = tuner.readouts
    assert totals.lost_calls == expected["lost_calls"]
    assert totals.removed_messages == expected["removed_messages"] > 0
    # the records in words are record_sentence's, shown in the words pane
    assert tuner.sentences == [record_sentence(r) for r in replayed.records]
    assert tuner.sentences[0] in tuner.words_html.value.replace("&#39;", "'")
    assert tuner.latency_ms is not None and tuner.latency_ms > 0
    assert "ms" in tuner.latency_html.value
    assert f"{expected['removed_messages']:,}" in tuner.readouts_html.value


def test_a_recorded_run_and_the_same_run_saved_and_loaded_tune_alike(tmp_path: Path) -> None:
    scenario = deploy_audit()
    recorded = scenario.run(scenario.strategies()["token-budget"])
    path = tmp_path / "run.json"
    recorded.save(path)
    loaded = load_run(path)
    live = Tuner(recorded, token_budget, frontier=False)
    saved = Tuner(loaded, token_budget, frontier=False)
    for tuner in (live, saved):
        tuner.set(threshold_tokens=900, keep_recent_turns=2)
    assert live.config == saved.config
    assert [c.chars for c in live.run.calls] == [c.chars for c in saved.run.calls]
    assert live.summary.drop(columns="run").equals(saved.summary.drop(columns="run"))
    strategy = live.strategy
    _assert_readouts(live, 0, _expected(recorded, strategy, 2, live.pricing))


def test_a_list_of_runs_sums_the_readouts_and_shows_one_run_at_a_time(
    tau_runs: list[Run],
) -> None:
    tuner = Tuner(tau_runs, "sliding_window", frontier=False, keep_recent_turns=(1, 8))
    tuner.set(keep_recent_turns=3)
    labels = [r.meta["label"] for r in tau_runs]
    assert tuner.summary["run"].tolist() == labels
    assert list(tuner.summary.columns[:3]) == ["run", "strategy", "keep_recent_turns"]
    for i, run in enumerate(tau_runs):
        _assert_readouts(tuner, i, _expected(run, sliding_window(3), 2, tuner.pricing))
    assert tuner.readouts.lost_calls == int(tuner.summary["lost_calls"].sum())
    assert tuner.readouts.input_cost == pytest.approx(tuner.summary["input_cost"].sum())
    # the readouts are evidence_frame's numbers for the same setting (the frontier's too)
    frame = evidence_frame(
        tau_runs,
        [{"label": "k3", "strategy": sliding_window(3), "keep_last_tool_results": 2}],
        progress=False,
    )
    assert tuner.summary["cost_ratio"].tolist() == pytest.approx(frame["cost_ratio"].tolist())
    assert tuner.summary["lost_calls"].tolist() == frame["lost_calls"].tolist()
    # the charts show the chosen run; choosing another redraws without re-running
    runs = tuner.runs
    tuner.shown.value = labels[1]
    assert tuner.runs == runs and tuner.run is tuner.setting_runs[labels[1]]
    assert labels[1] in tuner.figures["window_map"].layout.title.text
    assert tuner.shown in tuner.children


def test_a_mapping_of_runs_keeps_its_labels(tau_runs: list[Run]) -> None:
    tuner = Tuner({"a": tau_runs[0], "b": tau_runs[1]}, "token-budget", frontier=False)
    assert tuner.summary["run"].tolist() == ["a", "b"]
    assert tuner.title == "Tuner — 2 runs · token-budget"


def test_a_scenario_still_runs_live() -> None:
    scenario = screen_driver()
    tuner = Tuner(scenario, "sliding_window", frontier=False)
    assert tuner.base is not None and tuner.scenario is scenario
    assert tuner.run.origin.kind != "replay"
    assert "counterfactual" not in tuner.header.value.lower()
    tuner.set(keep_recent_turns=1)
    expected = capture(scenario.run(sliding_window(keep_recent_turns=1)))
    assert list(_trace(tuner.figures["window_size"], "chars sent").y) == [
        int(c) for c in expected.calls["chars"]
    ]


# -- the strategy ------------------------------------------------------------------------------


def test_every_spelling_of_a_strategy_gives_the_same_one(imported: Run) -> None:
    tuners = [
        Tuner(imported, spelling, frontier=False)
        for spelling in (token_budget, "token_budget", "token-budget", "Token-Budget")
    ]
    knobs = [t.base.knobs() for t in tuners]  # type: ignore[attr-defined]
    assert all(k == knobs[0] for k in knobs) and knobs[0]["threshold_tokens"] > 0
    instance = Tuner(imported, token_budget(threshold_tokens=500, keep_recent_turns=2))
    assert instance.config["threshold_tokens"] == 500
    # on a scenario, a name or a function is the scenario's own strategy of that name
    scenario = deploy_audit()
    shipped = scenario.strategies()["token-budget"].knobs()  # type: ignore[attr-defined]
    for spelling in (token_budget, "token_budget", "token-budget"):
        tuner = Tuner(scenario, spelling, frontier=False)
        assert tuner.base.knobs() == shipped  # type: ignore[attr-defined]
    assert {strategy_key(k.replace("-", "_")) for k in SHIPPED_STRATEGIES} == set(
        SHIPPED_STRATEGIES
    )


def test_a_strategy_that_is_none_of_them_is_refused_clearly(imported: Run) -> None:
    with pytest.raises(ValueError, match="the shipped ones are sliding-window"):
        Tuner(imported, "keep_it_all")
    with pytest.raises(ValueError, match="deploy-audit has no strategy 'nope'"):
        Tuner(deploy_audit(), "nope")
    with pytest.raises(TypeError, match="not a strategy"):
        Tuner(imported, lambda: 42)
    with pytest.raises(TypeError, match="Tuner takes a Scenario"):
        Tuner(42, "sliding-window")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="provider_options"):
        Tuner(imported, "sliding-window", provider_options={"context_window": 1})
    with pytest.raises(WindowConfigError, match="keep_recent_turns"):  # the first setting
        Tuner(imported, "sliding-window", keep_recent_turns=(0, 3), values={"keep_recent_turns": 0})


# -- the frontier ------------------------------------------------------------------------------


def test_clicking_a_frontier_point_sets_the_sliders_to_its_setting(imported: Run) -> None:
    tuner = Tuner(
        imported, "sliding-window", keep_recent_turns=(1, 9), keep_last_tool_results=(0, 2)
    )
    assert tuner.frontier is not None
    summary = tuner.frontier.summary
    # the grid of the sliders' values: 3 keep windows x 3 pin limits
    assert len(summary) == 9
    assert set(summary["keep_recent_turns"]) == {1, 5, 9}
    assert set(summary["keep_last_tool_results"]) == {0, 1, 2}
    fig = tuner.figures["frontier"]
    points = next(t for t in fig.data if t.customdata is not None and t.name != "Pareto front")
    label = str(points.customdata[0])
    setting = tuner.frontier.settings[label]
    runs = tuner.runs
    tuner.on_frontier_click(points, Points(point_inds=[0], trace_name=points.name))
    assert tuner.runs == runs + 1  # one re-run for the whole setting
    assert tuner.config == setting
    assert {n: s.value for n, s in tuner.sliders.items()} == setting
    # the current-setting marker sits where the readouts put the setting: on the clicked point
    current = _trace(fig, CURRENT)
    row = summary[summary["config"] == label].iloc[0]
    assert current.x[0] == pytest.approx(row["cost_ratio"])
    assert current.y[0] == pytest.approx(row["lost_share"])
    # a click on the marker is no setting: nothing happens
    tuner.on_frontier_click(current, Points(point_inds=[0], trace_name=CURRENT))
    assert tuner.runs == runs + 1


def test_settings_the_strategy_refuses_are_left_off_the_frontier() -> None:
    tuner = Tuner(deploy_audit(), sliding_window(keep_recent_turns=2), keep_recent_turns=(0, 4))
    assert tuner.frontier is not None
    assert set(tuner.frontier.refused) == {
        f"keep_recent_turns=0 keep_last_tool_results={p}" for p in (0, 2, 4)
    }
    assert 0 not in set(tuner.frontier.summary["keep_recent_turns"])


# -- names and titles --------------------------------------------------------------------------


def test_the_charts_name_the_pin_knob_keep_last_tool_results(imported: Run) -> None:
    tuner = Tuner(imported, "sliding-window", frontier=False)
    tuner.set(keep_last_tool_results=1)
    for name in ("window_size", "window_map"):
        text = tuner.figures[name].layout.title.text.replace(TITLE_BREAK, " ")
        assert "keep_last_tool_results=1" in text, text
        assert "pins=" not in text
    assert "keep_last_tool_results=1" in tuner.summary_html.value
    assert "pins=" not in tuner.summary_html.value


def test_a_long_window_map_title_is_broken_to_fit_and_keeps_every_word(imported: Run) -> None:
    tuner = Tuner(
        imported, token_budget(threshold_tokens=2_000, keep_recent_turns=3), frontier=False
    )
    fig = tuner.figures["window_map"]
    lines = fig.layout.title.text.split(TITLE_BREAK)
    assert len(lines) > 1
    assert all(len(line) <= TITLE_LINE_CHARS for line in lines)
    assert fig.layout.margin.t >= 64 + 22 * (len(lines) - 1)  # room for every line
    plain = plots.window_map(tuner.frames).layout.title.text
    assert plain == fig.layout.title.text
    assert " ".join(lines).startswith("Window map — ")
    assert "counterfactual replay" in " ".join(lines)


@given(st.lists(st.text(alphabet="ab =—", min_size=1, max_size=30), min_size=1, max_size=12))
def test_fit_title_only_breaks_between_words(words: list[str]) -> None:
    title = " ".join(words)
    lines = fit_title(title, width=20)
    assert " ".join(lines) == title  # nothing lost, nothing added
    for line in lines:
        assert len(line) <= 20 or " " not in line.strip()  # longer only as one word


@given(
    st.integers(min_value=0, max_value=50),
    st.integers(min_value=0, max_value=200),
    st.integers(min_value=1, max_value=7),
    st.integers(min_value=1, max_value=6),
)
def test_grid_values_span_the_range_on_its_steps(low: int, span: int, step: int, n: int) -> None:
    high = low + span
    values = grid_values(low, high, step, n)
    assert values[0] == low and len(values) <= n
    assert all(low <= v <= high and (v - low) % step == 0 for v in values)
    assert values == sorted(set(values))
    if n > 1:
        assert values[-1] == low + (span // step) * step  # the last step inside the range


def test_the_summary_is_the_tuner_frame(imported: Run) -> None:
    tuner = Tuner(imported, "token_budget", frontier=False)
    summary = tuner.summary
    knobs = summary.attrs["knobs"]
    assert knobs == ["threshold_tokens", "keep_recent_turns"]
    assert [c for c in summary.columns if c not in knobs] == list(spec("tuner").columns)
    assert summary["strategy"].tolist() == ["token-budget"]
    assert summary["cost_ratio"].iloc[0] == pytest.approx(tuner.readouts.cost_ratio)


def test_fit_title_keeps_a_parenthesis_whole() -> None:
    title = "Evidence trade-off — 6 configurations × 1 runs" + plots.COUNTERFACTUAL_SUFFIX
    lines = fit_title(title, width=50)
    assert lines == ["Evidence trade-off — 6 configurations × 1 runs", "(counterfactual replay)"]
    assert " ".join(lines).endswith(plots.COUNTERFACTUAL_SUFFIX)
