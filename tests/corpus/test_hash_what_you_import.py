"""Hash what you import: a file is hashed when the build plans and again after it is read. A
file that changed in between is read again and stored under the hash of the bytes its runs
came from — never its old hash for good; one that keeps changing is a problem row saying so,
and the next build imports it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from footprint_lab.corpus import Corpus, _rows
from footprint_lab.corpus.manifest import content_hash
from tests.corpus.helpers import TRANSCRIPTS, assert_same_store

FIRST = TRANSCRIPTS / "swe-agent" / "function_calling_simple.traj"
SECOND = TRANSCRIPTS / "swe-agent" / "ctf__crypto__BabyEncryption.traj"


def _writer_during_import(monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """Make the first ``times`` loads of a file be followed by someone rewriting it (the two
    contents in turn); returns the count of loads."""
    real = _rows.load
    loads = [0]

    def load_then_rewrite(path: Any, **kwargs: Any) -> Any:
        runs = real(path, **kwargs)
        loads[0] += 1
        if loads[0] <= times:
            other = SECOND if Path(path).read_bytes() == FIRST.read_bytes() else FIRST
            shutil.copyfile(other, path)
        return runs

    monkeypatch.setattr(_rows, "load", load_then_rewrite)
    return loads


def test_a_file_changed_during_its_import_is_stored_as_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = tmp_path / "run.traj"
    shutil.copyfile(FIRST, source)
    loads = _writer_during_import(monkeypatch, times=1)
    corpus = Corpus.build([source], tmp_path / "store", executor="inline", progress=False)
    assert loads[0] == 2  # read, found changed, read again
    (entry,) = corpus.entries().values()
    assert source.read_bytes() == SECOND.read_bytes()
    assert entry.content_hash == content_hash(source)  # the bytes its runs came from
    runs = corpus.frame("runs")
    assert runs["content_hash"].tolist() == [content_hash(source)]
    monkeypatch.undo()
    fresh = Corpus.build([source], tmp_path / "fresh", executor="inline", progress=False)
    assert_same_store(corpus, fresh)
    again = Corpus.build([source], tmp_path / "store", executor="inline", progress=False)
    assert again.last_build is not None and again.last_build.unchanged == 1


def test_a_file_that_keeps_changing_is_a_problem_until_it_holds_still(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = tmp_path / "run.traj"
    shutil.copyfile(FIRST, source)
    _writer_during_import(monkeypatch, times=2)
    corpus = Corpus.build([source], tmp_path / "store", executor="inline", progress=False)
    assert corpus.last_build is not None and corpus.last_build.failed == 1
    assert len(corpus) == 0
    problems = corpus.frame("problems")
    assert "changed while it was being imported, twice over" in problems["message"].iloc[0]
    monkeypatch.undo()
    settled = Corpus.build([source], tmp_path / "store", executor="inline", progress=False)
    assert settled.last_build is not None and settled.last_build.imported == 1
    assert len(settled) == 1 and settled.verify().ok
