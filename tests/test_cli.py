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
    assert printed.err == ""  # the progress bar is quiet under pytest
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
