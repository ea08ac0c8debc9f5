"""Widgets without a browser: set the widgets' values, then read the figures' data and HTML."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go
import pytest

from footprint_lab import (
    Agent,
    Reply,
    Run,
    ScriptedProvider,
    StrategyInput,
    StrategyResult,
    WindowConfigError,
    ask_human,
    replay,
    sliding_window,
    token_budget,
    tool,
)
from footprint_lab.importers import from_openai
from footprint_lab.lab import Compare, Inspector, Tuner, capture, key_numbers, plots, progress
from footprint_lab.lab import widgets as lab_widgets
from footprint_lab.lab.render import STYLES
from footprint_lab.lab.views import record_sentence
from footprint_lab.lab.widgets import (
    BOUNDARY_COLUMNS,
    INSPECTOR_TABS,
    LEFT_COLUMNS,
    SUMMARY_COLUMNS,
    default_range,
    refusal_counts,
    update_figure,
)
from footprint_lab.lab.widgets._figures import drawn, figure_widget, show_figure
from footprint_lab.scenarios import deploy_audit, parallel_tools, screen_driver


def _trace(fig: Any, name: str) -> Any:
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, [t.name for t in fig.data]
    return matches[0]


def _col(series: pd.Series) -> list[Any]:
    return [None if pd.isna(v) else v for v in series.tolist()]


def _heat(fig: Any) -> Any:
    """The window map's heatmap (overlay traces may sit on top of it)."""
    (heat,) = [t for t in fig.data if t.type == "heatmap"]
    return heat


def _z(trace: Any) -> list[list[float | None]]:
    return [
        [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in row]
        for row in trace.z
    ]


# -- inspector --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def audit_run() -> Run:
    scenario = deploy_audit()
    return scenario.run(scenario.strategies()["sliding-window"])


@pytest.fixture(scope="module")
def audit_inspector(audit_run: Run) -> Inspector:
    return Inspector(audit_run)


def test_inspector_is_a_box_of_five_tabs_over_the_pure_builders(
    audit_run: Run, audit_inspector: Inspector
) -> None:
    insp = audit_inspector
    assert isinstance(insp, widgets.VBox)
    assert isinstance(insp.tabs, widgets.Tab)
    assert tuple(insp.tabs.titles) == INSPECTOR_TABS
    assert set(insp.figures) == {"window_size", "window_map", "pins", "refusals"}
    assert all(isinstance(f, go.FigureWidget) for f in insp.figures.values())
    frames = capture(audit_run)
    chars = _trace(insp.figures["window_size"], "chars sent")
    assert list(chars.y) == _col(frames.calls["chars"])
    assert list(chars.x) == _col(frames.calls["iteration"])
    assert _z(_heat(insp.figures["window_map"])) == _z(_heat(plots.window_map(frames)))
    assert [t.name for t in insp.figures["window_map"].data] == [
        t.name for t in plots.window_map(frames).data
    ]
    refusals = {t.name: sum(t.y) for t in insp.figures["refusals"].data}
    assert refusals == refusal_counts(frames)


def test_overview_states_the_key_numbers(audit_run: Run, audit_inspector: Inspector) -> None:
    numbers = key_numbers(audit_run)
    assert tuple(numbers) == SUMMARY_COLUMNS
    assert numbers["calls"] == len(audit_run.calls)
    assert numbers["removed_messages"] == sum(r.removed_message_count for r in audit_run.records)
    assert numbers["peak_window_chars"] == max(c.chars for c in audit_run.calls)
    assert numbers["final_window_chars"] == audit_run.calls[-1].chars
    assert numbers["counterfactual"] is False
    overview = audit_inspector.overview_html.value
    for text in ("status", "done", "removed messages", "current-request", "peak chars sent"):
        assert text in overview
    assert f'<td style="{STYLES["cell"]}">{numbers["peak_window_chars"]}</td>' in overview
    assert "Counterfactual" not in overview
    # the window-size chart and the records table sit in the Overview tab
    overview_tab = audit_inspector.tabs.children[0].children
    assert audit_inspector.figures["window_size"] in overview_tab
    assert audit_inspector.records_html in overview_tab
    for record in audit_run.records:
        for stage_id in record.removed_stage_ids:
            assert stage_id in audit_inspector.records_html.value


def test_boundary_shows_exactly_the_window_sent_at_each_iteration(
    audit_run: Run, audit_inspector: Inspector
) -> None:
    insp = audit_inspector
    frames = insp.frames
    for call_index, call in enumerate(audit_run.calls):
        insp.slider.value = call.iteration
        sent = audit_run.window_sent(call_index)
        table = insp.boundary_frame(call.iteration)
        assert tuple(table.columns) == BOUNDARY_COLUMNS
        assert table["stage_id"].tolist() == [m.stage_id for m in sent]
        assert int(table["chars"].sum()) == call.chars
        here = frames.membership[frames.membership["iteration"] == call.iteration]
        states = dict(zip(here["position"], here["state"].astype(str), strict=True))
        assert table["state"].tolist() == [states[p] for p in table["position"]]
        # the pane shows that iteration's BoundaryView: the same messages, in the same states
        (step,) = insp.boundary.iterations
        view = insp.boundary
        assert step.iteration == call.iteration
        assert [view.messages[ref].stage_id for ref, _ in step.window] == table["stage_id"].tolist()
        assert [view.states[code] for _, code in step.window] == table["state"].tolist()
        assert insp.boundary_pane.view == view.model_dump(mode="json")
        assert f"· call {call_index} (calls count from 0):" in step.caption
        assert f"{call.chars} chars sent" in step.caption


def test_boundary_lists_what_left_and_shows_the_record(
    audit_run: Run, audit_inspector: Inspector
) -> None:
    insp = audit_inspector
    for record in audit_run.records:
        insp.slider.value = record.iteration
        left = insp.left_frame(record.iteration)
        assert tuple(left.columns) == LEFT_COLUMNS
        assert set(left["stage_id"]) == set(record.removed_stage_ids)
        assert len(left) == record.removed_message_count
        sent_ids = set(insp.boundary_frame(record.iteration)["stage_id"])
        assert not sent_ids & set(record.removed_stage_ids)
        (step,) = insp.boundary.iterations
        assert [insp.boundary.messages[ref].stage_id for ref, _, _ in step.left] == left[
            "stage_id"
        ].tolist()
        (shown,) = step.records
        assert shown.sentence == record_sentence(record)
        pairs = dict(shown.pairs)
        assert pairs["chars"] == f"{record.window_chars_before} → {record.window_chars_after}"
        for stage_id in record.removed_stage_ids:
            assert stage_id in pairs["removed stage ids"]
        for refusal in record.refusals:
            assert refusal.reason in pairs["refusals"]
    # the request is highlighted as refused wherever a record names it
    first = audit_run.records[0].iteration
    table = insp.boundary_frame(first)
    assert table.loc[0, "state"] == "refused-current-request"
    insp.slider.value = first
    (step,) = insp.boundary.iterations
    assert insp.boundary.states[step.window[0][1]] == "refused-current-request"
    assert insp.boundary.marks["refused-current-request"].startswith("refused, current-request")
    # the d1 log left at iteration 5 and is still in the ledger
    left = insp.left_frame(5)
    d1 = left[left["who"] == "tool read_log"].iloc[0]
    assert audit_run.ledger.message(d1["stage_id"]).content.startswith("DEPLOY d1")


def test_an_iteration_without_a_record_says_so(audit_inspector: Inspector) -> None:
    audit_inspector.slider.value = 1
    (step,) = audit_inspector.boundary.iterations
    assert step.iteration == 1 and step.records == () and step.left == ()
    assert audit_inspector.boundary.no_record == "the strategy did not engage"


def test_pinned_messages_are_highlighted_in_the_boundary() -> None:
    scenario = screen_driver()
    run = scenario.run(sliding_window(keep_recent_turns=2), keep_last_tool_results=2)
    insp = Inspector(run)
    pinned = insp.frames.pins[insp.frames.pins["kind"] == "pinned"]
    row = pinned.iloc[0]
    insp.slider.value = int(row["iteration"])
    table = insp.boundary_frame(int(row["iteration"]))
    states = dict(zip(table["stage_id"], table["state"], strict=True))
    assert states[row["stage_id"]] == "pinned"
    (step,) = insp.boundary.iterations
    assert any("whats_here" in str(dict(r.pairs)["pinned"]) for r in step.records)
    shown = {insp.boundary.messages[ref].stage_id: code for ref, code in step.window}
    assert insp.boundary.states[shown[row["stage_id"]]] == "pinned"
    assert "whats_here" in insp.pins_html.value
    assert {t.name for t in insp.figures["pins"].data} >= {"pinned"}


def test_clicking_the_map_opens_that_boundary(audit_inspector: Inspector) -> None:
    audit_inspector.tabs.selected_index = 0
    audit_inspector._on_click(None, SimpleNamespace(xs=[3]), None)
    assert audit_inspector.slider.value == 3
    assert audit_inspector.tabs.selected_index == INSPECTOR_TABS.index("Boundary")


def test_counterfactual_runs_are_labelled(audit_run: Run) -> None:
    replayed = replay(audit_run, token_budget(threshold_tokens=800, keep_recent_turns=2))
    insp = Inspector(replayed)
    assert key_numbers(replayed)["counterfactual"] is True
    assert "Counterfactual" in insp.overview_html.value
    assert "Counterfactual" in insp.children[0].value


def test_inspector_on_runs_without_strategy_calls_or_to_the_end(audit_run: Run) -> None:
    no_strategy = deploy_audit().run(None)
    insp = Inspector(no_strategy)
    assert insp.boundary.no_record == "the run has no window strategy"
    assert "No refusals" in insp.refusals_html.value

    failed = Agent.create(provider=ScriptedProvider([Reply.fail("boom")])).build().run("hi")
    assert failed.status == "error"
    insp = Inspector(failed)
    assert "boom" in insp.overview_html.value
    assert insp.boundary_frame(1)["stage_id"].tolist() == ["seed#0"]

    @tool
    def lookup(key: str) -> str:
        """Look something up."""
        return f"{key}: " + "value " * 60

    paused = (
        Agent.create(
            provider=ScriptedProvider(
                [
                    Reply.tool_call("lookup", key="a"),
                    Reply.tool_call("ask_human", question="which?"),
                    Reply.text("blue"),
                ]
            )
        )
        .tools(lookup, ask_human)
        .window(sliding_window(keep_recent_turns=1))
        .build()
        .run("pick")
    )
    assert paused.status == "paused"
    insp = Inspector(paused)
    assert insp.numbers["pauses"] == 1
    assert "pauses" in insp.overview_html.value
    insp.slider.value = insp.slider.max
    assert insp.boundary_frame(insp.slider.max)["stage_id"].notna().all()


def test_a_run_with_no_calls_has_a_disabled_slider() -> None:
    run = from_openai([{"role": "user", "content": "hi"}])
    assert not run.calls
    insp = Inspector(run)
    assert insp.slider.disabled
    assert insp.boundary.iterations == () and "no LLM calls" in insp.boundary.no_calls


# -- tuner ------------------------------------------------------------------------------------


def test_moving_a_slider_reruns_and_redraws_in_place() -> None:
    scenario = deploy_audit()
    strategy = scenario.strategies()["sliding-window"]
    tuner = Tuner(scenario, strategy)
    assert tuner.sliders["keep_recent_turns"].value == 3
    size, window_map = tuner.figures["window_size"], tuner.figures["window_map"]
    children = list(tuner.children)
    before = tuner.runs

    tuner.sliders["keep_recent_turns"].value = 1

    assert tuner.runs == before + 1
    expected = capture(scenario.run(strategy.with_knobs(keep_recent_turns=1)))
    assert list(_trace(tuner.figures["window_size"], "chars sent").y) == _col(
        expected.calls["chars"]
    )
    # the same widgets, new data
    assert tuner.figures["window_size"] is size and tuner.figures["window_map"] is window_map
    assert list(tuner.children) == children
    assert _z(_heat(window_map)) == _z(_heat(plots.window_map(expected)))
    assert tuner.config == {"keep_recent_turns": 1, "keep_last_tool_results": 2}
    assert tuner.strategy.knobs() == {"keep_recent_turns": 1}  # type: ignore[attr-defined]
    for record in tuner.run.records:
        for stage_id in record.removed_stage_ids:
            assert stage_id in tuner.records_html.value
    assert "keep_recent_turns=1" in tuner.summary_html.value
    assert "keep_recent_turns=1" in size.layout.title.text


def test_traces_come_and_go_with_the_configuration() -> None:
    scenario = deploy_audit()
    tuner = Tuner(scenario, "token-budget", threshold_tokens=(100, 100_000, 100))
    fig = tuner.figures["window_size"]
    assert {t.name for t in fig.data} >= {"threshold (tokens)", "removal"}
    tuner.set(threshold_tokens=100_000)
    assert tuner.numbers["removals"] == 0
    quiet = plots.window_size(
        capture(scenario.run(token_budget(threshold_tokens=100_000, keep_recent_turns=3)))
    )
    assert [t.name for t in fig.data] == [t.name for t in quiet.data]
    assert "removal" not in {t.name for t in fig.data}
    tuner.set(threshold_tokens=200, keep_recent_turns=1)
    expected = capture(scenario.run(token_budget(threshold_tokens=200, keep_recent_turns=1)))
    removals = expected.records[expected.records["removed_anything"].astype(bool)]
    assert list(_trace(fig, "removal").x) == _col(removals["iteration"])
    assert list(_trace(fig, "chars sent").y) == _col(expected.calls["chars"])
    assert tuner.figures["window_size"] is fig


def test_set_reruns_once() -> None:
    tuner = Tuner("deploy-audit", "token-budget")
    before = tuner.runs
    tuner.set(threshold_tokens=800, keep_recent_turns=2, keep_last_tool_results=0)
    assert tuner.runs == before + 1
    assert tuner.config == {
        "threshold_tokens": 800,
        "keep_recent_turns": 2,
        "keep_last_tool_results": 0,
    }
    assert tuner.run.keep_last_tool_results == 0
    with pytest.raises(ValueError, match="no slider for"):
        tuner.set(nope=1)


def test_the_pin_slider_goes_to_the_run() -> None:
    scenario = screen_driver()
    strategy = sliding_window(keep_recent_turns=2)
    tuner = Tuner(scenario, strategy)
    assert tuner.numbers["pins"] > 0
    tuner.sliders["keep_last_tool_results"].value = 0
    expected = capture(scenario.run(strategy, keep_last_tool_results=0))
    assert tuner.numbers["pins"] == 0
    assert list(_trace(tuner.figures["window_size"], "chars sent").y) == _col(
        expected.calls["chars"]
    )


def test_ranges_and_defaults() -> None:
    scenario = deploy_audit()
    tuner = Tuner(
        scenario,
        scenario.strategies()["token-budget"],
        keep_recent_turns=[1, 5],
        threshold_tokens=(500, 3000, 250),
    )
    krt, thr, pins = (
        tuner.sliders[k]
        for k in ("keep_recent_turns", "threshold_tokens", "keep_last_tool_results")
    )
    assert (krt.min, krt.max, krt.step, krt.value) == (1, 5, 1, 3)
    assert (thr.min, thr.max, thr.step, thr.value) == (500, 3000, 250, 1500)
    assert (pins.min, pins.max, pins.value) == (0, 4, 2)
    assert all(isinstance(s, widgets.IntSlider) for s in tuner.sliders.values())
    assert all(not s.continuous_update for s in tuner.sliders.values())
    assert default_range("keep_recent_turns", 3) == (1, 8, 1)
    assert default_range("threshold_tokens", 1500) == (100, 4500, 100)
    assert default_range("threshold_fraction", 0.8) == (0.05, 1.0, 0.05)
    assert default_range("keep_last_tool_results", 2) == (0, 4, 1)
    with pytest.raises(ValueError, match="not a knob"):
        Tuner(scenario, sliding_window(keep_recent_turns=2), threshold_tokens=(1, 2))
    with pytest.raises(ValueError, match="min, max"):
        Tuner(scenario, sliding_window(keep_recent_turns=2), keep_recent_turns=(1,))
    with pytest.raises(ValueError, match="min <= max"):
        Tuner(scenario, sliding_window(keep_recent_turns=2), keep_recent_turns=(5, 1))


def test_fraction_knobs_get_a_float_slider() -> None:
    strategy = token_budget(threshold_fraction=0.5, reserve_tokens=1000, keep_recent_turns=2)
    with pytest.raises(WindowConfigError, match="no context window"):
        Tuner(deploy_audit(), strategy)  # the scripted provider has no window to take 50% of
    tuner = Tuner(deploy_audit(), strategy, provider_options={"context_window": 4_000})
    assert tuner.run.status == "done" and tuner.numbers["removals"] > 0
    assert isinstance(tuner.sliders["threshold_fraction"], widgets.FloatSlider)
    assert tuner.sliders["threshold_fraction"].value == 0.5
    assert isinstance(tuner.sliders["reserve_tokens"], widgets.IntSlider)
    tuner.sliders["threshold_fraction"].value = 1.0
    assert tuner.config["threshold_fraction"] == 1.0
    assert tuner.strategy.knobs()["threshold_fraction"] == 1.0  # type: ignore[attr-defined]


def test_a_bad_configuration_is_shown_not_run() -> None:
    scenario = deploy_audit()
    tuner = Tuner(scenario, sliding_window(keep_recent_turns=2), keep_recent_turns=(0, 4))
    y = list(tuner.figures["window_size"].data[0].y)
    runs = tuner.runs
    tuner.sliders["keep_recent_turns"].value = 0
    assert isinstance(tuner.error, WindowConfigError)
    assert tuner.runs == runs
    assert "Not run" in tuner.summary_html.value
    assert list(tuner.figures["window_size"].data[0].y) == y
    tuner.sliders["keep_recent_turns"].value = 1
    assert tuner.error is None and tuner.runs == runs + 1


@dataclass
class EveryOther:
    """A custom strategy without knobs(): the Tuner reads its numeric dataclass fields."""

    keep: int = 2
    name: str = "every-other"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        if input.iteration % 2:
            return None
        return input.drop(self.name, input.plan_removal(self.keep))


def test_custom_strategies_tune_through_their_fields() -> None:
    scenario = deploy_audit()
    tuner = Tuner(scenario, EveryOther())
    assert set(tuner.sliders) == {"keep", "keep_last_tool_results"}
    tuner.sliders["keep"].value = 1
    expected = capture(scenario.run(EveryOther(keep=1)))
    assert list(_trace(tuner.figures["window_size"], "chars sent").y) == _col(
        expected.calls["chars"]
    )
    assert all(r.strategy == "every-other" for r in tuner.run.records)

    class Opaque:
        name = "opaque"

        def plan(self, input: StrategyInput) -> None:
            return None

    opaque = Tuner(scenario, Opaque())
    assert set(opaque.sliders) == {"keep_last_tool_results"}


def test_reruns_use_the_quiet_progress_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    assert progress.quiet()  # FOOTPRINT_LAB_QUIET=1 in tests
    made: list[dict[str, Any]] = []

    class Bar:
        def __init__(self, **kw: Any) -> None:
            made.append({"kw": kw, "steps": 0, "closed": False})

        def update(self, n: int = 1) -> None:
            made[-1]["steps"] += n

        def close(self) -> None:
            made[-1]["closed"] = True

    monkeypatch.setattr(lab_widgets.tuner, "progress", lambda **kw: Bar(**kw))
    tuner = Tuner(deploy_audit(), "sliding-window")
    tuner.sliders["keep_recent_turns"].value = 2
    assert len(made) == 2
    assert made[-1]["kw"]["total"] == 3 and made[-1]["steps"] == 3 and made[-1]["closed"]


def test_tuner_prints_nothing_under_pytest(capsys: pytest.CaptureFixture[str]) -> None:
    tuner = Tuner(deploy_audit(), "summarize-oldest")
    tuner.set(keep_recent_turns=1)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


# -- compare ----------------------------------------------------------------------------------


def test_compare_runs_side_by_side() -> None:
    scenario = parallel_tools()
    runs = {label: scenario.run(s) for label, s in scenario.strategies().items()}
    cmp = Compare(runs)
    assert list(cmp.summary.index) == list(runs)
    assert tuple(cmp.summary.columns) == SUMMARY_COLUMNS
    for label, run in runs.items():
        assert cmp.summary.loc[label].to_dict() == key_numbers(run)
        line = _trace(cmp.figures["compare"], label)
        assert list(line.y) == [c.chars for c in run.calls]
        assert _z(_heat(cmp.maps[label])) == _z(_heat(plots.window_map(capture(run))))
        assert html.escape(label) in cmp.summary_html.value
    figure = cmp.figures["compare"]
    cmp.metric.value = "input_tokens"
    assert cmp.figures["compare"] is figure
    for label, run in runs.items():
        line = _trace(figure, label)
        assert list(line.y) == [c.usage.input_tokens for c in run.calls if c.usage]


def test_compare_labels_a_list_and_runs_a_scenario() -> None:
    scenario = deploy_audit()
    a = scenario.run(sliding_window(keep_recent_turns=2))
    b = scenario.run(sliding_window(keep_recent_turns=3))
    cmp = Compare([a, b, replay(a, None)])
    assert list(cmp.runs) == ["sliding-window", "sliding-window (2)", "none (replay)"]
    assert "Counterfactual" in cmp.children[0].value
    made = Compare.from_scenario(scenario, include_none=True)
    assert list(made.runs) == ["none", "sliding-window", "token-budget", "summarize-oldest"]
    assert made.summary.loc["none", "records"] == 0
    with pytest.raises(ValueError, match="at least one run"):
        Compare({})


# -- update_figure ----------------------------------------------------------------------------


def test_update_figure_replaces_data_in_place() -> None:
    first = go.Figure(
        [
            go.Scatter(x=[1, 2], y=[3, 4], name="a", hovertext=["p", "q"]),
            go.Bar(x=[1], y=[1], name="b"),
            go.Scatter(x=[1], y=[1], name="c"),
        ],
        layout={"title": {"text": "one"}, "annotations": [{"text": "note"}]},
    )
    widget = go.FigureWidget(first)
    second = go.Figure([go.Scatter(x=[5], y=[6], name="a2")], layout={"title": {"text": "two"}})
    assert update_figure(widget, second) is widget
    assert len(widget.data) == 1
    assert (list(widget.data[0].x), list(widget.data[0].y)) == ([5], [6])
    assert widget.data[0].name == "a2" and widget.data[0].hovertext is None
    assert widget.layout.title.text == "two" and not widget.layout.annotations
    third = go.Figure([go.Bar(x=[1], y=[2], name="x"), go.Heatmap(z=[[1]], name="y")])
    update_figure(widget, third)
    assert [t.type for t in widget.data] == ["bar", "heatmap"]
    assert [t.name for t in widget.data] == ["x", "y"]


def test_a_chart_whose_view_is_drawing_is_shown_its_latest_figure_once_drawn() -> None:
    # The front-end's part is played here as plotly's view plays it in a page (the Inspector's
    # live run in JupyterLab checks the real one: tests/lab/test_inspector_live_browser.py):
    # a view made adds one to ``_view_count``, a view that has drawn reports its traces.
    widget = figure_widget(go.Figure(go.Bar(y=[1])))
    show_figure(widget, go.Figure(go.Bar(y=[2])))  # no view: at once (a later view draws it)
    assert widget.data[0].y == (2,) and not drawn(widget)
    widget._view_count = 1  # a view is drawing
    done: list[Any] = []
    show_figure(widget, go.Figure(go.Bar(y=[3])), done.append)
    show_figure(widget, go.Figure(go.Scatter(y=[4])), done.append)  # the latest one wins
    assert widget.data[0].type == "bar" and widget.data[0].y == (2,) and done == []
    widget._js2py_traceDeltas = {"trace_deltas": [], "trace_edit_id": -1}  # it has drawn
    assert drawn(widget) and done == [widget]
    assert widget.data[0].type == "scatter" and widget.data[0].y == (4,)
    show_figure(widget, go.Figure(go.Scatter(y=[5])), done.append)  # drawn: at once
    assert widget.data[0].y == (5,) and done == [widget, widget]
    # a figure kept for a view that went away is dropped when a newer one is shown at once
    other = figure_widget(go.Figure(go.Bar(y=[1])))
    other._view_count = 1
    show_figure(other, go.Figure(go.Bar(y=[2])))
    other._view_count = 0  # the view was removed before it drew
    show_figure(other, go.Figure(go.Bar(y=[3])))
    other._view_count = 1
    other._js2py_traceDeltas = {"trace_deltas": [], "trace_edit_id": -1}  # a new view drew
    assert other.data[0].y == (3,)


def test_inspector_marks_lost_evidence_on_replays() -> None:
    from footprint_lab import replay, sliding_window
    from footprint_lab.evidence import calls_of, losses
    from footprint_lab.importers import load_tau_bench

    source = load_tau_bench(Path(__file__).parents[2] / "data" / "tau-bench")[7]
    replayed = replay(source, sliding_window(1), keep_last_tool_results=0)
    lost = losses(replayed)
    assert calls_of(lost) > 0
    inspector = Inspector(replayed)
    assert len(inspector.frames.losses) == len(lost)
    names = [t.name for t in inspector.figures["window_map"].data]
    assert "lost evidence" in names
    assert Inspector(source).frames.losses.empty  # not a replay: not computed by default
