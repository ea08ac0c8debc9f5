"""The corpus overview on the real transcripts and tau-bench: every figure's numbers are a
direct pandas computation on the store's frames; the widget's clicks open the right run; the
CLI writes the page and a page per run; without a grid the page says how to run one."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from plotly.callbacks import Points

from footprint_lab.agent.checkpoint import run_file_text
from footprint_lab.cli import main
from footprint_lab.corpus import Corpus, CorpusOverview, write_corpus_report
from footprint_lab.lab import evidence_summary, plots
from footprint_lab.lab.corpus_view import GRID_HOWTO, overview_frames
from footprint_lab.lab.plots.source_policies import NO_VIOLATIONS
from tests.corpus.overview_fixtures import GRID, gridded, outcomes, plain

__all__ = ["gridded", "plain"]  # the fixtures, used by name


def _bars(fig: object) -> dict[str, dict[str, int]]:
    """{trace name: {category: count}} of a horizontal bar chart."""
    return {t.name: dict(zip(t.y, t.x, strict=True)) for t in fig.data}  # type: ignore[attr-defined]


@pytest.mark.parametrize("by", ["format", "model"])
def test_runs_by_format_and_model_stack_every_run_by_its_outcome(plain: Corpus, by: str) -> None:
    runs = plain.frame("runs")
    expected = pd.crosstab(runs[by].astype(str), outcomes(runs))
    fig = plots.runs_by(overview_frames(plain).runs, by)
    bars = _bars(fig)
    assert set(bars) == set(expected.columns)
    for outcome, counts in bars.items():
        assert counts == {k: int(v) for k, v in expected[outcome].items()}, outcome
    totals = expected.sum(axis=1)
    assert fig.layout.meta["categories"][0] == totals.idxmax()
    assert sum(sum(c.values()) for c in bars.values()) == len(runs) == 122


def test_outcomes_are_rewards_where_recorded_else_the_status(plain: Corpus) -> None:
    data = overview_frames(plain)
    tau = data.runs[data.runs["format"] == "tau-bench"]
    assert set(tau["outcome"]) == {"passed", "failed"}
    stored = plain.frame("runs", columns=["run_id", "reward"], where={"format": "tau-bench"})
    assert int((tau["outcome"] == "passed").sum()) == int((stored["reward"] > 0).sum())
    claude = data.runs[data.runs["format"] == "claude-code"]
    assert claude["outcome"].tolist() == claude["status"].tolist()  # no reward: the status
    assert set(claude["outcome"]) == {"incomplete", "done"}


def test_distributions_count_each_runs_window_and_calls_by_format(plain: Corpus) -> None:
    runs = plain.frame("runs", columns=["format", "peak_window_chars", "calls"])
    fig = plots.run_distributions(overview_frames(plain).runs)
    edges = fig.layout.meta["edges"]
    formats = sorted(runs["format"].unique())
    for axis, column in (("x", "peak_window_chars"), ("x2", "calls")):
        traces = {t.name: t for t in fig.data if t.xaxis == axis}
        assert sorted(traces) == formats
        for fmt, trace in traces.items():
            mine = runs.loc[runs["format"] == fmt, column].astype("float64").to_numpy()
            counts, _ = np.histogram(mine, bins=edges[column])
            assert list(trace.y) == counts.tolist(), (column, fmt)
            assert sum(trace.y) == len(mine)  # every run in a bin
        assert edges[column][0] <= runs[column].min() and edges[column][-1] >= runs[column].max()
    # calls are counted in whole-number bins: each bar's centre is a count of calls
    centres = next(t for t in fig.data if t.xaxis == "x2").x
    assert all(float(c).is_integer() for c in centres)


def test_source_policies_show_what_each_source_removed_and_its_violations(plain: Corpus) -> None:
    runs = plain.frame("runs")
    records = plain.frame("records")
    observed = records[records["observed"].fillna(False).astype(bool)].merge(
        runs[["run_id", "format"]], on="run_id"
    )
    removed = observed.groupby("format")["removed_message_count"].sum()
    data = overview_frames(plain)
    fig = plots.source_policies(data.observed, data.violations)
    bars = fig.data[0]
    expected = {f: int(removed.get(f, 0)) for f in runs["format"].unique()}
    assert dict(zip(bars.x, bars.y, strict=True)) == expected
    assert expected["swe-agent"] > 0  # the SWE-agent replay's own policy removed messages
    detail = {row[0]: row for row in zip(bars.x, bars.customdata, strict=True)}
    swe = detail["swe-agent"][1]
    part = observed[observed["format"] == "swe-agent"]
    assert swe == [
        len(part),
        part["run_id"].nunique(),
        int((runs["format"] == "swe-agent").sum()),
        int(part["chars_removed"].sum()),
    ]
    kinds = [c for c in runs.columns if c.startswith("violations_")]
    committed = runs.groupby("format")[kinds].sum()
    assert int(committed.to_numpy().sum()) == 0  # none in this data: the chart says so in words
    assert fig.layout.meta["kinds"] == []
    assert NO_VIOLATIONS in [a.text for a in fig.layout.annotations]


def test_source_policies_stack_violations_by_kind() -> None:
    observed = pd.DataFrame(
        {
            "format": ["a", "b"],
            "runs": [3, 1],
            "observed_runs": [1, 0],
            "records": [4, 0],
            "removed_messages": [5, 0],
            "chars_removed": [900, 0],
        }
    )
    violations = pd.DataFrame(
        {
            "format": ["a", "a", "b"],
            "kind": ["split-tool-pair", "system-dropped", "split-tool-pair"],
            "violations": [2, 1, 7],
        }
    )
    fig = plots.source_policies(observed, violations)
    by_kind = {t.name: dict(zip(t.x, t.y, strict=True)) for t in fig.data[1:]}
    assert by_kind == {"split-tool-pair": {"a": 2, "b": 7}, "system-dropped": {"a": 1, "b": 0}}
    assert NO_VIOLATIONS not in [a.text for a in fig.layout.annotations]


def test_the_frontier_is_the_grids_summary_over_its_runs(gridded: Corpus) -> None:
    grid = gridded.frame("evidence")
    fig = plots.corpus_frontier(overview_frames(gridded).grid)
    cloud = fig.data[0]
    assert cloud.name == plots.RUNS_TRACE
    drawn = grid[(grid["dependent_calls"] > 0) & grid["cost_ratio"].notna()]
    assert [tuple(c) for c in cloud.customdata] == list(
        zip(drawn["run"], drawn["config"], strict=True)
    )
    np.testing.assert_allclose(cloud.x, drawn["cost_ratio"].astype(float))
    np.testing.assert_allclose(
        cloud.y, (drawn["lost_calls"] / drawn["dependent_calls"]).astype(float)
    )
    summary = evidence_summary(grid)
    points = {
        c: (x, y) for t in fig.data[1:-1] for c, x, y in zip(t.customdata, t.x, t.y, strict=True)
    }
    assert sorted(points) == sorted(c.label for c in GRID)
    for _, row in summary.iterrows():
        assert points[row["config"]] == pytest.approx((row["cost_ratio"], row["lost_share"]))
    worst = grid.loc[grid.groupby("config", sort=False)["lost_calls"].idxmax(), ["config", "run"]]
    assert fig.layout.meta["worst_run"] == dict(zip(worst["config"], worst["run"], strict=True))
    assert fig.layout.meta["runs"] == len(gridded) == 122


def _same_run(corpus: Corpus, run_id: str, shown: object) -> bool:
    return run_file_text(corpus.run(run_id)) == run_file_text(shown)  # type: ignore[arg-type]


def test_a_click_on_the_frontier_opens_that_runs_inspector(gridded: Corpus) -> None:
    overview = CorpusOverview(gridded)
    try:
        frontier = overview.figures["frontier"]
        cloud = frontier.data[0]
        i = len(cloud.customdata) // 2
        run_id = cloud.customdata[i][0]
        overview._on_frontier_click(cloud, Points(point_inds=[i], trace_index=0), None)
        assert overview.opened == run_id
        assert overview.inspector is not None and _same_run(gridded, run_id, overview.inspector.run)
        assert overview.run_box.children == (overview.inspector,)
        first = overview.inspector
        # a configuration's point opens the run that lost the most evidence under it
        trace = frontier.data[1]
        config = trace.customdata[0]
        grid = gridded.frame("evidence")
        part = grid[grid["config"] == config]
        worst = part["run"].iloc[int(np.argmax(part["lost_calls"].to_numpy()))]
        overview._on_frontier_click(trace, Points(point_inds=[0], trace_index=1), None)
        assert overview.opened == worst and _same_run(gridded, worst, overview.inspector.run)
        assert first.closed  # the Inspector it replaced is closed
        # the picker opens a run too
        pick = overview.picker.options[-1][1]
        overview.picker.value = pick
        assert overview.opened == pick and _same_run(gridded, pick, overview.inspector.run)
        with pytest.raises(KeyError, match="no run 'nope'"):
            overview.open_run("nope")
    finally:
        overview.close()


def test_without_a_grid_the_overview_says_how_to_run_one(plain: Corpus, tmp_path: Path) -> None:
    overview = CorpusOverview(plain)
    try:
        assert "frontier" not in overview.figures
        assert "No grid has been run" in overview.frontier_note.value
        assert "corpus.evidence_frame(" in overview.frontier_note.value
    finally:
        overview.close()
    report = write_corpus_report(plain, tmp_path / "corpus.html", max_runs=0)
    html = report.path.read_text(encoding="utf-8")
    assert report.figures == 4 and report.pages == {}
    assert GRID_HOWTO.split(":")[0] in html and 'class="no-grid"' in html
    with pytest.raises(ValueError, match="no evidence grid 'sweep'"):
        overview_frames(plain, grid="sweep")


def test_the_cli_writes_the_page_and_a_page_per_run(
    gridded: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site" / "corpus.html"
    formats = gridded.frame("runs", columns=["format"])["format"].nunique()
    assert main(["corpus", "report", gridded.path, "-o", str(out), "--max-runs", str(formats)]) == 0
    said = capsys.readouterr().out
    assert f"wrote {out} (122 runs, 5 charts)" in said
    html = out.read_text(encoding="utf-8")
    pages = sorted((tmp_path / "site" / "corpus_runs").glob("*.html"))
    hrefs = set(re.findall(r'href="(corpus_runs/[^"]+)"', html))
    # each link opens its page at its Boundary view
    assert all(
        re.fullmatch(r"corpus_runs/[0-9a-f]{16}-\d+\.html#[a-z0-9-]+--boundary", h) for h in hrefs
    )
    links = sorted({h.split("#")[0] for h in hrefs})
    for href in hrefs:
        page, anchor = href.split("#")
        assert f'<div class="boundary" id="{anchor}"' in (out.parent / page).read_text("utf-8")
    assert links and [str(out.parent / link) for link in links] == [str(p) for p in pages]
    # one run listed per source format (each format's first), and each configuration's
    # worst run, which the frontier's table links to
    runs = gridded.frame("runs", columns=["run_id", "format"])
    firsts = set(runs.groupby("format").head(1)["run_id"])
    worst = set(plots.corpus_frontier(gridded.frame("evidence")).layout.meta["worst_run"].values())
    assert {p.stem for p in pages} == firsts | worst
    assert (out.parent / "corpus_runs" / "plotly.min.js").is_file()
    assert main(["corpus", "report", gridded.path, "-o", str(out), "--grid", "sweep"]) == 2
    assert "no evidence grid 'sweep'" in capsys.readouterr().err
    assert main(["corpus", "report", str(tmp_path / "none"), "-o", str(out)]) == 2
    assert "no corpus store here" in capsys.readouterr().err


def test_a_corpus_with_no_runs_says_so(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "bad.json").write_text("[1, 2", encoding="utf-8")
    empty = Corpus.build(tmp_path / "in", tmp_path / "store", executor="inline", progress=False)
    assert len(empty) == 0
    data = overview_frames(empty)
    assert data.runs.empty and data.grid is None
    for fig in (plots.runs_by(data.runs), plots.run_distributions(data.runs)):
        assert "no runs in the corpus" in [a.text for a in fig.layout.annotations]
    report = write_corpus_report(empty, tmp_path / "corpus.html")
    html = report.path.read_text(encoding="utf-8")
    assert report.pages == {} and "No runs listed." in html and 'class="no-grid"' in html
    overview = CorpusOverview(empty)
    try:
        assert overview.picker.options == ()
    finally:
        overview.close()
