"""``footprint-lab demo``: record lines, the HTML report, and where it was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from footprint_lab import cli
from footprint_lab.lab.progress import quiet
from footprint_lab.scenarios import SCENARIOS


def test_demo_writes_the_report_and_prints_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "reports" / "demo.html"
    assert cli.main(["demo", "--scenario", "deploy-audit", "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert out.exists() and out.stat().st_size > 100_000
    assert f"report written to {out.resolve()}" in printed.out
    lines = printed.out.splitlines()
    assert lines[0].startswith("== deploy-audit: ")
    for label in ("sliding-window", "token-budget", "summarize-oldest"):
        assert any(line.startswith(f"{label}: status=done") for line in lines)
    assert any(line.strip().startswith("iter ") and "removed" in line for line in lines)
    # each run's summary table (from run_summary): a heading line, then its numbers
    headings = [i for i, line in enumerate(lines) if line.split()[:2] == ["calls", "removals"]]
    assert len(headings) == 3
    assert all(lines[i + 1].split()[0].isdigit() for i in headings)
    assert printed.err == ""  # the progress bar is quiet (FOOTPRINT_LAB_QUIET=1 in tests)
    html = out.read_text(encoding="utf-8")
    assert "<h2>deploy-audit</h2>" in html and "screen-driver" not in html


def test_demo_defaults_to_every_demo_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = ["deploy-audit", "screen-driver", "parallel-tools"]
    if "long-session" in SCENARIOS:
        expected.append("long-session")
    assert cli.default_scenarios() == expected
    monkeypatch.chdir(tmp_path)
    assert cli.main(["demo"]) == 0
    printed = capsys.readouterr().out
    assert (tmp_path / "footprint-report.html").exists()
    assert f"report written to {(tmp_path / 'footprint-report.html').resolve()}" in printed
    headers = [line for line in printed.splitlines() if line.startswith("== ")]
    assert [h.split(":")[0][3:] for h in headers] == expected


def test_progress_bars_are_quiet_in_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    assert quiet()
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    monkeypatch.setenv("FOOTPRINT_LAB_QUIET", "1")
    assert quiet()


def test_report_command_on_saved_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from footprint_lab.scenarios import deploy_audit

    scenario = deploy_audit()
    paths = []
    for label, strategy in scenario.strategies().items():
        paths.append(scenario.run(strategy).save(tmp_path / f"{label}.json"))
    out = tmp_path / "saved-report.html"
    assert cli.main(["report", *map(str, paths), "-o", str(out)]) == 0
    html = out.read_text()
    assert (
        "deploy-audit" in html and html.count("js-plotly-plot") + html.count("plotly-graph-div") > 0
    )
    assert str(out.resolve()) in capsys.readouterr().out


def test_report_command_rejects_a_bad_file_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli.main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "truncated or corrupt" in err
    assert not (tmp_path / "r.html").exists()


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    from footprint_lab import __version__

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"footprint-lab {__version__}"


def test_demo_ends_with_a_table_of_every_run_and_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from footprint_lab.agent import Run
    from footprint_lab.lab.summary import run_summary

    out = tmp_path / "demo.html"
    results: dict[str, dict[str, Run]] = {}
    real_demo = cli.demo

    def recording_demo(names: list[str] | None = None) -> dict[str, dict[str, Run]]:
        results.update(real_demo(names))
        return results

    monkeypatch.setattr(cli, "demo", recording_demo)
    assert cli.main(["demo", "--scenario", "deploy-audit", "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("In short, one row per run:")
    assert lines[start + 1].split()[:2] == ["scenario", "strategy"]
    assert lines[start + 1].endswith("messages removed  refusals  final window chars")
    rows = lines[start + 2 : start + 5]
    assert rows[0].split()[0] == "deploy-audit"
    keys = ("iterations", "records", "removed_messages", "refusals", "final_window_chars")
    for row, (label, run) in zip(rows, results["deploy-audit"].items(), strict=True):
        numbers = run_summary(run)
        assert row.split()[-6:] == [label, *(str(numbers[key]) for key in keys)]
    # the table, a blank line, then where the report is and how to read it: the last lines
    assert lines[start + 5 :] == ["", *cli.report_lines(out)]
    assert lines[start + 6] == f"report written to {out.resolve()}"
    assert " ".join(lines[start + 7 :]) == cli.REPORT_HINT


def test_the_record_lines_name_refusals_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    from footprint_lab.scenarios import deploy_audit

    scenario = deploy_audit()
    run = scenario.run(scenario.strategies()["sliding-window"])
    lines = cli.run_lines("sliding-window", run)
    record_lines = [line for line in lines if line.strip().startswith("iter ")]
    assert len(record_lines) == len(run.records)
    assert not any("@t" in line for line in record_lines)
    assert any(
        "refusals: current-request (turn 0), inside-keep-window (turns " in line
        for line in record_lines
    )


def test_help_is_in_plain_words(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["demo", "--help"], ["report", "--help"]):
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        assert done.value.code == 0
        text = capsys.readouterr().out
        for markup in ("``", ":func:", ":data:", ":mod:", "Layer:", "~footprint_lab"):
            assert markup not in text, (argv, markup)
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    top = capsys.readouterr().out
    assert "no network, no API key" in top and "Boundary slider" in top
    with pytest.raises(SystemExit):
        cli.main(["demo", "--help"])
    demo_help = capsys.readouterr().out
    assert "refused to leave and why" in demo_help
    assert "the HTML file to write" in demo_help


def test_the_demo_prints_a_few_records_per_run_and_says_how_many_more() -> None:
    from footprint_lab.scenarios import long_session

    scenario = long_session()
    run = scenario.run(scenario.strategies()["sliding-window"])
    assert len(run.records) > cli.DEMO_RECORD_LINES
    lines = cli.run_lines("sliding-window", run, cli.DEMO_RECORD_LINES)
    records = [line for line in lines if line.strip().startswith("iter ")]
    assert len(records) == cli.DEMO_RECORD_LINES
    assert lines[-1] == (
        f"  … {len(run.records) - cli.DEMO_RECORD_LINES} more record(s): every one is in the report"
    )
    assert len(cli.run_lines("sliding-window", run)) == len(lines) - 1 + (
        len(run.records) - cli.DEMO_RECORD_LINES
    )
