"""The capture context: what several frame families read, built once per run.

Layer: lab. It reads a :class:`~footprint_lab.agent.Run` and never changes it. Messages are
identified by their ledger ``position`` (the index in the message store, i.e. commit order).

Where the facts come from:

* The window sent by call ``c`` is ``ledger.window_at(call.sent_commit)`` (= ``run.window_sent``).
* A record names the commit that filed it (``WindowRecord.commit``) and the commit as of which
  the window its strategy was given is read (``WindowRecord.given_commit``); the run's writer
  (:class:`~footprint_lab.agent.writer.RunWriter`) sets both, and ``load_run`` reads both
  back from the ledger.
* A record's turn and message indices are relative to that given window.
* What left on a visit is the given window minus the window as of the record's commit — the
  same diff the agent turns into ``context.evicted`` events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np

from footprint_lab.agent.run import Run
from footprint_lab.events import Event
from footprint_lab.lab._frames.arrays import IntArray
from footprint_lab.lab._schema_base import TEXT, column
from footprint_lab.ledger import (
    Commit,
    LedgerView,
    WindowRuns,
    given_commit,
    positions,
    runs_length,
)
from footprint_lab.messages import Message
from footprint_lab.window.notice import is_compaction_frame, is_drop_notice
from footprint_lab.window.records import WindowRecord

__all__ = ["CaptureContext", "RecordFacts", "build_context", "stage_kind"]


def stage_kind(stage_id: str | None) -> str | None:
    """The kind of a stage id: ``'tool-calls'`` for ``'tool-calls#4'`` (None for None)."""
    if stage_id is None:
        return None
    return stage_id.split("#", 1)[0]


class RecordFacts:
    """What one record resolves to in the ledger: its commit, its windows, what left."""

    __slots__ = (
        "_after",
        "_given",
        "after_runs",
        "commit",
        "given_runs",
        "removed",
    )

    def __init__(
        self, commit: int | None, given_runs: WindowRuns | None, after_runs: WindowRuns | None
    ):
        self.commit = commit
        """The ledger commit that filed the record (None: the run never committed it)."""
        self.given_runs = given_runs
        """The window the strategy was given, as runs of positions (None without a commit)."""
        self.after_runs = after_runs
        """The window as of the record's commit, as runs (None without a commit)."""
        self.removed: list[int] = []
        """Positions that left on this visit, in given-window order."""
        self._given: list[int] | None = None
        self._after: list[int] | None = None

    @property
    def given(self) -> list[int] | None:
        """The given window as positions, in window order (None when unknown)."""
        if self._given is None and self.given_runs is not None:
            self._given = positions(self.given_runs)
        return self._given

    @property
    def given_len(self) -> int | None:
        """Length of the given window (None when unknown)."""
        # read off the positions when a frame already asked for them (most records of a
        # long run): then their length is free
        if self._given is not None:
            return len(self._given)
        return None if self.given_runs is None else runs_length(self.given_runs)

    @property
    def after_len(self) -> int | None:
        """Length of the window after the visit (None when unknown)."""
        if self._after is not None:
            return len(self._after)
        return None if self.after_runs is None else runs_length(self.after_runs)

    @property
    def after(self) -> list[int] | None:
        """The window after the visit as positions (None when unknown)."""
        if self._after is None and self.after_runs is not None:
            self._after = positions(self.after_runs)
        return self._after


@dataclass(frozen=True)
class CaptureContext:
    """Everything the frame builders share about one run."""

    run: Run
    """The run being captured."""
    view: LedgerView
    """Its ledger as positions."""
    roles: list[str]
    """Role of each message, by position."""
    tool_names: list[str | None]
    """Tool name of each tool message (None for the others)."""
    stage_ids: list[str | None]
    """Stage id of each message."""
    authored: list[str | None]
    """Library-authored kind of each message (drop notices and compaction frames recognised
    by their text too, for transcripts that lost the marker)."""
    chars: IntArray
    """Exact characters of each message."""
    message_commit: list[int]
    """The commit that appended each message."""
    commit_iter: list[int]
    """The iteration of each commit (0 for the seed)."""
    born: IntArray
    """The iteration of the commit that appended each message."""
    facts: list[RecordFacts]
    """One per record, in ``run.records`` order."""
    call_windows: list[WindowRuns]
    """The window each call sent, as runs of positions (``[]`` for a call with no commit)."""
    arrow_texts: bool = False
    """:meth:`texts` gives Arrow string arrays, not pandas ones: for a reader that writes the
    columns as Arrow (:func:`~footprint_lab.lab.frames.capture_columns`), which then converts
    nothing."""

    @property
    def records(self) -> Sequence[WindowRecord]:
        """``run.records``."""
        return self.run.records

    @property
    def commits(self) -> tuple[Commit, ...]:
        """The ledger's commits."""
        return self.view.commits

    @property
    def messages(self) -> Sequence[Message]:
        """The ledger's messages, by position."""
        return self.run.ledger.messages

    @property
    def m_count(self) -> int:
        """How many messages the ledger holds."""
        return len(self.roles)

    @cached_property
    def events_by_type(self) -> dict[str, list[Event]]:
        """The run's events by ``type``, each list in run order (one pass over the events,
        however many frames look for one kind: a long run has several events a call)."""
        out: dict[str, list[Event]] = {}
        for event in self.run.events:
            found = out.get(event.type)
            if found is None:
                out[event.type] = [event]
            else:
                found.append(event)
        return out

    @cached_property
    def _texts(self) -> dict[str, Any]:
        """The per-message lists converted by :meth:`texts` so far."""
        return {}

    def texts(self, name: Literal["stage_ids", "roles", "tool_names", "authored"]) -> Any:
        """One of the per-message lists (``stage_ids``, ``roles``, ``tool_names``,
        ``authored``) as a ``string`` array by position, converted once however many frames
        read it (``messages`` whole, ``evictions`` and ``membership`` a row per message that
        left or was sent: ``.take(positions)``)."""
        found = self._texts.get(name)
        if found is None:
            values = getattr(self, name)
            found = self._texts[name] = (
                _arrow_texts(values) if self.arrow_texts else column(values, TEXT)
            )
        return found

    @cached_property
    def stage_positions(self) -> dict[str, list[int]]:
        """The positions each stage id committed, in order."""
        out: dict[str, list[int]] = {}
        for p, sid in enumerate(self.stage_ids):
            if sid is not None:
                out.setdefault(sid, []).append(p)
        return out


def _arrow_texts(values: list[str | None]) -> Any:
    """``values`` as an Arrow string array (through the frame's column when Arrow will not
    read them as text)."""
    import pyarrow as pa  # only a corpus asks: the frames stay pandas

    try:
        return pa.array(values, type=pa.string())
    except (pa.ArrowException, TypeError):
        return pa.array(column(values, TEXT), type=pa.string(), from_pandas=True)


def build_context(run: Run, *, arrow_texts: bool = False) -> CaptureContext:
    """Read ``run`` once into a :class:`CaptureContext` (``arrow_texts``: see its field)."""
    view = LedgerView(run.ledger)
    msgs = run.ledger.messages
    m_count = len(msgs)
    commits = view.commits
    record_commits = _record_commits(commits, run.records)
    commit_iter = _commit_iterations(run, commits, record_commits)
    message_commit = view.message_commit[:m_count]
    if len(message_commit) < m_count:  # pragma: no cover - a ledger always has them
        message_commit = message_commit + [0] * (m_count - len(message_commit))
    call_windows = [
        view.window_runs(call.sent_commit) if 0 <= call.sent_commit < len(view) else []
        for call in run.calls
    ]
    return CaptureContext(
        run=run,
        view=view,
        roles=[m.role for m in msgs],
        tool_names=[m.name if m.role == "tool" else None for m in msgs],
        stage_ids=[m.stage_id for m in msgs],
        authored=[_authored(m) for m in msgs],
        chars=np.fromiter((m.chars for m in msgs), dtype=np.int64, count=m_count),
        message_commit=message_commit,
        commit_iter=commit_iter,
        born=np.asarray([commit_iter[c] for c in message_commit], dtype=np.int64),
        facts=[
            _facts(run, view, rec, commit)
            for rec, commit in zip(run.records, record_commits, strict=True)
        ],
        call_windows=call_windows,
        arrow_texts=arrow_texts,
    )


def _authored(m: Message) -> str | None:
    if m.authored is None and m.role == "user":
        if is_drop_notice(m):
            return "drop-notice"
        if is_compaction_frame(m):
            return "compaction-frame"
    return m.authored


def _record_commits(commits: Sequence[Commit], records: Sequence[WindowRecord]) -> list[int | None]:
    """The ledger commit of each record: the one it names (``WindowRecord.commit``), when that
    commit filed a record (None for a record no run's writer filed, e.g. a bare
    ``apply_window`` result put in a hand-made run)."""
    n = len(commits)
    return [
        r.commit
        if r.commit is not None and 0 <= r.commit < n and commits[r.commit].key == "record"
        else None
        for r in records
    ]


def _commit_iterations(
    run: Run, commits: Sequence[Commit], record_commits: Sequence[int | None]
) -> list[int]:
    """The iteration of each commit: that of the last call or record stage at or before it."""
    stage_iter: dict[str, int] = {}
    for call in run.calls:
        stage_iter[call.stage_id] = call.iteration
    for rec, commit in zip(run.records, record_commits, strict=True):
        if commit is not None:
            stage_iter[commits[commit].stage_id] = rec.iteration
    out = [0] * len(commits)
    current = 0
    for c in commits:
        it = stage_iter.get(c.stage_id)
        if it is not None:
            current = it
        out[c.index] = current
    return out


def _facts(run: Run, view: LedgerView, rec: WindowRecord, commit: int | None) -> RecordFacts:
    """One record's windows, and the positions that left."""
    if commit is None:
        # Not filed by a run's writer: its windows are unknown; resolve the ids it names.
        facts = RecordFacts(None, None, None)
        if rec.removed_stage_ids:
            facts.removed = _positions_of_stages(run, rec.removed_stage_ids)
        return facts
    given_at = rec.given_commit
    if given_at is None:  # a record rebuilt from its dump: the ledger says it
        given_at = given_commit(view.commits, commit)
    facts = RecordFacts(commit, view.window_runs(given_at), view.window_runs(commit))
    if rec.removed_message_count > 0:
        given, after = facts.given, facts.after
        assert given is not None and after is not None
        kept = set(after)
        facts.removed = [p for p in given if p not in kept]
    return facts


def _positions_of_stages(run: Run, stage_ids: Sequence[str]) -> list[int]:
    ledger = run.ledger
    seen: set[int] = set()
    out: list[int] = []
    for sid in stage_ids:
        try:
            stage_msgs = ledger.messages_of(sid)
        except KeyError:
            continue
        for m in stage_msgs:
            pos = ledger.position(m)
            if pos is not None and pos not in seen:
                seen.add(pos)
                out.append(pos)
    return out
