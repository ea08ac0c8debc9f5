"""The ledger: a run's append-only commit log, and the one reading of its stored form.

Layer: ledger (above ``messages``; below the window core's callers: agent, lab). One module a
job:

* :mod:`~footprint_lab.ledger.log` -- :class:`Ledger`, the log: append, set the window, put,
  export and restore, read values as of a commit.
* :mod:`~footprint_lab.ledger.commit` -- :class:`Commit`, the keys ``HISTORY`` and ``WINDOW``
  and their stored form (:data:`Runs`), stage ids (:func:`stage_number`).
* :mod:`~footprint_lab.ledger.view` -- :class:`LedgerView`, the ledger as positions (history
  ends, window runs): the lab's and the evidence layer's one way in.
* :mod:`~footprint_lab.ledger.checks` -- :func:`check_ledger_parts` and :class:`LedgerError`,
  the sense checks :meth:`Ledger.restore` makes.
"""

from __future__ import annotations

from footprint_lab.ledger.checks import LedgerError, check_ledger_parts
from footprint_lab.ledger.commit import (
    HISTORY,
    WINDOW,
    Commit,
    Runs,
    given_commit,
    history_span,
    stage_number,
    window_runs_of,
)
from footprint_lab.ledger.log import Clock, Ledger, wall_clock_ms
from footprint_lab.ledger.view import (
    HasCommits,
    LedgerView,
    WindowRuns,
    in_runs,
    positions,
    runs_length,
    window_runs,
)

__all__ = [
    "HISTORY",
    "WINDOW",
    "Clock",
    "Commit",
    "HasCommits",
    "Ledger",
    "LedgerError",
    "LedgerView",
    "Runs",
    "WindowRuns",
    "check_ledger_parts",
    "given_commit",
    "history_span",
    "in_runs",
    "positions",
    "runs_length",
    "stage_number",
    "wall_clock_ms",
    "window_runs",
    "window_runs_of",
]
