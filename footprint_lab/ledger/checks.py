"""The sense checks of a ledger's parts: what :meth:`Ledger.restore` refuses, and where.

Layer: ledger. :func:`check_ledger_parts` walks :meth:`Ledger.export`'s parts once: history
commits tile the message store in order, every message names the commit that appended it,
window commits hold non-empty, non-repeating runs of positions committed by then, and the stage
counter lies past every id used. A broken rule is a :class:`LedgerError` naming its place.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from footprint_lab.ledger.commit import HISTORY, WINDOW, Commit, stage_number
from footprint_lab.messages import Message

__all__ = ["LedgerError", "check_ledger_parts"]


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
