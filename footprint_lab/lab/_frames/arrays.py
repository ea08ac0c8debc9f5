"""Positions as numpy arrays, for the frame builders' vectorised passes.

Layer: lab. The ledger reads its windows as runs of positions in pure Python
(:mod:`footprint_lab.ledger.view`); the frame builders flatten many runs at once into integer
arrays here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["IntArray", "expand_runs"]

IntArray = npt.NDArray[np.int64]


def expand_runs(starts: Sequence[int], stops: Sequence[int]) -> IntArray:
    """Concatenate ``range(start, stop)`` for every run, vectorised."""
    a = np.asarray(starts, dtype=np.int64)
    b = np.asarray(stops, dtype=np.int64)
    lengths = np.maximum(b - a, 0)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(a - offsets, lengths) + np.arange(total, dtype=np.int64)
