"""``Run``: everything one agent run produced — status, window, records, events, ledger.

Layer: agent. A run that hit a fault is still a run: ``status='error'`` with ``error`` set and
the ledger, records and events intact up to the fault, so it can be inspected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from footprint_lab.events import Event
from footprint_lab.ledger import Ledger
from footprint_lab.messages import Message
from footprint_lab.usage import Usage
from footprint_lab.window.records import FoldedSpan, WindowRecord

if TYPE_CHECKING:
    from footprint_lab.agent.agent import Agent
    from footprint_lab.agent.checkpoint import Checkpoint

RunStatus = Literal["done", "paused", "max-iterations", "error"]
Phase = Literal["window", "call", "tools", "resume", "finished"]
"""Where a run stands inside an iteration: about to run its window stage, about to call the
model, about to run tools, waiting on a person (resume), or finished."""


class PauseState(BaseModel):
    """What a paused run waits on."""

    call_id: str
    """The tool call waiting for a person."""
    tool_name: str
    """Its tool."""
    kind: Literal["ask-human", "check-in"]
    """'ask-human' waits for an answer; 'check-in' waits for consent to run the tool."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The call's arguments (the question, for ask_human)."""
    pending: list[str] = Field(default_factory=list)
    """Further calls of the same batch still waiting, in order."""
    iteration: int = 0
    """The iteration whose tool calls paused."""
    boundary: bool = False
    """True once the next iteration's window stage ran (it runs at the pause)."""

    @property
    def check_in(self) -> bool:
        """True when the person is asked for consent rather than an answer."""
        return self.kind == "check-in"


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
    requests: list[str] = field(default_factory=list)
    """Every request of the conversation so far, in order (the last is ``request``)."""
    phase: Phase = "window"
    """Where the run stands inside its current iteration (for resume)."""
    pause: PauseState | None = None
    """What a paused run waits on."""
    loop_start: int = 0
    """Iterations completed before the current request's loop began."""
    last_usage: Usage | None = None
    """Usage of the last successful call: what a token strategy measures next."""
    provider_state: dict[str, Any] | None = None
    """State of a stateful provider (the scripted one) as of the last checkpointable point."""
    agent: Agent | None = field(default=None, repr=False, compare=False)
    """The agent that produced this run (None for loaded runs); ``resume`` uses it."""

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

    def checkpoint(self) -> Checkpoint:
        """A JSON-serialisable snapshot the agent can resume from (see ``agent.resume``)."""
        from footprint_lab.agent.checkpoint import checkpoint_of

        return checkpoint_of(self)

    def save(self, path: str | Path) -> Path:
        """Write this run to one file, atomically; ``footprint_lab.load_run`` restores it."""
        from footprint_lab.agent.checkpoint import save_run

        return save_run(self, path)

    def _owner(self) -> Agent:
        if self.agent is None:
            raise RuntimeError(
                "this run has no agent attached (it was loaded from a file): use "
                "agent.resume(run.checkpoint(), answer=...) with the agent rebuilt"
            )
        return self.agent

    def resume(self, answer: str | None = None) -> Run:
        """Continue a paused run: ``answer`` is the person's reply to ``ask_human``; for a
        check-in, ``resume()`` without an answer approves."""
        return self._owner().resume(self.checkpoint(), answer=answer)

    def approve(self) -> Run:
        """Let a paused check-in tool run, and continue."""
        return self._owner().resume(self.checkpoint(), approve=True)

    def deny(self, reason: str = "not approved") -> Run:
        """Refuse a paused check-in tool (the model sees the refusal), and continue."""
        return self._owner().resume(self.checkpoint(), approve=False, answer=reason)

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
