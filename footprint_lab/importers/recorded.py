"""What an imported file recorded, and the one rule for an imported run's status.

Layer: importers. A transcript is not a run that happened here: some sources record what each
call was sent (so their own context policy can be seen), some report token usage, some keep
tool results, name the model or say how the run ended — and some do not. An imported run says
which in ``run.meta["recorded"]`` (:class:`Recorded`), and the views say what is missing in
words (:func:`unrecorded_notes`) instead of printing a library default as the source's
setting.

**Status of an imported run** (every importer, through ``build_run``):

* ``done`` — the source records that the agent finished (SWE-agent: an exit status starting
  ``submitted``; OpenHands: a ``finish`` action; Inspect: a sample that completed without
  error or limit; tau-bench: a recorded reward), or, where it records no outcome, the file
  ends on an assistant reply that asks for no tool;
* ``max-iterations`` — the source records that a limit stopped the run (SWE-agent
  ``exit_cost`` / ``exit_context`` and other ``exit_*`` limits, an Inspect sample limit, an
  OpenHands iteration limit);
* ``incomplete`` — anything else: the file ends mid-loop (on a tool result or a user
  message) with no recorded outcome, or records an outcome that is none of the above (an
  error); ``meta["ended"]`` keeps the source's own word for it, where it has one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from footprint_lab.agent.run import Run, batch_progress
from footprint_lab.messages import storable_text
from footprint_lab.reading.problems import Problems

__all__ = [
    "ImportedStatus",
    "Recorded",
    "note_recorded",
    "recorded_of",
    "settle_outcome",
    "unrecorded_notes",
]

ImportedStatus = Literal["done", "max-iterations", "incomplete"]
"""The statuses an imported run can have (see the module docstring)."""


class Recorded(BaseModel):
    """Which facts an imported file recorded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    inputs: bool
    """What each call was sent (its exact input), so the source's own policy can be seen."""
    usage: bool
    """Token usage a provider reported, for at least one call."""
    tool_results: bool
    """Tool results (native, or rebuilt from text-mode actions and observations)."""
    model: bool
    """The model the run called."""
    outcome: bool
    """How the run ended (a submission, a finish action, a score, an exit status)."""


_NOTES: dict[str, str] = {
    "inputs": "this file does not record what each call was sent: its own context policy "
    "cannot be seen (the windows shown are the whole history up to each call)",
    "usage": "this file records no token usage: every token figure is estimated from characters",
    "tool_results": "this file records no tool results: tool-result policies and pins have "
    "nothing to act on",
    "model": "this file does not name the model",
    "outcome": "this file does not record how the run ended: its status follows from its "
    "last message",
}


def recorded_of(meta: Mapping[str, Any]) -> Recorded | None:
    """The :class:`Recorded` facts of an imported run's meta (None for a run that happened
    here, or one imported before these facts were kept)."""
    facts = meta.get("recorded")
    if not isinstance(facts, Mapping):
        return None
    return Recorded.model_validate(facts)


def unrecorded_notes(meta: Mapping[str, Any]) -> list[str]:
    """What an imported run's file does not record, one sentence each, in a fixed order
    (empty for a run that happened here). A replay of an imported run carries its source's
    facts; its windows are the replay's own, so the missing inputs are not said of it."""
    facts = recorded_of(meta)
    if facts is None:
        return []
    replayed = bool(meta.get("counterfactual"))
    return [
        note
        for key, note in _NOTES.items()
        if not getattr(facts, key) and not (replayed and key == "inputs")
    ]


def settle_outcome(
    run: Run, status: ImportedStatus, detail: str | None = None, *, strict: bool = False
) -> Run:
    """Give an imported run the outcome its source recorded: ``status`` by the rule of this
    module, the source's own word in ``meta["ended"]``, and ``recorded.outcome`` set. A run
    the source calls finished whose last reply's calls have no result keeps them, listed in
    ``import_problems`` (a transcript that merely stops at a call is ``incomplete`` instead).
    Returns the run.

    Raises:
        TranscriptError: ``strict``, and such calls are there.
    """
    run.status = status
    if detail is not None:
        run.meta["ended"] = storable_text(detail)
    if status == "done":
        _, pending = batch_progress(run.ledger.messages)
        if pending:
            said = f" ({detail})" if detail is not None else ""
            problems = Problems(str(run.meta.get("imported_from", "import")), strict=strict)
            problems.note(
                None,
                "tool_calls",
                f"the source says the run finished{said}, but the last reply's call(s) "
                f"{pending[:4]} have no result (kept as given)",
            )
            run.import_problems.extend(problems.found)
    return note_recorded(run, outcome=True)


def note_recorded(run: Run, **facts: bool) -> Run:
    """Mark further :class:`Recorded` facts of an imported run as recorded (or not), for an
    importer that learns them after ``build_run`` (a model named beside the transcript).
    Returns the run."""
    known = recorded_of(run.meta)
    if known is not None:
        run.meta["recorded"] = known.model_copy(update=facts).model_dump()
    return run
