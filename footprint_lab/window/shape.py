"""``Window``: a window of messages and the facts the engine reads, computed once.

Layer: window core (see the law in ``footprint_lab.window``). A visit needs, for every message
of its window, its shape (role, calls, who wrote it), its size, its stage id and, for a result,
its tool; for the window, its turns and whether every result sits in its call's turn. Read
message by message in Python that is a pass over every object of the window at every
boundary, and it is most of what a trim of a long history costs. A :class:`Window` reads each
of them once, at C speed (one ``map`` per fact over the messages), and keeps them as flat
lists and one string of :attr:`~footprint_lab.messages.Message.shape_code` characters, from
which the engine reads turns, guards and spans with string and list operations:

* ``codes`` — one character per message; turns start at every code but a result's (``t``,
  or ``p`` for one the library wrote, such as a cleared-result placeholder);
* ``cum`` — prefix sums of the sizes, so a span's characters are one subtraction;
* ``stage_ids`` and their *runs* (consecutive messages of one stage), so the stage ids of a
  span are a slice of the runs when no stage id appears in two runs (the ledger's case);
* ``tool_names`` and each tool's latest result, so the pins are a lookup per tool.

``apply_window`` builds one from any sequence it is given, and uses a ``Window`` it is given as
it stands: build it once (``Window(messages)``) and every visit over it starts from its facts.
A ``Window``'s facts are immutable (``notes``, what a visit leaves for the next, are a cache
beside them); ``extended`` returns a new one that reuses what it can.
"""

from __future__ import annotations

import bisect
import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, chain, compress, repeat
from typing import TypeVar, overload

from footprint_lab.messages import Message
from footprint_lab.window.turns import TurnTable, bound_turns

__all__ = ["Window"]

_T = TypeVar("_T")

_SHAPE = operator.attrgetter("shape")
_FIELDS = tuple(operator.itemgetter(i) for i in range(6))  # a MessageShape's six fields
_FEW_TOOLS = 64  # above this many tools, a span's tool names are one pass over the span
_SHORT_SPAN = 256  # up to this many messages, a span is read directly
_FEW_POSITIONS = 64  # up to this many messages of one shape code, each is looked at
_WORTH_REUSING = 64  # below this many shared messages, a window is read whole

# Every turn complete and in order: each head making k calls (k < 10) is followed by exactly k
# results, and no result follows a message that made no call. With the call ids of the heads
# equal to the answered ids of the results, in order, every result answers its own turn's head.
_COMPLETE = re.compile(
    r"(?:[suioa]|1R|2R{2}|3R{3}|4R{4}|5R{5}|6R{6}|7R{7}|8R{8}|9R{9})*".replace("R", "[tp]")
)
_RESULT_CODES = "tp"  # a result, and one the library wrote: both join the turn in progress
# Every other code starts a turn: s u i o a m, and 1-9 for an assistant making that many calls.
# The codes as bytes with each result's blanked to 0: the non-zero bytes are the turns' starts
# (read by ``compress`` at C speed, no call per message).
_RESULTS_BLANKED = bytes.maketrans(_RESULT_CODES.encode("ascii"), b"\0" * len(_RESULT_CODES))


class Window(Sequence[Message]):
    """An immutable window of messages with its facts (see the module docstring).

    Reads as a sequence of :class:`~footprint_lab.messages.Message`; ``apply_window`` accepts
    one wherever it accepts a list, and then skips reading the messages again.
    """

    __slots__ = (
        "_first_results",
        "_last_results",
        "_last_span",
        "_runs",
        "bound",
        "carried",
        "codes",
        "cum",
        "ends",
        "local",
        "messages",
        "notes",
        "open_turns",
        "stage_ids",
        "starts",
        "system_turns",
        "tool_names",
    )

    messages: tuple[Message, ...]
    """The messages, in window order."""
    codes: str
    """Each message's ``shape_code``, in order."""
    stage_ids: list[str | None]
    """Each message's stage id."""
    cum: list[int]
    """Prefix sums of the messages' sizes: ``cum[b] - cum[a]`` is the size of ``[a, b)``."""
    tool_names: list[str | None]
    """Each result's tool name (None for every message that is not a result)."""
    starts: list[int]
    """Index of each turn's first message."""
    ends: list[int]
    """Index one past each turn's last message."""
    local: bool
    """Every result sits in its call's own turn and answers that turn's head."""
    open_turns: frozenset[int]
    """Turns whose head has a call with no result in the turn (meaningful when ``local``)."""
    system_turns: frozenset[int]
    """Turns that are a system message."""
    bound: list[int] | None
    """Each turn's group end when some result landed in a later turn (else None)."""
    notes: dict[str, object]
    """What a visit over this window worked out for the next visit to carry (keyed by the
    engine part that wrote it; not a fact of the window: a cache, empty until a visit writes)."""
    carried: tuple[dict[str, object], int] | None
    """The ``notes`` of the window this one was read from (``of(..., reuse=)``) and how many
    leading turns the two share, message for equal message; None when read whole."""

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        msgs = messages if type(messages) is tuple else tuple(messages)
        n = len(msgs)
        self.messages = msgs
        self.notes = {}
        self.carried = None
        self._runs: tuple[list[int], list[str | None], bool, bool] | None = None
        self._last_span: tuple[int, int, list[str]] | None = None
        self._last_results: dict[str, int] | None = None
        self._first_results: dict[str, int] | None = None
        if not n:
            self.codes, self.stage_ids, self.cum, self.tool_names = "", [], [0], []
            self.starts, self.ends, self.local, self.bound = [], [], True, None
            self.open_turns = self.system_turns = frozenset()
            return
        # One attribute read per message; the columns are then split and read at C speed.
        # Every shape is a tuple of the same six fields: the columns line up. (A column per
        # pass: transposing with zip(*shapes) costs three times as much at 10,000 messages.)
        shapes = list(map(_SHAPE, msgs))
        code_col, stage_col, chars_col, name_col, calls_col, answer_col = (
            list(map(field, shapes)) for field in _FIELDS
        )
        codes = self.codes = "".join(code_col)
        self.stage_ids = stage_col
        self.cum = list(accumulate(chars_col, initial=0))
        self.tool_names = name_col
        starts = list(compress(range(n), codes.encode("ascii").translate(_RESULTS_BLANKED)))
        if not starts or starts[0] != 0:
            starts.insert(0, 0)  # a leading result starts its own turn
        self.starts = starts
        self.ends = [*starts[1:], n]
        # A result with no answered id drops out of the second list, so the lists differ.
        calls = list(chain.from_iterable(filter(None, calls_col)))
        if _COMPLETE.fullmatch(codes) and calls == list(filter(None, answer_col)):
            self.local, self.open_turns, self.bound = True, frozenset(), None
        else:
            self.local, self.open_turns, self.bound = _pairs(msgs, starts, self.ends)
        system: list[int] = []
        i = codes.find("s")
        while i >= 0:
            system.append(bisect.bisect_right(starts, i) - 1)
            i = codes.find("s", i + 1)
        self.system_turns = frozenset(system)

    # -- the sequence ---------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.messages)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Message, ...]: ...
    def __getitem__(self, index: int | slice) -> Message | tuple[Message, ...]:
        return self.messages[index]

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __repr__(self) -> str:
        return f"<Window {len(self.messages):,} messages · {len(self.starts):,} turns>"

    def extended(self, more: Iterable[Message]) -> Window:
        """This window with ``more`` appended (a new ``Window``; this one is unchanged)."""
        return Window.of(self.messages + tuple(more), reuse=self)

    @classmethod
    def of(cls, messages: Sequence[Message], reuse: Window | None = None) -> Window:
        """The ``Window`` of ``messages`` (itself when it is one), keeping the facts of
        ``reuse`` for the turns the two share.

        The messages both start with (equal messages have equal facts: matched with ``==``,
        a shared run of the same objects at C speed) keep their facts, up to the turn holding
        the last of them, which is read again with everything
        after it: in a running loop that is the newest batch (and, after a clearing, the
        placeholders), however long the window. A window whose results do not all sit in
        their calls' turns is read whole.
        """
        kind = type(messages)
        if kind is not list and kind is not tuple and isinstance(messages, Window):
            return messages  # (a list or a tuple skips the ABC's slower isinstance)
        msgs = messages if type(messages) is tuple else tuple(messages)
        if reuse is None or not reuse.local or len(reuse.messages) < _WORTH_REUSING:
            return cls(msgs)
        shared = _shared_prefix(reuse.messages, msgs)
        if shared < max(1, _WORTH_REUSING):
            return cls(msgs)
        turn = bisect.bisect_right(reuse.starts, shared - 1) - 1  # read again from this turn
        cut = reuse.starts[turn]
        tail = cls(msgs[cut:])
        if not tail.local:
            return cls(msgs)
        joined = _blank()
        joined.messages = msgs
        joined.codes = reuse.codes[:cut] + tail.codes
        # Each column is copied once (a slice, then extended in place): a copy touches every
        # object it holds, and that is most of what reading a long window again costs.
        joined.stage_ids = _spliced(reuse.stage_ids, cut, tail.stage_ids)
        base = reuse.cum[cut]
        joined.cum = _spliced(reuse.cum, cut, [base + c for c in tail.cum])
        joined.tool_names = _spliced(reuse.tool_names, cut, tail.tool_names)
        joined.starts = _spliced(reuse.starts, turn, [cut + a for a in tail.starts])
        joined.ends = _spliced(reuse.ends, turn, [cut + b for b in tail.ends])
        joined.local, joined.bound = True, None
        joined.carried = (reuse.notes, turn)
        joined.open_turns = frozenset(
            [k for k in reuse.open_turns if k < turn] + [turn + k for k in tail.open_turns]
        )
        joined.system_turns = frozenset(
            [k for k in reuse.system_turns if k < turn] + [turn + k for k in tail.system_turns]
        )
        if reuse._first_results is not None:
            # Tools kept from before the cut keep their first results.
            firsts = {name: i for name, i in reuse._first_results.items() if i < cut}
            for name, i in tail.first_results().items():
                firsts.setdefault(name, cut + i)
            joined._first_results = firsts
        if reuse._last_results is not None:
            # A tool whose latest result stood in the part read again is looked up there, or
            # before the cut (at C speed); one with no result left is gone.
            latest = {name: cut + i for name, i in tail.last_results().items()}
            before: list[str | None] | None = None  # read backwards from the cut, if needed
            for name, i in reuse._last_results.items():
                if name in latest:
                    continue
                if i < cut:
                    latest[name] = i
                    continue
                if before is None:
                    before = joined.tool_names[cut - 1 :: -1] if cut else []
                if name in before:
                    latest[name] = cut - 1 - before.index(name)
            joined._last_results = latest
        return joined

    def holds(self, message: Message) -> bool:
        """Whether ``message`` (this very object) stands in the window: a look at the few
        positions with its shape code, else one C-level pass."""
        code = message.shape_code
        if self.codes.count(code) < _FEW_POSITIONS:
            i = self.codes.find(code)
            while i >= 0:
                if self.messages[i] is message:
                    return True
                i = self.codes.find(code, i + 1)
            return False
        return any(map(operator.is_, self.messages, repeat(message)))

    # -- facts of spans -------------------------------------------------------------------

    @property
    def chars(self) -> int:
        """Exact characters of the window (``window_chars``)."""
        return self.cum[-1]

    def span_chars(self, start: int, end: int) -> int:
        """Exact characters of messages ``[start, end)``."""
        return self.cum[end] - self.cum[start] if end > start else 0

    def turn_of(self, index: int) -> int:
        """The index of the turn holding message ``index``."""
        return max(0, bisect.bisect_right(self.starts, index) - 1)

    def span_stage_ids(self, start: int, end: int) -> list[str]:
        """The stage ids of messages ``[start, end)``, each once, in window order (a list of
        the caller's own)."""
        ids = self.peek_span_stage_ids(start, end)
        last = self._last_span
        return list(ids) if last is not None and ids is last[2] else ids

    def peek_span_stage_ids(self, start: int, end: int) -> list[str]:
        """:meth:`span_stage_ids`, but maybe the list the window keeps: read it, never change
        it (the law's check reads the removed span's ids this way: a copy of a long span's
        ids touches every id object, in a long window a cache miss each)."""
        if end <= start:
            return []
        if end - start > _SHORT_SPAN and self._runs is None:
            # A window's first long span (a cold trim's removed span, asked for by its facts
            # and again by its record): the span read once costs a third of the window's runs
            # — found only when another span is asked for (a window kept from visit to visit).
            last = self._last_span
            if last is None:
                ids = dict.fromkeys(self.stage_ids[start:end])
                ids.pop(None, None)
                kept: list[str] = list(ids)  # type: ignore[arg-type]
                self._last_span = (start, end, kept)
                return kept
            if last[0] == start and last[1] == end:
                return last[2]
        if end - start > _SHORT_SPAN:
            run_starts, run_ids, unique, has_none = self._stage_runs()
        else:
            unique = False  # a short span is cheaper to read than the runs are to find
        if unique:
            picked = run_ids[
                bisect.bisect_right(run_starts, start) - 1 : bisect.bisect_left(run_starts, end)
            ]
            if not has_none:
                return picked  # type: ignore[return-value]
            return [sid for sid in picked if sid is not None]
        seen = dict.fromkeys(self.stage_ids[start:end])
        seen.pop(None, None)
        return list(seen)  # type: ignore[arg-type]

    def all_stamped(self, start: int, end: int) -> bool:
        """Whether every message of ``[start, end)`` carries a stage id."""
        if end - start > _SHORT_SPAN:
            run_starts, run_ids, _, has_none = self._stage_runs()
            if not has_none:
                return True
            lo = bisect.bisect_right(run_starts, start) - 1
            return None not in run_ids[lo : bisect.bisect_left(run_starts, end)]
        return None not in self.stage_ids[start:end]

    def span_tool_names(self, start: int, end: int) -> list[str]:
        """The tools whose results are among messages ``[start, end)``, each once, in order of
        their first result there."""
        # each tool's first result is worth finding once a window is kept (it is carried from
        # visit to visit) or its latest results are known (then a few scans find them); for a
        # window read once, the span is read once
        known = self._first_results
        if known is None and self._last_results is not None and end - start > _SHORT_SPAN:
            known = self.first_results()
        if end - start <= _SHORT_SPAN or known is None or len(known) > _FEW_TOOLS:
            seen = dict.fromkeys(self.tool_names[start:end])
            seen.pop(None, None)
            return list(seen)  # type: ignore[arg-type]
        # A tool first seen inside the span is there at its first result; one seen before it
        # is looked for from the span's start (a C-level scan that stops at the first hit).
        latest, names = self.last_results(), self.tool_names
        found: list[tuple[int, str]] = []
        for name, first in self.first_results().items():
            if first >= end or latest[name] < start:
                continue
            if first < start:
                try:
                    first = names.index(name, start, end)
                except ValueError:
                    continue  # its results stand before and after the span, none inside
            found.append((first, name))
        found.sort()
        return [name for _, name in found]

    def first_results(self) -> dict[str, int]:
        """Each tool's first result: tool name -> message index."""
        if self._first_results is None:
            names, latest = self.tool_names, self._last_results
            if latest is not None and len(latest) <= _FEW_TOOLS:
                # a C-level scan per tool, each stopping at its first result
                firsts = {name: names.index(name) for name in latest}
                self._first_results = firsts
                return firsts
            every = dict(zip(reversed(names), range(len(names) - 1, -1, -1), strict=True))
            every.pop(None, None)
            self._first_results = every  # type: ignore[assignment]
            return every  # type: ignore[return-value]
        return self._first_results

    def last_results(self) -> dict[str, int]:
        """Each tool's latest result: tool name -> message index."""
        if self._last_results is None:
            # A dict keeps the last value given for a key: one C-level pass.
            latest = dict(zip(self.tool_names, range(len(self.tool_names)), strict=True))
            latest.pop(None, None)
            self._last_results = latest  # type: ignore[assignment]
            return latest  # type: ignore[return-value]
        return self._last_results

    def _stage_runs(self) -> tuple[list[int], list[str | None], bool, bool]:
        """Where each run of one stage's messages starts, its stage id, whether no stage id
        opens two runs, and whether some run has no stage id."""
        if self._runs is None:
            ids = self.stage_ids
            run_starts = [0, *compress(range(1, len(ids)), map(operator.ne, ids[1:], ids[:-1]))]
            run_ids = list(map(ids.__getitem__, run_starts)) if ids else []
            nones = run_ids.count(None)
            distinct = set(run_ids)
            distinct.discard(None)
            self._runs = (run_starts, run_ids, len(distinct) == len(run_ids) - nones, nones > 0)
        return self._runs


def _pairs(
    messages: Sequence[Message], starts: list[int], ends: list[int]
) -> tuple[bool, frozenset[int], list[int] | None]:
    """``local``, ``open_turns`` and ``bound`` of a window whose turns are not all complete
    and in order, turn by turn."""
    open_turns: set[int] = set()
    local = True
    for k, a in enumerate(starts):
        b = ends[k]
        calls = messages[a].call_ids
        if not calls:
            if b - a > 1:
                local = False  # results after a message that made no call
            continue
        got = [messages[i].tool_call_id for i in range(a + 1, b)]
        if got == list(calls):  # a batch answered in call order, as the agent commits it
            continue
        ids = set(calls)
        answered = {call_id for call_id in got if call_id in ids}
        if len(answered) < len(got):
            local = False  # a result that answers no call of this turn's head
        if len(answered) < len(ids):
            open_turns.add(k)
    bound = None if local else bound_turns(messages, TurnTable(starts, ends))
    return local, frozenset(open_turns), bound


def _shared_prefix(old: Sequence[Message], new: Sequence[Message]) -> int:
    """How many leading messages ``old`` and ``new`` have in common.

    Equal messages have equal facts, so the two are compared with ``==``, whose identity
    shortcut makes a run of the same objects one C-level pointer comparison; the first
    difference is then found by halving (a long window under a clearing strategy differs
    from the last visit's only near its end).
    """
    limit = min(len(old), len(new))
    if old[:limit] == new[:limit]:
        return limit
    low, high = 0, limit  # old[:low] == new[:low], and old[:high] != new[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle
    return low


def _spliced(column: list[_T], cut: int, tail: list[_T]) -> list[_T]:
    """``column[:cut] + tail``, copying the kept part once."""
    out = column[:cut]
    out.extend(tail)
    return out


def _blank() -> Window:
    """A ``Window`` whose facts the caller fills in (derived from another window's)."""
    window = Window.__new__(Window)
    window._runs = window._last_results = window._first_results = window._last_span = None
    window.notes = {}
    window.carried = None
    return window
