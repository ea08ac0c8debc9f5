"""Fixtures of the corpus tests: one corpus of the real transcripts and tau-bench, built once."""

from __future__ import annotations

from pathlib import Path

import pytest

from footprint_lab.agent.run import Run
from footprint_lab.corpus import Corpus
from tests.corpus.helpers import SOURCES, runs_by_id


@pytest.fixture(scope="session")
def real_corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """data/transcripts and data/tau-bench built into one store (inline: the suite runs on
    few cores; the pool and Dask are tested on their own)."""
    store = tmp_path_factory.mktemp("corpus") / "store"
    return Corpus.build(SOURCES, store, executor="inline")


@pytest.fixture(scope="session")
def real_runs() -> dict[str, Run]:
    """The same runs as the importers load them, by corpus run id."""
    return runs_by_id([Path(p) for p in SOURCES])
