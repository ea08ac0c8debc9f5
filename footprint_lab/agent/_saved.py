"""A run file's serialisable parts: its format tag, the ledger's commits and messages, a fault.

Layer: agent (private; :mod:`footprint_lab.agent.run` builds :class:`RunState` from these, and
re-exports them). Nothing here knows a run: these are the records a saved run is made of.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from footprint_lab.messages import Message, StorableStr

__all__ = ["FORMAT", "VERSION", "SavedCommit", "SavedError", "SavedLedger"]

FORMAT: Literal["footprint-lab/run"] = "footprint-lab/run"
VERSION: Literal[1] = 1


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
