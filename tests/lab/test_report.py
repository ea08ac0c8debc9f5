"""The HTML report: standalone, plotly.js once, every figure, deterministic."""

from __future__ import annotations

import re
from pathlib import Path

from footprint_lab import Run
from footprint_lab.lab import capture, write_report
from footprint_lab.lab.report import TABLE_MAX_ROWS, render_report
from footprint_lab.scenarios import SCENARIOS

FIGURES_PER_STRATEGY = 4  # window size, window map, pins, refusals


def _runs(scenario_runs: dict[tuple[str, str], Run]) -> dict[str, dict[str, Run]]:
    out: dict[str, dict[str, Run]] = {}
    for (scenario, label), run in scenario_runs.items():
        if label != "none" and scenario != "long-session":
            out.setdefault(scenario, {})[label] = run
    return out


def test_report_holds_every_figure_and_plotly_once(
    scenario_runs: dict[tuple[str, str], Run], tmp_path: Path
) -> None:
    runs = _runs(scenario_runs)
    path = write_report(runs, tmp_path / "out" / "report.html")
    assert path.exists()
    html = path.read_text(encoding="utf-8")
    expected = sum(1 + FIGURES_PER_STRATEGY * len(by) for by in runs.values())
    assert html.count('class="plotly-graph-div"') == expected
    assert html.count("Plotly.newPlot(") == expected
    # plotly.js is embedded exactly once, and nothing is fetched from a network
    assert html.count("* plotly.js v") == 1
    assert "<script src=" not in html
    for scenario, by in runs.items():
        assert f"<h2>{scenario}</h2>" in html
        for label in by:
            assert f"<h3>{label}</h3>" in html
    assert html.count('class="dataframe records"') == sum(
        1 for by in runs.values() for run in by.values() if run.records
    )


def test_report_is_deterministic_and_has_no_timestamps(tmp_path: Path) -> None:
    def fresh() -> dict[str, dict[str, Run]]:
        scenario = SCENARIOS["deploy-audit"]()
        return {scenario.name: {k: scenario.run(s) for k, s in scenario.strategies().items()}}

    a = write_report(fresh(), tmp_path / "a.html").read_bytes()
    b = write_report(fresh(), tmp_path / "b.html").read_bytes()
    assert a == b
    text = a.decode()
    bundle = re.compile(r"<script>/\*\*\s*\* plotly\.js v.*?</script>", re.DOTALL)
    assert len(bundle.findall(text)) == 1
    ours = bundle.sub("", text)
    assert not re.search(r"\b20\d\d-\d\d-\d\d", ours)  # no dates
    assert not re.search(r"\b1[6-9]\d{11}\b", ours)  # no epoch milliseconds
    assert "survival_ms" not in ours and "at_ms" not in ours


def test_report_accepts_frames_and_caps_long_tables(big_run: Run) -> None:
    report = render_report({"big": {"sliding-window": capture(big_run)}})
    assert report.figures == 1 + FIGURES_PER_STRATEGY
    assert report.sections == ["big"]
    assert f"The first {TABLE_MAX_ROWS} of {len(big_run.records)} records" in report.html


def test_report_of_a_run_without_records(scenario_runs: dict[tuple[str, str], Run]) -> None:
    report = render_report({"deploy-audit": {"none": scenario_runs[("deploy-audit", "none")]}})
    assert "the strategy never engaged" in report.html
    assert report.figures == 1 + FIGURES_PER_STRATEGY


def test_each_run_states_its_strategy_and_knobs_and_the_report_has_a_glossary(
    tmp_path: Path,
) -> None:
    from html import escape

    from footprint_lab import load_run
    from footprint_lab.lab.views import REFUSAL_MEANINGS, STATE_MEANINGS
    from footprint_lab.scenarios import deploy_audit
    from footprint_lab.window.records import REFUSAL_REASONS

    scenario = deploy_audit()
    live = scenario.run(scenario.strategies()["token-budget"])
    saved = load_run(live.save(tmp_path / "run.json"))  # no agent: knobs come from records
    html = render_report({"deploy-audit": {"live": live, "saved": saved}}).html
    knobs = (
        "strategy <code>token-budget</code>, threshold_tokens <code>1500</code>, "
        "keep_recent_turns <code>3</code>, keep_last_tool_results <code>2</code>"
    )
    assert html.count(knobs) == 2
    assert set(REFUSAL_MEANINGS) == set(REFUSAL_REASONS)
    for term in [*REFUSAL_MEANINGS, *STATE_MEANINGS]:
        assert f"<code>{escape(term)}</code>" in html  # autoescaped: refused-&lt;reason&gt;
