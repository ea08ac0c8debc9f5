"""Paths in a manifest are names, never paths: a received store whose entries point outside it
is refused on open, naming the entry's file and the rule; a run id is never a path; and a
build deletes only what the store writes — never a file someone put in its folders, never
through a symlink, never outside the store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from footprint_lab.corpus import Corpus, CorpusError
from tests.corpus.test_build_properties import SMALL


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    Corpus.build(SMALL[:2], root, executor="inline", progress=False)
    return root


def _entry_file(store: Path) -> Path:
    return sorted((store / "manifest").glob("*.json"))[0]


@pytest.mark.parametrize(
    ("field", "value", "rule"),
    [
        ("part", "../../outside", "not a part name"),
        ("part", "/etc/passwd", "not a part name"),
        ("runs", ["../../../etc/passwd"], "are not run ids"),
        ("families", ["../runs"], "are not the store's"),
    ],
)
def test_an_entry_pointing_outside_is_refused_on_open(
    store: Path, field: str, value: object, rule: str
) -> None:
    item = _entry_file(store)
    data = json.loads(item.read_text(encoding="utf-8"))
    data[field] = value
    item.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CorpusError, match=rule) as refused:
        Corpus.open(store)
    assert str(item) in str(refused.value)


def test_a_run_id_is_never_a_path(store: Path, tmp_path: Path) -> None:
    corpus = Corpus.open(store)
    for run_id in ("../../outside", "/etc/passwd", "x" * 16 + "-0"):
        with pytest.raises(CorpusError, match="no run"):
            corpus.run(run_id)


def test_a_build_deletes_only_what_the_store_writes(store: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.parquet").write_text("not the store's", encoding="utf-8")
    (outside / "0123456789abcdef.runs.zst").write_text("not the store's", encoding="utf-8")
    planted = {
        store / "runs" / "notes.txt": "someone's notes",
        store / "runs" / "mine.parquet": "a file of someone's",
    }
    for path, text in planted.items():
        path.write_text(text, encoding="utf-8")
    link = store / "checkpoints" / "0123456789abcdef.runs.zst"
    link.symlink_to(outside / "0123456789abcdef.runs.zst")
    part_link = store / "runs" / ("f" * 64 + ".parquet")
    part_link.symlink_to(outside / "keep.parquet")
    shutil.copy(SMALL[2], tmp_path / SMALL[2].name)
    Corpus.build([*SMALL[:2], tmp_path / SMALL[2].name], store, executor="inline", progress=False)
    for path, text in planted.items():
        assert path.read_text(encoding="utf-8") == text  # left as it was
    assert link.is_symlink() and part_link.is_symlink()  # neither followed nor deleted
    assert sorted(p.name for p in outside.iterdir()) == [
        "0123456789abcdef.runs.zst",
        "keep.parquet",
    ]
    assert len(Corpus.open(store)) > 0


def test_a_store_folder_that_is_a_symlink_is_refused(store: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.move(store / "checkpoints", elsewhere)
    (store / "checkpoints").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(CorpusError, match="a symlink, not the store's own folder"):
        Corpus.build(SMALL[:2], store, executor="inline", progress=False)
    assert any(elsewhere.iterdir())  # nothing deleted through it
