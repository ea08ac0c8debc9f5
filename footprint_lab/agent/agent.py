"""``Agent``: the facade a person holds — build it, run it, resume it, continue from it.

Layer: agent. ``Agent.create(...)`` returns the builder (:mod:`footprint_lab.agent.builder`);
``run`` / ``arun`` start a request and ``resume`` / ``resume_on_error`` continue a checkpoint,
each on a fresh :class:`~footprint_lab.agent._loop._Loop` (the phase machine and its stages);
the sync forms go through the driver (:mod:`footprint_lab.agent._driver`) so a Ctrl-C in a
script or a notebook never loses the run. Calling ``run`` again on the same agent continues the
conversation; ``agent.continue_from(run_or_checkpoint)`` does so on a freshly built agent
(another process).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import Self

from footprint_lab.agent._driver import Flight, drive
from footprint_lab.agent._loop import CheckpointHook, _Loop
from footprint_lab.agent._policy import policy_of
from footprint_lab.agent.builder import AgentBuilder
from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.injections import InjectionRule
from footprint_lab.agent.run import Run
from footprint_lab.agent.tools import Tool, unknown_tool_result
from footprint_lab.ledger import Clock
from footprint_lab.messages import Message, ToolCall, construct_trusted, storable_text
from footprint_lab.providers.base import Provider, ProviderRequest
from footprint_lab.window.strategies import WindowStrategy


class AgentBusyError(RuntimeError):
    """The agent is already running a conversation (in another thread or task): one agent
    holds one conversation at a time."""


__all__ = ["Agent", "AgentBusyError", "CheckpointHook"]


class Agent:
    """A built agent. Create one with ``Agent.create(...)...build()``."""

    def __init__(
        self,
        *,
        provider: Provider,
        model: str,
        max_iterations: int,
        keep_last_tool_results: int,
        max_output_tokens: int | None,
        system: str | None,
        tools: Sequence[Tool],
        strategy: WindowStrategy | None,
        injections: Sequence[InjectionRule] = (),
        clock: Clock | None = None,
        tool_timeout: float | None = None,
    ) -> None:
        self.provider = provider
        self.model = storable_text(model)
        self.max_iterations = max_iterations
        self.keep_last_tool_results = keep_last_tool_results
        self.max_output_tokens = max_output_tokens
        self.system_prompt = None if system is None else storable_text(system)
        self.tools = {t.name: t for t in tools}
        self.tool_roster: frozenset[str] = frozenset(self.tools)
        """The tools' names, once: every window visit hands them to the core (a drop notice
        names only tools the agent has)."""
        self.strategy = strategy
        self.injections = list(injections)
        self.clock = clock
        self.tool_timeout = tool_timeout
        """Seconds after which a tool call gets an error result, for tools without their own."""
        self.conversation: Run | None = None
        """The run the agent stands in: the last one it ran, resumed or continued from."""
        self._flight = Flight()
        """The run in flight, as the sync driver sees it (see :mod:`._driver`)."""
        # One conversation at a time: held while a run, resume or resume_on_error is going.
        self._busy = threading.Lock()

    @classmethod
    def create(
        cls,
        provider: Provider | None = None,
        model: str = "scripted",
        max_iterations: int = 10,
        keep_last_tool_results: int | bool = 2,
        max_output_tokens: int | None = None,
        tool_timeout: float | None = None,
    ) -> AgentBuilder[Self]:
        """Start building an agent (returns an ``AgentBuilder``).

        Args:
            provider: The LLM provider; defaults to a scripted echo provider.
            model: The model id.
            max_iterations: Upper bound on ReAct iterations per request.
            keep_last_tool_results: Tool-result pins (default 2; 0 or False turns them off).
            max_output_tokens: Cap on each reply; also the default output reserve of a
                relative threshold.
            tool_timeout: Seconds after which any tool call gets an error result, unless the
                tool declares its own ``@tool(timeout=...)``; None (default) waits forever.
        """
        return AgentBuilder(
            provider,
            model,
            max_iterations,
            keep_last_tool_results,
            max_output_tokens,
            tool_timeout=tool_timeout,
            agent_class=cls,
        )

    def __repr__(self) -> str:
        strategy = getattr(self.strategy, "name", None)
        return (
            f"Agent(provider={self.provider.name!r}, model={self.model!r}, "
            f"strategy={strategy!r}, tools={list(self.tools)})"
        )

    def request_for(self, messages: Sequence[Message]) -> ProviderRequest:
        """The request this agent sends its provider for ``messages``: its model, system
        prompt, tools and output cap (what a call sends, and what a boundary's counter counts)."""
        # Built from trusted parts: construct without re-validating every message.
        return construct_trusted(
            ProviderRequest,
            model=self.model,
            system=self.system_prompt,
            messages=list(messages),
            tools=[t.spec for t in self.tools.values()],
            max_output_tokens=self.max_output_tokens,
        )

    def unknown_tool(self, call: ToolCall) -> Message:
        """The error result the model gets for a call to a tool this agent does not have: it
        names the tool and the tools there are."""
        return unknown_tool_result(self.tools, call)

    @property
    def _stop(self) -> threading.Event:
        """Set by the driver on a first interrupt: the run stops at its next boundary."""
        return self._flight.stop

    # -- running -------------------------------------------------------------------------

    def run(self, request: str, *, on_checkpoint: CheckpointHook | None = None) -> Run:
        """Run the agent on ``request``; a second call continues the same conversation.

        Works in scripts and inside Jupyter's event loop. A fault mid-run returns the run with
        ``status='error'`` (see ``Run.raise_for_error``); configuration errors still raise. A
        Ctrl-C, ``SystemExit`` or cancellation records the run as ``status='cancelled'`` and
        propagates with the run as ``exc.run`` (also ``agent.conversation``); continue it with
        ``agent.resume(run.checkpoint())``.
        """
        return drive(self._flight, self.arun(request, on_checkpoint=on_checkpoint))

    async def arun(self, request: str, *, on_checkpoint: CheckpointHook | None = None) -> Run:
        """The async form of :meth:`run`.

        Cancelling the task (``task.cancel()``, ``asyncio.wait_for(agent.arun(...), t)``)
        records the run as cancelled: it is ``agent.conversation``, and the
        ``CancelledError`` carries it as ``.run``.
        """
        with self._one_at_a_time("run"):
            return await self._arun(request, on_checkpoint)

    @contextlib.contextmanager
    def _one_at_a_time(self, call: str) -> Iterator[None]:
        """Hold the agent for one run, resume or resume_on_error: a second caller (another
        thread or task, or a tool calling its own agent) gets a clear error, never a lost
        turn — two runs at once would both append to the one conversation.

        Raises:
            AgentBusyError: the agent is already running a conversation.
        """
        if not self._busy.acquire(blocking=False):
            raise AgentBusyError(
                f"agent.{call}: this agent is already running a conversation (in another "
                "thread or task); an agent holds one conversation at a time — wait for that "
                "run to return, or build a second agent for a second conversation"
            )
        try:
            yield
        finally:
            self._busy.release()

    async def _arun(self, request: str, on_checkpoint: CheckpointHook | None) -> Run:
        previous = self.conversation
        if previous is not None and previous.status == "paused":
            raise RuntimeError(
                "the conversation is paused on a tool call waiting for a person: answer it "
                "with run.resume(answer) / run.approve() / run.deny(), or agent.reset()"
            )
        if previous is not None and previous.status == "cancelled":
            raise RuntimeError(
                "the conversation was interrupted mid-run: finish it with "
                "agent.resume(agent.conversation.checkpoint()), or agent.reset()"
            )
        loop = _Loop(self, previous, on_checkpoint)
        loop.start_request(storable_text(request))
        return await loop.drive()

    def reset(self) -> None:
        """Forget the conversation: the next ``run`` starts afresh."""
        self.conversation = None

    def continue_from(
        self, source: Run | Checkpoint, *, allow_policy_change: bool = False
    ) -> Agent:
        """Stand in a finished conversation — a run, a checkpoint, or either loaded from a file
        in another process — so the next ``run(request)`` continues it with its history.

        Everything the window held rides along as committed: drop notices, compaction frames
        and summaries stay ordinary messages of the window. The agent's own configuration
        (provider, strategy, tools) is used from here on. A stateful provider's position is
        *not* restored: a scripted provider of the new agent is scripted for the continuation
        only, starting at its first reply.

        A conversation written under one window policy (strategy and pin limit) goes on under
        another only when asked: a policy that quietly changed is one nobody can audit. With
        ``allow_policy_change=True`` the continued run says so in a ``run.policy_changed``
        event (:class:`~footprint_lab.events.PolicyChanged`) before its first call: the records
        before it are the old policy's.

        Args:
            source: The finished run or its checkpoint.
            allow_policy_change: Go on under this agent's policy when it is not the one the
                conversation was written under (recorded, as above).

        Returns:
            This agent (``agent.continue_from(run).run("next request")`` reads naturally).

        Raises:
            ValueError: the run did not finish — paused (use ``agent.resume``), stopped on a
                fault (use ``agent.resume_on_error``) or interrupted (use ``agent.resume``); or
                it was written under another window policy and ``allow_policy_change`` is False.
        """
        run = run_from_checkpoint(source) if isinstance(source, Checkpoint) else source
        if run.status == "paused" or run.phase == "resume":
            raise ValueError(
                "the run is paused on a tool call waiting for a person: continue it with "
                "agent.resume(checkpoint, answer=...) or agent.resume(checkpoint, approve=...)"
            )
        if run.status == "error":
            raise ValueError(
                "the run stopped on a fault: continue it with agent.resume_on_error(checkpoint)"
            )
        if run.status == "cancelled" or run.phase != "finished":
            raise ValueError(
                f"the run is {run.status} and has not finished (phase {run.phase!r}): finish "
                "it with agent.resume(checkpoint)"
            )
        before = policy_of(run)
        after = policy_of(self)
        if before.differs_from(after) and not allow_policy_change:
            raise ValueError(
                f"the conversation was written under {before} with "
                f"keep_last_tool_results={before.pins}, and this agent runs {after} with "
                f"keep_last_tool_results={after.pins}: build the agent with the same window "
                "policy, or pass allow_policy_change=True to go on under this one (the run "
                "records the change as a run.policy_changed event)"
            )
        self.conversation = run
        return self

    def resume(
        self,
        checkpoint: Checkpoint,
        *,
        answer: str | None = None,
        approve: bool | None = None,
        on_checkpoint: CheckpointHook | None = None,
    ) -> Run:
        """Continue a run from a checkpoint: a paused run (give ``answer`` for ``ask_human``,
        ``approve=True/False`` for a check-in), a cancelled one, or one interrupted between
        stages (e.g. killed after a checkpoint). Only the steps that had not finished run:
        the phase says which, and a tool batch runs only its calls without a result."""
        return drive(
            self._flight,
            self.aresume(checkpoint, answer=answer, approve=approve, on_checkpoint=on_checkpoint),
        )

    async def aresume(
        self,
        checkpoint: Checkpoint,
        *,
        answer: str | None = None,
        approve: bool | None = None,
        on_checkpoint: CheckpointHook | None = None,
    ) -> Run:
        """The async form of :meth:`resume`."""
        with self._one_at_a_time("resume"):
            return await self._aresume(checkpoint, answer, approve, on_checkpoint)

    async def _aresume(
        self,
        checkpoint: Checkpoint,
        answer: str | None,
        approve: bool | None,
        on_checkpoint: CheckpointHook | None,
    ) -> Run:
        if checkpoint.status == "error":
            raise ValueError(
                "the run stopped on a fault: continue it with agent.resume_on_error(checkpoint)"
            )
        if checkpoint.phase == "finished":
            raise ValueError(
                f"the run is {checkpoint.status}: there is nothing to resume; to continue its "
                "conversation, call agent.continue_from(checkpoint).run(next_request)"
            )
        loop = _Loop.from_checkpoint(self, checkpoint, on_checkpoint)
        if checkpoint.phase == "resume" and checkpoint.pause is not None:
            loop.check_answer(answer, approve)
            return await loop.drive(answer=(answer, approve))
        return await loop.drive()

    def resume_on_error(
        self, checkpoint: Checkpoint, *, on_checkpoint: CheckpointHook | None = None
    ) -> Run:
        """Continue a run that stopped on a fault, with the identical window: the step that
        faulted runs again (its phase says which), nothing before it does."""
        return drive(self._flight, self.aresume_on_error(checkpoint, on_checkpoint=on_checkpoint))

    async def aresume_on_error(
        self, checkpoint: Checkpoint, *, on_checkpoint: CheckpointHook | None = None
    ) -> Run:
        """The async form of :meth:`resume_on_error`."""
        if checkpoint.status != "error":
            raise ValueError(
                f"the run is {checkpoint.status}, not stopped on a fault: use agent.resume()"
            )
        with self._one_at_a_time("resume_on_error"):
            loop = _Loop.from_checkpoint(self, checkpoint, on_checkpoint)
            return await loop.drive()
