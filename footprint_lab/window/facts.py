"""Facts of the window a visit was given, computed once: the refusal engine and the law's
checks both read them.

Layer: window core (see the law in ``footprint_lab.window``). ``apply_window`` computes them
from the window it was given, before the strategy runs and never from anything the strategy
returns, so the checks may trust them. One pass over the turns finds what the guards would
otherwise find turn by turn: which turns hold a call whose result has not arrived, which are
system messages, which holds the paused call, and whether every result sits in its own
call's turn (*local*: then a removal of whole turns can split no pair, and nothing outside a
span needs a look).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import compress, repeat
from typing import NamedTuple

from footprint_lab.messages import Message
from footprint_lab.window.request import current_request_index
from footprint_lab.window.turns import TurnTable, bound_turns, turn_of

_ROLE = operator.attrgetter("role")
_CHARS = operator.attrgetter("chars")
_TOOL_CALLS = operator.attrgetter("tool_calls")
_TOOL_CALL_ID = operator.attrgetter("tool_call_id")


class WindowFacts(NamedTuple):
    """What a visit knows about the window it was given (see the module docstring).

    Immutable (a named tuple: built at every boundary, it costs a third of a frozen
    dataclass)."""

    turns: TurnTable
    """The window's turns."""
    request_index: int | None
    """Index of the current request."""
    request_turn: int | None
    """The turn holding it."""
    chars: int
    """Exact characters of the window (``window_chars``)."""
    local: bool
    """Every result sits in its call's own turn and answers that turn's head."""
    bound: list[int] | None
    """``bound_turns``: each turn's group end when some result landed in a later turn."""
    open_turns: frozenset[int]
    """Turns whose head has a call with no result in the turn (meaningful when ``local``)."""
    system_turns: frozenset[int]
    """Turns that are a system message."""
    paused_turn: int | None
    """The turn holding the call a paused run waits on."""
    roles: list[str]
    """Each message's role, in window order (read by the pins without touching messages)."""


def scan(
    messages: Sequence[Message], request: str | None, paused_call_id: str | None
) -> WindowFacts:
    """The facts of ``messages`` (one pass over the roles, one over the turns)."""
    n = len(messages)
    roles = list(map(_ROLE, messages))
    starts = list(compress(range(n), map(operator.ne, roles, repeat("tool"))))
    if n and (not starts or starts[0] != 0):
        starts.insert(0, 0)  # a leading tool message starts its own turn
    ends = [*starts[1:], n] if starts else []
    turns = TurnTable(starts, ends)
    open_turns: set[int] = set()
    system_turns: set[int] = set()
    paused_turn: int | None = None
    local = True
    # Attribute lists built at C speed; the loop below indexes them once per turn.
    calls_of = list(map(_TOOL_CALLS, messages))
    answers = list(map(_TOOL_CALL_ID, messages))
    for k, a in enumerate(starts):
        b = ends[k]
        calls = calls_of[a]
        if not calls:
            if b - a > 1:
                local = False  # results after a message that made no call
            elif roles[a] == "system":
                system_turns.add(k)
            continue
        if paused_call_id is not None and paused_turn is None:
            for call in calls:
                if call.id == paused_call_id:
                    paused_turn = k
        if b - a == 2 and len(calls) == 1:  # the common turn: one call, its one result
            if answers[a + 1] != calls[0].id:
                local = False
                open_turns.add(k)
            continue
        expected = [call.id for call in calls]
        got = answers[a + 1 : b]
        if got == expected:  # a batch answered in call order, as the agent commits it
            continue
        ids = set(expected)
        answered = {call_id for call_id in got if call_id in ids}
        if len(answered) < len(got):
            local = False  # a result that answers no call of this turn's head
        if len(answered) < len(ids):
            open_turns.add(k)
    request_index = _request_index(messages, roles, request)
    return WindowFacts(
        turns=turns,
        request_index=request_index,
        request_turn=None if request_index is None else turn_of(turns, request_index),
        chars=sum(map(_CHARS, messages)),
        local=local,
        bound=None if local else bound_turns(messages, turns),
        open_turns=frozenset(open_turns),
        system_turns=frozenset(system_turns),
        paused_turn=paused_turn,
        roles=roles,
    )


def _request_index(
    messages: Sequence[Message], roles: list[str], request: str | None
) -> int | None:
    """:func:`current_request_index`, visiting only the user messages (found from ``roles``)."""
    users = list(compress(range(len(roles)), map(operator.eq, roles, repeat("user"))))
    return current_request_index(messages, request, users)
