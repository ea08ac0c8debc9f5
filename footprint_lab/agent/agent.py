"""``Agent`` and its ReAct loop.

Layer: agent — it drives the window core through ``aapply_window`` (the law stated in
``footprint_lab.window`` holds here too: the window stage commits a new window and a record;
it never edits what earlier stages committed).

Per iteration: window stage (only when a strategy is configured) → injections (only when
rules are configured) → call-llm → tool-calls, each committing to the ledger. With no strategy
there is no window stage and no extra key: the requests are byte-identical to an agent that
never heard of windows.

A run is resumable at every point between stages: it records its ``phase`` so a checkpoint
taken there (or after a fault) continues exactly where it stopped. Calling ``run`` again on the
same agent continues the conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from footprint_lab.agent._boundary import commit_visit
from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.injections import InjectionContext, InjectionRule, injection_message
from footprint_lab.agent.run import CallRecord, PauseState, Run
from footprint_lab.agent.tools import (
    Tool,
    is_error_result,
    run_tool_calls,
)
from footprint_lab.events import (
    LlmEnd,
    LlmStart,
    Recorder,
    RunFailed,
    RunPaused,
    RunResumed,
    ToolEnd,
)
from footprint_lab.ledger import Clock, Ledger
from footprint_lab.messages import Message, ToolCall, window_chars
from footprint_lab.providers.base import Provider, ProviderRequest, ProviderResponse
from footprint_lab.window.apply import aapply_window, run_sync
from footprint_lab.window.errors import ContextLengthError, WindowConfigError
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.result import WindowResult
from footprint_lab.window.strategies import WindowStrategy

CheckpointHook = Callable[[Checkpoint], None]
"""Called with a checkpoint at every iteration boundary (e.g. to persist it)."""


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
    ) -> None:
        self.provider = provider
        self.model = model
        self.max_iterations = max_iterations
        self.keep_last_tool_results = keep_last_tool_results
        self.max_output_tokens = max_output_tokens
        self.system_prompt = system
        self.tools = {t.name: t for t in tools}
        self.strategy = strategy
        self.injections = list(injections)
        self.clock = clock
        self.conversation: Run | None = None

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
            max_iterations: Upper bound on ReAct iterations per request.
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

    # -- running -------------------------------------------------------------------------

    def run(self, request: str, *, on_checkpoint: CheckpointHook | None = None) -> Run:
        """Run the agent on ``request``; a second call continues the same conversation.

        Works in scripts and inside Jupyter's event loop. A fault mid-run returns the run with
        ``status='error'`` (see ``Run.raise_for_error``); configuration errors still raise.
        """
        return run_sync(self.arun(request, on_checkpoint=on_checkpoint))

    async def arun(self, request: str, *, on_checkpoint: CheckpointHook | None = None) -> Run:
        """The async form of :meth:`run`."""
        previous = self.conversation
        if previous is not None and previous.status == "paused":
            raise RuntimeError(
                "the conversation is paused on a tool call waiting for a person: answer it "
                "with run.resume(answer) / run.approve() / run.deny(), or agent.reset()"
            )
        loop = _Loop(self, previous, on_checkpoint)
        loop.start_request(request)
        return await loop.drive()

    def reset(self) -> None:
        """Forget the conversation: the next ``run`` starts afresh."""
        self.conversation = None

    def resume(
        self,
        checkpoint: Checkpoint,
        *,
        answer: str | None = None,
        approve: bool | None = None,
        on_checkpoint: CheckpointHook | None = None,
    ) -> Run:
        """Continue a run from a checkpoint: a paused run (give ``answer`` for ``ask_human``,
        ``approve=True/False`` for a check-in) or one interrupted between stages."""
        return run_sync(
            self.aresume(checkpoint, answer=answer, approve=approve, on_checkpoint=on_checkpoint)
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
        if checkpoint.status == "error":
            raise ValueError(
                "the run stopped on a fault: continue it with agent.resume_on_error(checkpoint)"
            )
        if checkpoint.phase == "finished":
            raise ValueError(
                f"the run is {checkpoint.status}: there is nothing to resume; call run() with a "
                "new request to continue the conversation"
            )
        loop = _Loop.from_checkpoint(self, checkpoint, on_checkpoint)
        if checkpoint.status == "paused":
            await loop.answer_pause(answer, approve)
            if loop.run.status == "paused":
                loop.run.window = list(loop.window)
                self.conversation = loop.run
                return loop.run
        return await loop.drive()

    def resume_on_error(
        self, checkpoint: Checkpoint, *, on_checkpoint: CheckpointHook | None = None
    ) -> Run:
        """Continue a run that stopped on a fault, with the identical window."""
        return run_sync(self.aresume_on_error(checkpoint, on_checkpoint=on_checkpoint))

    async def aresume_on_error(
        self, checkpoint: Checkpoint, *, on_checkpoint: CheckpointHook | None = None
    ) -> Run:
        """The async form of :meth:`resume_on_error`."""
        if checkpoint.status != "error":
            raise ValueError(
                f"the run is {checkpoint.status}, not stopped on a fault: use agent.resume()"
            )
        loop = _Loop.from_checkpoint(self, checkpoint, on_checkpoint)
        return await loop.drive()


class _Loop:
    """One run's state while it executes."""

    def __init__(
        self, agent: Agent, previous: Run | None, on_checkpoint: CheckpointHook | None
    ) -> None:
        self.agent = agent
        self.on_checkpoint = on_checkpoint
        self.recorder = Recorder()
        self.window_changed = False
        self.iteration_record: WindowRecord | None = None
        if previous is None:
            self.ledger = Ledger(agent.clock)
            self.run = Run(request="", ledger=self.ledger)
            self.window: list[Message] = []
        else:  # a conversation continues on a copy, so the earlier Run stays as it was
            self.ledger = previous.ledger.copy()
            self.run = Run(
                request=previous.request,
                ledger=self.ledger,
                records=list(previous.records),
                calls=[c.model_copy() for c in previous.calls],
                folded=list(previous.folded),
                iterations=previous.iterations,
                meta=dict(previous.meta),
                requests=list(previous.requests),
                last_usage=previous.last_usage,
                provider_state=previous.provider_state,
            )
            self.recorder.events.extend(previous.events)
            positions = [previous.ledger.position(m) for m in previous.window]
            self.window = [self.ledger.messages[p] for p in positions if p is not None]
        self.run.events = self.recorder.events
        self.run.agent = agent
        self.run.strategy = getattr(agent.strategy, "name", None)
        self.run.system = agent.system_prompt
        self.run.model = agent.model
        self.run.provider = agent.provider.name
        self.run.keep_last_tool_results = agent.keep_last_tool_results

    @classmethod
    def from_checkpoint(
        cls, agent: Agent, checkpoint: Checkpoint, on_checkpoint: CheckpointHook | None
    ) -> _Loop:
        restored = run_from_checkpoint(checkpoint)
        loop = cls(agent, None, on_checkpoint)
        loop.ledger = restored.ledger
        loop.window = list(restored.window)
        loop.recorder.events.extend(restored.events)
        restored.events = loop.recorder.events
        restored.error = None
        restored.agent = agent
        loop.run = restored
        restore = getattr(agent.provider, "restore_state", None)
        if restored.provider_state is not None and callable(restore):
            restore(restored.provider_state)
        return loop

    def now(self) -> int:
        return self.ledger.now()

    def start_request(self, request: str) -> None:
        run = self.run
        run.request = request
        run.requests.append(request)
        run.loop_start = run.iterations
        run.status = "max-iterations"
        run.output = None
        run.phase = "window"
        seed = self.ledger.begin_stage("seed")
        if self.agent.system_prompt is not None and not run.loop_start:
            self.ledger.put(seed, "system", self.agent.system_prompt)
        self.window.extend(self.ledger.append(seed, [Message.user(request)]))

    # -- the loop ------------------------------------------------------------------------

    async def drive(self) -> Run:
        run = self.run
        run.error = None
        try:
            while True:
                if run.phase == "window":
                    if run.iterations - run.loop_start >= self.agent.max_iterations:
                        run.status = "max-iterations"
                        run.phase = "finished"
                        break
                    self._checkpoint_hook()
                    run.iterations += 1
                    self.window_changed = False
                    self.iteration_record = None
                    if self.agent.strategy is not None:
                        await self.window_stage(run.iterations, forced=False)
                    run.phase = "call"
                    self._inject(run.iterations)
                if run.phase == "resume":
                    break  # still waiting for a person
                if run.phase == "call":
                    response = await self.call_llm(run.iterations)
                    if not response.message.tool_calls:
                        run.status = "done"
                        run.output = response.message.content
                        run.phase = "finished"
                        break
                    run.phase = "tools"
                if run.phase == "tools":
                    assistant = self.window[-1]
                    await self.tool_calls(run.iterations, list(assistant.tool_calls))
                    if run.pause is not None:
                        await self.pause_boundary()
                        break
                    run.phase = "window"
                if run.phase == "finished":
                    break
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
        self.agent.conversation = run
        return run

    def _checkpoint_hook(self) -> None:
        if self.on_checkpoint is not None:
            self.run.window = list(self.window)
            self.on_checkpoint(self.run.checkpoint())

    def _capture_provider_state(self) -> None:
        export = getattr(self.agent.provider, "export_state", None)
        if callable(export):
            self.run.provider_state = export()

    # -- stages --------------------------------------------------------------------------

    async def window_stage(
        self,
        iteration: int,
        *,
        forced: bool,
        paused_call_id: str | None = None,
        paused_check_in: bool = False,
    ) -> WindowResult:
        strategy = self.agent.strategy
        assert strategy is not None
        stage = self.ledger.begin_stage("window")
        usage = self.run.last_usage
        result = await aapply_window(
            strategy,
            self.window,
            iteration=iteration,
            request=self.run.request,
            measured_input_tokens=None if usage is None else usage.input_tokens,
            measured_output_tokens=None if usage is None else usage.output_tokens,
            keep_last_tool_results=self.agent.keep_last_tool_results,
            prior_records=self.run.records,
            paused_call_id=paused_call_id,
            paused_check_in=paused_check_in,
            provider_name=self.agent.provider.name,
            context_window=self.agent.provider.context_window(self.agent.model),
            max_output_tokens=self.agent.max_output_tokens,
            forced=forced,
        )
        if result.record is None:
            return result
        visit = commit_visit(
            self.run,
            self.recorder,
            stage,
            self.window,
            result,
            iteration=iteration,
            usage=usage,
            forced=forced,
        )
        self.window = visit.window
        self.window_changed = self.window_changed or visit.changed
        self.iteration_record = visit.record
        return WindowResult(visit.window, visit.record, result.folded)

    def _inject(self, iteration: int) -> None:
        if not self.agent.injections:
            return
        context = InjectionContext(
            iteration=iteration,
            request=self.run.request,
            window=tuple(self.window),
            record=self.iteration_record,
            changed=self.window_changed,
        )
        texts = [text for rule in self.agent.injections if (text := rule(context))]
        if texts:
            stage = self.ledger.begin_stage("inject")
            self.window.extend(self.ledger.append(stage, [injection_message(t) for t in texts]))

    async def _send(self, iteration: int, stage: str, *, retry: bool) -> ProviderResponse:
        # Built from trusted parts: construct without re-validating every message.
        request = ProviderRequest.model_construct(
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
        try:
            response = await self.agent.provider.complete(request)
        finally:
            self._capture_provider_state()
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
        self.run.last_usage = response.usage
        self.recorder.emit(
            LlmEnd(iteration=iteration, at_ms=self.now(), stage_id=stage, usage=response.usage)
        )
        return response

    def _commit_results(self, iteration: int, results: list[Message]) -> None:
        stage = self.ledger.begin_stage("tool-calls")
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

    async def tool_calls(self, iteration: int, calls: list[ToolCall]) -> None:
        tools = self.agent.tools
        human = [c for c in calls if c.name in tools and tools[c.name].kind != "auto"]
        auto = [c for c in calls if c not in human]
        if auto:
            self._commit_results(iteration, await run_tool_calls(tools, auto))
        if human:
            first = human[0]
            kind = tools[first.name].kind
            assert kind != "auto"
            self.run.pause = PauseState(
                call_id=first.id,
                tool_name=first.name,
                kind=kind,
                arguments=dict(first.arguments),
                pending=[c.id for c in human[1:]],
                iteration=iteration,
            )

    async def pause_boundary(self) -> None:
        """Stop for a person. The next iteration's boundary runs now, so the checkpoint
        carries the window the run will resume with — and the turn it waits on refuses."""
        run = self.run
        pause = run.pause
        assert pause is not None
        run.status = "paused"
        run.phase = "resume"
        self.recorder.emit(
            RunPaused(
                iteration=run.iterations,
                at_ms=self.now(),
                call_id=pause.call_id,
                tool_name=pause.tool_name,
                kind=pause.kind,
            )
        )
        if run.iterations - run.loop_start >= self.agent.max_iterations:
            return  # no iteration left: after the answer the run stops at max-iterations
        run.iterations += 1
        pause.boundary = True
        self.window_changed = False
        self.iteration_record = None
        if self.agent.strategy is not None:
            await self.window_stage(
                run.iterations,
                forced=False,
                paused_call_id=pause.call_id,
                paused_check_in=pause.check_in,
            )

    async def answer_pause(self, answer: str | None, approve: bool | None) -> None:
        """Commit the person's answer (or run / refuse the checked-in tool) for the call the
        run waits on, then pause on the next call of the batch or go on to the model."""
        run = self.run
        pause = run.pause
        if pause is None or run.phase != "resume":
            raise ValueError("the run is not paused on a tool call")
        call = self._find_call(pause.call_id)
        if pause.kind == "ask-human":
            if answer is None:
                raise ValueError(
                    f"the run waits for a person's answer to ask_human({pause.arguments}): "
                    "pass answer=..."
                )
            result = Message.tool(call.id, call.name, answer)
        elif approve is None or approve:
            if approve is None and answer is not None:
                raise ValueError(
                    f"{call.name} waits for consent, not an answer: use run.approve() or "
                    "run.deny(reason)"
                )
            result = await self.agent.tools[call.name].invoke(call)
        else:
            result = Message.tool(
                call.id, call.name, f"error: denied by the person: {answer or 'not approved'}"
            )
        self._commit_results(pause.iteration, [result])
        outcome: Literal["answered", "approved", "denied"] = (
            "answered"
            if pause.kind == "ask-human"
            else "approved"
            if approve is not False
            else "denied"
        )
        self.recorder.emit(
            RunResumed(iteration=run.iterations, at_ms=self.now(), call_id=call.id, outcome=outcome)
        )
        if pause.pending:
            following = self._find_call(pause.pending[0])
            kind = self.agent.tools[following.name].kind
            assert kind != "auto"
            run.pause = PauseState(
                call_id=following.id,
                tool_name=following.name,
                kind=kind,
                arguments=dict(following.arguments),
                pending=pause.pending[1:],
                iteration=pause.iteration,
                boundary=pause.boundary,
            )
            self.recorder.emit(
                RunPaused(
                    iteration=run.iterations,
                    at_ms=self.now(),
                    call_id=following.id,
                    tool_name=following.name,
                    kind=kind,
                )
            )
            return
        run.pause = None
        run.status = "max-iterations"
        if pause.boundary:
            run.phase = "call"
            self._inject(run.iterations)
        else:
            run.phase = "window"

    def _find_call(self, call_id: str) -> ToolCall:
        for message in reversed(self.window):
            for call in message.tool_calls:
                if call.id == call_id:
                    return call
        raise ValueError(f"the paused call {call_id!r} is not in the window")
