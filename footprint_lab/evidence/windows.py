"""The window each call of a run sent, as positions in its ledger's message store.

Layer: evidence (pure; reads the ledger, never writes it). ``Run.window_sent(i)`` materialises
a list of every message of call ``i``'s window: asked for every call of a run with no window
management, that is quadratic in the run's length. The ledger stores each window as runs of
positions (see :mod:`footprint_lab.ledger`), so this view reads them once, through the
ledger's own view of them (:class:`~footprint_lab.ledger.LedgerView`), and answers "was
position ``p`` in the window call ``i`` sent?" by bisection, and "what did call ``i`` send that
call ``i - 1`` did not?" as a slice of the message store.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from footprint_lab.agent.run import Run
from footprint_lab.ledger import LedgerView, Runs, WindowRuns, window_runs
from footprint_lab.messages import Message


@dataclass(frozen=True, slots=True)
class SentWindow:
    """Where one call's window lives in the message store (never a copy of it)."""

    window_commit: int
    """The last ``window`` commit at or before the call (-1: none; the whole history)."""
    stored: Runs
    """That commit's runs of positions (shared with the ledger, not copied)."""
    appended_from: int
    """Messages committed after that window commit start here; they extend the window."""
    end: int
    """How many messages had been committed when the call was made."""

    def runs(self) -> WindowRuns:
        """The window as runs of positions, in window order."""
        stored = None if self.window_commit < 0 else self.stored
        return window_runs(stored, self.appended_from, self.end)


class SentWindows:
    """Every call's sent window of ``run``, read from its ledger's view in one walk (O(commits)).

    Args:
        run: A run (recorded, imported or replayed); read, never changed. Build a new view
            after the run grows.
    """

    def __init__(self, run: Run) -> None:
        ledger = run.ledger
        self.messages: Sequence[Message] = ledger.messages
        """The ledger's message store, by position."""
        view = LedgerView(ledger)
        sent = [self._normalised(c.sent_commit, len(view)) for c in run.calls]
        # Per call, three ints in parallel lists (no object per call for the collector to
        # walk); the stored runs of each window commit are shared with the ledger.
        last_window, history_end = view.last_window, view.history_end
        self._window_commit = [last_window[index] for index in sent]
        self._appended_from = [history_end[w] if w >= 0 else 0 for w in self._window_commit]
        self._end = [history_end[index] for index in sent]
        self._stored: dict[int, Runs] = {
            w: view.stored_window(w) for w in self._window_commit if w >= 0
        }
        self._merged_for = -1
        self._starts: list[int] = []
        self._stops: list[int] = []

    @staticmethod
    def _normalised(index: int, count: int) -> int:
        # The same reading of a commit index as ``Ledger.window_at`` (negatives from the end).
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError(f"commit index {index} out of range (0..{count - 1})")
        return index

    def __len__(self) -> int:
        return len(self._end)

    def __getitem__(self, call_index: int) -> SentWindow:
        window_commit = self._window_commit[call_index]
        return SentWindow(
            window_commit,
            self._stored.get(window_commit, ()),
            self._appended_from[call_index],
            self._end[call_index],
        )

    def end(self, call_index: int) -> int:
        """How many messages had been committed when call ``call_index`` was made."""
        return self._end[call_index]

    def window_commit(self, call_index: int) -> int:
        """The last ``window`` commit at or before call ``call_index`` (-1: none)."""
        return self._window_commit[call_index]

    def runs(self, call_index: int) -> WindowRuns:
        """``self[call_index].runs()``, without building the :class:`SentWindow` (every
        measure asks it of every call)."""
        w = self._window_commit[call_index]
        stored = self._stored[w] if w >= 0 else None
        return window_runs(stored, self._appended_from[call_index], self._end[call_index])

    def messages_of(self, call_index: int) -> Iterator[Message]:
        """The messages call ``call_index`` sent, in window order (lazily, one at a time)."""
        messages = self.messages
        for start, stop in self.runs(call_index):
            for position in range(start, stop):
                yield messages[position]

    def _merge(self, call_index: int) -> None:
        # Sorted, disjoint runs of the call's window, kept for one call at a time: callers ask
        # about the calls in order, and keeping every call's runs would keep every window.
        if self._merged_for == call_index:
            return
        starts: list[int] = []
        stops: list[int] = []
        for start, stop in sorted(self.runs(call_index)):
            if starts and start <= stops[-1]:
                stops[-1] = max(stops[-1], stop)
            else:
                starts.append(start)
                stops.append(stop)
        self._merged_for, self._starts, self._stops = call_index, starts, stops

    def holds(self, call_index: int, position: int) -> bool:
        """Whether the window call ``call_index`` sent held the message at ``position``."""
        self._merge(call_index)
        at = bisect.bisect_right(self._starts, position) - 1
        return at >= 0 and position < self._stops[at]

    def holds_any(self, call_index: int, positions: Sequence[int]) -> bool:
        """Whether that window held any of ``positions`` (ascending): one bisection per run."""
        self._merge(call_index)
        for start, stop in zip(self._starts, self._stops, strict=True):
            at = bisect.bisect_left(positions, start)
            if at < len(positions) and positions[at] < stop:
                return True
        return False
