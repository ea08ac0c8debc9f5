"""Charts people can read: legends clear of titles (measured in a browser), identical series
told apart, round ticks on the token axis, visible refusal bars on long runs, and hovers that
name the record, the rule that fired and the refusals in the glossary's words."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from footprint_lab import Run, audit, load, replay, sliding_window
from footprint_lab.auditing import keep_last_messages
from footprint_lab.importers import from_openai
from footprint_lab.lab import Frames, capture, plots
from footprint_lab.lab.plots._common import nice_step, removal_summary, round_ticks
from footprint_lab.lab.plots._hiding import IDENTICAL_DASHES, distinguish_identical, hidden_lines
from footprint_lab.lab.schema import SCHEMAS, build_frame
from footprint_lab.lab.views import REFUSAL_MEANINGS
from footprint_lab.scenarios import SCENARIOS
from tests.builders import EVIDENCE_TRANSCRIPT

PLOT_PX = 900
"""About how wide a chart's plot area is in a notebook or the report."""


TRANSCRIPTS = Path(__file__).resolve().parents[2] / "data" / "transcripts"
"""Every stack's real transcripts, each in its folder."""


def _trace(fig: go.Figure, name: str) -> Any:
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, [t.name for t in fig.data]
    return matches[0]


def _is_round(step: float) -> bool:
    """1, 2 or 5 x 10^k."""
    power = 10 ** math.floor(math.log10(step))
    return any(math.isclose(step, m * power) for m in (1, 2, 5))


@pytest.fixture(scope="module")
def by_label(scenario_runs: dict[tuple[str, str], Run]) -> dict[str, Frames]:
    return {
        label: capture(scenario_runs[("screen-driver", label)], label=label)
        for label in ("none", "sliding-window", "token-budget", "summarize-oldest")
    }


_DEFAULTS = {"Int64": 0, "boolean": False, "string": "", "float64": 0.0}


def _frame(name: str, rows: int, **given: list[Any]) -> pd.DataFrame:
    """A frame of schema ``name`` with ``rows`` rows: the ``given`` columns, every other one
    filled with its dtype's zero (so the test follows the schema as it grows)."""
    return build_frame(
        name,
        {
            column: given.get(column, [_DEFAULTS.get(str(dtype))] * rows)
            for column, dtype in SCHEMAS[name].items()
        },
    )


def _long_sparse_frames(iterations: int = 1000, at: tuple[int, ...] = (400, 401, 999)) -> Frames:
    """A run of ``iterations`` calls whose strategy refused on only ``len(at)`` visits."""
    n = len(at)
    calls = _frame(
        "calls",
        iterations,
        call=list(range(iterations)),
        iteration=list(range(1, iterations + 1)),
        chars=[100] * iterations,
        input_tokens=[10] * iterations,
        reported=[True] * iterations,
    )
    refusals = _frame(
        "refusals",
        n,
        record=list(range(n)),
        iteration=list(at),
        strategy=["sliding-window"] * n,
        reason=["current-request"] * n,
    )
    return Frames.of({"calls": calls, "refusals": refusals}, info={"label": "long"})


# -- legends and titles ------------------------------------------------------------------------


def _every_builder(by_label: dict[str, Frames]) -> dict[str, go.Figure]:
    frames = by_label["summarize-oldest"]
    summary = pd.DataFrame(
        {
            "config": ["no policy", "sw-2", "sw-2+pins"],
            "strategy": ["none", "sliding-window", "sliding-window"],
            "keep_last_tool_results": [0, 0, 2],
            "chars_saved_share": [0.0, 0.5, 0.4],
            "chars_saved": [0, 500, 400],
            "baseline_window_chars": [1000, 1000, 1000],
            "lost_calls": [0, 2, 1],
            "dependent_calls": [4, 4, 4],
            "lost_share": [0.0, 0.5, 0.25],
            "wire_violations": [0, 0, 0],
            "request_lost": [0, 0, 0],
            "runs": [1, 1, 1],
        }
    )
    return {
        "window_size": plots.window_size(frames),
        "window_map": plots.window_map(frames),
        "pins_timeline": plots.pins_timeline(frames),
        "refusals_by_reason": plots.refusals_by_reason(frames),
        "refusals_by_reason (long)": plots.refusals_by_reason(_long_sparse_frames()),
        "compare": plots.compare(by_label),
        "compare (identical)": plots.compare({"a": frames, "b": frames, "c": frames}),
        "evidence_tradeoff": plots.evidence_tradeoff(summary),
    }


_GEOMETRY_JS = """
() => [...document.querySelectorAll('.plotly-graph-div')].map((div) => {
  const box = (sel) => {
    const e = div.querySelector(sel);
    if (!e) return null;
    const b = e.getBoundingClientRect();
    return b.width && b.height ? {top: b.top, bottom: b.bottom, left: b.left, right: b.right}
                               : null;
  };
  const bars = [...div.querySelectorAll('.barlayer .point path')].map(
    (p) => p.getBoundingClientRect().width);
  const ticks = [...div.querySelectorAll('.y2tick text')].map((t) => t.textContent);
  return {id: div.id, legend: box('.legend'), title: box('.gtitle'), plot: box('.nsewdrag'),
          bars, y2ticks: ticks};
})
"""


@pytest.fixture(scope="module", params=[600, 1000], ids=lambda w: f"{w}px")
def drawn(
    request: pytest.FixtureRequest,
    browser: Any,
    by_label: dict[str, Frames],
) -> dict[str, dict[str, Any]]:
    """Every builder's figure drawn by plotly.js in Chromium at the param's width: the
    bounding boxes of title, legend and plot area, bar widths and the token axis's labels."""
    figures = _every_builder(by_label)
    divs = "".join(
        pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=f"fig-{i}")
        for i, fig in enumerate(figures.values())
    )
    page = browser.new_page(viewport={"width": request.param, "height": 900})
    try:
        page.set_content(
            "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
            f"<script>{_plotly_js()}</script>{divs}</body></html>"
        )
        page.wait_for_function(
            f"document.querySelectorAll('.plotly-graph-div .main-svg').length >= {len(figures)}"
        )
        found = page.evaluate(_GEOMETRY_JS)
    finally:
        page.close()
    assert len(found) == len(figures)
    return dict(zip(figures, found, strict=True))


def test_legends_never_sit_on_titles_as_drawn(drawn: dict[str, dict[str, Any]]) -> None:
    legends = 0
    for name, figure in drawn.items():
        title, legend, plot = figure["title"], figure["legend"], figure["plot"]
        assert title is not None, name
        if legend is None:
            continue  # one trace, or a colour bar: no legend to place
        legends += 1
        # the legend's y region lies below the title's and below the plot area
        assert legend["top"] >= title["bottom"], (name, legend, title)
        assert legend["top"] >= plot["bottom"], (name, legend, plot)
    assert legends >= 4


def test_sparse_refusal_bars_are_drawn_visibly(drawn: dict[str, dict[str, Any]]) -> None:
    bars = drawn["refusals_by_reason (long)"]["bars"]
    assert len(bars) == 3 and min(bars) >= 3, bars


def test_the_token_axis_is_labelled_in_round_numbers(drawn: dict[str, dict[str, Any]]) -> None:
    ticks = drawn["window_size"]["y2ticks"]
    assert len(ticks) >= 2
    values = [float(t.removesuffix("k")) * (1000 if t.endswith("k") else 1) for t in ticks]
    step = values[1] - values[0]
    assert values[0] == 0 and _is_round(step), ticks
    assert all(math.isclose(v, i * step) for i, v in enumerate(values)), ticks


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


# -- identical series --------------------------------------------------------------------------


def test_identical_series_stay_distinguishable(by_label: dict[str, Frames]) -> None:
    frames = by_label["sliding-window"]
    fig = plots.compare({"sliding": frames, "same": frames, "again": frames})
    first, second, third = fig.data
    assert list(first.y) == list(second.y) == list(third.y)
    assert first.name == "sliding (also same, again)"  # the line that stands for three
    assert second.name == "same (identical to sliding)"
    assert third.name == "again (identical to sliding)"
    dashes = [t.line.dash or "solid" for t in fig.data]
    assert len(set(dashes)) == 3, dashes
    symbols = [t.marker.symbol for t in (second, third)]
    assert None not in symbols and len(set(symbols)) == 2
    assert all("markers" in t.mode for t in (second, third))
    assert "%{fullData.name}" in second.hovertemplate  # the hover names it as the legend does
    different = plots.compare({"sliding": frames, "none": by_label["none"]})
    assert [t.name for t in different.data] == ["sliding", "none"]
    assert all((t.line.dash or "solid") == "solid" for t in different.data)


def test_a_line_drawn_over_another_gets_its_own_dash_without_a_false_name() -> None:
    # two series a hair apart (within ON_SCREEN_TOLERANCE of the axis): the later would hide
    # the earlier, so it is dashed and marked; its values differ, so it is not "identical"
    ys = [100, 2_000, 4_000, 4_100]
    fig = plots.LabFigure()
    fig.add_trace(go.Scatter(x=[1, 2, 3, 4], y=ys, name="a", mode="lines"))
    fig.add_trace(go.Scatter(x=[1, 2, 3, 4], y=[y + 20 for y in ys], name="b", mode="lines"))
    fig.add_trace(go.Scatter(x=[1, 2, 3, 4], y=[4_100, 1, 2, 3], name="c", mode="lines"))
    assert hidden_lines(fig) == [("a", "b")]
    distinguish_identical(fig)
    a, b, c = fig.data
    assert [t.name for t in fig.data] == ["a", "b", "c"]
    assert a.line.dash is None and b.line.dash in IDENTICAL_DASHES and c.line.dash is None
    assert "markers" in b.mode and b.marker.symbol is not None
    assert hidden_lines(fig) == []
    # a line on its own axis that tracks another on screen (tokens ~ chars / 4) is one too
    twin = plots.LabFigure()
    twin.add_trace(go.Scatter(x=[1, 2, 3], y=[400, 800, 1_200], name="chars", mode="lines"))
    twin.add_trace(
        go.Scatter(x=[1, 2, 3], y=[100, 200, 300], name="tokens", mode="lines", yaxis="y2")
    )
    assert hidden_lines(twin) == [("chars", "tokens")]
    assert hidden_lines(distinguish_identical(twin)) == []
    assert twin.data[1].name == "tokens"  # other values: not called identical


def test_no_line_hides_under_another_on_real_files(by_label: dict[str, Frames]) -> None:
    """Every transcript of data/transcripts, as recorded and replayed under two windows: its
    window size and cache charts, and the three compared; and every scenario's strategies
    compared (deploy-audit's token-budget and summarize-oldest lie within a pixel)."""
    checked = 0
    for path in sorted(TRANSCRIPTS.glob("*/*")):
        try:
            loaded = load(path)
        except (ValueError, OSError):
            continue  # not a transcript (a licence, a README): the importers' tests say which
        for run in (loaded if isinstance(loaded, list) else [loaded])[:2]:
            if not run.calls:
                continue
            frames = {"recorded": capture(run, label="recorded")}
            for keep in (3, 30):
                frames[f"sw{keep}"] = capture(
                    replay(run, sliding_window(keep_recent_turns=keep)), label=f"sw{keep}"
                )
            figures = [plots.compare(frames)]
            for f in frames.values():
                figures += [plots.window_size(f), plots.cache_prefix(f)]
            for fig in figures:
                assert hidden_lines(fig) == [], (path.name, fig.layout.title.text)
                checked += 1
    assert checked > 250
    for metric in ("chars", "input_tokens"):
        assert hidden_lines(plots.compare(by_label, metric=metric)) == []
    scenario = SCENARIOS["deploy-audit"]()
    runs = {k: capture(scenario.run(s), label=k) for k, s in scenario.strategies().items()}
    fig = plots.compare(runs)
    assert hidden_lines(fig) == []
    assert {t.name: t.line.dash for t in fig.data}["summarize-oldest"] in IDENTICAL_DASHES


# -- round ticks -------------------------------------------------------------------------------


def test_the_token_axis_ticks_at_round_numbers(by_label: dict[str, Frames]) -> None:
    for label in ("token-budget", "summarize-oldest", "sliding-window"):
        frames = by_label[label]
        fig = plots.window_size(frames)
        for axis, peak in (
            (fig.layout.yaxis2, frames.calls["input_tokens"].max()),
            (fig.layout.yaxis, frames.calls["chars"].max()),
        ):
            assert axis.tick0 == 0 and axis.dtick is not None, label
            step = float(axis.dtick)
            assert _is_round(step), (label, step)
            ticks = [k * step for k in range(int(float(peak) // step) + 2)]
            assert all(t == int(t) and int(t) % int(step) == 0 for t in ticks)
            assert 2 <= len(ticks) <= 12, (label, step, peak)
            assert axis.tickformat == "~s"  # 5k, 10k
    assert nice_step(12_345) == 2000 and nice_step(48_000) == 10_000 and nice_step(7) == 1
    assert all(_is_round(nice_step(span)) for span in (1, 3, 9.5, 77, 1234, 98_765, 5e6))
    assert round_ticks(0) == {} and round_ticks(None) == {}


# -- sparse refusal bars -----------------------------------------------------------------------


def _bar_px(fig: go.Figure) -> list[float]:
    """Each bar trace's width in pixels of a :data:`PLOT_PX`-wide plot (plotly's default width
    is (1 - bargap) x the smallest gap between bars; the axis autoranges over the bars)."""
    every = sorted({float(x) for t in fig.data for x in t.x})
    gaps = [b - a for a, b in itertools.pairwise(every)] or [1.0]
    widths = [
        float(t.width) if t.width is not None else (1 - (fig.layout.bargap or 0)) * min(gaps)
        for t in fig.data
    ]
    if fig.layout.xaxis.range is not None:
        lo, hi = fig.layout.xaxis.range
    else:
        lo, hi = every[0] - max(widths) / 2, every[-1] + max(widths) / 2
    return [w / (hi - lo) * PLOT_PX for w in widths]


def test_sparse_refusal_bars_stay_visible_on_long_runs() -> None:
    frames = _long_sparse_frames()
    fig = plots.refusals_by_reason(frames)
    (bars,) = fig.data
    assert sorted(bars.x) == [400, 401, 999] and list(bars.y) == [1, 1, 1]
    lo, hi = fig.layout.xaxis.range
    assert lo <= 1 and hi >= 1000  # the axis spans the run, not only the refusals
    assert min(_bar_px(fig)) >= 3
    assert REFUSAL_MEANINGS["current-request"] in bars.hovertemplate


# -- hovers ------------------------------------------------------------------------------------


def _rule(record: Any) -> str:
    if record.forced:
        return "rule: forced"
    if record.measured_tokens is not None and record.threshold_tokens is not None:
        return f"rule: {record.measured_tokens:,} tokens > threshold {record.threshold_tokens:,}"
    return f"rule: {record.turns_before:,} turns > keep_recent_turns {record.keep_recent_turns:,}"


def test_every_removal_marker_names_record_rule_and_refusals(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    checked = 0
    for label in ("sliding-window", "token-budget", "summarize-oldest"):
        run = scenario_runs[("screen-driver", label)]
        marker = _trace(plots.window_size(capture(run, label=label)), "removal")
        removing = [r for r in run.records if r.removed_message_count]
        assert len(marker.hovertext) == len(removing)
        for text, record in zip(marker.hovertext, removing, strict=True):
            assert f"iteration {record.iteration} · {record.strategy}" in text
            assert _rule(record) in text, text
            for reason in {r.reason for r in record.refusals}:
                n = sum(r.reason == reason for r in record.refusals)
                assert f"refused {n} × {reason}: {REFUSAL_MEANINGS[reason]}" in text
            checked += 1
    assert checked >= 3
    forced = removal_summary(
        {
            "iteration": 3,
            "strategy": "token-budget",
            "forced": True,
            "removed_message_count": 2,
            "removed_stage_ids": "a#1, b#2",
            "window_chars_before": 5000,
            "window_chars_after": 1200,
            "refusal_reasons": "",
        }
    )
    assert "rule: forced" in forced and "refusals: none" in forced
    assert "chars 5,000 → 1,200" in forced


def test_every_window_map_cell_names_record_rule_and_refusals(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    run = scenario_runs[("screen-driver", "sliding-window")]
    fig = plots.window_map(capture(run, label="sliding-window"))
    heat = fig.data[0]
    by_iteration = {r.iteration: r for r in run.records}
    states = fig.layout.meta["states"]
    assert heat.text is not None
    for i, row in enumerate(heat.text):
        for j, text in enumerate(row):
            iteration = heat.x[j]
            record = by_iteration.get(iteration)
            if record is None:
                assert f"no record at iteration {iteration}" in text
                continue
            assert f"<b>record</b>: iteration {iteration} · {record.strategy}" in text
            assert _rule(record) in text
            for reason in {r.reason for r in record.refusals}:
                assert f"× {reason}: {REFUSAL_MEANINGS[reason]}" in text
            cell = heat.z[i][j]  # a float array: NaN where nothing was committed yet
            z = None if math.isnan(cell) else int(cell)
            if z is not None and states[z].startswith("refused-"):
                reason = states[z].removeprefix("refused-")
                assert f"{states[z]} ({REFUSAL_MEANINGS[reason]})" in text


def test_overlay_markers_name_the_record_and_its_rule() -> None:
    transcript = from_openai(EVIDENCE_TRANSCRIPT)
    replayed = replay(transcript, audit(keep_last_messages(3)), keep_last_tool_results=0)
    frames = capture(replayed)
    violation = _trace(plots.window_map(frames), "violation")
    assert violation.hovertext
    for text in violation.hovertext:
        assert re.search(r"record at iteration \d+ · ", text)
        assert "rule: " in text
    lossy = capture(replay(transcript, sliding_window(1), keep_last_tool_results=0), evidence=True)
    assert len(lossy.losses)
    lost = _trace(plots.window_map(lossy), "lost evidence")
    removed = [t for t in lost.hovertext if "removed by" in t]
    assert removed
    for text in removed:
        assert re.search(r"removed by the record at iteration \d+ · ", text)
        assert "rule: " in text
