"""A run file's serialisable parts: its format tag, the ledger's commits and messages, a fault.

Layer: agent (private; :mod:`footprint_lab.agent.run` builds :class:`RunState` from these, and
re-exports them). Nothing here knows a run: these are the records a saved run is made of.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from footprint_lab.messages import Message, StorableStr
from footprint_lab.window.records import WindowRecord

__all__ = [
    "FORMAT",
    "READABLE_VERSIONS",
    "VERSION",
    "SavedCommit",
    "SavedError",
    "SavedLedger",
    "named_records",
]

FORMAT: Literal["footprint-lab/run"] = "footprint-lab/run"
VERSION: Literal[2] = 2
"""The run file's format version: 2 keeps the run's origin (``Run.origin``); a file of
version 1 said it in meta keys, and is read as it was written (see
:func:`footprint_lab.agent.origin.origin_of_meta`)."""

READABLE_VERSIONS: tuple[int, ...] = (1, 2)
"""The versions ``load_run`` reads."""


class SavedCommit(BaseModel):
    """One ledger commit in serialisable form."""

    model_config = ConfigDict(extra="forbid")

    index: int
    """Position in the log."""
    stage_id: str
    """The stage that wrote it."""
    key: str
    """The key written."""
    at_ms: int
    """When."""
    value: Any = None
    """The stored value (positions for history/window, a dump for records and usage)."""


class SavedLedger(BaseModel):
    """The ledger: every message once, and every commit."""

    model_config = ConfigDict(extra="forbid")

    messages: list[Message]
    """Every message ever committed, in order."""
    message_commit: list[int]
    """For each message, the commit that appended it."""
    commits: list[SavedCommit]
    """Every commit, in order."""
    stage_counter: int
    """How many stage ids were allocated."""


class SavedError(BaseModel):
    """A fault, as text."""

    model_config = ConfigDict(extra="forbid")

    type_name: StorableStr
    """The exception's class name."""
    message: StorableStr
    """Its message (storable text: a lone surrogate escaped)."""


def named_records(
    records: Sequence[WindowRecord], commits: Sequence[SavedCommit]
) -> list[WindowRecord]:
    """``records`` each told the commit of the window its visit was given (``given_commit``,
    never saved: the commit before the first of its stage, as the run's writer names it)."""
    out: list[WindowRecord] = []
    for record in records:
        at = record.commit
        if record.given_commit is None and at is not None and 0 <= at < len(commits):
            start = at
            while start and commits[start - 1].stage_id == commits[at].stage_id:
                start -= 1
            record = record.model_copy(update={"given_commit": start - 1})
        out.append(record)
    return out
