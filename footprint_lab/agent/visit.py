"""Committing one window visit: the bookkeeping shared by the agent loop and replay.

Layer: agent (public to the layers above it: :mod:`footprint_lab.replay` commits its visits through
:func:`commit_visit` too). ``apply_window`` decides; this module writes the decision down — new
library-authored messages and the new window to the ledger, the record, folded spans, and the events
(one ``context.evicted`` per message that left, ``context.budget_pressure`` on an over-budget visit,
``context.compaction`` when the window changed). It obeys the law stated in
``footprint_lab.window``: it appends to the ledger and never edits what is there.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, repeat

from footprint_lab.agent.run import Run
from footprint_lab.events import BudgetPressure, Compaction, ContextEvicted, Recorder
from footprint_lab.messages import Message, content_hash, share_fields_set
from footprint_lab.usage import Usage
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.result import WindowResult


@dataclass(frozen=True, slots=True)
class CommittedVisit:
    """The window after a visit, and what the visit filed."""

    window: list[Message]
    """The new window, with new messages stamped by the window stage."""
    record: WindowRecord
    """The record filed."""
    changed: bool
    """Whether anything left or was inserted."""


def commit_visit(
    run: Run,
    recorder: Recorder,
    stage: str,
    before: Sequence[Message],
    result: WindowResult,
    *,
    iteration: int,
    usage: Usage | None,
    forced: bool,
) -> CommittedVisit:
    """Write one engaged visit (``result.record`` is not None) to the run's ledger and events."""
    ledger = run.ledger
    record = result.record
    assert record is not None, "only a visit that filed a record is committed"
    window = list(result.window)
    # C-level passes: a clearing strategy's window keeps every turn, so it is long.
    fresh = list(compress(window, map(operator.is_, ledger.positions(window), repeat(None))))
    if fresh:
        stamped = dict(zip(map(id, fresh), ledger.append(stage, fresh), strict=True))
        window = list(map(stamped.get, map(id, window), window))
    changed = len(window) != len(before) or any(map(operator.is_not, window, before))
    if changed:
        ledger.set_window(stage, window)
    # The record names its own commit, so the lab never has to pair records with commits.
    record = share_fields_set(
        record.model_copy(update={"forced": forced or record.forced, "commit": len(ledger)})
    )
    ledger.put(stage, "record", record)
    run.records.append(record)
    for span in result.folded:
        frame_stage = window[span.frame_index].stage_id
        run.folded.append(span.model_copy(update={"frame_stage_id": frame_stage}))
    now = ledger.now()
    kept = set(map(id, window))
    for message in compress(before, map(operator.not_, map(kept.__contains__, map(id, before)))):
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
                messages_after=len(window),
                tokens_before=None if usage is None else usage.input_tokens,
                forced=forced,
            )
        )
    return CommittedVisit(window, record, changed)
