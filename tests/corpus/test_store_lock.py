"""One writer per store: a build holds the store's lock (``<store>/.lock``) from before it reads
the manifest until it returns. A second build waits for it, or refuses at once naming the
holder; a lock left by a killed build never blocks and is taken over, saying so; and two
builds into one store, the second started at a random moment inside the first — 50 pairs,
each in its own process, overlapping on a third of 31 files — end as one build of every file
does. (With the lock taken out, the second pair already lost a checkpoint the first build had
written but not yet recorded: the seals now find it on open. Before the lock and the seals,
3 of 20 such pairs lost runs and both builds exited 0.)"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

import pytest

from footprint_lab.corpus import Corpus, CorpusError
from footprint_lab.corpus._lock import LOCK_FILE, StoreLock
from tests.corpus.helpers import assert_same_store, small_sources

PAIRS = 50
"""Concurrent pairs of builds."""


VARIANTS = 6
"""Copies of each small transcript, each with its own content (trailing blank lines): enough
files that two builds into one store overlap for a good while."""


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return small_sources(tmp_path_factory.mktemp("lock-sources"), VARIANTS)


@pytest.fixture(scope="module")
def whole(sources: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    store = tmp_path_factory.mktemp("lock-whole") / "store"
    return Corpus.build(sources, store, executor="inline", progress=False)


def test_a_second_build_refuses_or_waits_naming_the_holder(
    sources: list[Path], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    Corpus.build(sources[:1], store, executor="inline", progress=False)
    with StoreLock(store):
        with pytest.raises(CorpusError) as refused:
            Corpus.build(sources, store, executor="inline", progress=False, wait=False)
        message = str(refused.value)
        assert f"process {os.getpid()} on " in message and "corpus build" in message
        assert "another build is writing this store" in message and "--no-wait" in message
        with pytest.raises(CorpusError, match=r"after waiting 0.3 s: process"):
            Corpus.build(sources, store, executor="inline", progress=False, wait=0.3)
    # nothing was written while it was held; now the build goes through
    assert len(Corpus.open(store).entries()) == 1
    corpus = Corpus.build(sources, store, executor="inline", progress=False, wait=False)
    assert corpus.last_build is not None and corpus.last_build.took_over is None
    assert (store / LOCK_FILE).read_text(encoding="utf-8") == ""  # ended cleanly


def _hold_and_die(store: str) -> None:
    """Take the store's lock and be killed holding it."""
    lock = StoreLock(store)
    lock.__enter__()
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_builds_lock_is_taken_over(sources: list[Path], tmp_path: Path) -> None:
    store = tmp_path / "store"
    Corpus.build(sources[:1], store, executor="inline", progress=False)
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=_hold_and_die, args=(str(store),))
    child.start()
    child.join(60)
    assert child.exitcode == -signal.SIGKILL
    assert f'"pid": {child.pid}' in (store / LOCK_FILE).read_text(encoding="utf-8")
    corpus = Corpus.build(sources, store, executor="inline", progress=False, wait=False)
    report = corpus.last_build
    assert report is not None and report.took_over is not None
    assert f"process {child.pid} on " in report.took_over
    assert "after a killed build" in str(report)


def _build(paths: list[str], store: str) -> None:
    Corpus.build(paths, store, executor="inline", progress=False)


def test_builds_started_together_end_as_one_build(
    sources: list[Path], whole: Corpus, tmp_path: Path
) -> None:
    # a fork server that has imported the lab once: each build starts in milliseconds, so
    # the two of a pair really overlap
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["footprint_lab.corpus.corpus", "tests.corpus.test_store_lock"])
    names = [str(p) for p in sources]
    third = len(names) // 3
    halves = (names[: 2 * third], names[third:])  # overlapping: both import the middle third
    stagger = random.Random(20261206)
    for pair in range(PAIRS):
        store = str(tmp_path / f"store-{pair}")
        builds = [context.Process(target=_build, args=(half, store)) for half in halves]
        builds[0].start()
        # the second starts somewhere inside the first: its start-up finds the first mid-file
        time.sleep(stagger.uniform(0.0, 0.4))
        builds[1].start()
        for build in builds:
            build.join(120)
        assert [b.exitcode for b in builds] == [0, 0], pair
        assert_same_store(Corpus.open(store), whole)


def test_a_store_caught_being_made_is_the_store_not_a_stranger(
    sources: list[Path], whole: Corpus, tmp_path: Path
) -> None:
    # Found by the pairs above (one pair in a run): the first build had made the folder and
    # was writing its marker (a temp file, then renamed) when the second looked, saw a file
    # that was not a store's marker and refused the folder as someone else's.
    store = tmp_path / "store"
    store.mkdir()
    (store / ".tmp-k2x9marker").write_text('{"format"', encoding="utf-8")
    (store / LOCK_FILE).write_text("", encoding="utf-8")
    built = Corpus.build(sources, store, executor="inline", progress=False)
    assert_same_store(built, whole)
    assert not [p.name for p in store.iterdir() if p.name.startswith(".tmp-")]
    # a folder holding anything else is still refused, naming the rule
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(CorpusError, match="holds other files and no corpus store"):
        Corpus.build(sources, other, executor="inline", progress=False)
