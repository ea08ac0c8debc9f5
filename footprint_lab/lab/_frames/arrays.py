"""Positions as numpy arrays, for the frame builders' vectorised passes.

Layer: lab. The ledger reads its windows as runs of positions in pure Python
(:mod:`footprint_lab.ledger.view`); the frame builders flatten many runs at once into integer
arrays here.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np
import numpy.typing as npt

__all__ = ["IntArray", "expand_runs", "windows_flat"]

IntArray = npt.NDArray[np.int64]


def expand_runs(starts: Sequence[int] | IntArray, stops: Sequence[int] | IntArray) -> IntArray:
    """Concatenate ``range(start, stop)`` for every run, vectorised."""
    a = np.asarray(starts, dtype=np.int64)
    b = np.asarray(stops, dtype=np.int64)
    lengths = np.maximum(b - a, 0)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(a - offsets, lengths) + np.arange(total, dtype=np.int64)


def windows_flat(windows: Sequence[Sequence[tuple[int, int]]]) -> tuple[IntArray, IntArray]:
    """Many windows (each runs ``(start, stop)`` of positions) laid end to end: every
    position they hold, in order, and the index of the window holding it — read in C, with
    no Python loop per run."""
    run_count = np.fromiter(map(len, windows), dtype=np.int64, count=len(windows))
    bounds = np.fromiter(
        chain.from_iterable(chain.from_iterable(windows)),
        dtype=np.int64,
        count=2 * int(run_count.sum()),
    ).reshape(-1, 2)
    starts, stops = bounds[:, 0], bounds[:, 1]
    owner = np.repeat(np.arange(len(windows), dtype=np.int64), run_count)
    return expand_runs(starts, stops), np.repeat(owner, np.maximum(stops - starts, 0))
