"""A corpus with hostile files builds and lists them: truncated, foreign, binary, empty, a FIFO, a
device, a copy of another file; ``strict=True`` stops at the first."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from footprint_lab.corpus import Corpus
from footprint_lab.importers import TranscriptError
from tests.corpus.helpers import TAU_BENCH, TRANSCRIPTS

GOOD = TRANSCRIPTS / "claude-code" / "edge_cases.jsonl"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    root = tmp_path / "hostile"
    root.mkdir()
    shutil.copy(GOOD, root / "session.jsonl")
    shutil.copy(GOOD, root / "session-copy.jsonl")
    traj = (TRANSCRIPTS / "swe-agent" / "function_calling_simple.traj").read_bytes()
    (root / "truncated.traj").write_bytes(traj[: len(traj) // 2])
    (root / "foreign.json").write_text('{"hello": "world", "items": [1, 2]}')
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (root / "empty.jsonl").write_text("")
    os.mkfifo(root / "pipe.jsonl")
    (root / "zero.json").symlink_to("/dev/zero")
    (root / "README.md").write_text("documentation, not a transcript")
    return root


def test_hostile_files_are_listed_in_problems_and_the_rest_is_imported(
    hostile: Path, tmp_path: Path
) -> None:
    corpus = Corpus.build(hostile, tmp_path / "store", executor="inline")
    report = corpus.last_build
    assert report is not None
    assert report.files == 8  # the README is documentation: not read
    assert (report.failed, report.duplicates) == (6, 1)
    assert len(corpus) == 1 and "6 did not import" in str(report)
    problems = corpus.frame("problems")
    errors = problems[problems["kind"] == "error"]
    pairs = zip(errors["source_path"], errors["message"], strict=True)
    by_file = {Path(p).name: m for p, m in pairs}
    assert set(by_file) == {
        "truncated.traj",
        "foreign.json",
        "image.png",
        "empty.jsonl",
        "pipe.jsonl",
        "zero.json",
    }
    for name, message in by_file.items():
        assert str(hostile / name) in message, message  # each names its file
    assert "a FIFO, not a regular file" in by_file["pipe.jsonl"]
    assert "a device, not a regular file" in by_file["zero.json"]
    assert "swe-agent" in by_file["truncated.traj"]
    assert "not a format footprint_lab reads" in by_file["foreign.json"]
    assert "an empty file" in by_file["empty.jsonl"]
    assert errors["run_id"].isna().all()
    [duplicate] = problems[problems["kind"] == "duplicate"].itertuples()
    # The first path holds the content; the other names it.
    assert Path(duplicate.source_path).name == "session.jsonl"
    assert str(hostile / "session-copy.jsonl") in duplicate.message
    [run] = corpus.frame("runs").itertuples()
    assert Path(run.source_path).name == "session-copy.jsonl"


def test_building_hostile_files_again_imports_nothing_new(hostile: Path, tmp_path: Path) -> None:
    first = Corpus.build(hostile, tmp_path / "store", executor="inline")
    again = Corpus.build(hostile, tmp_path / "store", executor="inline")
    report = again.last_build
    assert report is not None
    # Files with content are known by it (those that did not import last time among the
    # unchanged, counted once); a FIFO and a device have none and are looked at again.
    assert (report.imported, report.unchanged, report.duplicates, report.failed) == (0, 5, 1, 2)
    assert report.files == report.imported + report.unchanged + report.duplicates + report.failed
    assert len(again.frame("problems")) == len(first.frame("problems"))


def test_strict_stops_at_the_first_file_that_does_not_import(hostile: Path, tmp_path: Path) -> None:
    (hostile / "pipe.jsonl").unlink()
    (hostile / "zero.json").unlink()
    with pytest.raises(TranscriptError) as raised:
        Corpus.build(hostile, tmp_path / "store", executor="inline", strict=True)
    assert str(hostile / "empty.jsonl") in str(raised.value)  # the first by name
    with pytest.raises(TranscriptError, match="a FIFO, not a regular file"):
        os.mkfifo(hostile / "a-pipe.jsonl")
        Corpus.build(hostile, tmp_path / "other", executor="inline", strict=True)


def test_strict_refuses_a_run_with_import_problems(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="tau-bench"):
        Corpus.build(TAU_BENCH, tmp_path / "store", executor="inline", strict=True)
    lenient = Corpus.build(TAU_BENCH, tmp_path / "lenient", executor="inline")
    assert len(lenient) == 50 and len(lenient.frame("problems")) > 0
