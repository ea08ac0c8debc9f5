"""One commit of the ledger, its two special keys and the stage ids that write them.

Layer: ledger (above ``messages``; imports nothing of the package). A stage (``seed#0``,
``window#1``, ``call-llm#2``, ``tool-calls#3`` ...) commits key/value writes. Two keys are
special and kept in a stored form of positions into the ledger's message store (see
:mod:`footprint_lab.ledger`):

* ``history`` -- the ``(start, end)`` positions a stage appended;
* ``window`` -- the runs ``((start, end), ...)`` of positions the window holds, in window order.

Only the ledger package reads that stored form: :func:`history_span` and :func:`window_runs_of`
decode one commit, :mod:`footprint_lab.ledger.view` answers window questions as positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "HISTORY",
    "WINDOW",
    "Commit",
    "Runs",
    "given_commit",
    "history_span",
    "stage_number",
    "window_runs_of",
]

HISTORY = "history"
WINDOW = "window"

Runs = tuple[tuple[int, int], ...]
"""A window commit's stored form: runs ``(start, end)`` of positions, in window order."""


@dataclass(frozen=True, slots=True)
class Commit:
    """One key written by one stage."""

    index: int
    """Position in the log, from 0."""
    stage_id: str
    """The runtime stage that wrote it, e.g. ``tool-calls#4``."""
    key: str
    """Which key was written."""
    at_ms: int
    """When, in milliseconds of the ledger's clock."""
    stored: Any
    """The stored form of the value (positions for ``history``/``window``); use ``value_at``."""


def stage_number(stage_id: str) -> int | None:
    """The ``n`` of a ``name#n`` stage id, or None for an id not of that form."""
    _, sep, digits = stage_id.rpartition("#")
    return int(digits) if sep and digits.isascii() and digits.isdigit() else None


def history_span(commit: Commit) -> tuple[int, int]:
    """The positions ``(start, end)`` a ``history`` commit appended (checked by restore)."""
    start, end = commit.stored
    return int(start), int(end)


def window_runs_of(commit: Commit) -> Runs:
    """The runs of positions a ``window`` commit holds, as stored (shared, never copied)."""
    runs: Runs = commit.stored
    return runs


def given_commit(commits: Sequence[Commit], index: int) -> int:
    """The commit as of which the window was read that the visit filing the record at commit
    ``index`` was given: the commit before the first of the record's stage (a visit's commits
    are consecutive: :class:`~footprint_lab.agent.writer.RunWriter` writes them so). The writer
    names it on every record it files (``WindowRecord.given_commit``); this reads it back for a
    record that lost it (a saved run, a record rebuilt from its dump)."""
    stage_id = commits[index].stage_id
    start = index
    while start and commits[start - 1].stage_id == stage_id:
        start -= 1
    return start - 1
