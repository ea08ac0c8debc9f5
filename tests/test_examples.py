"""The short scripts in examples/ run as a user would run them (scripted, no keys)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("script", "expect"),
    [
        ("quickstart.py", "left the window but the ledger still has it: 'DEPLOY d1 status=OK'"),
        ("custom_strategy.py", "status=done"),
        ("replay_transcript.py", "violations: ['lost-current-request'"),
        ("idempotent_tool.py", "tool ran: 2 times, as call(s) ['call_1']\ncharges recorded: 1"),
    ],
)
def test_example_runs(script: str, expect: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert expect in done.stdout, done.stdout
