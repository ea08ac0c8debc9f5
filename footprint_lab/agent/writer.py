"""The one writer of runs: every commit a run's ledger gets is appended here.

Layer: agent (above :mod:`footprint_lab.agent.run`; below replay and the importers, which write
through it too). The agent loop, :func:`~footprint_lab.replay.replay`, the importers'
``build_run`` and any continuation of a run (a fork) hold a :class:`RunWriter` over their
:class:`~footprint_lab.agent.run.Run` and say what happened in the run's own words — a seed, a
model call and its reply, a tool result placed in call order, a window visit — and the writer
turns each into the ledger's commits, the run's calls and records, and the window the next call
sends. So a run reads the same whichever writer made it: the same stage kinds in the same order,
the same commits for the same facts, and every record names both its own commit and the commit
of the window its strategy was given (``WindowRecord.commit`` / ``given_commit``), so no reader
rebuilds that by commit arithmetic.

It obeys the law stated in :mod:`footprint_lab.window`: it appends and never edits what is
there, and it writes down what ``apply_window`` decided without deciding anything itself.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, repeat

from footprint_lab.agent.run import CallRecord, Run
from footprint_lab.events import (
    BudgetPressure,
    Compaction,
    ContextEvicted,
    LlmEnd,
    LlmStart,
    Recorder,
)
from footprint_lab.ledger import Ledger
from footprint_lab.messages import (
    Message,
    construct_trusted,
    content_hash,
    copy_trusted,
    window_chars,
)
from footprint_lab.usage import Usage
from footprint_lab.window.records import FoldedSpan, TokenSource, WindowRecord

__all__ = ["CommittedVisit", "RunWriter"]


@dataclass(frozen=True, slots=True)
class CommittedVisit:
    """The window after a visit, and what the visit filed."""

    window: list[Message]
    """The new window, with new messages stamped by the window stage."""
    record: WindowRecord
    """The record filed, naming its commit and the commit of the window it was given."""
    changed: bool
    """Whether anything left or was inserted."""


class RunWriter:
    """Appends one run's commits and keeps the window its next call sends.

    Args:
        run: The run written; its ledger, calls and records grow, nothing in them is edited.
        window: The window as of the ledger's last commit (``[]`` for a new run; the run's
            window when it goes on).
        recorder: Where a visit's events go (``context.evicted``, ``context.budget_pressure``,
            ``context.compaction``); None for a writer that records no events (an import).
    """

    __slots__ = ("recorder", "run", "window")

    def __init__(
        self, run: Run, window: list[Message] | None = None, recorder: Recorder | None = None
    ) -> None:
        self.run = run
        """The run written."""
        self.window: list[Message] = [] if window is None else window
        """What the next call sends: the window as of the ledger's last commit."""
        self.recorder = recorder
        """Where visits' events go (None: none recorded)."""

    @property
    def ledger(self) -> Ledger:
        """The run's ledger."""
        return self.run.ledger

    def stage(self, kind: str) -> str:
        """Allocate the next stage id of ``kind`` (``call-llm#7``); nothing is committed yet."""
        return self.run.ledger.begin_stage(kind)

    # -- what a run is told, and what the environment answers ---------------------------

    def seed(
        self, messages: Iterable[Message], *, stage: str | None = None, system: str | None = None
    ) -> list[Message]:
        """Commit a seed stage: the system prompt (when given) and what the run is told.

        Args:
            messages: The request (and anything sent with it); none for the empty seed a
                reply with nothing before it follows.
            stage: The seed stage's id, when already allocated.
            system: The system prompt, committed first (the opening seed only).
        """
        stage = stage or self.stage("seed")
        if system is not None:
            self.system(stage, system)
        return self.append(stage, messages)

    def system(self, stage: str, text: str) -> None:
        """Commit the system prompt under the opening seed stage (before its messages)."""
        self.run.ledger.put(stage, "system", text)

    def append(self, stage: str, messages: Iterable[Message]) -> list[Message]:
        """Commit ``messages`` under ``stage`` as one history commit and add them to the
        window; returns them stamped with the stage id."""
        committed = self.run.ledger.append(stage, messages)
        self.window.extend(committed)
        return committed

    def insert(self, stage: str, messages: Iterable[Message], at: int) -> list[Message]:
        """Commit ``messages`` under ``stage`` and place them at index ``at`` of the window (a
        re-delivered injection goes where a compaction's removal was), followed by a window
        commit, so ``ledger.window_at`` reads the window as it is."""
        committed = self.run.ledger.append(stage, messages)
        self.window[at:at] = committed
        if at < len(self.window) - len(committed):
            self.run.ledger.set_window(stage, self.window)
        return committed

    # -- model calls -----------------------------------------------------------------------

    def call(
        self,
        stage: str,
        iteration: int,
        *,
        chars: int | None = None,
        usage: Usage | None = None,
        retry: bool = False,
        tokens_from: TokenSource | None = None,
        scaled_from: int | None = None,
    ) -> CallRecord:
        """File the call about to send the window (``run.calls``): it sends the window as of
        the ledger's last commit, so ``ledger.window_at(call.sent_commit)`` reads it back.

        Args:
            chars: The window's size, when the caller keeps a running total (else counted).
            usage: What the call cost, when already known (a recorded or replayed call).
            tokens_from: How ``usage`` was obtained, when it was not reported (replay).
            scaled_from: The source's reported input tokens a ``scaled`` figure came from.
        """
        # Trusted: every value is the writer's own count or one the library built and
        # validated (a usage, a token source); a replay files a call at every reply.
        call = construct_trusted(
            CallRecord,
            iteration=iteration,
            stage_id=stage,
            sent_commit=len(self.run.ledger) - 1,
            messages=len(self.window),
            chars=window_chars(self.window) if chars is None else chars,
            usage=usage,
            tokens_from=tokens_from,
            scaled_from=scaled_from,
            retry=retry,
            finish_reason=None,
            truncated=False,
        )
        self.run.calls.append(call)
        if self.recorder is not None:
            self.recorder.emit(
                LlmStart(
                    iteration=iteration,
                    at_ms=self.run.ledger.now(),
                    stage_id=stage,
                    messages=call.messages,
                    chars=call.chars,
                )
            )
        return call

    def reply(self, stage: str, message: Message, usage: Usage | None) -> Message:
        """Commit the model's reply under its call's stage: its usage (when any), then the
        message, which the window now ends with; then the call's end event, when this writer
        records events and the usage is known."""
        ledger = self.run.ledger
        if usage is not None:
            ledger.put(stage, "usage", usage)
        (committed,) = ledger.append(stage, [message])
        self.window.append(committed)
        if usage is not None and self.recorder is not None:
            iteration = self.run.calls[-1].iteration if self.run.calls else self.run.iterations
            self.recorder.emit(
                LlmEnd(iteration=iteration, at_ms=ledger.now(), stage_id=stage, usage=usage)
            )
        return committed

    # -- tool results ----------------------------------------------------------------------

    def result(
        self, stage: str, result: Message, order: Mapping[str, int] | None = None
    ) -> Message:
        """Commit one tool result under ``stage`` and place it in the window.

        Args:
            order: The open batch's call ids by position. The result goes after the results
                of the calls before it, so the window keeps the order the model asked in while
                the ledger keeps the order the calls finished; a result placed before one
                already there is followed by a window commit, so ``ledger.window_at`` reads
                the window as it is. None: appended at the end.
        """
        ledger = self.run.ledger
        (committed,) = ledger.append(stage, [result])
        window = self.window
        at = len(window)
        if order is not None:
            # A result answering none of the calls (an imported file's) goes after those that do.
            rank = order.get(committed.tool_call_id or "", len(order))
            while at and window[at - 1].role == "tool":
                if order.get(window[at - 1].tool_call_id or "", -1) < rank:
                    break
                at -= 1
        window.insert(at, committed)
        if at < len(window) - 1:
            ledger.set_window(stage, window)
        return committed

    # -- window visits ---------------------------------------------------------------------

    def visit(
        self,
        stage: str,
        window: Sequence[Message],
        record: WindowRecord,
        *,
        folded: Sequence[FoldedSpan] = (),
        usage: Usage | None = None,
        forced: bool = False,
    ) -> CommittedVisit:
        """Commit one engaged visit: the new messages it inserted (a drop notice, a frame, a
        placeholder), the window it returned when that differs from the one it was given, and
        its record — which is told its own commit and the commit of the window it was given —
        then the events, when this writer records any.

        Args:
            stage: The visit's ``window#n`` stage id.
            window: The window the visit returned (the strategy's, or the one a foreign
                policy was observed to send).
            record: What the visit filed.
            folded: Compaction frames' spans (see :class:`~footprint_lab.window.FoldedSpan`).
            usage: The last call's usage, for the compaction event.
            forced: A reactive visit (after the provider rejected the window).
        """
        run = self.run
        ledger = run.ledger
        before = self.window
        given_commit = len(ledger) - 1
        after = list(window)
        # C-level passes: a clearing strategy's window keeps every turn, so it is long.
        fresh = list(compress(after, map(operator.is_, ledger.positions(after), repeat(None))))
        if fresh:
            stamped = dict(zip(map(id, fresh), ledger.append(stage, fresh), strict=True))
            after = list(map(stamped.get, map(id, after), after))
        changed = len(after) != len(before) or any(map(operator.is_not, after, before))
        if changed:
            ledger.set_window(stage, after)
        # A trusted copy: the three facts are the writer's own (a bool and two commit
        # indices), the rest was validated when the record was built.
        record = copy_trusted(
            record, forced=forced or record.forced, commit=len(ledger), given_commit=given_commit
        )
        ledger.put(stage, "record", record)
        run.records.append(record)
        for span in folded:
            frame_stage = after[span.frame_index].stage_id
            run.folded.append(span.model_copy(update={"frame_stage_id": frame_stage}))
        if self.recorder is not None:
            self._visit_events(before, after, record, usage, forced, changed)
        self.window = after
        return CommittedVisit(after, record, changed)

    def _visit_events(
        self,
        before: Sequence[Message],
        after: Sequence[Message],
        record: WindowRecord,
        usage: Usage | None,
        forced: bool,
        changed: bool,
    ) -> None:
        recorder = self.recorder
        assert recorder is not None
        ledger = self.run.ledger
        iteration = record.iteration
        now = ledger.now()
        kept = set(map(id, after))
        for message in compress(
            before, map(operator.not_, map(kept.__contains__, map(id, before)))
        ):
            committed = ledger.committed_at_ms(message)
            recorder.emit(
                ContextEvicted(
                    iteration=iteration,
                    at_ms=now,
                    strategy=record.strategy,
                    stage_id=message.stage_id,
                    content_hash=content_hash(message),
                    role=message.role,
                    tool_name=message.name if message.role == "tool" else None,
                    survival_ms=max(0, now - committed) if committed is not None else 0,
                )
            )
        if record.over_budget:
            recorder.emit(
                BudgetPressure(
                    iteration=iteration,
                    at_ms=now,
                    strategy=record.strategy,
                    measured_tokens=record.measured_tokens,
                    threshold_tokens=record.threshold_tokens,
                )
            )
        if changed:
            recorder.emit(
                Compaction(
                    iteration=iteration,
                    at_ms=now,
                    strategy=record.strategy,
                    messages_before=len(before),
                    messages_after=len(after),
                    tokens_before=None if usage is None else usage.input_tokens,
                    forced=forced,
                )
            )
