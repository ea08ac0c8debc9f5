"""The benchmark suite runs end to end on tiny sizes (its numbers are not asserted here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_runs_on_tiny_sizes_and_writes_every_section(tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", "--tiny", "--output", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    for title in (
        "Boundary cost scaling",
        "Side by side with peers",
        "Loop overhead",
        "Ledger memory",
        "Lab cost",
        "Evidence on real runs",
        "Evidence at scale",
        "Peers on their own ground: clearing tool results",
        "Grids that scale out",
        "Tuner on your own run",
        "Corpus at scale",
        "Corpus beside Inspect",
    ):
        assert f". {title}" in text
    assert "footprint_lab invalid outputs: 0" in text


def test_one_step_replaces_only_its_own_section(tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    published = (ROOT / "bench" / "results.md").read_text(encoding="utf-8")
    out.write_text(published, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", "--tiny", "--only", "peers", "--output", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    before, after = published.split("\n## "), text.split("\n## ")
    assert len(before) == len(after)
    changed = [b.split("\n")[0] for b, a in zip(before, after, strict=True) if a != b]
    assert changed == ["2. Side by side with peers"]
    assert "This section was run on its own (`python -m bench.run --only peers`)" in text
    assert "per-round CPU ratios" in text
