"""``Run``: everything one agent run produced — status, window, records, events, ledger.

Layer: agent. A run that hit a fault is still a run: ``status='error'`` with ``error`` set and
the ledger, records and events intact up to the fault, so it can be inspected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from footprint_lab.events import Event
from footprint_lab.ledger import Ledger
from footprint_lab.messages import Message
from footprint_lab.usage import Usage
from footprint_lab.window.records import FoldedSpan, WindowRecord

RunStatus = Literal["done", "paused", "max-iterations", "error"]


class CallRecord(BaseModel):
    """One LLM call: what was sent and what the provider reported."""

    iteration: int
    """The ReAct iteration."""
    stage_id: str
    """The call-llm stage."""
    sent_commit: int
    """Index of the last commit before the call: ``ledger.window_at(sent_commit)`` is what
    was sent."""
    messages: int
    """Messages sent."""
    chars: int
    """Exact characters sent."""
    usage: Usage | None = None
    """What the provider reported (None when the call failed)."""
    retry: bool = False
    """True for the one retry after a context-length rejection."""


@dataclass
class Run:
    """The outcome of ``agent.run(request)``."""

    request: str
    """What the run was asked."""
    ledger: Ledger
    """The append-only commit log."""
    status: RunStatus = "done"
    """'done', 'paused', 'max-iterations' or 'error'."""
    output: str | None = None
    """The final answer, when the run finished."""
    window: list[Message] = field(default_factory=list)
    """The window as the run left it."""
    records: list[WindowRecord] = field(default_factory=list)
    """Every WindowRecord filed, in order."""
    events: list[Event] = field(default_factory=list)
    """Every event emitted, in order."""
    calls: list[CallRecord] = field(default_factory=list)
    """Every LLM call, in order."""
    folded: list[FoldedSpan] = field(default_factory=list)
    """Spans compaction frames stand for."""
    error: BaseException | None = None
    """The fault that stopped the run, if any."""
    iterations: int = 0
    """ReAct iterations started."""
    strategy: str | None = None
    """Name of the window strategy, or None."""
    system: str | None = None
    """The system prompt."""
    model: str = ""
    """The model id."""
    provider: str = ""
    """The provider's name."""
    keep_last_tool_results: int = 2
    """The pin limit in force."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Free-form facts about the run (scenario name, imported task id, ...)."""

    @property
    def usage(self) -> Usage:
        """Total usage reported over every call."""
        total = Usage()
        for call in self.calls:
            if call.usage is not None:
                total = total + call.usage
        return total

    def window_sent(self, call_index: int) -> list[Message]:
        """The exact window sent by call number ``call_index`` (0-based)."""
        return self.ledger.window_at(self.calls[call_index].sent_commit)

    def raise_for_error(self) -> Run:
        """Re-raise the fault that stopped the run; return the run when there was none."""
        if self.error is not None:
            raise self.error
        return self

    def __repr__(self) -> str:
        return (
            f"Run(status={self.status!r}, iterations={self.iterations}, "
            f"strategy={self.strategy!r}, records={len(self.records)}, "
            f"messages={len(self.ledger.messages)})"
        )
