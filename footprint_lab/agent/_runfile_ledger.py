"""Sense checks of meaning: a run file's windows, records and calls against its ledger.

Layer: agent (private; used by :mod:`footprint_lab.agent.checkpoint` after the checks of
:mod:`footprint_lab.agent._runfile_checks`). The ledger is the ground truth of a run — every
message stored once, every window a stage committed, every record — and everything else a run
file says is derived from it. So a file is refused (a :class:`RunFileProblem` naming the place
and the rule) when what it says does not follow from the ledger it carries:

* **messages fit their stages**: a ``tool-calls`` stage commits tool results, a ``call-llm``
  stage one assistant reply, a ``window`` stage only library stand-ins (or an audited policy's
  rewrites, when its record files violations); a tool result and an assistant reply are
  committed by those stages (or are stand-ins); only an assistant makes
  calls and only a tool result carries a call id; every result answers a call an earlier
  assistant message made (except in an imported run, or a replay of one — ``meta`` names
  ``imported_from`` — which keeps the orphan results its source held);
* **the window is the ledger's**: ``window`` is the ledger's window as of its last commit;
* **calls say what was sent**: each call's ``messages`` and ``chars`` are those of
  ``ledger.window_at(sent_commit)``;
* **records are the ledger's**: ``records`` are the records the ledger committed, in order,
  each naming its own commit (or none, in a file from before records named it); every window
  commit is a visit's, with its record;
* **a record says what its visit did**: its sizes before and after, the count of what left,
  and the stage ids named (``removed_stage_ids``, ``cleared_stage_ids``) are those of the
  ledger's windows before and after the visit; and the change is lawful — checked by the window
  core's own :func:`~footprint_lab.window.law.breaches`, anchored on the request the ledger
  holds — unless the record files ``violations`` (an audited policy's, which records what it
  broke). An ``observed`` record (an import's: what the source's own policy sent) is held to the
  ledger but not to the law: what that policy broke is in its violations, as the import found
  it. Neither is a ``forked`` record (a fork's splice: the window its strategy would have sent
  at the boundary, put in place of the parent's): it stands for replayed visits, each lawful;
* **folded spans agree**: a folded span names originals its frame's visit removed;
* **the run's state agrees** (:mod:`footprint_lab.agent._runfile_state`): ``requests`` are the
  texts of the requests the ledger holds (a person's messages committed by seed stages) and
  ``request`` the last of them — the anchor no strategy may drop, and the one the law is
  anchored on; a pause names a call of the open batch with no result yet, its tool and
  arguments; ``output``, when set, is the
  text of the ledger's last reply; ``iterations`` is at most one past the last call's; the pin
  limit is valid (:func:`~footprint_lab.window.apply.check_keep_last_tool_results`).

Cost: one pass over the ledger's messages and commits; each call is its window's runs of
positions (prefix sums give the characters); each record reads the windows before and after its
visit once — what the visit itself read when the run made it.
"""

from __future__ import annotations

import bisect
import contextlib
import operator
from collections.abc import Sequence
from itertools import accumulate, chain, starmap
from typing import TYPE_CHECKING

from footprint_lab.agent._runfile_checks import RunFileProblem
from footprint_lab.agent._runfile_state import check_state, stage_kind
from footprint_lab.agent.origin import imported_source
from footprint_lab.ledger import WINDOW, Ledger
from footprint_lab.messages import STAND_IN_KINDS, Message
from footprint_lab.window.facts import scan
from footprint_lab.window.law import breaches
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.shape import Window

if TYPE_CHECKING:
    from footprint_lab.agent.run import Checkpoint

Runs = list[tuple[int, int]]

_CHARS = operator.attrgetter("chars")


_STAGE_COMMITS = {
    "tool-calls": ("tool", "tool results"),
    "call-llm": ("assistant", "model replies"),
}
"""Stage kinds that commit one role only: (the role, in words)."""
_HOME_STAGE = {"tool": "tool-calls", "assistant": "call-llm"}
"""Where a message of each role the library did not write is committed."""


def check_against_ledger(checkpoint: Checkpoint, ledger: Ledger) -> None:
    """Check that a checkpoint's windows, records, calls and pause follow from its ledger
    (the rules are in the module docstring).

    Args:
        checkpoint: The validated checkpoint (already through ``check_run``).
        ledger: Its ledger, restored (and so already checked by ``Ledger.restore``).

    Raises:
        RunFileProblem: the first rule broken, and where.
    """
    messages = ledger.messages
    requests = check_state(checkpoint, messages)
    rewrites = _check_messages(messages, imported_source(checkpoint.origin) is not None)
    cum = list(accumulate(map(_CHARS, messages), initial=0))
    _check_window(checkpoint.window, ledger)
    for i, call in enumerate(checkpoint.calls):
        runs = ledger.window_runs_at(call.sent_commit)
        _expect(f"calls[{i}].messages", call.messages, _length(runs), "messages", call.sent_commit)
        _expect(f"calls[{i}].chars", call.chars, _chars(runs, cum), "characters", call.sent_commit)
    removed_by_stage = _check_records(checkpoint, ledger, messages, cum, requests, rewrites)
    for i, span in enumerate(checkpoint.folded):
        if span.frame_stage_id is None:
            continue
        removed = removed_by_stage.get(span.frame_stage_id, set())
        stray = [sid for sid in span.removed_stage_ids if sid not in removed]
        if stray:
            raise RunFileProblem(
                f"folded[{i}].removed_stage_ids",
                f"names {stray[:4]}, which the visit of its frame ({span.frame_stage_id}) did "
                "not remove (a folded span holds originals its frame stands for)",
            )


def _check_messages(messages: Sequence[Message], imported: bool) -> dict[str, int]:
    """Every message fits the stage that committed it, and every result answers a call (in
    an import, or a replay of one, a result may answer none: its source held it so).

    Returns:
        The window stages that committed something other than a library stand-in (an audited
        policy's rewrite), each with the position of the first such message: their records
        must file violations (see :func:`_check_records`).
    """
    called: set[str] = set()
    rewrites: dict[str, int] = {}
    for pos, message in enumerate(messages):
        where = f"ledger.messages[{pos}]"
        role, authored, stage = message.role, message.authored, message.stage_id
        kind = stage_kind(stage)
        rewrite = kind == "window" and authored not in STAND_IN_KINDS
        if rewrite:
            rewrites.setdefault(stage or "", pos)
        only = _STAGE_COMMITS.get(kind)
        if only is not None and role != only[0]:
            raise RunFileProblem(
                f"{where}.role", f"is {role!r}, but a {kind} stage ({stage}) commits only {only[1]}"
            )
        home = _HOME_STAGE.get(role)
        if authored is None and not rewrite and home is not None and kind != home:
            raise RunFileProblem(
                f"{where}.stage_id",
                f"is {stage!r}, but {_STAGE_COMMITS[home][1]} are committed by a {home} stage",
            )
        if message.tool_calls:
            if role != "assistant":
                raise RunFileProblem(
                    f"{where}.tool_calls",
                    f"only an assistant message makes calls (this is {role!r})",
                )
            called.update(call.id for call in message.tool_calls)
        elif role == "tool":
            call_id = message.tool_call_id
            if (call_id is None or call_id not in called) and not (imported or rewrite):
                what = "carries no call id" if call_id is None else f"answers call {call_id!r}"
                raise RunFileProblem(
                    f"{where}.tool_call_id",
                    f"the result {what}, but no earlier assistant message in the ledger made "
                    "that call (a result answers a call)",
                )
        elif message.tool_call_id is not None:
            raise RunFileProblem(
                f"{where}.tool_call_id",
                f"only a tool result answers a call (this is a {role!r} message)",
            )
    return rewrites


def _positions(runs: Runs) -> list[int]:
    return list(chain.from_iterable(starmap(range, runs)))


def _length(runs: Runs) -> int:
    """Positions the runs hold (C-level passes: a clearing run's windows hold many runs)."""
    if not runs:
        return 0
    starts, stops = zip(*runs, strict=True)
    return int(sum(stops) - sum(starts))


def _chars(runs: Runs, cum: Sequence[int]) -> int:
    """Characters of the messages the runs hold (``cum``: prefix sums of their sizes)."""
    if not runs:
        return 0
    starts, stops = zip(*runs, strict=True)
    return sum(map(cum.__getitem__, stops)) - sum(map(cum.__getitem__, starts))


def _expect(where: str, value: int, actual: int, what: str, commit: int) -> None:
    if value != actual:
        raise RunFileProblem(
            where,
            f"is {value}, but the ledger's window as of commit {commit} holds {actual} {what}",
        )


def _check_window(window: Sequence[int], ledger: Ledger) -> None:
    """The saved window is the ledger's window as of its last commit."""
    expected = _positions(ledger.window_runs_at(len(ledger) - 1)) if len(ledger) else []
    if list(window) == expected:
        return
    at = next(
        (i for i, (a, b) in enumerate(zip(window, expected, strict=False)) if a != b),
        min(len(window), len(expected)),
    )
    rule = "is not the ledger's window as of its last commit (a saved window is the ledger's, "
    if at < min(len(window), len(expected)):
        raise RunFileProblem(
            f"window[{at}]",
            f"{rule}which holds message {expected[at]} here, not {window[at]})",
        )
    raise RunFileProblem(
        "window",
        f"{rule}which holds {len(expected)} messages, not {len(window)})",
    )


def _check_records(
    checkpoint: Checkpoint,
    ledger: Ledger,
    messages: Sequence[Message],
    cum: Sequence[int],
    requests: Sequence[int],
    rewrites: dict[str, int],
) -> dict[str, set[str]]:
    """Records are the ledger's, and each says what its visit did to the ledger's window; a
    window stage that committed a rewrite (not a library stand-in) files violations.

    Returns:
        For each record's stage, the stage ids it names as removed.
    """
    commits = ledger.commits
    first_of_stage: dict[str, int] = {}
    record_commits = []
    window_commits = []
    for commit in commits:
        first_of_stage.setdefault(commit.stage_id, commit.index)
        if commit.key == "record":
            record_commits.append(commit)
        elif commit.key == WINDOW:
            window_commits.append(commit)
    records = checkpoint.records
    if len(records) != len(record_commits):
        raise RunFileProblem(
            "records",
            f"holds {len(records)} records, but the ledger committed {len(record_commits)} "
            "(each record is committed by the visit that filed it)",
        )
    record_stages = {c.stage_id for c in record_commits}
    for commit in window_commits:
        if commit.stage_id not in record_stages and not _places_results(ledger, commit.index):
            raise RunFileProblem(
                f"ledger.commits[{commit.index}]",
                f"window stage {commit.stage_id} committed a window but no record (a window "
                "changes only at a visit, which files its record)",
            )
    violating = {c.stage_id for c in record_commits if c.stored.violations}
    for stage, pos in rewrites.items():
        if stage not in violating:
            authored = messages[pos].authored
            raise RunFileProblem(
                f"ledger.messages[{pos}].authored",
                f"is {authored!r}, but a window stage ({stage}) commits only library stand-ins "
                f"(authored one of {sorted(STAND_IN_KINDS)}), unless its record files the "
                "violations of an audited policy's rewrite",
            )
    visits = _Visits(ledger, messages, cum, requests)
    removed_by_stage: dict[str, set[str]] = {}
    for i, (record, commit) in enumerate(zip(records, record_commits, strict=True)):
        where = f"records[{i}]"
        stored = commit.stored
        # What the ledger says and a file does not: the given window's commit, never saved,
        # and the record's own commit in a file from before records named it.
        said = {"given_commit": stored.given_commit}
        if record.commit is None:
            said["commit"] = stored.commit
        if record.model_copy(update=said) != stored:
            field = next(
                (f for f in WindowRecord.model_fields if getattr(record, f) != getattr(stored, f)),
                None,
            )
            raise RunFileProblem(
                where if field is None else f"{where}.{field}",
                f"differs from the record the ledger committed at commit {commit.index} (a "
                "run's records are its ledger's)",
            )
        if record.commit is not None and record.commit != commit.index:
            raise RunFileProblem(
                f"{where}.commit",
                f"is {record.commit}, but the ledger committed this record at commit "
                f"{commit.index}",
            )
        removed_by_stage[commit.stage_id] = visits.check(
            where, record, first_of_stage[commit.stage_id], commit.index
        )
    return removed_by_stage


class _Visits:
    """Checks each record against the ledger's windows before and after its visit, reading
    each window once (the facts of one visit's window are reused by the next, as the agent
    loop reuses them)."""

    def __init__(
        self,
        ledger: Ledger,
        messages: Sequence[Message],
        cum: Sequence[int],
        requests: Sequence[int],
    ) -> None:
        self.ledger = ledger
        self.messages = messages
        self.cum = cum
        self.requests = requests
        self.reuse: Window | None = None

    def check(self, where: str, record: WindowRecord, start: int, index: int) -> set[str]:
        """Check ``record``, filed at commit ``index`` by the stage whose first commit is
        ``start``; return the stage ids it names as removed.

        Raises:
            RunFileProblem: a size, the count or a name is not the ledger's, or the change
                breaks the law and the record files no violations.
        """
        ledger, messages = self.ledger, self.messages
        before = ledger.window_runs_at(start - 1) if start else []
        after = ledger.window_runs_at(index)
        for name, value, runs in (
            ("window_chars_before", record.window_chars_before, before),
            ("window_chars_after", record.window_chars_after, after),
        ):
            actual = _chars(runs, self.cum)
            if value != actual:
                side = name.rpartition("_")[2]
                raise RunFileProblem(
                    f"{where}.{name}",
                    f"is {value}, but the ledger's window {side} the visit holds {actual} "
                    "characters",
                )
        given_pos, returned_pos = _positions(before), _positions(after)
        kept = set(returned_pos)
        left = [p for p in given_pos if p not in kept]
        if record.removed_message_count != len(left):
            raise RunFileProblem(
                f"{where}.removed_message_count",
                f"is {record.removed_message_count}, but {len(left)} message(s) of the "
                "ledger's window left at the visit",
            )
        left_ids = {messages[p].stage_id for p in left}
        left_ids.discard(None)
        named = set(record.removed_stage_ids)
        if named != left_ids:
            unnamed = sorted(sid for sid in left_ids if sid is not None and sid not in named)
            if unnamed:
                rule = f"leaves out {unnamed[:4]}, whose messages left the window at the visit"
            else:
                rule = (
                    f"names {sorted(named - left_ids)[:4]}, no message of which left the "
                    "window at the visit"
                )
            raise RunFileProblem(f"{where}.removed_stage_ids", rule)
        stray = [sid for sid in record.cleared_stage_ids if sid not in named]
        if stray:
            raise RunFileProblem(
                f"{where}.cleared_stage_ids",
                f"names {stray[:4]}, which did not leave the window (a cleared message's "
                "original left it)",
            )
        if record.observed or record.forked or before == after:
            # Nothing changed; or the source policy's window, whose breaches are its own
            # (what it broke is in its violations, as the import found it); or a fork's
            # splice, which stands for many replayed visits, each held to the law when it ran.
            return named
        self._check_law(where, record, given_pos, returned_pos, start)
        return named

    def _check_law(
        self,
        where: str,
        record: WindowRecord,
        given_pos: list[int],
        returned_pos: list[int],
        start: int,
    ) -> None:
        """The change is lawful (the window core's own checks, anchored on the request the
        ledger held when the visit ran), or the record files what it broke."""
        at = self.messages.__getitem__
        given, returned = list(map(at, given_pos)), list(map(at, returned_pos))
        history_end = self.ledger.history_end(start - 1) if start else 0
        request = bisect.bisect_left(self.requests, history_end) - 1
        request_index = None
        if request >= 0:
            with contextlib.suppress(ValueError):
                request_index = given_pos.index(self.requests[request])
        facts = scan(given, None, None, self.reuse)
        self.reuse = facts.window
        found = breaches(given, returned, record, request_index=request_index, facts=facts)
        if found and not record.violations:
            breach = found[0]
            place = f"message {breach.message_index}" + (
                f" ({breach.stage_id})" if breach.stage_id else ""
            )
            raise RunFileProblem(
                where,
                f"the window change it records breaks the law: {breach.rule!r} at {place}: "
                f"{breach.detail} (only a record that files violations — an audited "
                "policy's — may)",
            )


def _places_results(ledger: Ledger, index: int) -> bool:
    """Whether window commit ``index`` of a tool-calls stage only puts the batch's results in
    call order (a result that finished first is committed first, then placed before it)."""
    if not ledger.commits[index].stage_id.startswith("tool-calls#"):
        return False
    before, after = (
        [p for a, b in ledger.window_runs_at(i) for p in range(a, b)] for i in (index - 1, index)
    )
    same = next(
        (k for k, (x, y) in enumerate(zip(before, after, strict=False)) if x != y), len(before)
    )
    moved = before[same:]
    messages = ledger.messages
    return sorted(moved) == sorted(after[same:]) and all(messages[p].role == "tool" for p in moved)
