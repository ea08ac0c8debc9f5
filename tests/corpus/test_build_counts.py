"""A build's counts add up: every file it saw is imported, failed, unchanged or a duplicate,
once (#39: "the corpus build's counts add up")."""

from __future__ import annotations

import shutil
from pathlib import Path

from footprint_lab.corpus import Corpus
from footprint_lab.corpus.build import BuildReport

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts"


def _adds_up(r: BuildReport | None) -> None:
    assert r is not None
    assert r.files == r.imported + r.failed + r.unchanged + r.duplicates, str(r)


def test_every_file_is_counted_once_first_time_and_again(tmp_path: Path) -> None:
    source = tmp_path / "transcripts"
    shutil.copytree(DATA / "swe-agent", source / "swe-agent")
    shutil.copytree(DATA / "pi", source / "pi")
    (source / "broken.jsonl").write_text('{"not": "a transcript"')  # fails to import
    shutil.copy(next((DATA / "pi").glob("*.jsonl")), source / "copy.jsonl")  # a duplicate
    store = tmp_path / "store"
    first = Corpus.build([source], store, executor="inline", progress=False).last_build
    _adds_up(first)
    assert first is not None
    assert first.failed >= 1 and first.duplicates == 1 and first.unchanged == 0
    again = Corpus.build([source], store, executor="inline", progress=False).last_build
    _adds_up(again)
    assert again is not None
    # nothing changed: nothing imported or tried again, the failure not counted a second time
    assert again.imported == 0 and again.failed == 0
    assert again.unchanged == first.imported + first.failed
