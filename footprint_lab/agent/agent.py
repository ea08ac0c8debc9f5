"""``Agent`` and its ReAct loop.

Layer: agent — it drives the window core through ``aapply_window`` (the law stated in
``footprint_lab.window`` holds here too: the window stage commits a new window and a record;
it never edits what earlier stages committed).

Per iteration: window stage (only when a strategy is configured) → call-llm → tool-calls, each
committing to the ledger. With no strategy there is no window stage and no extra key: the
requests are byte-identical to an agent that never heard of windows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from footprint_lab.agent.run import CallRecord, Run
from footprint_lab.agent.tools import Tool, is_error_result, run_tool_calls
from footprint_lab.events import (
    BudgetPressure,
    Compaction,
    ContextEvicted,
    LlmEnd,
    LlmStart,
    Recorder,
    RunFailed,
    ToolEnd,
)
from footprint_lab.ledger import Clock, Ledger
from footprint_lab.messages import Message, content_hash, window_chars
from footprint_lab.providers.base import Provider, ProviderRequest, ProviderResponse
from footprint_lab.window.apply import aapply_window, run_sync
from footprint_lab.window.errors import ContextLengthError, WindowConfigError
from footprint_lab.window.result import WindowResult
from footprint_lab.window.strategies import WindowStrategy


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
        clock: Clock | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.max_iterations = max_iterations
        self.keep_last_tool_results = keep_last_tool_results
        self.max_output_tokens = max_output_tokens
        self.system_prompt = system
        self.tools = {t.name: t for t in tools}
        self.strategy = strategy
        self.clock = clock

    @classmethod
    def create(
        cls,
        provider: Provider | None = None,
        model: str = "scripted",
        max_iterations: int = 10,
        keep_last_tool_results: int | bool = 2,
        max_output_tokens: int | None = None,
    ) -> Any:
        """Start building an agent (returns an ``AgentBuilder``).

        Args:
            provider: The LLM provider; defaults to a scripted echo provider.
            model: The model id.
            max_iterations: Upper bound on ReAct iterations.
            keep_last_tool_results: Tool-result pins (default 2; 0 or False turns them off).
            max_output_tokens: Cap on each reply; also the default output reserve of a
                relative threshold.
        """
        from footprint_lab.agent.builder import AgentBuilder

        return AgentBuilder(
            provider, model, max_iterations, keep_last_tool_results, max_output_tokens
        )

    def __repr__(self) -> str:
        strategy = getattr(self.strategy, "name", None)
        return (
            f"Agent(provider={self.provider.name!r}, model={self.model!r}, "
            f"strategy={strategy!r}, tools={list(self.tools)})"
        )

    def run(self, request: str) -> Run:
        """Run the agent on ``request``. Works in scripts and inside Jupyter's event loop.

        A fault mid-run returns the run with ``status='error'`` (see ``Run.raise_for_error``);
        configuration errors still raise.
        """
        return run_sync(self.arun(request))

    async def arun(self, request: str) -> Run:
        """The async form of :meth:`run`."""
        loop = _Loop(self, request)
        return await loop.execute()


class _Loop:
    """One run's state while it executes."""

    def __init__(self, agent: Agent, request: str) -> None:
        self.agent = agent
        self.ledger = Ledger(agent.clock)
        self.recorder = Recorder()
        self.window: list[Message] = []
        self.run = Run(
            request=request,
            ledger=self.ledger,
            strategy=getattr(agent.strategy, "name", None),
            system=agent.system_prompt,
            model=agent.model,
            provider=agent.provider.name,
            keep_last_tool_results=agent.keep_last_tool_results,
        )
        self.run.events = self.recorder.events
        self.last_response: ProviderResponse | None = None

    def now(self) -> int:
        return self.ledger._clock()

    async def execute(self) -> Run:
        run = self.run
        try:
            seed = self.ledger.begin_stage("seed")
            if self.agent.system_prompt is not None:
                self.ledger.put(seed, "system", self.agent.system_prompt)
            self.window = self.ledger.append(seed, [Message.user(run.request)])
            run.status = "max-iterations"
            for iteration in range(1, self.agent.max_iterations + 1):
                run.iterations = iteration
                if self.agent.strategy is not None:
                    await self.window_stage(iteration, forced=False)
                response = await self.call_llm(iteration)
                if not response.message.tool_calls:
                    run.status = "done"
                    run.output = response.message.content
                    break
                await self.tool_calls(iteration, response)
        except WindowConfigError:
            raise
        except Exception as exc:  # a fault never loses the run
            run.status = "error"
            run.error = exc
            self.recorder.emit(
                RunFailed(
                    iteration=run.iterations,
                    at_ms=self.now(),
                    error_type=type(exc).__name__,
                    message=str(exc),
                )
            )
        run.window = list(self.window)
        return run

    # -- stages --------------------------------------------------------------------------

    async def window_stage(self, iteration: int, *, forced: bool) -> WindowResult:
        strategy = self.agent.strategy
        assert strategy is not None
        stage = self.ledger.begin_stage("window")
        usage = self.last_response.usage if self.last_response is not None else None
        result = await aapply_window(
            strategy,
            self.window,
            iteration=iteration,
            request=self.run.request,
            measured_input_tokens=None if usage is None else usage.input_tokens,
            measured_output_tokens=None if usage is None else usage.output_tokens,
            keep_last_tool_results=self.agent.keep_last_tool_results,
            prior_records=self.run.records,
            provider_name=self.agent.provider.name,
            context_window=self.agent.provider.context_window(self.agent.model),
            max_output_tokens=self.agent.max_output_tokens,
            forced=forced,
        )
        record = result.record
        if record is None:
            return result
        if forced and not record.forced:
            record = record.model_copy(update={"forced": True})
        before = self.window
        window = list(result.window)
        fresh = [m for m in window if self.ledger.position(m) is None]
        if fresh:
            stamped = dict(zip(map(id, fresh), self.ledger.append(stage, fresh), strict=True))
            window = [stamped.get(id(m), m) for m in window]
        changed = len(window) != len(before) or any(
            a is not b for a, b in zip(window, before, strict=False)
        )
        if changed:
            self.ledger.set_window(stage, window)
        self.ledger.put(stage, "record", record)
        self.run.records.append(record)
        now = self.now()
        for span in result.folded:
            self.run.folded.append(span)
        kept = {id(m) for m in window}
        for message in before:
            if id(message) in kept:
                continue
            committed = self.ledger.committed_at_ms(message)
            self.recorder.emit(
                ContextEvicted(
                    iteration=iteration,
                    at_ms=now,
                    strategy=record.strategy,
                    stage_id=message.stage_id,
                    content_hash=content_hash(message),
                    role=message.role,
                    tool_name=message.name,
                    survival_ms=max(0, now - committed) if committed is not None else 0,
                )
            )
        if record.over_budget:
            self.recorder.emit(
                BudgetPressure(
                    iteration=iteration,
                    at_ms=now,
                    strategy=record.strategy,
                    measured_tokens=record.measured_tokens,
                    threshold_tokens=record.threshold_tokens,
                )
            )
        if changed:
            self.recorder.emit(
                Compaction(
                    iteration=iteration,
                    at_ms=now,
                    strategy=record.strategy,
                    messages_before=len(before),
                    messages_after=len(window),
                    tokens_before=None
                    if self.last_response is None
                    else self.last_response.usage.input_tokens,
                    forced=forced,
                )
            )
        self.window = window
        return WindowResult(window, record, result.folded)

    async def _send(self, iteration: int, stage: str, *, retry: bool) -> ProviderResponse:
        request = ProviderRequest(
            model=self.agent.model,
            system=self.agent.system_prompt,
            messages=list(self.window),
            tools=[t.spec for t in self.agent.tools.values()],
            max_output_tokens=self.agent.max_output_tokens,
        )
        call = CallRecord(
            iteration=iteration,
            stage_id=stage,
            sent_commit=len(self.ledger) - 1,
            messages=len(self.window),
            chars=window_chars(self.window),
            retry=retry,
        )
        self.run.calls.append(call)
        self.recorder.emit(
            LlmStart(
                iteration=iteration,
                at_ms=self.now(),
                stage_id=stage,
                messages=call.messages,
                chars=call.chars,
            )
        )
        response = await self.agent.provider.complete(request)
        call.usage = response.usage
        return response

    async def call_llm(self, iteration: int) -> ProviderResponse:
        stage = self.ledger.begin_stage("call-llm")
        try:
            response = await self._send(iteration, stage, retry=False)
        except ContextLengthError:
            # Reactive recovery: run the strategy once, forced, and retry once.
            if self.agent.strategy is None:
                raise
            result = await self.window_stage(iteration, forced=True)
            if result.record is None or result.record.removed_message_count == 0:
                raise
            stage = self.ledger.begin_stage("call-llm")
            response = await self._send(iteration, stage, retry=True)
        self.ledger.put(stage, "usage", response.usage)
        (assistant,) = self.ledger.append(stage, [response.message])
        self.window.append(assistant)
        self.last_response = response
        self.recorder.emit(
            LlmEnd(iteration=iteration, at_ms=self.now(), stage_id=stage, usage=response.usage)
        )
        return response

    async def tool_calls(self, iteration: int, response: ProviderResponse) -> None:
        stage = self.ledger.begin_stage("tool-calls")
        results = await run_tool_calls(self.agent.tools, list(response.message.tool_calls))
        committed = self.ledger.append(stage, results)
        self.window.extend(committed)
        now = self.now()
        for message in committed:
            self.recorder.emit(
                ToolEnd(
                    iteration=iteration,
                    at_ms=now,
                    call_id=message.tool_call_id or "",
                    name=message.name or "",
                    error=is_error_result(message),
                )
            )
