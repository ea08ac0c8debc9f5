"""``footprint-lab corpus build PATHS -o STORE``: builds, says what it did, builds again without
importing what it holds, and fails clearly on a path that names nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from footprint_lab.cli import main
from footprint_lab.corpus import Corpus
from tests.corpus.helpers import ROOT, TRANSCRIPTS


def test_corpus_build_imports_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    (tmp_path / "bad.json").write_text("[1, 2")
    paths = [str(TRANSCRIPTS / "claude-code"), str(tmp_path / "bad.json")]
    assert main(["corpus", "build", *paths, "-o", str(store), "-j", "1"]) == 0
    out, err = capsys.readouterr()
    # each file counted once: 4 imported + 1 that did not import = 5 seen
    assert "5 file(s) — 4 imported, 0 unchanged" in out and "1 did not import" in out
    assert f"problem: {tmp_path / 'bad.json'}" in err
    assert len(Corpus.open(store)) == 4
    assert main(["corpus", "build", *paths, "-o", str(store), "-j", "1"]) == 0
    out, _ = capsys.readouterr()
    assert "0 imported, 5 unchanged (not imported again)" in out


def test_corpus_build_of_nothing_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    assert main(["corpus", "build", str(missing), "-o", str(tmp_path / "s")]) == 2
    assert f"{missing}: no such file or folder" in capsys.readouterr().err
    assert main(["corpus", "build", str(TRANSCRIPTS), "-o", str(tmp_path), "-j", "0"]) == 2


def test_the_installed_command_builds_on_worker_processes(tmp_path: Path) -> None:
    store = tmp_path / "store"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "footprint_lab.cli",
            "corpus",
            "build",
            str(TRANSCRIPTS / "swe-agent"),
            "-o",
            str(store),
            "-j",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "10 imported" in done.stdout
    assert len(Corpus.open(store)) == 10
