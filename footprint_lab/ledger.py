"""The ledger: the run's append-only commit log.

Layer: above ``messages``; below the window core's callers (agent, lab). The window core never
writes here — see the law in :mod:`footprint_lab.window`.

Every stage (``seed#0``, ``window#1``, ``call-llm#2``, ``tool-calls#3`` ...) commits key/value
writes. Two keys are special and stored with structural sharing, so memory grows with the
distinct messages rather than with iterations x window size:

* ``history`` -- messages a stage appended. Each message object is stored once; a commit keeps
  only the ``(start, end)`` positions it appended. ``value_at(i, "history")`` is every message
  committed up to commit ``i``.
* ``window`` -- what the next call sends. A window commit keeps runs of positions into the
  message store, never copies of messages. Messages appended after a window commit extend it,
  so ``value_at(i, "window")`` is the last window commit plus what was appended since (and the
  whole history when no strategy ever committed a window).
"""

from __future__ import annotations

import bisect
import itertools
import operator
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from footprint_lab.messages import Message

_ONES = itertools.repeat(1)  # an endless 1, for C-level "one past" maps

HISTORY = "history"
WINDOW = "window"

Clock = Callable[[], int]


def wall_clock_ms() -> int:
    """Milliseconds since the epoch (the default ledger clock)."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Commit:
    """One key written by one stage."""

    index: int
    """Position in the log, from 0."""
    stage_id: str
    """The runtime stage that wrote it, e.g. ``tool-calls#4``."""
    key: str
    """Which key was written."""
    at_ms: int
    """When, in milliseconds of the ledger's clock."""
    stored: Any
    """The stored form of the value (positions for ``history``/``window``); use ``value_at``."""


Runs = tuple[tuple[int, int], ...]


def given_commit(commits: Sequence[Commit], index: int) -> int:
    """The commit as of which the window was read that the visit filing the record at commit
    ``index`` was given: the commit before the first of the record's stage (a visit's commits
    are consecutive: :class:`~footprint_lab.agent.writer.RunWriter` writes them so). The writer
    names it on every record it files (``WindowRecord.given_commit``); this reads it back for a
    record that lost it (a saved run, a record rebuilt from its dump)."""
    stage_id = commits[index].stage_id
    start = index
    while start and commits[start - 1].stage_id == stage_id:
        start -= 1
    return start - 1


class LedgerError(ValueError):
    """Parts given to :meth:`Ledger.restore` that do not make sense together.

    Attributes:
        where: The place, as a path into :meth:`Ledger.export`'s parts in their saved form
            (``commits[12].value``, ``message_commit[3]``, ``stage_counter`` ...).
        rule: The rule broken, as a sentence.
    """

    def __init__(self, where: str, rule: str) -> None:
        super().__init__(f"{where}: {rule}")
        self.where = where
        self.rule = rule


def stage_number(stage_id: str) -> int | None:
    """The ``n`` of a ``name#n`` stage id, or None for an id not of that form."""
    _, sep, digits = stage_id.rpartition("#")
    return int(digits) if sep and digits.isascii() and digits.isdigit() else None


def _positions(stored: Any, where: str) -> tuple[int, int]:
    try:
        start, end = stored
    except (TypeError, ValueError):
        raise LedgerError(where, "must be a pair [start, end] of positions") from None
    if type(start) is not int or type(end) is not int:
        raise LedgerError(where, "must be a pair [start, end] of integer positions")
    return start, end


def _check_window_runs(stored: Any, where: str, committed: int) -> None:
    if not isinstance(stored, (list, tuple)):
        raise LedgerError(where, "a window commit holds a list of [start, end] runs")
    ascending = True
    last_end = 0
    for k, run in enumerate(stored):
        at = f"{where}[{k}]"
        start, end = _positions(run, at)
        if start < 0 or end > committed:
            raise LedgerError(
                at,
                f"window run {start}..{end} is out of range: only {committed} messages were "
                "committed by then",
            )
        if start >= end:
            raise LedgerError(
                at, f"window run {start}..{end} is empty or reversed (start must be < end)"
            )
        ascending = ascending and start >= last_end
        last_end = end
    if ascending:
        return
    order = sorted(range(len(stored)), key=lambda k: int(stored[k][0]))
    for before, after in itertools.pairwise(order):
        if int(stored[after][0]) < int(stored[before][1]):
            a, b = stored[after]
            raise LedgerError(
                f"{where}[{after}]",
                f"window run {a}..{b} repeats positions of run {before} (a window holds each "
                "message once)",
            )


def check_ledger_parts(
    messages: Sequence[Message],
    message_commit: Sequence[int],
    commits: Sequence[Commit],
    stage_counter: int,
) -> None:
    """Check that :meth:`Ledger.export`'s parts make sense together, in one linear pass.

    Args:
        messages: The message store.
        message_commit: For each message, the index of the commit that appended it.
        commits: The commits, with ``history`` values as ``(start, end)`` and ``window`` values
            as runs of ``(start, end)``.
        stage_counter: How many stage ids were allocated.

    Raises:
        LedgerError: the first rule broken, and where (see :meth:`Ledger.restore`).
    """
    size = len(messages)
    if len(message_commit) != size:
        raise LedgerError(
            "message_commit",
            f"names {len(message_commit)} commits for {size} messages (one per message)",
        )
    appended = 0  # messages committed so far, walking the commits in order
    highest = -1
    highest_id = ""
    for i, commit in enumerate(commits):
        where = f"commits[{i}]"
        if commit.index != i:
            raise LedgerError(f"{where}.index", f"commit {i} carries index {commit.index}")
        number = stage_number(commit.stage_id)
        if number is not None and number > highest:
            highest, highest_id = number, commit.stage_id
        if commit.key == HISTORY:
            start, end = _positions(commit.stored, f"{where}.value")
            if start > end:
                raise LedgerError(
                    f"{where}.value",
                    f"history positions {start}..{end} are reversed (start must be <= end)",
                )
            if end > size or start < 0:
                raise LedgerError(
                    f"{where}.value",
                    f"history positions {start}..{end} are out of range: the ledger holds "
                    f"{size} messages",
                )
            if start != appended:
                gap = "leaves a gap after" if start > appended else "overlaps"
                raise LedgerError(
                    f"{where}.value",
                    f"history positions {start}..{end} {gap} the {appended} messages appended "
                    f"before (history commits tile the message store in order)",
                )
            for pos in range(start, end):
                if message_commit[pos] != i:
                    raise LedgerError(
                        f"message_commit[{pos}]",
                        f"names commit {message_commit[pos]}, but message {pos} was appended "
                        f"by history commit {i}",
                    )
                if messages[pos].stage_id != commit.stage_id:
                    raise LedgerError(
                        f"messages[{pos}].stage_id",
                        f"is {messages[pos].stage_id!r}, but the commit that appended it "
                        f"(commit {i}) is stage {commit.stage_id!r}",
                    )
            appended = end
        elif commit.key == WINDOW:
            _check_window_runs(commit.stored, f"{where}.value", appended)
    if appended != size:
        raise LedgerError(
            f"message_commit[{appended}]",
            f"message {appended} (and any after it) was appended by no history commit",
        )
    if type(stage_counter) is not int or stage_counter < 0:
        raise LedgerError("stage_counter", f"is {stage_counter!r}; it must be an integer >= 0")
    if stage_counter <= highest:
        raise LedgerError(
            "stage_counter",
            f"is {stage_counter}, but stage id {highest_id!r} was already allocated: the "
            f"counter must be greater than every #n used, or ids would be reused",
        )


class Ledger:
    """Append-only commit log of one run. Nothing in it is ever edited or removed."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock: Clock = clock or wall_clock_ms
        self._commits: list[Commit] = []
        self._messages: list[Message] = []
        self._message_commit: list[int] = []
        self._position: dict[int, int] = {}
        self._by_stage: dict[str, list[int]] = {}
        self._key_index: dict[str, list[int]] = {}
        self._stage_counter = 0

    # -- writing -------------------------------------------------------------------------

    def now(self) -> int:
        """The ledger clock's reading, in milliseconds."""
        return self._clock()

    def begin_stage(self, name: str) -> str:
        """Allocate the next runtime stage id, ``name#n``."""
        stage_id = f"{name}#{self._stage_counter}"
        self._stage_counter += 1
        return stage_id

    def _commit(self, stage_id: str, key: str, stored: Any) -> Commit:
        commit = Commit(len(self._commits), stage_id, key, self._clock(), stored)
        self._commits.append(commit)
        self._key_index.setdefault(key, []).append(commit.index)
        return commit

    def append(self, stage_id: str, messages: Iterable[Message]) -> list[Message]:
        """Commit new messages to ``history``, stamped with ``stage_id``; return them stamped."""
        stamped = [m if m.stage_id == stage_id else m.with_stage(stage_id) for m in messages]
        start = len(self._messages)
        commit_index = len(self._commits)
        for message in stamped:
            if id(message) in self._position:
                raise ValueError(
                    f"message already committed as {message.stage_id}; the ledger stores each "
                    "message once"
                )
            # Measured once, as it is committed: every window and every call counts its size.
            # Its shape is read by the first window visit that needs it, so an import or a
            # replay with no strategy never computes one.
            message.chars  # noqa: B018 - computes and keeps it
            self._position[id(message)] = len(self._messages)
            self._messages.append(message)
            self._message_commit.append(commit_index)
            self._by_stage.setdefault(stage_id, []).append(len(self._messages) - 1)
        self._commit(stage_id, HISTORY, (start, len(self._messages)))
        return stamped

    def set_window(self, stage_id: str, window: Sequence[Message]) -> None:
        """Commit the window, as runs of positions of already-committed messages."""
        at = list(map(self._position.get, map(id, window), itertools.repeat(-1)))
        if -1 in at:
            message = window[at.index(-1)]
            raise ValueError(
                "window holds a message the ledger never committed "
                f"({message.role}: {message.content[:40]!r}); append it first"
            )
        # A run breaks where a position is not one past the one before it (C-level passes: a
        # long window under a clearing strategy is committed at every visit).
        breaks = [
            0,
            *itertools.compress(
                range(1, len(at)), map(operator.ne, at[1:], map(operator.add, at, _ONES))
            ),
        ]
        lasts = [b - 1 for b in breaks[1:]] + [len(at) - 1]
        runs = zip(
            map(at.__getitem__, breaks),
            map(operator.add, map(at.__getitem__, lasts), _ONES),
            strict=True,
        )
        self._commit(stage_id, WINDOW, tuple(runs) if at else ())

    def positions(self, messages: Iterable[Message]) -> list[int | None]:
        """Where each committed message object sits in the message store (None for one the
        ledger never committed), in one C-level pass."""
        return list(map(self._position.get, map(id, messages)))

    def put(self, stage_id: str, key: str, value: Any) -> None:
        """Commit an ordinary key/value write."""
        if key in (HISTORY, WINDOW):
            raise ValueError(f"use append()/set_window() for {key!r}")
        self._commit(stage_id, key, value)

    # -- durability ----------------------------------------------------------------------

    def export(self) -> tuple[list[Message], list[int], list[Commit], int]:
        """Everything needed to rebuild this ledger: messages, the commit of each, the
        commits, and the stage counter (see :meth:`restore`)."""
        return (
            list(self._messages),
            list(self._message_commit),
            list(self._commits),
            (self._stage_counter),
        )

    @classmethod
    def restore(
        cls,
        messages: Sequence[Message],
        message_commit: Sequence[int],
        commits: Sequence[Commit],
        stage_counter: int,
        clock: Clock | None = None,
    ) -> Ledger:
        """Rebuild a ledger from :meth:`export`'s parts, checking that they make sense.

        The checks (one linear pass, see :func:`check_ledger_parts`): every commit carries its
        own index; ``history`` commits tile the message store in order (each starts where the
        one before ended, ``start <= end``, the last ends at the last message) and every message
        names the history commit that appended it and carries that commit's stage id;
        ``window`` commits hold non-empty, non-repeating runs of positions committed by then;
        and ``stage_counter`` lies past every ``name#n`` id used, so no id is handed out twice.

        Raises:
            LedgerError: the parts are inconsistent; ``where`` names the place (e.g.
                ``commits[12].value``) and ``rule`` the rule broken.
        """
        check_ledger_parts(messages, message_commit, commits, stage_counter)
        ledger = cls(clock)
        ledger._commits.extend(commits)
        for i, commit in enumerate(commits):
            ledger._key_index.setdefault(commit.key, []).append(i)
        ledger._messages.extend(messages)
        ledger._message_commit.extend(message_commit)
        for pos, message in enumerate(messages):
            ledger._position[id(message)] = pos
            ledger._by_stage.setdefault(message.stage_id or "", []).append(pos)
        ledger._stage_counter = stage_counter
        return ledger

    def copy(self) -> Ledger:
        """A ledger with the same commits that can grow independently (messages shared)."""
        return Ledger.restore(*self.export(), clock=self._clock)

    # -- reading -------------------------------------------------------------------------

    @property
    def commits(self) -> Sequence[Commit]:
        """Every commit, in order (read-only view)."""
        return tuple(self._commits)

    def __len__(self) -> int:
        return len(self._commits)

    def __repr__(self) -> str:
        """One line: ``<Ledger 57 commits · 41 messages · 18 stages>``."""
        from footprint_lab._repr import count, short

        return short(
            "Ledger",
            [
                count(len(self._commits), "commit"),
                count(len(self._messages), "message"),
                count(self._stage_counter, "stage"),
            ],
        )

    def _repr_html_(self) -> str:
        """The ledger in a notebook: its one line over a table of its size, its keys and its
        first and last stage."""
        from footprint_lab._repr import html_table

        first = self._commits[0].stage_id if self._commits else None
        last = self._commits[-1].stage_id if self._commits else None
        keys = ", ".join(f"{key} ({len(at):,})" for key, at in self._key_index.items())
        return html_table(
            repr(self),
            [
                ("commits", f"{len(self._commits):,}"),
                ("messages", f"{len(self._messages):,}"),
                ("stages", f"{self._stage_counter:,}"),
                ("keys (commits)", keys),
                ("first stage", first),
                ("last stage", last),
            ],
        )

    @property
    def messages(self) -> Sequence[Message]:
        """Every message ever committed, in commit order, each once."""
        return tuple(self._messages)

    @property
    def stage_count(self) -> int:
        """How many stage ids were allocated."""
        return self._stage_counter

    def keys(self) -> list[str]:
        """Keys written at least once."""
        return list(self._key_index)

    def _last_commit_of(self, key: str, index: int) -> int | None:
        indices = self._key_index.get(key, [])
        at = bisect.bisect_right(indices, index)
        return indices[at - 1] if at else None

    def _check_index(self, index: int) -> int:
        if index < 0:
            index += len(self._commits)
        if not 0 <= index < len(self._commits):
            raise IndexError(f"commit index {index} out of range (0..{len(self._commits) - 1})")
        return index

    def history_end(self, index: int) -> int:
        """How many messages had been committed as of commit ``index``."""
        index = self._check_index(index)
        last = self._last_commit_of(HISTORY, index)
        return 0 if last is None else int(self._commits[last].stored[1])

    def window_runs_at(self, index: int) -> list[tuple[int, int]]:
        """The window as of commit ``index`` as runs ``(start, end)`` of positions into
        :attr:`messages`, in window order (see the module docstring): the last window commit's
        runs, then what was appended since. Costs the runs, not the messages they hold."""
        index = self._check_index(index)
        end = self.history_end(index)
        last_window = self._last_commit_of(WINDOW, index)
        if last_window is None:
            return [(0, end)] if end else []
        runs = list(self._commits[last_window].stored)  # integer pairs (restore checks them)
        appended_from = self.history_end(last_window)
        if end > appended_from:
            runs.append((appended_from, end))
        return runs

    def window_at(self, index: int) -> list[Message]:
        """The window as of commit ``index`` (see the module docstring)."""
        out: list[Message] = []
        for start, stop in self.window_runs_at(index):
            out.extend(self._messages[start:stop])
        return out

    def value_at(self, index: int, key: str) -> Any:
        """The value of ``key`` as of commit ``index`` (negative indices count from the end).

        Raises:
            KeyError: ``key`` had not been written by then.
        """
        index = self._check_index(index)
        if key == HISTORY:
            return list(self._messages[: self.history_end(index)])
        if key == WINDOW:
            return self.window_at(index)
        last = self._last_commit_of(key, index)
        if last is None:
            raise KeyError(f"key {key!r} was not written at or before commit {index}")
        return self._commits[last].stored

    def messages_of(self, stage_id: str) -> list[Message]:
        """Every message the stage ``stage_id`` committed, in order.

        Raises:
            KeyError: no stage with that id committed messages.
        """
        positions = self._by_stage.get(stage_id)
        if positions is None:
            raise KeyError(f"no messages were committed by stage {stage_id!r}")
        return [self._messages[p] for p in positions]

    def message(self, stage_id: str) -> Message:
        """The first message the stage ``stage_id`` committed (see ``messages_of`` for batches)."""
        return self.messages_of(stage_id)[0]

    def position(self, message: Message) -> int | None:
        """Where a committed message object sits in the message store, or None."""
        return self._position.get(id(message))

    def committed_at_ms(self, message: Message) -> int | None:
        """When a committed message object was committed, or None if it never was."""
        pos = self._position.get(id(message))
        return None if pos is None else self._commits[self._message_commit[pos]].at_ms

    def commit_of_message(self, position: int) -> int:
        """The commit index that appended the message at ``position``."""
        return self._message_commit[position]
