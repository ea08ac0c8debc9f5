"""``_Loop``: one run's ReAct loop — the phase machine and its stages.

Layer: agent. It drives the window core through ``aapply_boundary`` (looked up as this
module's attribute at every visit, so ``bench/loop.py`` can wrap it); the law stated in
``footprint_lab.window`` holds here too: the window stage commits a new window and a record and
never edits what earlier stages committed. Per iteration: window stage (only with a strategy)
→ injections (only with rules) → call-llm → tool-calls, each committing to the ledger; with no
strategy the requests are byte-identical to an agent that never heard of windows.

A run records its ``phase`` (``footprint_lab.agent.run.Phase``), so a checkpoint taken after a
fault, an interrupt, a cancellation or a kill continues where it stopped, re-running only the
step that did not finish. Each tool result is committed the moment its call finishes (the
window keeps the calls' order), followed by a checkpoint, so a resume never runs a call twice
once its result was committed. A
context-length rejection compacts by force and re-delivers injections before the one retry.
The tools stage lives in :mod:`footprint_lab.agent._batch`, pauses in
:mod:`footprint_lab.agent._pauses`, the sync driver in ``_driver``.
"""

from __future__ import annotations

from collections.abc import Callable

from footprint_lab.agent import _batch, _calls, _pauses
from footprint_lab.agent._driver import StopRequested, attach_run, detached
from footprint_lab.agent._parts import AgentParts
from footprint_lab.agent._policy import policy_of
from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.injections import InjectionContext, Redelivered, injection_message
from footprint_lab.agent.run import Run
from footprint_lab.agent.writer import RunWriter
from footprint_lab.events import (
    PolicyChanged,
    Recorder,
    RunCancelled,
    RunFailed,
)
from footprint_lab.ledger import WINDOW, Ledger
from footprint_lab.messages import Message, storable_text
from footprint_lab.providers.base import (
    ContextLengthError,
    window_counter,
)
from footprint_lab.window.apply import aapply_boundary
from footprint_lab.window.boundary import Boundary
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.result import WindowResult
from footprint_lab.window.shape import Window
from footprint_lab.window.strategies.base import strategy_name

CheckpointHook = Callable[[Checkpoint], None]
"""Called with a checkpoint at every iteration boundary and after every committed tool result
(e.g. to persist it)."""


class _Loop:
    """One run's state while it executes."""

    def __init__(
        self, agent: AgentParts, previous: Run | None, on_checkpoint: CheckpointHook | None
    ) -> None:
        self.agent = agent
        self.on_checkpoint = on_checkpoint
        self.recorder = Recorder()
        self.window_changed = False
        self.iteration_record: WindowRecord | None = None
        self.rejection: ContextLengthError | None = None
        self.cancel_recorded = False
        self.shaped: Window | None = None  # the last visit's window: the next reads what is new
        if previous is None:
            run = Run(request="", ledger=Ledger(agent.clock))
            window: list[Message] = []
        else:  # a conversation continues on a copy, so the earlier Run stays as it was
            ledger = previous.ledger.copy()
            run = Run(
                request=previous.request,
                ledger=ledger,
                records=list(previous.records),
                calls=[c.model_copy() for c in previous.calls],
                folded=list(previous.folded),
                iterations=previous.iterations,
                meta=dict(previous.meta),
                origin=previous.origin,  # the conversation goes on: it was made as it was
                requests=list(previous.requests),
                last_usage=previous.last_usage,
                provider_state=previous.provider_state,
            )
            self.recorder.events.extend(previous.events)
            before, after = policy_of(previous), policy_of(agent)
            if before.differs_from(after):
                # Allowed by continue_from(..., allow_policy_change=True): said, not silent.
                self.recorder.emit(
                    PolicyChanged(
                        iteration=previous.iterations,
                        at_ms=ledger.now(),
                        strategy_before=str(before),
                        strategy_after=str(after),
                        pins_before=before.pins,
                        pins_after=after.pins,
                    )
                )
            positions = [previous.ledger.position(m) for m in previous.window]
            window = [ledger.messages[p] for p in positions if p is not None]
        self.writer = RunWriter(run, window, self.recorder)
        self.run.events = self.recorder.events
        self.run.agent = agent
        self.run.strategy = strategy_name(agent.strategy)
        self.run.system = agent.system_prompt
        self.run.model = agent.model
        self.run.provider = storable_text(agent.provider.name)
        self.run.keep_last_tool_results = agent.keep_last_tool_results
        agent._flight.loop = self  # so a driver that sees an interrupt can record this run

    @classmethod
    def from_checkpoint(
        cls, agent: AgentParts, checkpoint: Checkpoint, on_checkpoint: CheckpointHook | None
    ) -> _Loop:
        return cls.from_run(agent, run_from_checkpoint(checkpoint), on_checkpoint)

    @classmethod
    def from_run(
        cls, agent: AgentParts, restored: Run, on_checkpoint: CheckpointHook | None
    ) -> _Loop:
        """A loop that goes on writing ``restored`` itself (a run rebuilt from a checkpoint,
        or a fork's copy of its parent's ledger up to the boundary it forks at) from the
        step its ``phase`` names."""
        loop = cls(agent, None, on_checkpoint)
        loop.writer = RunWriter(restored, list(restored.window), loop.recorder)
        loop.recorder.events.extend(restored.events)
        restored.events = loop.recorder.events
        restored.error = None
        restored.agent = agent
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
        changed_stages = {c.stage_id for c in commits if c.key == WINDOW}
        for record in run.records:
            if record.iteration != run.iterations or record.commit is None:
                continue
            self.iteration_record = record
            stage = commits[record.commit].stage_id
            self.window_changed = self.window_changed or stage in changed_stages

    @property
    def run(self) -> Run:
        """The run this loop writes (its writer's)."""
        return self.writer.run

    @property
    def ledger(self) -> Ledger:
        """The run's ledger."""
        return self.writer.run.ledger

    @property
    def window(self) -> list[Message]:
        """What the next call sends (its writer's)."""
        return self.writer.window

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
        system = self.agent.system_prompt if not run.loop_start else None
        self.writer.seed([Message.user(request)], system=system)

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
                if self.agent._flight.stop.is_set():
                    raise StopRequested
                phase = run.phase
                if phase == "window":
                    if run.iterations - run.loop_start >= self.agent.max_iterations:
                        run.status = "max-iterations"
                        run.phase = "finished"
                        break
                    self.checkpoint_hook()
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
                    response = await _calls.call_llm(self, run.iterations, retry=phase == "retry")
                    if response is None:
                        run.phase = "recover"
                    elif not response.message.tool_calls:
                        run.status = "done"
                        run.output = response.message.content
                        run.phase = "finished"
                        break
                    else:
                        run.phase = "tools"
                        # The reply and its call ids durable before any tool runs: a crash
                        # inside the batch resumes here, never asks the model again, and each
                        # call keeps its id (current_call_id, the idempotency key).
                        self.checkpoint_hook()
                elif phase == "recover":
                    await self.recover(run.iterations)
                    run.phase = "inject"  # compaction re-delivers, forced or not
                elif phase == "tools":
                    await _batch.tool_calls(self, run.iterations)
                    if run.pause is not None:
                        await _pauses.pause_boundary(self)
                        break
                    run.phase = "window"
                elif phase == "resume":
                    if answer is None:
                        break  # still waiting for a person
                    await _pauses.answer_pause(self, *answer)
                    answer = None
                    if run.pause is not None:  # the next call of the batch waits too
                        run.status = "paused"
                        break
                else:
                    break
        except WindowConfigError:
            raise
        except StopRequested as exc:  # a Ctrl-C seen by the driver: stopped at a boundary
            self.record_cancel(KeyboardInterrupt())
            attach_run(exc, run)
        except Exception as exc:  # a fault never loses the run
            self.record_fault(exc)
        except BaseException as exc:
            # An interrupt, a cancellation, SystemExit, GeneratorExit or any other
            # BaseException: never lost either — the run is cancelled and rides on it.
            self.record_cancel(exc)
            raise
        self.leave()
        return run

    def record_fault(self, exc: Exception) -> Run:
        """Record the run as stopped by the fault ``exc``: status ``'error'``, the error (no
        frames: they would keep the provider's client), a ``RunFailed`` event, the window as it
        stands. Returns the run."""
        run = self.run
        run.status = "error"
        run.error = detached(exc)
        self.recorder.emit(
            RunFailed(
                iteration=run.iterations,
                at_ms=self.now(),
                error_type=type(exc).__name__,
                message=str(exc),
            )
        )
        return run

    def leave(self) -> None:
        """The run as the loop leaves it: its window, and the agent's conversation."""
        self.run.window = list(self.window)
        self.agent.conversation = self.run

    def record_cancel(self, exc: BaseException) -> None:
        """Record the run as cancelled (once): status, event, window; attach it to ``exc``.

        The phase is left as it stands — the step that did not finish — so ``agent.resume``
        re-runs only that step (and of a tool batch only the calls without a result).
        """
        run = self.run
        attach_run(exc, run)
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
        self.leave()

    def checkpoint_hook(self) -> None:
        if self.on_checkpoint is not None:
            self.run.window = list(self.window)
            self.on_checkpoint(self.run.checkpoint())

    def capture_provider_state(self) -> None:
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
        agent = self.agent
        boundary = Boundary(
            iteration=iteration,
            request=self.run.request,
            measured_input_tokens=None if usage is None else usage.input_tokens,
            measured_output_tokens=None if usage is None else usage.output_tokens,
            keep_last_tool_results=agent.keep_last_tool_results,
            prior_records=self.run.records,
            paused_call_id=paused_call_id,
            paused_check_in=paused_check_in,
            provider_name=agent.provider.name,
            context_window=agent.provider.context_window(agent.model),
            max_output_tokens=agent.max_output_tokens,
            forced=forced,
            tool_names=agent.tool_roster,
            provider=agent.provider,
            model=agent.model,
            reuse=self.shaped,
            count_window=window_counter(agent.provider, agent.request_for),
        )
        result = await aapply_boundary(strategy, self.window, boundary)
        self.shaped = result.given
        # The stage id is taken once the visit decided: a visit that faulted or was cancelled
        # consumed none, so its re-run numbers every later stage as an uninterrupted run does.
        stage = self.writer.stage("window")
        if result.record is None:
            return result
        visit = self.writer.visit(
            stage, result.window, result.record, folded=result.folded, usage=usage, forced=forced
        )
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
        at_end: list[Message] = []
        at_removal: list[Message] = []
        for rule in self.agent.injections:
            text = rule(context)
            if text:
                where = at_removal if isinstance(text, Redelivered) else at_end
                where.append(injection_message(str(text)))
        if not (at_end or at_removal):
            return
        stage = self.writer.stage("inject")
        point = self._removal_point() if at_removal else None
        if point is None:
            self.writer.append(stage, at_removal + at_end)
            return
        self.writer.insert(stage, at_removal, point)
        if at_end:
            self.writer.append(stage, at_end)

    def _removal_point(self) -> int | None:
        """Where this iteration's visit removed a span, in the window as it now stands: after
        the messages the visit put in its place (a drop notice, a summary). None when the visit
        removed nothing, or only cleared results in place."""
        record = self.iteration_record
        if (
            record is None
            or record.removed_message_count == 0
            or record.cleared_stage_ids
            or record.given_commit is None
        ):
            return None
        given = self.ledger.window_at(record.given_commit)
        now = self.window
        point = 0
        limit = min(len(given), len(now))
        while point < limit and given[point] is now[point]:
            point += 1
        was_given = set(map(id, given))
        while point < len(now) and id(now[point]) not in was_given:
            point += 1  # the visit's own stand-ins
        return point

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

    def check_answer(self, answer: str | None, approve: bool | None) -> None:
        """Check a person's answer fits the pause before anything runs (see
        :func:`footprint_lab.agent._pauses.check_answer`)."""
        _pauses.check_answer(self, answer, approve)
