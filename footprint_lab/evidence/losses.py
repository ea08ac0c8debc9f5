"""What a window policy cost in evidence: dependent calls sent without their evidence.

Layer: evidence (pure; no pandas). On a replayed run, a dependent call's evidence is **lost**
when, for some dependent value, no ``tool`` message carrying it was in the window sent for the
call that produced it; **kept by summary** when it was lost that way but a compaction frame in
that window contains the value. Wire problems and request loss are checked on the same windows.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from footprint_lab.agent.run import Run
from footprint_lab.evidence.dependencies import (
    DEFAULT_MIN_CHARS,
    Dependency,
    dependencies,
    transcript,
)
from footprint_lab.messages import Message
from footprint_lab.window.notice import is_compaction_frame
from footprint_lab.window.turns import current_request_index


class Loss(BaseModel):
    """A dependent value missing from the window its call was produced from."""

    call_id: str
    """The dependent call."""
    message_index: int
    """Transcript index of the assistant message that made the call."""
    tool_name: str
    """Its tool."""
    value: str
    """The value whose evidence was not in the window."""
    source_stage_id: str
    """The latest tool message that carried it."""
    iteration: int
    """The iteration whose call produced the dependent call."""
    removed_by: int | None
    """Iteration of the record that removed the source (None if it was never sent at all)."""
    removed_by_strategy: str | None = None
    """The strategy of that record."""
    kept_by_summary: bool = False
    """True when a compaction frame in that window still states the value."""


def _reply_calls(run: Run) -> dict[int, int]:
    """For each transcript index of an assistant reply, the index of the LLM call that made it.

    Keyed by position, not call id: real transcripts reuse call ids within one run.
    """
    out: dict[int, int] = {}
    ordinal = 0
    for index, message in enumerate(transcript(run)):
        if message.role == "assistant":
            out[index] = ordinal
            ordinal += 1
    return out


def losses(
    replayed: Run,
    deps: Sequence[Dependency] | None = None,
    min_chars: int = DEFAULT_MIN_CHARS,
) -> list[Loss]:
    """Every dependent value whose evidence was not in the window its call came from."""
    deps = dependencies(replayed, min_chars) if deps is None else deps
    made_by = _reply_calls(replayed)
    windows: dict[int, list[Message]] = {}
    out: list[Loss] = []
    for dep in deps:
        call_index = made_by.get(dep.message_index)
        if call_index is None or call_index >= len(replayed.calls):
            continue
        window = windows.get(call_index)
        if window is None:
            window = windows[call_index] = replayed.window_sent(call_index)
        carriers = {m.stage_id for m in window if m.role == "tool"}
        if any(stage in carriers for stage in dep.source_stage_ids) and any(
            dep.value in m.content for m in window if m.role == "tool"
        ):
            continue
        source = dep.source_stage_ids[-1]
        iteration = replayed.calls[call_index].iteration
        remover = next(
            (
                r
                for r in reversed(replayed.records)
                if r.iteration <= iteration and source in r.removed_stage_ids
            ),
            None,
        )
        out.append(
            Loss(
                call_id=dep.call_id,
                message_index=dep.message_index,
                tool_name=dep.tool_name,
                value=dep.value,
                source_stage_id=source,
                iteration=iteration,
                removed_by=None if remover is None else remover.iteration,
                removed_by_strategy=None if remover is None else remover.strategy,
                kept_by_summary=any(
                    is_compaction_frame(m) and dep.value in m.content for m in window
                ),
            )
        )
    return out


def wire_problems(window: Sequence[Message]) -> list[str]:
    """What a provider would reject in this window: a tool result whose call is not before it,
    a call whose result never follows while later turns do, or a head that is not a user."""
    problems: list[str] = []
    calls_seen: set[str] = set()
    pending: set[str] = set()
    for message in window:
        if message.role == "tool":
            if message.tool_call_id not in calls_seen:
                problems.append(f"tool result {message.tool_call_id} without its call")
            pending.discard(message.tool_call_id or "")
            continue
        if pending:
            problems.append(f"calls {sorted(pending)} unanswered before a new turn")
            pending = set()
        for call in message.tool_calls:
            calls_seen.add(call.id)
            pending.add(call.id)
    head = next((m for m in window if m.role != "system"), None)
    if head is not None and head.role != "user":
        problems.append(f"window opens on a {head.role} message")
    return problems


def request_lost(run: Run, call_index: int, request: str | None = None) -> bool:
    """Whether the window sent by call ``call_index`` holds no current request."""
    window = run.window_sent(call_index)
    return current_request_index(window, request) is None


def calls_of(items: Sequence[Dependency] | Sequence[Loss]) -> int:
    """How many distinct calls the items concern (by position: ids repeat in real runs)."""
    return len({(item.message_index, item.call_id) for item in items})
