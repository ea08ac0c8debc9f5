"""What a window policy cost in evidence: dependent calls sent without their evidence.

Layer: evidence (pure; no pandas). On a replayed run, a dependent call's evidence is **lost**
when, for some dependent value, no ``tool`` message carrying it was in the window sent for the
call that produced it; **kept by summary** when it was lost that way but a compaction frame in
that window contains the value. Wire problems and request loss are checked on the same windows.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterable, Sequence
from itertools import compress, count

from pydantic import BaseModel

from footprint_lab.agent.run import Run
from footprint_lab.evidence._text_index import TextIndex
from footprint_lab.evidence.dependencies import (
    DEFAULT_MIN_CHARS,
    Dependency,
    named,
    transcript_facts,
)
from footprint_lab.evidence.facts import TranscriptFacts
from footprint_lab.evidence.windows import SentWindows
from footprint_lab.ledger import Ledger
from footprint_lab.messages import Message
from footprint_lab.window.notice import is_compaction_frame
from footprint_lab.window.request import current_request_index
from footprint_lab.window.wire import WireFault, WireScan, wire_faults

_SHAPE_CODE = operator.attrgetter("shape.code")


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


def losses(
    replayed: Run,
    deps: Sequence[Dependency] | None = None,
    min_chars: int = DEFAULT_MIN_CHARS,
    *,
    windows: SentWindows | None = None,
    facts: TranscriptFacts | None = None,
) -> list[Loss]:
    """Every dependent value whose evidence was not in the window its call came from.

    Linear in the run plus the size of the answer: windows are read as positions
    (:class:`SentWindows`), never materialised, and text is searched through an index.

    Args:
        replayed: The run (usually a replay).
        deps: Its dependencies (computed when None).
        min_chars: The shortest argument value that counts, when computing them.
        windows: ``SentWindows(replayed)``, when the caller already built it.
        facts: Facts whose replies are ``replayed``'s (its transcript's, or its source's
            when :func:`~footprint_lab.evidence.dependencies.transcript_facts` found the
            replay aligned with it), when the caller already read them.
    """
    if deps is None or facts is None:
        facts, stage_ids = transcript_facts(replayed, facts)
        deps = named(facts, min_chars, stage_ids) if deps is None else deps
    if not deps:
        return []
    # By position, not call id: real transcripts reuse call ids within one run.
    made_by = facts.reply_calls()
    sent = SentWindows(replayed) if windows is None else windows
    store = sent.messages
    ledger = replayed.ledger
    search = _WindowText(store, {dep.value for dep in deps})
    removers = _removers(replayed)
    out: list[Loss] = []
    for dep in deps:
        call_index = made_by.get(dep.message_index)
        if call_index is None or call_index >= len(replayed.calls):
            continue
        end = sent.end(call_index)
        # Kept when a source's result was sent and some tool result sent states the value:
        # usually a source itself says it, else any tool result in the window (a rewrite).
        # Newest source first, stopping at the first that settles it: a value every result
        # repeats has a long source list, and its newest source is the one still sent.
        source_sent = stated = False
        for stage in reversed(dep.source_stage_ids):
            for p in _tool_positions(ledger, stage):
                if p < end and sent.holds(call_index, p):
                    source_sent = True
                    if dep.value in store[p].content:
                        stated = True
                        break
            if stated:
                break
        if source_sent and (stated or search.sent_with(sent, call_index, dep.value, search.tools)):
            continue
        source = dep.source_stage_ids[-1]
        iteration = replayed.calls[call_index].iteration
        remover = next(
            (
                replayed.records[r]
                for r in reversed(removers.get(source, ()))
                if replayed.records[r].iteration <= iteration
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
                kept_by_summary=search.sent_with(sent, call_index, dep.value, search.frames),
            )
        )
    return out


def _tool_positions(ledger: Ledger, stage: str) -> list[int]:
    """Store positions of the tool results stage ``stage`` committed (none: unknown stage).

    Asked per dependency rather than tabulated for every stage up front: a stage holds a few
    messages, and a table would be one more object per tool stage for the collector to walk.
    """
    try:
        messages = ledger.messages_of(stage)
    except KeyError:
        return []
    out: list[int] = []
    for message in messages:
        position = ledger.position(message)
        if message.role == "tool" and position is not None:
            out.append(position)
    return out


def _removers(run: Run) -> dict[str, list[int]]:
    """Each removed stage id -> the indices of the records that removed it, in record order."""
    out: dict[str, list[int]] = {}
    for index, record in enumerate(run.records):
        for stage in dict.fromkeys(record.removed_stage_ids):
            out.setdefault(stage, []).append(index)
    return out


class _WindowText:
    """Which tool results / compaction frames of the message store state a value, indexed on
    first need (most losses are settled by the source messages alone)."""

    tools = "tool"
    frames = "frame"

    def __init__(self, store: Sequence[Message], values: Iterable[str]) -> None:
        self._store = store
        self._values = values
        self._indexes: dict[str, tuple[list[int], TextIndex]] = {}

    def _index(self, kind: str) -> tuple[list[int], TextIndex]:
        built = self._indexes.get(kind)
        if built is None:
            if kind == self.tools:
                positions = [p for p, m in enumerate(self._store) if m.role == "tool"]
            else:
                positions = [p for p, m in enumerate(self._store) if is_compaction_frame(m)]
            texts = [self._store[p].content for p in positions]
            built = (positions, TextIndex(texts, self._values))
            self._indexes[kind] = built
        return built

    def sent_with(self, sent: SentWindows, call_index: int, value: str, kind: str) -> bool:
        """Whether the window of call ``call_index`` held a message of ``kind`` stating
        ``value``."""
        positions, index = self._index(kind)
        end = sent.end(call_index)
        hits = index.containing(value)
        # Latest first: the newest carrier is the one most likely still in the window.
        for h in reversed(hits[: bisect.bisect_left(hits, bisect.bisect_left(positions, end))]):
            if sent.holds(call_index, positions[h]):
                return True
        return False


class WireCheck:
    """:func:`wire_problems`, fed one message at a time, so a window that only grows by
    appending is checked once, not once per call.

    The rules are the window core's (:class:`~footprint_lab.window.wire.WireScan`, the law's
    wire rules); this class words each fault as a sentence."""

    def __init__(self) -> None:
        self.scan = WireScan()
        """The core's scan of the window fed so far."""

    @property
    def problems(self) -> list[str]:
        """Problems of the results and turns fed so far, in order (the head's is reported by
        :attr:`all`)."""
        return [wire_sentence(fault) for fault in self.scan.faults]

    @property
    def head(self) -> str | None:
        """Role of the first non-system message fed (None: none yet)."""
        return self.scan.head

    def feed(self, messages: Iterable[Message]) -> WireCheck:
        """Check the next messages of the window; returns self."""
        self.scan.feed(messages)
        return self

    @property
    def all(self) -> list[str]:
        """Every problem of the window fed so far, as :func:`wire_problems` lists them."""
        return [wire_sentence(fault) for fault in self.scan.all()]

    @property
    def rejected(self) -> bool:
        """Whether a provider would reject the window fed so far."""
        return self.scan.rejected


def wire_sentence(fault: WireFault) -> str:
    """``fault`` in words (the sentences :func:`wire_problems` lists)."""
    if fault.rule == "result-without-call":
        return f"tool result {fault.call_ids[0]} without its call"
    if fault.rule == "unanswered-calls":
        return f"calls {list(fault.call_ids)} unanswered before a new turn"
    return f"window opens on a {fault.role} message"


def wire_problems(window: Sequence[Message]) -> list[str]:
    """What a provider would reject in this window: a tool result whose call is not before it,
    a call whose result never follows while later turns do, or a head that is not a user
    (the core's wire rules, :func:`~footprint_lab.window.wire.wire_faults`, in words)."""
    return [wire_sentence(fault) for fault in wire_faults(window)]


def wire_problem_calls(run: Run, windows: SentWindows | None = None) -> list[int]:
    """Indices of the calls whose sent window :func:`wire_problems` finds fault with.

    Linear in the run: a window that only grew by appending since the previous call is
    checked from where that check stopped (problems never go away by appending), and a new
    window commit is walked once — what the ledger already paid to store it.
    """
    sent = SentWindows(run) if windows is None else windows
    store = sent.messages
    out: list[int] = []
    check = WireCheck()
    checked: tuple[int, int] | None = None
    for i in range(len(sent)):
        commit, end = sent.window_commit(i), sent.end(i)
        if checked is not None and checked[0] == commit and checked[1] <= end:
            if not check.rejected:
                check.feed(store[checked[1] : end])
        else:
            check = WireCheck().feed(sent.messages_of(i))
        checked = (commit, end)
        if check.rejected:
            out.append(i)
    return out


def request_lost(run: Run, call_index: int, request: str | None = None) -> bool:
    """Whether the window sent by call ``call_index`` holds no current request.

    Reads that one window; for every call of a run use :func:`request_lost_calls`.
    """
    window = run.window_sent(call_index)
    return current_request_index(window, request) is None


def request_lost_calls(run: Run, windows: SentWindows | None = None) -> list[int]:
    """Indices of the calls whose sent window holds no current request (:func:`request_lost`
    for every call, in one pass).

    Whatever the request text, a window has a current request exactly when it holds a user
    message that neither the library nor an imported agent's environment wrote (the text only
    picks which one), so each call costs a
    bisection per run of its window.
    """
    sent = SentWindows(run) if windows is None else windows
    # A user message a person wrote has shape code ``u``: neither the library's nor an
    # observation (read at C speed from each message's shape).
    users = list(compress(count(), map("u".__eq__, map(_SHAPE_CODE, sent.messages))))
    return [i for i in range(len(sent)) if not sent.holds_any(i, users)]


def calls_of(items: Sequence[Dependency] | Sequence[Loss]) -> int:
    """How many distinct calls the items concern (by position: ids repeat in real runs)."""
    return len({(item.message_index, item.call_id) for item in items})
