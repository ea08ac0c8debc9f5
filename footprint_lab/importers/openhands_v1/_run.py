"""One OpenHands V1 conversation's events and state, made a run: the active branch converted,
the condensation windows, the usage, the outcome and ``meta``.

Layer: importers (private to :mod:`footprint_lab.importers.openhands_v1`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import Problems, TranscriptError
from footprint_lab.importers.openhands_v1._convert import (
    CONVERSATION_KINDS,
    IGNORED_KINDS,
    Condensed,
    Conversation,
    Converter,
)
from footprint_lab.importers.openhands_v1._read import Events, branch
from footprint_lab.importers.openhands_v1._state import State, read_state
from footprint_lab.importers.openhands_v1._view import windows
from footprint_lab.importers.recorded import ImportedStatus

POLICY = "openhands"
"""The name observed window records give OpenHands' condensers (as for its V0 streams)."""
_LIMITS = frozenset({"MaxIterationsReached", "MaxBudgetReached"})
"""``ConversationErrorEvent`` codes of a run stopped by its iteration or budget limit."""
_STOPPED = frozenset({"paused", "waiting_for_confirmation"})
"""Execution statuses of a conversation stopped before it finished."""


def state_of_list(events: Events, problems: Problems) -> State:
    """The state a list of events carries: the latest ``full_state`` update (a snapshot of
    the conversation state, as the agent server streams it), then any later
    ``execution_status`` update."""
    state = State()
    for index, kind, event in zip(events.indices, events.kinds, events.events, strict=True):
        if kind != "ConversationStateUpdateEvent":
            continue
        key, value = event.get("key"), event.get("value")
        if key == "full_state":
            state = read_state(value, problems, index, "value.")
        elif key == "execution_status" and isinstance(value, str):
            state.status = value
            state.recorded = True
    return state


def with_path(found: TranscriptError, events: Events, default: str) -> TranscriptError:
    """``found`` naming the file it is about: the event's file, else ``default``."""
    if found.path is not None:
        return found
    path = events.paths.get(found.index, default) if found.index is not None else default
    return TranscriptError(
        found.source, found.index, found.field, found.problem, path=path, unit=found.unit
    )


def _paths(found: list[ImportProblem], events: Events, default: str) -> list[ImportProblem]:
    """Problems naming the file each is about (the event's file, else ``default``)."""
    out: list[ImportProblem] = []
    for problem in found:
        if problem.path is None:
            where = (
                events.paths.get(problem.index, default) if problem.index is not None else default
            )
            problem = problem.model_copy(update={"path": where})
        out.append(problem)
    return out


def _scan(events: Events, on_branch: set[int]) -> dict[str, Any]:
    """What the events off the conversation say: kinds never sent (counted), conversation
    events off the active branch (counted), and the last conversation error."""
    ignored: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    off = 0
    error: dict[str, Any] | None = None
    for position, (kind, event) in enumerate(zip(events.kinds, events.events, strict=True)):
        if kind in IGNORED_KINDS:
            ignored[kind] += 1
        elif kind not in CONVERSATION_KINDS:
            unknown[kind] += 1
        if (kind in CONVERSATION_KINDS or "llm_message" in event) and position not in on_branch:
            off += 1
        if kind == "ConversationErrorEvent":
            code, detail = event.get("code"), event.get("detail")
            error = {
                "code": code if isinstance(code, str) else None,
                "detail": detail if isinstance(detail, str) else None,
            }
    return {
        "ignored_kinds": dict(ignored),
        "unknown_kinds": dict(unknown),
        "off_branch_events": off,
        "conversation_error": error,
    }


def _outcome(
    state: State, conversation: Conversation, error: Mapping[str, Any] | None
) -> tuple[ImportedStatus | None, str | None]:
    """How the conversation ended, by the imported-status rule
    (:mod:`footprint_lab.importers.recorded`): ``finished`` is ``done``; ``error`` / ``stuck``
    are ``incomplete`` (``max-iterations`` when the last conversation error is the iteration
    or budget limit); ``paused`` / ``waiting_for_confirmation`` are ``incomplete``; any other
    status (``idle``, ``running``, none recorded) leaves it to a ``FinishAction`` as the
    agent's latest step (``done``), else to the last message."""
    status = state.status
    code = error.get("code") if error is not None else None
    said = f": {code}: {error.get('detail')}" if error is not None and code is not None else ""
    if status == "finished":
        return "done", status
    if status in ("error", "stuck") or (status is None and error is not None):
        kind: ImportedStatus = "max-iterations" if code in _LIMITS else "incomplete"
        return kind, f"{status or 'error'}{said}"
    if status in _STOPPED:
        return "incomplete", status
    if conversation.finished:
        return "done", "finish"
    return None, None


def _observed(conversation: Conversation) -> None:
    """Mark each condensation a later call was sent the view of."""
    last_reply = conversation.replies[-1] if conversation.replies else -1
    at = [t for t, e in enumerate(conversation.timeline) if isinstance(e, Condensed)]
    for record, position in zip(conversation.condensations, at, strict=True):
        record["observed"] = position < last_reply


def build(
    events: Events,
    state: State,
    problems: Problems,
    state_problems: Problems,
    *,
    strict: bool,
    name: str,
) -> Run:
    """The run of one conversation (``name``: its folder's or file's stem, the label when the
    state names no conversation id).

    Raises:
        TranscriptError: an event is malformed, or (strict) has a problem — its ``path`` not
            yet set (see :func:`with_path`).
    """
    chain = branch(events, state, problems, state_problems)
    if not events.ids:
        problems.note(None, "events", "no events: an empty conversation, imported as an empty run")
    converter = Converter(problems, state.usages)
    for p in chain:
        converter.event(events.indices[p], events.events[p], events.ids[p], events.kinds[p])
    conversation = converter.finish()
    sent = windows(conversation, frozenset(events.ids))
    _observed(conversation)
    scan = _scan(events, set(chain))
    meta: dict[str, Any] = {
        "conversation_id": state.conversation_id,
        "model": state.model,
        "execution_status": state.status,
        "events": len(events.ids),
        "branch_events": len(chain),
        **scan,
        "condensations": conversation.condensations,
        "tools": conversation.tools,
        "usage_matched": conversation.matched,
        **state.facts,
    }
    if events.unrecognized:
        meta["unrecognized_files"] = events.unrecognized
    meta["log_file"] = events.where
    meta["label"] = state.conversation_id or name
    outcome, detail = _outcome(state, conversation, scan["conversation_error"])
    found = [*state_problems.found, *_paths(problems.found, events, events.where)]
    run = build_run(
        conversation.messages,
        conversation.usages,
        system=conversation.system,
        source=problems.source,
        meta=meta,
        problems=found,
        model=state.model,
        sent=sent,
        policy=POLICY,
        kinds=conversation.kinds,
        outcome=outcome,
        outcome_detail=detail,
        strict=strict,
    )
    run.import_problems = _paths(run.import_problems, events, events.where)
    return run


def stem(path: Path) -> str:
    """A conversation's name from its folder or file."""
    return path.stem if path.is_file() else path.name
