"""The ledger read as positions: every commit's history end and window, as runs.

Layer: ledger (pure Python; reads a ledger's commits, never writes them). ``Ledger.window_at``
returns message objects; the lab and the evidence layer need *positions* in the message store,
for thousands of commits, so :class:`LedgerView` decodes the stored form of the ``history`` and
``window`` commits (see :mod:`footprint_lab.ledger.commit`) once, in one walk, and answers
window questions as runs of positions. :func:`window_runs` is the one reading of "the window as
of a commit": the last window commit's runs, then what was appended since — used by this view,
by :meth:`Ledger.window_runs_at <footprint_lab.ledger.Ledger.window_runs_at>` and by
:class:`~footprint_lab.evidence.SentWindows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

from footprint_lab.ledger.commit import (
    HISTORY,
    WINDOW,
    Commit,
    Runs,
    history_span,
    window_runs_of,
)

__all__ = [
    "HasCommits",
    "LedgerView",
    "WindowRuns",
    "in_runs",
    "positions",
    "runs_length",
    "window_runs",
]

WindowRuns = list[tuple[int, int]]
"""A window as runs ``(start, end)`` of positions into the message store, in window order."""


class HasCommits(Protocol):
    """What a view reads: a ledger's commits, in order (a :class:`~footprint_lab.ledger.Ledger`
    is one)."""

    @property
    def commits(self) -> Sequence[Commit]:
        """Every commit, in order."""
        ...


def window_runs(last_window: Runs | None, appended_from: int, end: int) -> WindowRuns:
    """The window as of a commit, as runs of positions.

    Args:
        last_window: The runs of the last ``window`` commit at or before it, or None when no
            strategy had committed a window by then (the window is then the whole history).
        appended_from: How many messages had been committed as of that window commit: those
            appended after it extend the window.
        end: How many messages had been committed as of the commit asked about.

    Returns:
        A new list: the window commit's runs, then ``(appended_from, end)`` when messages were
        appended since (or ``[(0, end)]``, or ``[]``, without a window commit).
    """
    if last_window is None:
        return [(0, end)] if end else []
    runs = list(last_window)
    if end > appended_from:
        runs.append((appended_from, end))
    return runs


class LedgerView:
    """Positions instead of messages: every commit's history end and window, as runs.

    Args:
        ledger: The ledger to read (its commits are read once; build a new view after it
            grows).
    """

    def __init__(self, ledger: HasCommits) -> None:
        self.commits: tuple[Commit, ...] = tuple(ledger.commits)
        """The ledger's commits, in order."""
        n = len(self.commits)
        history_end = [0] * n
        last_window = [-1] * n
        end = 0
        window = -1
        for commit in self.commits:
            i = commit.index
            if commit.key == HISTORY:
                end = history_span(commit)[1]
            elif commit.key == WINDOW:
                window = i
            history_end[i] = end
            last_window[i] = window
        self.history_end = history_end
        """Messages committed as of each commit."""
        self.last_window = last_window
        """The last ``window`` commit at or before each commit (-1: none yet)."""

    @cached_property
    def message_commit(self) -> list[int]:
        """The commit that appended each message position (read on first use)."""
        out: list[int] = []
        for commit in self.commits:
            if commit.key == HISTORY:
                start, stop = history_span(commit)
                out.extend([commit.index] * (stop - start))
        return out

    def __len__(self) -> int:
        return len(self.commits)

    def stored_window(self, window_commit: int) -> Runs:
        """The runs a ``window`` commit holds, as stored (``()`` for -1: no window commit)."""
        return window_runs_of(self.commits[window_commit]) if window_commit >= 0 else ()

    def window_runs(self, index: int) -> WindowRuns:
        """The window as of commit ``index`` as runs of positions (``[]`` before any commit)."""
        if index < 0 or not self.commits:
            return []
        end = self.history_end[index]
        lw = self.last_window[index]
        if lw < 0:
            return window_runs(None, 0, end)
        return window_runs(self.stored_window(lw), self.history_end[lw], end)

    def window_positions(self, index: int) -> list[int]:
        """The window as of commit ``index`` as a list of positions, in window order."""
        return positions(self.window_runs(index))


def runs_length(runs: Sequence[tuple[int, int]]) -> int:
    """How many positions the runs hold."""
    return sum(b - a for a, b in runs)


def positions(runs: Sequence[tuple[int, int]]) -> list[int]:
    """The positions the runs hold, in window order."""
    out: list[int] = []
    for a, b in runs:
        out.extend(range(a, b))
    return out


def in_runs(position: int, runs: Sequence[tuple[int, int]]) -> bool:
    """Whether ``position`` is in one of the runs."""
    return any(a <= position < b for a, b in runs)
