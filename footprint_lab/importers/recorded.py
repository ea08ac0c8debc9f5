"""What an imported file recorded, and the one rule for an imported run's status.

Layer: importers. A transcript is not a run that happened here: some sources record what each
call was sent (so their own context policy can be seen), some report token usage, some keep
tool results, name the model or say how the run ended — and some do not. An imported run says
which in its origin (``run.origin.recorded``, a :class:`Recorded`), and the views say what is
missing in words (:func:`unrecorded_notes`) instead of printing a library default as the
source's setting.

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

from typing import Literal

from footprint_lab.agent.origin import Import, Origin, Recorded, Replay, recorded_of_origin
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


def recorded_of(source: Run | Origin) -> Recorded | None:
    """The :class:`Recorded` facts of an imported run (its origin's), or of a replay or fork
    of one (its source's); None for a run that happened here, or an import saved before these
    facts were kept."""
    return recorded_of_origin(source.origin if isinstance(source, Run) else source)


def unrecorded_notes(source: Run | Origin) -> list[str]:
    """What an imported run's file does not record, one sentence each, in a fixed order
    (empty for a run that happened here). A replay of an imported run carries its source's
    facts; its windows are the replay's own, so the missing inputs are not said of it."""
    origin = source.origin if isinstance(source, Run) else source
    facts = recorded_of_origin(origin)
    if facts is None:
        return []
    replayed = isinstance(origin, Replay)
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
            source = run.origin.format if isinstance(run.origin, Import) else "import"
            problems = Problems(str(source), strict=strict)
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
    origin = run.origin
    if isinstance(origin, Import) and origin.recorded is not None:
        recorded = origin.recorded.model_copy(update=facts)
        run.origin = origin.model_copy(update={"recorded": recorded})
    return run
