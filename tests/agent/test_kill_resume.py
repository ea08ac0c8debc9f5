"""A run killed in a child process resumes in a new process as if nothing happened."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from footprint_lab.scenarios import deploy_audit

CHILD = Path(__file__).with_name("kill_child.py")


@pytest.mark.parametrize("kill_at", [2, 5])
def test_killed_run_resumes_in_a_new_process_identically(tmp_path: Path, kill_at: int) -> None:
    checkpoint = tmp_path / "checkpoint.json"
    killed = subprocess.run(
        [sys.executable, str(CHILD), "kill", str(checkpoint), str(kill_at)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert json.loads(checkpoint.read_text())["iterations"] == kill_at

    report = tmp_path / "resumed.json"
    resumed = subprocess.run(
        [sys.executable, str(CHILD), "resume", str(checkpoint), str(report)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(report.read_text())

    scenario = deploy_audit()
    whole = scenario.run(scenario.strategies()["sliding-window"])
    assert result["status"] == whole.status == "done"
    assert result["output"] == whole.output
    assert result["windows"] == [
        [m.model_dump() for m in whole.window_sent(i)] for i in range(len(whole.calls))
    ]
    assert result["records"] == [r.model_dump() for r in whole.records]
