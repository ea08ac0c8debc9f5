"""Grids run from plain scripts: with no ``__main__`` guard, or from ``python -``, ``sweep``
and ``evidence_frame`` fall back to threads and say so once, instead of crashing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """\
from footprint_lab import sliding_window, sweep
from footprint_lab.scenarios import deploy_audit

for _ in range(2):  # two grids: the fallback is said once
    frame = sweep(deploy_audit(), lambda keep_recent_turns: sliding_window(keep_recent_turns),
                  grid={"keep_recent_turns": [1, 2]})
    print("rows", len(frame))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["FOOTPRINT_LAB_QUIET"] = "1"
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def _check(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["rows", "2", "rows", "2"]
    assert done.stderr.count("runs this grid on threads instead of processes") == 1
    assert '__name__ == "__main__"' in done.stderr  # it says exactly what to add


@pytest.mark.parametrize("how", ["script", "stdin"])
def test_a_sweep_from_a_plain_script_falls_back_and_says_so_once(tmp_path: Path, how: str) -> None:
    if how == "script":
        path = tmp_path / "unguarded.py"
        path.write_text(SCRIPT, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, env=_env(), timeout=300
        )
    else:
        done = subprocess.run(
            [sys.executable, "-"],
            input=SCRIPT,
            capture_output=True,
            text=True,
            env=_env(),
            timeout=300,
        )
    _check(done)


def test_a_guarded_script_still_gets_processes(tmp_path: Path) -> None:
    path = tmp_path / "guarded.py"
    body = "\n".join("    " + line for line in SCRIPT.splitlines())
    path.write_text(f'if __name__ == "__main__":\n{body}\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, env=_env(), timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["rows", "2", "rows", "2"]
    assert "instead of processes" not in done.stderr
