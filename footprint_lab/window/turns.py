"""Turns: the wire boundaries of a window, as a table the engine walks.

Layer: window core (see the law and the glossary in ``footprint_lab.window``). A *turn* is a
wire boundary: every non-``tool`` message starts one and ``tool`` messages join the turn in
progress (a leading ``tool`` message starts its own). An assistant message with a parallel
batch of calls plus all of its results is one turn. A call whose result landed in a later turn
(``assistant(call c1) · user · tool(c1)``) binds those turns together (:func:`bound_turns`):
they leave together or not at all.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from footprint_lab.messages import Message


@dataclass(frozen=True, slots=True)
class Turn:
    """A wire boundary: messages ``[start, end)`` of the window."""

    index: int
    """Position among the window's turns."""
    start: int
    """Index of its first message."""
    end: int
    """Index one past its last message."""

    @property
    def size(self) -> int:
        """How many messages the turn holds."""
        return self.end - self.start


class TurnTable(Sequence[Turn]):
    """A window's turns as two lists of ints, read as a sequence of :class:`Turn`.

    The engine walks ``starts`` / ``ends`` directly: a 100k-message window has 50k turns, and
    50k small objects built at every boundary would wake the garbage collector, whose full
    passes over a long run's ledger cost more than the boundary itself. A :class:`Turn` is
    built only when someone asks for one.
    """

    __slots__ = ("ends", "starts")

    def __init__(self, starts: list[int], ends: list[int]) -> None:
        self.starts = starts
        self.ends = ends

    @classmethod
    def of(cls, turns: Sequence[Turn]) -> TurnTable:
        """The table of any sequence of turns."""
        if isinstance(turns, TurnTable):
            return turns
        return cls([t.start for t in turns], [t.end for t in turns])

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, index: int) -> Turn: ...
    @overload
    def __getitem__(self, index: slice) -> list[Turn]: ...
    def __getitem__(self, index: int | slice) -> Turn | list[Turn]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self.starts)))]
        if index < 0:
            index += len(self.starts)
        return Turn(index, self.starts[index], self.ends[index])

    def __iter__(self) -> Iterator[Turn]:
        return (Turn(k, a, b) for k, (a, b) in enumerate(zip(self.starts, self.ends, strict=True)))

    def __repr__(self) -> str:
        return f"TurnTable({len(self.starts)} turns)"


def turn_table(messages: Sequence[Message]) -> TurnTable:
    """Split a window into turns (see the module docstring), as a :class:`TurnTable`."""
    if not messages:
        return TurnTable([], [])
    starts = [i for i, m in enumerate(messages) if m.role != "tool" or i == 0]
    return TurnTable(starts, [*starts[1:], len(messages)])


def segment_turns(messages: Sequence[Message]) -> list[Turn]:
    """Split a window into turns (see the module docstring)."""
    return list(turn_table(messages))


def bound_turns(messages: Sequence[Message], turns: TurnTable) -> list[int] | None:
    """For each turn, the last turn bound to it by a call whose result landed in a later turn
    (``assistant(call c1) · user · tool(c1)``), or None when every result sits in its call's
    own turn — the common case, which costs one look at each result and builds no list.

    A result belongs to the latest earlier call with its id: real transcripts reuse ids.
    """
    for a, b in zip(turns.starts, turns.ends, strict=True):
        if b - a < 2:
            continue
        calls = messages[a].tool_calls
        if b - a == 2 and len(calls) == 1:  # the common turn: one call, its one result
            if messages[a + 1].tool_call_id == calls[0].id:
                continue
        else:
            ids = {call.id for call in calls}
            for i in range(a + 1, b):
                if messages[i].tool_call_id not in ids:
                    return _bound_turns_slow(messages, turns)
            continue
        return _bound_turns_slow(messages, turns)
    return None


def _bound_turns_slow(messages: Sequence[Message], turns: TurnTable) -> list[int] | None:
    """:func:`bound_turns` once some result is not answered by its own turn's head."""
    starts = turns.starts
    call_turn: dict[str, int] = {}
    reach: list[int] | None = None
    k = -1
    next_start = 0
    for i, message in enumerate(messages):
        if i == next_start:
            k += 1
            next_start = starts[k + 1] if k + 1 < len(starts) else -1
        if message.tool_calls:
            for call in message.tool_calls:
                call_turn[call.id] = k
        elif message.role == "tool" and message.tool_call_id is not None:
            j = call_turn.get(message.tool_call_id)
            if j is not None and j != k:
                if reach is None:
                    reach = list(range(len(starts)))
                if reach[j] < k:
                    reach[j] = k
    if reach is None:
        return None  # only orphans: a result with no call binds nothing
    # Close the links into groups of consecutive turns: a group ends where no turn inside it
    # reaches further. Every member of a group maps to the group's last turn.
    out = list(range(len(reach)))
    k = 0
    while k < len(reach):
        end = reach[k]
        j = k
        while j <= end:
            end = max(end, reach[j])
            j += 1
        for member in range(k, end + 1):
            out[member] = end
        k = end + 1
    return out


def turn_of(turns: Sequence[Turn], message_index: int) -> int:
    """The index of the turn holding ``message_index``."""
    return max(0, bisect.bisect_right(TurnTable.of(turns).starts, message_index) - 1)
