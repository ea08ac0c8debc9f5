"""The ledger: the run's append-only commit log.

Layer: ledger (above ``messages``; below the window core's callers: agent, lab). The window core
never writes here — see the law in :mod:`footprint_lab.window`.

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

The stored form is decoded in :mod:`~footprint_lab.ledger.commit` and read as positions through
:mod:`~footprint_lab.ledger.view` (one reading of a window as runs, for this log and the lab).
"""

from __future__ import annotations

import bisect
import itertools
import operator
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from footprint_lab.ledger.checks import check_ledger_parts
from footprint_lab.ledger.commit import HISTORY, WINDOW, Commit, history_span, window_runs_of
from footprint_lab.ledger.view import WindowRuns, window_runs
from footprint_lab.messages import Message

__all__ = ["Clock", "Ledger", "wall_clock_ms"]

_ONES = itertools.repeat(1)  # an endless 1, for C-level "one past" maps

Clock = Callable[[], int]


def wall_clock_ms() -> int:
    """Milliseconds since the epoch (the default ledger clock)."""
    return time.time_ns() // 1_000_000


class Ledger:
    """Append-only commit log of one run. Nothing in it is ever edited or removed."""

    def __init__(self, clock: Clock | None = None, *, first_stage: int = 0) -> None:
        """An empty ledger.

        Args:
            clock: Milliseconds for each commit (default the wall clock).
            first_stage: The ``n`` of the first stage id it allocates: a replay's ledger
                commits its source's messages under their own ids and numbers the stages it
                adds after every id the source allocated, so no id names two things.
        """
        if type(first_stage) is not int or first_stage < 0:
            raise ValueError(f"first_stage must be an integer >= 0, got {first_stage!r}")
        self._clock: Clock = clock or wall_clock_ms
        self._commits: list[Commit] = []
        self._messages: list[Message] = []
        self._message_commit: list[int] = []
        self._position: dict[int, int] = {}
        self._by_stage: dict[str, list[int]] = {}
        self._key_index: dict[str, list[int]] = {}
        self._stage_counter = first_stage

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
        return 0 if last is None else history_span(self._commits[last])[1]

    def window_runs_at(self, index: int) -> WindowRuns:
        """The window as of commit ``index`` as runs ``(start, end)`` of positions into
        :attr:`messages`, in window order (see the module docstring): the last window commit's
        runs, then what was appended since. Costs the runs, not the messages they hold."""
        index = self._check_index(index)
        end = self.history_end(index)
        last_window = self._last_commit_of(WINDOW, index)
        if last_window is None:
            return window_runs(None, 0, end)
        stored = window_runs_of(self._commits[last_window])
        return window_runs(stored, self.history_end(last_window), end)

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
