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
