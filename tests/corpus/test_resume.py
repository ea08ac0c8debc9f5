"""An interrupted build resumes and ends identical to an uninterrupted one: raised inside a
file's writes, or its worker process killed mid-file."""

from __future__ import annotations

import shutil
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pytest

from footprint_lab.corpus import Corpus, CorpusError
from footprint_lab.corpus.manifest import Seal
from footprint_lab.corpus.store import Store
from tests.corpus.helpers import TRANSCRIPTS, assert_same_store
from tests.corpus.killers import KillingExecutor


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few real files of several formats, and a file that does not import."""
    root = tmp_path_factory.mktemp("sources")
    for name in ("claude-code", "openhands"):
        shutil.copytree(TRANSCRIPTS / name, root / name)
    shutil.copy(TRANSCRIPTS / "inspect" / "popularity-a.eval", root)  # ten runs in one file
    (root / "broken.traj").write_text('{"trajectory": [')
    return root


@pytest.fixture(scope="module")
def uninterrupted(sources: Path, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return Corpus.build(sources, tmp_path_factory.mktemp("whole") / "store", executor="inline")


@pytest.mark.parametrize("fail_at", [1, 5])
def test_a_build_that_raises_mid_file_resumes_identical(
    sources: Path,
    uninterrupted: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fail_at: int,
) -> None:
    real = Store.write_part
    writes = 0

    def failing(self: Store, family: str, part: str, table: Any) -> Seal:
        nonlocal writes
        writes += 1
        if writes == fail_at:
            raise OSError("disk full (simulated)")
        return real(self, family, part, table)

    store = tmp_path / "store"
    monkeypatch.setattr(Store, "write_part", failing)
    with pytest.raises(OSError, match="simulated"):
        Corpus.build(sources, store, executor="inline")
    monkeypatch.setattr(Store, "write_part", real)
    half = Corpus.open(store)
    assert len(half) < len(uninterrupted)  # the files before the fault, and no part of it
    done = len(half.entries())
    resumed = Corpus.build(sources, store, executor="inline")
    assert resumed.last_build is not None
    assert resumed.last_build.unchanged == done  # only the rest is imported
    # the rest is tried again: each file imported or failed, once
    report = resumed.last_build
    assert report.imported + report.failed == report.files - done
    assert_same_store(resumed, uninterrupted)


def test_a_build_whose_worker_is_killed_mid_file_resumes_identical(
    sources: Path, uninterrupted: Corpus, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    with (
        ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool,
        pytest.raises(CorpusError) as died,
    ):
        Corpus.build(sources, store, executor=KillingExecutor(pool, "runtime-basic.json"))
    message = str(died.value)
    assert "a worker process died while importing" in message
    assert "runtime-basic.json" in message and "build again to resume" in message
    assert isinstance(died.value.__cause__.__cause__, BrokenProcessPool)  # type: ignore[union-attr]
    # The killed file wrote a part and no entry: the store does not name it.
    half = Corpus.open(store)
    killed = [p for p in half.entries() if p.endswith("runtime-basic.json")]
    assert killed == []
    assert list(Path(store, "runs").glob("*.parquet"))  # a killed file's part was left behind
    resumed = Corpus.build(sources, store, executor="inline")
    assert_same_store(resumed, uninterrupted)
