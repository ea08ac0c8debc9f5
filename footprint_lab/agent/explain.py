"""Why a message is, or is not, in the window: :func:`explain`, one sentence per stage id.

Layer: agent (reads a :class:`~footprint_lab.agent.run.Run` — live, replayed, imported or
loaded — its ledger and its records; never writes). The words are the window core's
(:mod:`footprint_lab.window.words`): a record's sentence is ``record.explain()``, a message
that left says how and by which rule (:func:`~footprint_lab.window.words.departure_words`),
a message that stayed says what its turn's last visit said of it (a refusal with its reason,
or a pin). Pure Python: no pandas, so ``footprint_lab.explain`` works in the core alone.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from footprint_lab.agent.origin import Replay, imported_source
from footprint_lab.agent.run import Run
from footprint_lab.ledger import Ledger
from footprint_lab.ledger.commit import given_commit
from footprint_lab.messages import Message
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.turns import segment_turns
from footprint_lab.window.words import departure_words, plural, refusal_meaning, who

__all__ = ["Explainer", "UnknownStageError", "explain", "record_stage_id"]

HOW_TO_FIND_IDS = (
    "stage ids name the ledger's stages: every commit's `stage_id` in `run.ledger.commits`, "
    "each window message's `stage_id` (`run.window`), the ids a record names "
    "(`record.removed_stage_ids`, `record.refusals[i].stage_id`), the `stage_id` column of "
    "`footprint_lab.lab.capture(run).messages`, and a record's own id, "
    "`run.ledger.commits[record.commit].stage_id`"
)
"""Where a stage id can be found, as the error for an unknown one says."""


class UnknownStageError(LookupError):
    """``explain`` was given a stage id the run's ledger does not hold."""


def record_stage_id(run: Run, record: WindowRecord) -> str | None:
    """The stage id of the commit that filed ``record`` (e.g. ``window#13``); None for a record
    no commit filed (a bare ``apply_window``)."""
    commits = run.ledger.commits
    if record.commit is None or not 0 <= record.commit < len(commits):
        return None
    return commits[record.commit].stage_id


def _unknown(run: Run, stage_id: object) -> UnknownStageError:
    stages = list(dict.fromkeys(c.stage_id for c in run.ledger.commits))
    near = difflib.get_close_matches(str(stage_id), stages, n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(near)}?" if near else ""
    shown = ", ".join(stages[:8]) + (", …" if len(stages) > 8 else "")
    return UnknownStageError(
        f"explain(run, {stage_id!r}): no stage {stage_id!r} in this run's ledger "
        f"({plural(len(stages), 'stage')}: {shown or 'none'}).{hint} Where to find ids: "
        f"{HOW_TO_FIND_IDS}."
    )


def _given_window(ledger: Ledger, record: WindowRecord) -> list[Message] | None:
    """The window the visit filing ``record`` was given (None when the run does not say)."""
    index = record.given_commit
    if index is None and record.commit is not None:
        index = given_commit(ledger.commits, record.commit)
    if index is None or not 0 <= index < len(ledger.commits):
        return None
    return ledger.window_at(index)


def _at_visit(ledger: Ledger, record: WindowRecord, stage_id: str, positions: set[int]) -> str:
    """What the visit filing ``record`` said of the stage's message(s) it did not remove."""
    window = _given_window(ledger, record)
    where = f"at the last visit (iteration {record.iteration}) {record.strategy}"
    if window is None:
        return f"{where} kept it (the run does not say which window that visit was given)"
    found = [i for i, p in enumerate(ledger.positions(window)) if p in positions]
    if not found:
        return f"{where} was not given it"
    turn = next(t for t in segment_turns(window) if t.start <= found[0] < t.end)
    obs = record.observations
    for pin in obs.pinned if obs is not None else ():
        if pin.stage_id == stage_id or (
            pin.turn_index == turn.index
            and any(window[i].role == "tool" and window[i].name == pin.tool_name for i in found)
        ):
            return f"{where} pinned it: {pin.tool_name}'s latest result, kept while in use"
    for refusal in record.refusals:
        if refusal.turn_index == turn.index:
            return (
                f"{where} refused to remove its turn (turn {turn.index}) — {refusal.reason}: "
                f"{refusal_meaning(refusal.reason)}"
            )
    return (
        f"{where} left it in place: the removal stopped before its turn (turn {turn.index}), "
        "so no rule had to refuse it"
    )


class Explainer:
    """:func:`explain` for many stage ids of one run: the run is indexed once (each stage's
    commits, the records each stage filed, the first record that removed each stage), so the
    Inspector's search explains hundreds of messages of a long run without re-reading it.

    Args:
        run: The run (read once; make a new explainer after it grows).
    """

    def __init__(self, run: Run) -> None:
        self.run = run
        commits = run.ledger.commits  # read once: the property builds a sequence per read
        self._commits: dict[str, list[int]] = {}
        for commit in commits:
            self._commits.setdefault(commit.stage_id, []).append(commit.index)
        self._filed: dict[str, list[WindowRecord]] = {}
        self._removed_by: dict[str, WindowRecord] = {}
        for record in run.records:
            if record.commit is not None and 0 <= record.commit < len(commits):
                self._filed.setdefault(commits[record.commit].stage_id, []).append(record)
            for removed in record.removed_stage_ids:
                self._removed_by.setdefault(removed, record)

    def explain(self, stage_id: str) -> str:
        """What :func:`explain` says of ``stage_id`` (see there)."""
        run = self.run
        if not isinstance(stage_id, str):
            raise _unknown(run, stage_id)
        at = self._commits.get(stage_id, [])
        try:
            messages = run.ledger.messages_of(stage_id)
        except KeyError:
            messages = []
        filed = self._filed.get(stage_id)
        if filed:
            said = " ".join(record.explain() for record in filed)
            return said + (self._what_it_wrote(stage_id, messages) if messages else "")
        if messages:
            return self._of_messages(stage_id, messages)
        if at:
            commits = run.ledger.commits
            keys = ", ".join(dict.fromkeys(commits[i].key for i in at))
            return (
                f"{stage_id} committed no message and filed no window record, so it was never "
                f"in the window: its commits are {keys}."
            )
        raise _unknown(run, stage_id)

    def _of_messages(self, stage_id: str, messages: Sequence[Message]) -> str:
        """Why the messages ``stage_id`` committed left the window, or why they stayed."""
        run = self.run
        ledger = run.ledger
        kinds = ", ".join(dict.fromkeys(who(m) for m in messages))
        head = f"{stage_id} ({kinds})"
        record = self._removed_by.get(stage_id)
        if record is not None:
            how = departure_words(record, stage_id)
            return f"{head} left the window: {how}. {record.explain()}"
        if run.strategy is None and not run.records:
            return f"{head} never left the window: {_why_unmanaged(run)}"
        positions = {p for p in ledger.positions(messages) if p is not None}
        first_commit = min((ledger.commit_of_message(p) for p in positions), default=0)
        later = [r for r in run.records if r.commit is None or r.commit > first_commit]
        if not later:
            return (
                f"{head} never left the window: no window visit ran after it was written "
                f"({plural(len(run.records), 'record')} in all, each before it)."
            )
        return (
            f"{head} never left the window: {plural(len(later), 'visit')} of the strategy since "
            f"it was written kept it; {_at_visit(ledger, later[-1], stage_id, positions)}."
        )

    def _what_it_wrote(self, stage_id: str, messages: Sequence[Message]) -> str:
        """What became of the messages a visit wrote (a drop notice, a summary)."""
        kinds = " and ".join(dict.fromkeys(who(m) for m in messages))
        record = self._removed_by.get(stage_id)
        if record is not None:
            how = departure_words(record, stage_id)
            return f" The {kinds} it wrote left the window later: {how}."
        return f" The {kinds} it wrote never left the window."


def _why_unmanaged(run: Run) -> str:
    """Why nothing ever left a run with no window records: it had no strategy, or — for an
    import — what its file records and what it does not (a file that does not record what each
    call was sent cannot show its stack's own policy removing anything)."""
    imported = imported_source(run.origin)
    if imported is None or isinstance(run.origin, Replay):
        return "the run has no window strategy."
    recorded = imported.recorded
    if recorded is None:
        return (
            f"the {imported.format} file says nothing of its stack's own window policy, and "
            "no policy of this lab ran on it."
        )
    if not recorded.inputs:
        return (
            f"the {imported.format} file does not record what each call was sent, so whether "
            "its stack's own policy removed anything cannot be seen (every window shown is the "
            "whole history up to its call); replay it under a strategy to see what one would "
            "remove."
        )
    return (
        f"the {imported.format} file records what each call was sent, and every call was sent "
        "it: its stack's own policy never removed it."
    )


def explain(run: Run, stage_id: str) -> str:
    """Why stage ``stage_id`` is, or is not, in the run's window, in one sentence.

    Given a record's stage id (the commit that filed it, e.g. ``window#13``): the record's
    sentence, ``record.explain()`` — what left, the rule that fired, what refused. Given a
    message's stage id (``seed#0``, ``call-llm#2``, ``tool-calls#3``, a drop notice's
    ``window#5``): how and why it left (the visit that removed it and that visit's sentence),
    or that it never left and why — the rule its turn's last visit refused with, a pin, or
    that the removal never reached it — or that no strategy ran. For many ids of one run, an
    :class:`Explainer` reads the run once.

    Args:
        run: Any run: from an agent, ``replay``, an importer or ``load_run``.
        stage_id: A stage id of the run's ledger.

    Returns:
        The sentence (records filed at one stage, as after a forced second visit, are each
        explained, in order).

    Raises:
        UnknownStageError: the ledger holds no such stage; the message lists the run's first
            stages, close matches, and where stage ids are found.
    """
    return Explainer(run).explain(stage_id)
