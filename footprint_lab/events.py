"""Typed events the agent emits while it runs, and the recorder that keeps them.

Layer: above ``messages``/``usage``; the agent writes here, the lab reads. Events describe
what happened; the ledger remains the authority on what was committed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from footprint_lab.messages import StorableStr
from footprint_lab.usage import Usage


class _Event(BaseModel):
    iteration: int
    """The ReAct iteration the event belongs to (0 for the seed)."""
    at_ms: int = 0
    """When, on the ledger's clock."""


class LlmStart(_Event):
    """A call to the provider is about to be sent."""

    type: Literal["llm.start"] = "llm.start"
    stage_id: str
    """The call-llm stage."""
    messages: int
    """Messages in the window sent."""
    chars: int
    """Exact characters of the window sent."""


class LlmEnd(_Event):
    """The provider answered, with the usage it reported."""

    type: Literal["llm.end"] = "llm.end"
    stage_id: str
    """The call-llm stage."""
    usage: Usage
    """What the provider reported for this call."""


class ReplyTruncated(_Event):
    """The provider's reply was cut short (the output cap, OpenAI ``finish_reason="length"``,
    Anthropic ``stop_reason="max_tokens"``): its text or last tool call may be incomplete."""

    type: Literal["llm.truncated"] = "llm.truncated"
    stage_id: str
    """The call-llm stage."""
    finish_reason: str | None
    """Why the reply ended, as the provider said it."""


class ToolEnd(_Event):
    """A tool call finished (or failed into an error result the model sees)."""

    type: Literal["tool.end"] = "tool.end"
    call_id: str
    """The call answered."""
    name: str
    """The tool's name."""
    error: bool = False
    """True when the result reports an error."""


class ContextEvicted(_Event):
    """One message left the window."""

    type: Literal["context.evicted"] = "context.evicted"
    strategy: str
    """The strategy that removed it."""
    stage_id: str | None
    """The stage that committed it."""
    content_hash: str
    """``content_hash`` of the message."""
    role: str
    """Its role."""
    tool_name: str | None = None
    """The tool, for a tool result."""
    survival_ms: int
    """Milliseconds between its commit and its eviction."""


class BudgetPressure(_Event):
    """A token strategy found the last call over its budget."""

    type: Literal["context.budget_pressure"] = "context.budget_pressure"
    strategy: str
    """The strategy."""
    measured_tokens: int | None
    """Reported input tokens of the last call."""
    threshold_tokens: int | None
    """The threshold in force."""


class Compaction(_Event):
    """A window visit changed the window: messages before and after, the tokens reported before,
    and none after (nothing can count an unsent window)."""

    type: Literal["context.compaction"] = "context.compaction"
    strategy: str
    """The strategy's name."""
    messages_before: int
    """Messages before the visit."""
    messages_after: int
    """Messages after the visit."""
    tokens_before: int | None
    """Input tokens the provider reported for the last call (None if there was none)."""
    tokens_after: None = None
    """Unknown until the next call reports usage; never invented."""
    forced: bool = False
    """True when a context-length rejection forced the visit."""


class RunPaused(_Event):
    """The run stopped to wait for a person."""

    type: Literal["run.paused"] = "run.paused"
    call_id: str
    """The call that waits."""
    tool_name: str
    """Its tool."""
    kind: Literal["ask-human", "check-in"]
    """An answer is awaited ('ask-human') or consent ('check-in')."""


class RunResumed(_Event):
    """A person answered and the run went on."""

    type: Literal["run.resumed"] = "run.resumed"
    call_id: str
    """The call that was answered."""
    outcome: Literal["answered", "approved", "denied"]
    """What the person did."""


class RunFailed(_Event):
    """The run stopped on a fault; the ledger holds everything up to it."""

    type: Literal["run.error"] = "run.error"
    error_type: StorableStr
    """The exception's class name."""
    message: StorableStr
    """Its message (storable text: a lone surrogate escaped)."""


class RunCancelled(_Event):
    """The run was interrupted or cancelled (Ctrl-C, ``SystemExit``, task cancellation or a
    timeout around ``arun``); everything up to it is recorded and the run resumes."""

    type: Literal["run.cancelled"] = "run.cancelled"
    reason: StorableStr
    """The exception's class name (``KeyboardInterrupt``, ``CancelledError`` ...)."""
    phase: str
    """The step that had not finished (see ``Run.phase``): a resume starts there."""


class PolicyChanged(_Event):
    """A conversation went on under another window policy than the one it was written under
    (``agent.continue_from(run, allow_policy_change=True)``): the records before this event
    are the old policy's, those after it the new one's."""

    type: Literal["run.policy_changed"] = "run.policy_changed"
    strategy_before: StorableStr
    """The strategy the conversation was written under, with its knobs when known
    (``sliding-window(keep_recent_turns=2)``; ``no strategy``)."""
    strategy_after: StorableStr
    """The strategy it goes on under."""
    pins_before: int
    """``keep_last_tool_results`` before."""
    pins_after: int
    """``keep_last_tool_results`` from here on."""


Event = Annotated[
    PolicyChanged
    | LlmStart
    | LlmEnd
    | ReplyTruncated
    | ToolEnd
    | ContextEvicted
    | BudgetPressure
    | Compaction
    | RunPaused
    | RunResumed
    | RunFailed
    | RunCancelled,
    Field(discriminator="type"),
]
"""Any event."""

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


class Recorder:
    """Keeps every event in order and forwards each to subscribers."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._subscribers: list[Callable[[Event], None]] = []

    def subscribe(self, callback: Callable[[Event], None]) -> None:
        """Call ``callback`` with every event emitted from now on."""
        self._subscribers.append(callback)

    def emit(self, event: Event) -> None:
        """Record an event."""
        self.events.append(event)
        for callback in self._subscribers:
            callback(event)

    def of_type(self, type_: str) -> list[Event]:
        """Events whose ``type`` is ``type_``."""
        return [e for e in self.events if e.type == type_]
