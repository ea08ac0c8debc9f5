"""A read-only, position-level view of a ledger, built once per capture.

Layer: lab (reads the ledger; never writes it). ``Ledger.window_at`` returns message objects;
the lab only needs *positions* in the message store, and it needs them for thousands of commits,
so this view decodes the stored form of ``history`` and ``window`` commits (documented in
:mod:`footprint_lab.ledger`) once and answers window questions as runs of positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from footprint_lab.ledger import HISTORY, WINDOW, Commit, Ledger

IntArray = npt.NDArray[np.int64]
Runs = list[tuple[int, int]]


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


class LedgerView:
    """Positions instead of messages: every commit's history end and window, as runs."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.commits: tuple[Commit, ...] = tuple(ledger.commits)
        n = len(self.commits)
        history_end = [0] * n
        last_window = [-1] * n
        message_commit: list[int] = []
        end = 0
        window = -1
        for commit in self.commits:
            i = commit.index
            if commit.key == HISTORY:
                start, stop = commit.stored
                message_commit.extend([i] * (int(stop) - int(start)))
                end = int(stop)
            elif commit.key == WINDOW:
                window = i
            history_end[i] = end
            last_window[i] = window
        self.history_end = history_end
        """Messages committed as of each commit."""
        self.last_window = last_window
        """The last ``window`` commit at or before each commit (-1: none yet)."""
        self.message_commit = message_commit
        """The commit that appended each message position."""

    def __len__(self) -> int:
        return len(self.commits)

    def window_runs(self, index: int) -> Runs:
        """The window as of commit ``index`` as runs of positions (``[]`` before any commit)."""
        if index < 0 or not self.commits:
            return []
        end = self.history_end[index]
        lw = self.last_window[index]
        if lw < 0:
            return [(0, end)] if end else []
        stored: Any = self.commits[lw].stored
        runs: Runs = [(int(a), int(b)) for a, b in stored]
        appended_from = self.history_end[lw]
        if end > appended_from:
            runs.append((appended_from, end))
        return runs

    def window_positions(self, index: int) -> list[int]:
        """The window as of commit ``index`` as a list of positions, in window order."""
        return positions(self.window_runs(index))


def runs_length(runs: Runs) -> int:
    """How many positions the runs hold."""
    return sum(b - a for a, b in runs)


def positions(runs: Runs) -> list[int]:
    """The positions the runs hold, in window order."""
    out: list[int] = []
    for a, b in runs:
        out.extend(range(a, b))
    return out


def in_runs(position: int, runs: Runs) -> bool:
    """Whether ``position`` is in one of the runs."""
    return any(a <= position < b for a, b in runs)
