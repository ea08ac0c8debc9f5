"""``Agent`` and its ReAct loop.

Layer: agent — it drives the window core through ``aapply_window`` (the law stated in
``footprint_lab.window`` holds here too: the window stage commits a new window and a record;
it never edits what earlier stages committed).

Per iteration: window stage (only when a strategy is configured) → injections (only when
rules are configured) → call-llm → tool-calls, each committing to the ledger. With no strategy
there is no window stage and no extra key: the requests are byte-identical to an agent that
never heard of windows.

A run is resumable at every point between stages: it records its ``phase`` (see
``footprint_lab.agent.run.Phase``) so a checkpoint taken there — after a fault, an interrupt,
a cancellation or a kill — continues exactly where it stopped, re-running only the step that
did not finish. Tool results are committed one by one as they finish, each followed by a
checkpoint, so a resume never runs a call twice once its result was committed. A context-length
rejection compacts by force and re-delivers injections before the one retry, as a proactive
compaction does. Calling ``run`` again on the same agent continues the conversation;
``agent.continue_from(run_or_checkpoint)`` does so on a freshly built agent (another process).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Literal

from footprint_lab.agent.builder import AgentBuilder
from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.injections import InjectionContext, InjectionRule, injection_message
from footprint_lab.agent.run import CallRecord, PauseState, Run, open_batch
from footprint_lab.agent.tools import (
    Tool,
    is_error_result,
    run_tool_calls,
)
from footprint_lab.agent.visit import commit_visit
from footprint_lab.events import (
    LlmEnd,
    LlmStart,
    Recorder,
    ReplyTruncated,
    RunCancelled,
    RunFailed,
    RunPaused,
    RunResumed,
    ToolEnd,
)
from footprint_lab.ledger import WINDOW, Clock, Ledger
from footprint_lab.messages import Message, ToolCall, window_chars
from footprint_lab.providers.base import (
    Provider,
    ProviderRequest,
    ProviderResponse,
    checked_response,
)
from footprint_lab.window.apply import aapply_window
from footprint_lab.window.errors import ContextLengthError, WindowConfigError
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.result import WindowResult
from footprint_lab.window.strategies import WindowStrategy

CheckpointHook = Callable[[Checkpoint], None]
"""Called with a checkpoint at every iteration boundary and after every committed tool result
(e.g. to persist it)."""

_WAIT_SLICE_S = 0.05
"""How long the notebook driver waits on its worker at a time: between slices a Ctrl-C
(a ``KeyboardInterrupt`` in the main thread) is seen at once, not when the run ends."""


class _StopRequested(Exception):
    """Raised inside the loop at a stage boundary once the driver saw a Ctrl-C."""


def _attach_run(exc: BaseException, run: Run) -> None:
    """Carry the run on the exception as ``.run`` when the exception takes attributes."""
    with contextlib.suppress(AttributeError, TypeError):
        exc.run = run  # type: ignore[attr-defined]


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
        self.model = model
        self.max_iterations = max_iterations
        self.keep_last_tool_results = keep_last_tool_results
        self.max_output_tokens = max_output_tokens
        self.system_prompt = system
        self.tools = {t.name: t for t in tools}
        self.strategy = strategy
        self.injections = list(injections)
        self.clock = clock
        self.tool_timeout = tool_timeout
        """Seconds after which a tool call gets an error result, for tools without their own."""
        self.conversation: Run | None = None
        """The run the agent stands in: the last one it ran, resumed or continued from."""
        self._stop = threading.Event()
        self._in_flight: _Loop | None = None

    @classmethod
    def create(
        cls,
        provider: Provider | None = None,
        model: str = "scripted",
        max_iterations: int = 10,
        keep_last_tool_results: int | bool = 2,
        max_output_tokens: int | None = None,
        tool_timeout: float | None = None,
    ) -> AgentBuilder:
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

    # -- driving from sync code ----------------------------------------------------------

    def _drive(self, work: Coroutine[Any, Any, Run]) -> Run:
        """Run ``work`` to completion from sync code without ever losing the run.

        In a script it runs on ``asyncio.run``: a Ctrl-C cancels the task, the loop records the
        run as cancelled and the ``KeyboardInterrupt`` reaches the caller with ``.run``. Inside
        a running event loop (Jupyter) it runs on a fresh loop in a worker thread, and this
        thread waits in short slices so a kernel interrupt is seen at once: the first asks the
        loop to stop at its next stage boundary (the stage in flight finishes and commits), a
        second cancels the task where it stands.
        """
        self._stop.clear()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            try:
                return asyncio.run(work)
            except (KeyboardInterrupt, SystemExit) as exc:
                self._interrupted(exc)
                raise
            finally:
                self._in_flight = None
        try:
            return self._drive_in_thread(work)
        finally:
            self._in_flight = None
            self._stop.clear()

    def _drive_in_thread(self, work: Coroutine[Any, Any, Run]) -> Run:
        handle: dict[str, Any] = {}
        box: dict[str, Any] = {}  # written by the worker: "result" or "error", then "done"
        ready = threading.Event()
        abandon = threading.Event()

        async def main() -> Run:
            handle["loop"] = asyncio.get_running_loop()
            handle["task"] = asyncio.current_task()
            return await work

        def worker() -> None:
            # The work waits until this thread's caller stands inside its interrupt handling:
            # an interrupt the work itself causes (a tool raising SIGINT) can then never land
            # where the caller would lose the run.
            ready.wait()
            try:
                if abandon.is_set():
                    work.close()  # interrupted before anything ran: nothing to record
                    return
                box["result"] = asyncio.run(main())
            except BaseException as exc:  # handed to the caller's thread, which raises it
                box["error"] = exc
            finally:
                box["done"] = True

        thread = threading.Thread(target=worker, name="footprint-lab-run", daemon=True)
        interrupt: KeyboardInterrupt | None = None
        # Poll with sleep, never wait on a condition: an interrupt landing inside
        # Condition.wait can leave its lock held. A signal may land on any bytecode here, so
        # every step sits in the try.
        while True:
            try:
                if not ready.is_set():
                    thread.start()
                    ready.set()
                while "done" not in box:
                    time.sleep(_WAIT_SLICE_S)
                break
            except KeyboardInterrupt as exc:
                if not ready.is_set():  # nothing ran yet: release the worker unrun
                    abandon.set()
                    ready.set()
                    raise
                if interrupt is None:  # first Ctrl-C: stop at the next stage boundary
                    interrupt = exc
                    self._stop.set()
                elif "loop" in handle:  # a second one: cancel the task where it stands
                    with contextlib.suppress(RuntimeError):  # its loop already closed
                        handle["loop"].call_soon_threadsafe(handle["task"].cancel)
        failure: BaseException | None = box.get("error")
        if failure is None:
            outcome: Run = box["result"]
            if interrupt is not None:  # stopped at a boundary (or finished meanwhile)
                _attach_run(interrupt, outcome)
                raise interrupt
            return outcome
        if interrupt is not None and isinstance(failure, asyncio.CancelledError):
            failure = interrupt  # the person's Ctrl-C, not the cancellation it caused
        if not isinstance(failure, Exception):  # an interrupt or a cancellation
            self._interrupted(failure)
        raise failure

    def _interrupted(self, exc: BaseException) -> None:
        """Make sure the run in flight is recorded as cancelled and rides on ``exc``."""
        loop = self._in_flight
        if loop is not None:
            loop.record_cancel(exc)
            _attach_run(exc, loop.run)

    # -- running -------------------------------------------------------------------------

    def run(self, request: str, *, on_checkpoint: CheckpointHook | None = None) -> Run:
        """Run the agent on ``request``; a second call continues the same conversation.

        Works in scripts and inside Jupyter's event loop. A fault mid-run returns the run with
        ``status='error'`` (see ``Run.raise_for_error``); configuration errors still raise. A
        Ctrl-C, ``SystemExit`` or cancellation records the run as ``status='cancelled'`` and
        propagates with the run as ``exc.run`` (also ``agent.conversation``); continue it with
        ``agent.resume(run.checkpoint())``.
        """
        return self._drive(self.arun(request, on_checkpoint=on_checkpoint))

    async def arun(self, request: str, *, on_checkpoint: CheckpointHook | None = None) -> Run:
        """The async form of :meth:`run`.

        Cancelling the task (``task.cancel()``, ``asyncio.wait_for(agent.arun(...), t)``)
        records the run as cancelled: it is ``agent.conversation``, and the
        ``CancelledError`` carries it as ``.run``.
        """
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
        loop.start_request(request)
        return await loop.drive()

    def reset(self) -> None:
        """Forget the conversation: the next ``run`` starts afresh."""
        self.conversation = None

    def continue_from(self, source: Run | Checkpoint) -> Agent:
        """Stand in a finished conversation — a run, a checkpoint, or either loaded from a file
        in another process — so the next ``run(request)`` continues it with its history.

        Everything the window held rides along as committed: drop notices, compaction frames
        and summaries stay ordinary messages of the window. The agent's own configuration
        (provider, strategy, tools) is used from here on. A stateful provider's position is
        *not* restored: a scripted provider of the new agent is scripted for the continuation
        only, starting at its first reply.

        Returns:
            This agent (``agent.continue_from(run).run("next request")`` reads naturally).

        Raises:
            ValueError: the run did not finish — paused (use ``agent.resume``), stopped on a
                fault (use ``agent.resume_on_error``) or interrupted (use ``agent.resume``).
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
        return self._drive(
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
        if checkpoint.phase == "resume" and checkpoint.pause is not None:
            loop.check_answer(answer, approve)
            return await loop.drive(answer=(answer, approve))
        return await loop.drive()

    def resume_on_error(
        self, checkpoint: Checkpoint, *, on_checkpoint: CheckpointHook | None = None
    ) -> Run:
        """Continue a run that stopped on a fault, with the identical window: the step that
        faulted runs again (its phase says which), nothing before it does."""
        return self._drive(self.aresume_on_error(checkpoint, on_checkpoint=on_checkpoint))

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
        self.rejection: ContextLengthError | None = None
        self.cancel_recorded = False
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
        agent._in_flight = self  # so a driver that sees an interrupt can record this run

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
        loop._restore_visit_state()
        restore = getattr(agent.provider, "restore_state", None)
        if restored.provider_state is not None and callable(restore):
            restore(restored.provider_state)
        return loop

    def _restore_visit_state(self) -> None:
        """Re-derive what this iteration's window visits did (the record an injection rule
        sees, and whether the window changed) from the records and the ledger, so a resume in
        another process delivers the same injections an uninterrupted run would."""
        run = self.run
        commits = self.ledger.commits
        record_stages = [c.stage_id for c in commits if c.key == "record"]
        if len(record_stages) != len(run.records):
            return  # not written by this loop (an import): nothing to re-derive
        changed_stages = {c.stage_id for c in commits if c.key == WINDOW}
        for record, stage in zip(run.records, record_stages, strict=True):
            if record.iteration != run.iterations:
                continue
            self.iteration_record = record
            self.window_changed = self.window_changed or stage in changed_stages

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

    async def drive(self, *, answer: tuple[str | None, bool | None] | None = None) -> Run:
        """Run the phase machine until the run finishes, pauses, faults or is cancelled.

        Each step commits its work and then moves ``run.phase`` on, with no await in between,
        so wherever the run stops (a fault, a cancellation, a kill after a checkpoint) the
        phase names the first step that did not finish and a resume re-runs only that one.

        Args:
            answer: A person's (answer, approve) for the pause the run waits on.
        """
        run = self.run
        run.error = None
        if run.status in ("error", "cancelled") and run.phase != "resume":
            # In flight again: a checkpoint taken from here on resumes with agent.resume.
            run.status = "max-iterations"
        try:
            while True:
                if self.agent._stop.is_set():
                    raise _StopRequested
                phase = run.phase
                if phase == "window":
                    if run.iterations - run.loop_start >= self.agent.max_iterations:
                        run.status = "max-iterations"
                        run.phase = "finished"
                        break
                    self._checkpoint_hook()
                    run.iterations += 1
                    self.window_changed = False
                    self.iteration_record = None
                    run.phase = "visit"
                elif phase == "visit":
                    if self.agent.strategy is not None:
                        await self.window_stage(run.iterations, forced=False)
                    run.phase = "inject"
                elif phase == "inject":
                    self._inject(run.iterations)
                    run.phase = "retry" if self._recovering() else "call"
                elif phase in ("call", "retry"):
                    response = await self.call_llm(run.iterations, retry=phase == "retry")
                    if response is None:
                        run.phase = "recover"
                    elif not response.message.tool_calls:
                        run.status = "done"
                        run.output = response.message.content
                        run.phase = "finished"
                        break
                    else:
                        run.phase = "tools"
                elif phase == "recover":
                    await self.recover(run.iterations)
                    run.phase = "inject"  # compaction re-delivers, forced or not
                elif phase == "tools":
                    await self.tool_calls(run.iterations)
                    if run.pause is not None:
                        await self.pause_boundary()
                        break
                    run.phase = "window"
                elif phase == "resume":
                    if answer is None:
                        break  # still waiting for a person
                    await self.answer_pause(*answer)
                    answer = None
                    if run.pause is not None:  # the next call of the batch waits too
                        run.status = "paused"
                        break
                else:
                    break
        except WindowConfigError:
            raise
        except _StopRequested as exc:  # a Ctrl-C seen by the driver: stopped at a boundary
            self.record_cancel(KeyboardInterrupt())
            _attach_run(exc, run)
        except (asyncio.CancelledError, KeyboardInterrupt, SystemExit) as exc:
            self.record_cancel(exc)
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

    def record_cancel(self, exc: BaseException) -> None:
        """Record the run as cancelled (once): status, event, window; attach it to ``exc``.

        The phase is left as it stands — the step that did not finish — so ``agent.resume``
        re-runs only that step (and of a tool batch only the calls without a result).
        """
        run = self.run
        _attach_run(exc, run)
        if self.cancel_recorded:
            return
        self.cancel_recorded = True
        run.status = "cancelled"
        run.error = None
        self.recorder.emit(
            RunCancelled(
                iteration=run.iterations,
                at_ms=self.now(),
                reason=type(exc).__name__,
                phase=run.phase,
            )
        )
        run.window = list(self.window)
        self.agent.conversation = run

    def _checkpoint_hook(self) -> None:
        if self.on_checkpoint is not None:
            self.run.window = list(self.window)
            self.on_checkpoint(self.run.checkpoint())

    def _capture_provider_state(self) -> None:
        export = getattr(self.agent.provider, "export_state", None)
        if callable(export):
            self.run.provider_state = export()

    def _recovering(self) -> bool:
        """Whether this iteration's call was rejected and compacted by force: then the next
        call is the one retry."""
        records = self.run.records
        return bool(records) and records[-1].forced and records[-1].iteration == self.run.iterations

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
            tool_names=self.agent.tools,
            provider=self.agent.provider,
            model=self.agent.model,
        )
        # The stage id is taken once the visit decided: a visit that faulted or was cancelled
        # consumed none, so its re-run numbers every later stage as an uninterrupted run does.
        stage = self.ledger.begin_stage("window")
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
            returned: object = await self.agent.provider.complete(request)
        finally:
            self._capture_provider_state()
        # None, a foreign object or a repeated call id is a ProviderError (usage stays None)
        response = checked_response(self.agent.provider.name, returned)
        call.usage = response.usage
        call.finish_reason = response.finish_reason
        call.truncated = response.truncated
        if response.truncated:
            self.recorder.emit(
                ReplyTruncated(
                    iteration=iteration,
                    at_ms=self.now(),
                    stage_id=stage,
                    finish_reason=response.finish_reason,
                )
            )
        return response

    async def call_llm(self, iteration: int, *, retry: bool) -> ProviderResponse | None:
        """Call the model and commit its reply. Returns None when the provider rejected the
        window as too long and a strategy can compact it (the ``recover`` step comes next);
        the one retry's rejection raises."""
        stage = self.ledger.begin_stage("call-llm")
        try:
            response = await self._send(iteration, stage, retry=retry)
        except ContextLengthError as exc:
            if retry or self.agent.strategy is None:
                raise
            self.rejection = exc
            return None
        self.ledger.put(stage, "usage", response.usage)
        (assistant,) = self.ledger.append(stage, [response.message])
        self.window.append(assistant)
        self.run.last_usage = response.usage
        self.recorder.emit(
            LlmEnd(iteration=iteration, at_ms=self.now(), stage_id=stage, usage=response.usage)
        )
        return response

    async def recover(self, iteration: int) -> None:
        """Reactive recovery: run the strategy once, forced; the retry follows its injections.

        Raises:
            ContextLengthError: the forced visit removed nothing, so a retry cannot fit.
        """
        result = await self.window_stage(iteration, forced=True)
        if result.record is None or result.record.removed_message_count == 0:
            if self.rejection is not None:
                raise self.rejection
            raise ContextLengthError(
                f"{self.agent.provider.name}: the request was rejected as over the context "
                "window and a forced compaction removed nothing"
            )

    def _commit_result(self, iteration: int, stage: str, result: Message) -> None:
        (committed,) = self.ledger.append(stage, [result])
        self.window.append(committed)
        self.recorder.emit(
            ToolEnd(
                iteration=iteration,
                at_ms=self.now(),
                call_id=committed.tool_call_id or "",
                name=committed.name or "",
                error=is_error_result(committed),
            )
        )

    async def tool_calls(self, iteration: int) -> None:
        """Run the calls of the open batch that have no result yet (all of them, unless the
        run resumes mid-batch), committing each result as it finishes — under the batch's one
        stage id, one history commit per result — with a checkpoint after each, so a resume
        never runs a call whose result was committed. A call to a tool that waits for a person
        pauses the run instead."""
        assistant, answered = open_batch(self.window)
        assert assistant is not None, "the tools step follows an assistant message"
        done = set(answered)
        calls = [c for c in assistant.tool_calls if c.id not in done]
        # A batch resumed mid-way goes on under the stage its first results were committed in.
        stage = next(
            (m.stage_id for m in self.window if m.role == "tool" and m.tool_call_id in done),
            None,
        )
        tools = self.agent.tools
        human = [c for c in calls if c.name in tools and tools[c.name].kind != "auto"]
        auto = [c for c in calls if c not in human]
        if auto:
            # Taken at the first result, not before: a batch cancelled before any result
            # consumed no id, so its re-run is numbered as an uninterrupted run's.
            batch: dict[str, str] = {} if stage is None else {"stage": stage}

            def commit(result: Message) -> None:
                if "stage" not in batch:
                    batch["stage"] = self.ledger.begin_stage("tool-calls")
                self._commit_result(iteration, batch["stage"], result)
                self._checkpoint_hook()

            await run_tool_calls(
                tools, auto, default_timeout=self.agent.tool_timeout, on_result=commit
            )
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
        self.window_changed = False
        self.iteration_record = None
        if self.agent.strategy is not None:
            await self.window_stage(
                run.iterations + 1,
                forced=False,
                paused_call_id=pause.call_id,
                paused_check_in=pause.check_in,
            )
        # Counted once the boundary's visit committed, so an interrupted visit is not counted.
        run.iterations += 1
        pause.boundary = True

    def check_answer(self, answer: str | None, approve: bool | None) -> None:
        """Check a person's answer fits the pause before anything runs.

        Raises:
            ValueError: the run is not paused, or the answer is of the wrong kind.
        """
        run = self.run
        pause = run.pause
        if pause is None or run.phase != "resume":
            raise ValueError("the run is not paused on a tool call")
        call = self._find_call(pause.call_id)
        if pause.kind == "ask-human" and answer is None:
            raise ValueError(
                f"the run waits for a person's answer to ask_human({pause.arguments}): "
                "pass answer=..."
            )
        if pause.kind == "check-in" and approve is None and answer is not None:
            raise ValueError(
                f"{call.name} waits for consent, not an answer: use run.approve() or "
                "run.deny(reason)"
            )

    async def answer_pause(self, answer: str | None, approve: bool | None) -> None:
        """Commit the person's answer (or run / refuse the checked-in tool) for the call the
        run waits on, then pause on the next call of the batch or go on to the model."""
        self.check_answer(answer, approve)
        run = self.run
        pause = run.pause
        assert pause is not None
        call = self._find_call(pause.call_id)
        if pause.kind == "ask-human":
            assert answer is not None
            result = Message.tool(call.id, call.name, answer)
        elif approve is None or approve:
            result = await self.agent.tools[call.name].invoke(
                call, default_timeout=self.agent.tool_timeout
            )
        else:
            result = Message.tool(
                call.id, call.name, f"error: denied by the person: {answer or 'not approved'}"
            )
        self._commit_result(pause.iteration, self.ledger.begin_stage("tool-calls"), result)
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
            run.status = "paused"
            self._checkpoint_hook()
            return
        run.pause = None
        run.status = "max-iterations"
        # After the boundary's visit the injections are due (they see that visit), then the
        # call; without a boundary the next iteration starts.
        run.phase = "inject" if pause.boundary else "window"
        self._checkpoint_hook()

    def _find_call(self, call_id: str) -> ToolCall:
        for message in reversed(self.window):
            for call in message.tool_calls:
                if call.id == call_id:
                    return call
        raise ValueError(f"the paused call {call_id!r} is not in the window")
