"""Shared parts of the overview tests: copies of the real corpus, with and without a grid."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from footprint_lab.corpus import Corpus
from footprint_lab.lab import evidence_grid
from footprint_lab.window.strategies import sliding_window

GRID = evidence_grid(
    sliding_window, {"keep_recent_turns": [2, 6], "keep_last_tool_results": [0, 2]}
)
"""The evidence grid run over the corpus: 4 configurations."""


def copy_of(corpus: Corpus, target: Path) -> Corpus:
    """A copy of ``corpus``'s store at ``target`` without its result tables (the session's
    corpus is shared with other tests, which write grids into it)."""
    shutil.copytree(corpus.path, target)
    shutil.rmtree(target / "results", ignore_errors=True)
    return Corpus.open(target)


@pytest.fixture(scope="module")
def plain(real_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The real corpus with no grid run over it."""
    return copy_of(real_corpus, tmp_path_factory.mktemp("plain") / "store")


@pytest.fixture(scope="module")
def gridded(real_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The real corpus with the evidence grid :data:`GRID` written back into it."""
    corpus = copy_of(real_corpus, tmp_path_factory.mktemp("gridded") / "store")
    corpus.evidence_frame(GRID, progress=False)
    return corpus


def outcomes(runs: pd.DataFrame) -> pd.Series:
    """Each run's outcome, computed here from the stored columns (not by the lab's helper)."""
    reward = runs["reward"].to_numpy(dtype=np.float64, na_value=np.nan)
    verdict = np.where(reward > 0, "passed", "failed")
    status = runs["status"].astype(str).to_numpy()
    return pd.Series(np.where(np.isnan(reward), status, verdict), index=runs.index)
