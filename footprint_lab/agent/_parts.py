"""The small protocols the agent's inner modules name their callers by.

Layer: agent (private). The loop (:mod:`._loop`) is driven by an
:class:`~footprint_lab.agent.Agent` and hands itself to the call stage (:mod:`._calls`), the
tools stage (:mod:`._batch`) and the pause handling (:mod:`._pauses`); each of those names only
what it reads of the other, here, so no module of the agent imports one that imports it back —
not even for type checking (the
import-linter contract "Sibling modules form no cycle" holds that).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from footprint_lab.agent._driver import Flight
from footprint_lab.agent.injections import InjectionRule
from footprint_lab.agent.run import Run, RunOwner
from footprint_lab.agent.writer import RunWriter
from footprint_lab.events import Recorder
from footprint_lab.ledger import Clock
from footprint_lab.messages import Message, ToolCall
from footprint_lab.providers.base import ContextLengthError, ProviderRequest
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.result import WindowResult
from footprint_lab.window.strategies import WindowStrategy

__all__ = ["AgentParts", "CallParts", "LoopParts"]


class AgentParts(RunOwner, Protocol):
    """What the loop, the tools stage and the pauses read of the agent they run for (and
    what the run they write needs of it, :class:`~footprint_lab.agent.run.RunOwner`)."""

    conversation: Run | None
    """The run the agent stands in (the loop sets it as it leaves)."""

    @property
    def model(self) -> str:
        """The model id."""

    @property
    def max_iterations(self) -> int:
        """Iterations per request."""

    @property
    def keep_last_tool_results(self) -> int:
        """The pin limit."""

    @property
    def max_output_tokens(self) -> int | None:
        """The cap on each reply."""

    @property
    def system_prompt(self) -> str | None:
        """The system prompt."""

    @property
    def tool_roster(self) -> frozenset[str]:
        """The tools' names."""

    @property
    def tool_timeout(self) -> float | None:
        """Seconds after which a tool without its own timeout gets an error result."""

    @property
    def strategy(self) -> WindowStrategy | None:
        """The window strategy (None: no window management)."""

    @property
    def injections(self) -> Sequence[InjectionRule]:
        """The injection rules."""

    @property
    def clock(self) -> Clock | None:
        """The ledger clock (None: the wall clock)."""

    @property
    def _flight(self) -> Flight:
        """The run in flight, as the sync driver sees it."""

    def request_for(self, messages: Sequence[Message]) -> ProviderRequest:
        """The request this agent sends its provider for ``messages``."""
        ...

    def unknown_tool(self, call: ToolCall) -> Message:
        """The error result of a call to a tool the agent does not have."""


class LoopParts(Protocol):
    """What the tools stage and the pause handling use of the loop that calls them."""

    window_changed: bool
    """Whether a visit of this iteration changed the window."""
    iteration_record: WindowRecord | None
    """The record of this iteration's last visit."""

    @property
    def agent(self) -> AgentParts:
        """The agent the loop runs for."""

    @property
    def writer(self) -> RunWriter:
        """The run's one writer."""

    @property
    def recorder(self) -> Recorder:
        """Where the run's events go."""

    @property
    def run(self) -> Run:
        """The run written."""

    @property
    def window(self) -> list[Message]:
        """What the next call sends."""

    def now(self) -> int:
        """The ledger clock's reading."""

    def checkpoint_hook(self) -> None:
        """Hand a checkpoint to the caller's hook, when there is one."""

    async def window_stage(
        self,
        iteration: int,
        *,
        forced: bool,
        paused_call_id: str | None = None,
        paused_check_in: bool = False,
    ) -> WindowResult:
        """Run one window visit."""


class CallParts(LoopParts, Protocol):
    """What the call stage (:mod:`footprint_lab.agent._calls`) uses of the loop besides
    :class:`LoopParts`."""

    rejection: ContextLengthError | None
    """The provider's context-length rejection the ``recover`` step answers (None: none)."""

    def capture_provider_state(self) -> None:
        """Keep the provider's exportable state in the run (a scripted provider's place)."""
