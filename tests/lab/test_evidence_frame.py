"""evidence_frame / evidence_summary / evidence_tradeoff: one row per run × configuration,
equal to measuring each alone; aggregates and the Pareto front exact on hand-made frames."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import Run, audit, replay, sliding_window, token_budget
from footprint_lab.auditing import keep_last_messages
from footprint_lab.evidence import (
    calls_of,
    dependencies,
    losses,
    request_lost,
    tool_calls_in,
    wire_problems,
)
from footprint_lab.importers import from_openai, load_tau_bench
from footprint_lab.lab import (
    EvidenceConfig,
    evidence_frame,
    evidence_grid,
    evidence_summary,
    no_policy,
    plots,
)
from footprint_lab.lab.evidence import EVIDENCE_COLUMNS, SUMMARY_COLUMNS, pareto_front
from tests.budget import examples
from tests.builders import EVIDENCE_TRANSCRIPT

DATA = Path(__file__).parents[2] / "data" / "tau-bench"


SYNTHETIC = EVIDENCE_TRANSCRIPT


@pytest.fixture(scope="module")
def tau_runs() -> list[Run]:
    return load_tau_bench(DATA)


def _sliding(keep_recent_turns: int) -> Any:
    return sliding_window(keep_recent_turns)


GRID = {"keep_recent_turns": [1, 4], "keep_last_tool_results": [0, 2]}


def _configs() -> list[Any]:
    return [
        no_policy(),
        *evidence_grid(_sliding, GRID),
        {
            "label": "keep-last-6",
            "strategy": audit(keep_last_messages(6)),
            "n": 6,
            "keep_last_tool_results": 0,
        },
    ]


@pytest.fixture(scope="module")
def tau_frame(tau_runs: list[Run]) -> pd.DataFrame:
    return evidence_frame(tau_runs, _configs())


def test_synthetic_rows_are_exact() -> None:
    run = from_openai(SYNTHETIC, task_id=7, trial=1, reward=1.0, label="synthetic")
    frame = evidence_frame(
        [run], [{"label": "k=1", "strategy": sliding_window(1), "keep_last_tool_results": 0}]
    )
    (row,) = frame.to_dict("records")
    assert (row["run"], row["task_id"], row["trial"], row["reward"]) == ("synthetic", 7, 1, 1.0)
    assert (row["config"], row["strategy"], row["keep_recent_turns"]) == (
        "k=1",
        "sliding-window",
        1,
    )
    assert (row["tool_calls"], row["dependent_calls"], row["lost_calls"]) == (4, 3, 1)
    assert (row["lost_values"], row["kept_by_summary"]) == (1, 0)
    replayed = replay(run, sliding_window(1), keep_last_tool_results=0)
    baseline = replay(run, None)
    chars = [c.chars for c in replayed.calls]
    assert row["windows"] == len(chars) == 5
    assert row["window_chars"] == sum(chars) and row["peak_window_chars"] == max(chars)
    assert row["mean_window_chars"] == pytest.approx(sum(chars) / len(chars))
    assert row["baseline_window_chars"] == sum(c.chars for c in baseline.calls)
    assert row["chars_saved"] == row["baseline_window_chars"] - row["window_chars"] > 0
    assert (row["wire_violations"], row["request_lost"], row["violations"]) == (0, 0, 0)


def test_columns_and_dtypes_are_documented(tau_frame: pd.DataFrame) -> None:
    fixed = list(EVIDENCE_COLUMNS)
    knobs = ["keep_recent_turns", "n"]
    at = fixed.index("strategy") + 1
    assert list(tau_frame.columns) == [*fixed[:at], *knobs, *fixed[at:]]
    for name, dtype in EVIDENCE_COLUMNS.items():
        assert tau_frame[name].dtype == dtype, name
    assert tau_frame["keep_recent_turns"].dtype == "Int64"
    assert tau_frame["n"].dtype == "Int64"


def test_every_row_equals_measuring_alone(tau_runs: list[Run], tau_frame: pd.DataFrame) -> None:
    configs = [EvidenceConfig.coerce(c) for c in _configs()]
    assert len(tau_frame) == len(configs) * 50
    assert tau_frame["config"].tolist() == [c.label for c in configs for _ in tau_runs]
    assert tau_frame["run"].tolist()[:50] == [r.meta["label"] for r in tau_runs]
    for i, config in enumerate(configs):
        for j in (0, 13, 38):  # a few runs per configuration, recomputed by hand
            run = tau_runs[j]
            row = tau_frame.iloc[i * 50 + j]
            replayed = replay(run, config.build(), config.keep_last_tool_results)
            assert row["lost_calls"] == calls_of(losses(replayed))
            assert row["dependent_calls"] == calls_of(dependencies(replayed))
            assert row["tool_calls"] == tool_calls_in(run)
            assert row["wire_violations"] == sum(
                1 for k in range(len(replayed.calls)) if wire_problems(replayed.window_sent(k))
            )
            assert row["request_lost"] == sum(
                request_lost(replayed, k) for k in range(len(replayed.calls))
            )
            assert row["task_id"] == run.meta["task_id"] and row["reward"] == run.meta["reward"]


def test_pinned_tau_bench_numbers(tau_frame: pd.DataFrame) -> None:
    summary = evidence_summary(tau_frame)
    assert (summary["tool_calls"] == 296).all()
    assert (summary["dependent_calls"] == 146).all()
    assert (summary["runs"] == 50).all()
    base = summary.set_index("config").loc["no policy"]
    assert base["lost_calls"] == 0 and base["chars_saved"] == 0
    ours = summary[summary["strategy"] == "sliding-window"]
    assert (ours["wire_violations"] == 0).all() and (ours["request_lost"] == 0).all()
    assert (ours["lost_calls"] > 0).all() and (ours["chars_saved"] > 0).all()
    # pins keep evidence: with pins, fewer dependent calls lose theirs
    by = ours.set_index(["keep_recent_turns", "keep_last_tool_results"])["lost_calls"]
    assert by.loc[(1, 2)] < by.loc[(1, 0)]
    peer = summary.set_index("config").loc["keep-last-6"]
    assert peer["wire_violations"] > 0 and peer["violations"] > 0


def test_results_do_not_depend_on_the_executor(tau_runs: list[Run]) -> None:
    runs = tau_runs[10:16]
    configs = [
        *evidence_grid(lambda keep_recent_turns: sliding_window(keep_recent_turns), GRID),
        {"label": "budget", "factory": token_budget, "threshold_tokens": 1, "keep_recent_turns": 2},
    ]
    inline = evidence_frame(runs, configs)
    pd.testing.assert_frame_equal(inline, evidence_frame(runs, configs))
    with ThreadPoolExecutor(max_workers=2) as pool:
        pd.testing.assert_frame_equal(inline, evidence_frame(runs, configs, executor=pool))
    with ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn")) as pool:
        pd.testing.assert_frame_equal(inline, evidence_frame(runs, configs, executor=pool))


def test_configuration_forms() -> None:
    run = from_openai(SYNTHETIC, label="s")
    frame = evidence_frame(
        {"mine": run},
        [
            EvidenceConfig("object", sliding_window(2), keep_last_tool_results=1),
            {"label": "factory", "factory": sliding_window, "keep_recent_turns": 3},
            {"label": "peer", "strategy": audit(keep_last_messages(4)), "note": "naive"},
        ],
        progress=False,
    )
    assert frame["run"].tolist() == ["mine"] * 3
    # a strategy's own knobs() fill its columns; dict extras are knobs too
    assert _values(frame["keep_recent_turns"]) == [2, 3, None]
    assert _values(frame["note"]) == [None, None, "naive"]
    assert frame["note"].dtype == "string"
    assert frame["keep_last_tool_results"].tolist() == [1, 2, 2]
    assert frame["strategy"].tolist() == ["sliding-window", "sliding-window", "keep-last-4"]
    assert pd.isna(frame["task_id"]).all() and frame["task_id"].dtype == "Int64"
    with pytest.raises(ValueError, match="two configurations"):
        evidence_frame([run], [no_policy(), no_policy()])
    with pytest.raises(ValueError, match="label"):
        evidence_frame([run], [{"strategy": sliding_window(1)}])


def _values(series: pd.Series) -> list[Any]:
    return [None if pd.isna(v) else v for v in series.tolist()]


def test_evidence_grid_is_the_cartesian_product_in_order() -> None:
    configs = evidence_grid(sliding_window, {"keep_recent_turns": [1, 2], PIN: [0, 2]})
    assert [c.label for c in configs] == [
        "sliding-window k=1 keep_last_tool_results=0",
        "sliding-window k=1 keep_last_tool_results=2",
        "sliding-window k=2 keep_last_tool_results=0",
        "sliding-window k=2 keep_last_tool_results=2",
    ]
    assert [dict(c.knobs) for c in configs] == [{"keep_recent_turns": k} for k in (1, 1, 2, 2)]
    assert [c.keep_last_tool_results for c in configs] == [0, 2, 0, 2]
    assert configs[3].build() == sliding_window(2)
    named = evidence_grid(
        sliding_window, {"keep_recent_turns": [5]}, label=lambda name, c: f"{name}/{c}"
    )
    assert named[0].label == "sliding-window/{'keep_recent_turns': 5}"
    assert named[0].keep_last_tool_results == 2


PIN = "keep_last_tool_results"


# -- aggregate and chart ----------------------------------------------------------------------


def test_summary_sums_over_runs(tau_frame: pd.DataFrame) -> None:
    summary = evidence_summary(tau_frame)
    assert list(summary.columns) == [
        *SUMMARY_COLUMNS[:2],
        "keep_recent_turns",
        "n",
        *SUMMARY_COLUMNS[2:],
    ]
    assert summary["config"].tolist() == list(dict.fromkeys(tau_frame["config"]))
    grouped = tau_frame.groupby("config", sort=False)
    for column in ("lost_calls", "window_chars", "chars_saved", "wire_violations"):
        assert summary[column].tolist() == grouped[column].sum().tolist()
    assert summary["peak_window_chars"].tolist() == grouped["peak_window_chars"].max().tolist()
    np.testing.assert_allclose(
        summary["lost_share"], summary["lost_calls"] / summary["dependent_calls"]
    )
    np.testing.assert_allclose(
        summary["chars_saved_share"], summary["chars_saved"] / summary["baseline_window_chars"]
    )
    np.testing.assert_allclose(
        summary["mean_window_chars"], summary["window_chars"] / summary["windows"]
    )


def _hand_made() -> pd.DataFrame:
    # x = chars_saved_share, y = lost_share, one run per configuration
    points = {
        "A": (0.0, 0.0),  # saves nothing, loses nothing: on the front
        "B": (0.5, 0.2),  # on the front
        "C": (0.4, 0.3),  # beaten by B (saves less, loses more)
        "D": (0.8, 0.6),  # on the front
        "E": (0.8, 0.7),  # beaten by D (same saving, loses more)
        "F": (0.5, 0.2),  # equal to B: both on the front
    }
    rows = []
    for label, (x, y) in points.items():
        rows.append(
            {
                "run": "r",
                "task_id": 1,
                "trial": 0,
                "reward": 1.0,
                "config": label,
                "strategy": "s" if label < "D" else "t",
                "keep_last_tool_results": 0,
                "tool_calls": 20,
                "dependent_calls": 10,
                "lost_calls": round(y * 10),
                "lost_values": round(y * 10),
                "kept_by_summary": 0,
                "windows": 4,
                "mean_window_chars": 250.0 * (1 - x),
                "peak_window_chars": 500,
                "window_chars": round(1000 * (1 - x)),
                "baseline_window_chars": 1000,
                "chars_saved": round(1000 * x),
                "wire_violations": 0,
                "request_lost": 0,
                "violations": 0,
                "removed_messages": 0,
                "request_chars": 1200,
                "prefix_chars": round(1200 * (1 - x) * 0.5),
                "cache_share": (1 - x) * 0.5,
                "input_cost": 300.0 * (1 - x),
                "baseline_input_cost": 300.0,
                "cost_ratio": 1 - x,
            }
        )
    return pd.DataFrame(rows)


def test_pareto_front_on_a_hand_made_frame() -> None:
    summary = evidence_summary(_hand_made())
    assert summary.set_index("config")["pareto"].to_dict() == {
        "A": True,
        "B": True,
        "C": False,
        "D": True,
        "E": False,
        "F": True,
    }
    assert pareto_front([], []).tolist() == []
    assert pareto_front([1, 2], [1, 1]).tolist() == [False, True]


def test_tradeoff_traces_equal_the_aggregate() -> None:
    frame = _hand_made()
    summary = evidence_summary(frame)
    fig = plots.evidence_tradeoff(frame)
    names = [t.name for t in fig.data]
    assert names == ["s", "t", "Pareto front"]
    for trace in fig.data[:2]:
        part = summary[summary["strategy"] == trace.name]
        assert isinstance(trace, go.Scatter)
        assert list(trace.x) == part["chars_saved_share"].tolist()
        assert list(trace.y) == part["lost_share"].tolist()
        assert list(trace.customdata) == part["config"].tolist()
        for text, label in zip(trace.hovertext, part["config"], strict=True):
            assert f"<b>{label}</b>" in text
    front = fig.data[2]
    assert list(front.x) == [0.0, 0.5, 0.5, 0.8]
    assert list(front.y) == [0.0, 0.2, 0.2, 0.6]
    assert fig.layout.meta["pareto"] == ["A", "B", "F", "D"]
    # the title as one line (a long one is drawn broken into lines)
    title = fig.layout.title.text.replace(plots.TITLE_BREAK, " ")
    assert title.endswith(plots.COUNTERFACTUAL_SUFFIX)
    # the summary is accepted as it is
    again = plots.evidence_tradeoff(summary)
    assert [list(t.x) for t in again.data] == [list(t.x) for t in fig.data]


def test_tradeoff_of_real_runs(tau_frame: pd.DataFrame) -> None:
    summary = evidence_summary(tau_frame)
    fig = plots.evidence_tradeoff(tau_frame)
    xs = [x for t in fig.data[:-1] for x in t.x]
    assert sorted(xs) == sorted(summary["chars_saved_share"].tolist())
    assert set(fig.layout.meta["pareto"]) == set(summary[summary["pareto"]]["config"])
    assert "no policy" in fig.layout.meta["pareto"]


def test_strategies_are_configurations_labelled_by_what_they_set() -> None:
    from footprint_lab import clear_tool_results, sliding_window
    from footprint_lab.lab.evidence import EvidenceConfig

    cleared = EvidenceConfig.coerce(clear_tool_results(keep_results=2))
    assert cleared.label == "clear-tool-results k=2 keep_results=2"
    assert cleared.strategy is not None and cleared.knob_values()["keep_results"] == 2
    assert EvidenceConfig.coerce(sliding_window(3, slack_turns=2)).label == (
        "sliding-window k=3 slack_turns=2"
    )
    with pytest.raises(TypeError, match="strategy"):
        EvidenceConfig.coerce(42)  # type: ignore[arg-type]


def _pareto_by_definition(xs: list[float], ys: list[float]) -> list[bool]:
    import math

    def ok(i: int) -> bool:
        return not (math.isnan(xs[i]) or math.isnan(ys[i]))

    return [
        ok(i)
        and not any(
            ok(j) and xs[j] >= xs[i] and ys[j] <= ys[i] and (xs[j] > xs[i] or ys[j] < ys[i])
            for j in range(len(xs))
        )
        for i in range(len(xs))
    ]


_COORD = st.one_of(st.sampled_from([0.0, 0.5, 1.0, float("nan")]), st.floats(-3, 3))


@settings(max_examples=examples(1000), deadline=None)
@given(st.lists(st.tuples(_COORD, _COORD), max_size=30))
def test_pareto_front_is_the_definition(points: list[tuple[float, float]]) -> None:
    """The O(n log n) sweep agrees with the definition on every point set, ties and NaN
    configurations (never on the front, beating none) included."""
    from footprint_lab.lab.evidence import pareto_front

    xs, ys = [p[0] for p in points], [p[1] for p in points]
    assert pareto_front(xs, ys).tolist() == _pareto_by_definition(xs, ys)
