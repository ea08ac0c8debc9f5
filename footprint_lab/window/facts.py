"""Facts of the window a visit was given, computed once: the refusal engine and the law's
checks both read them.

Layer: window core (see the law in ``footprint_lab.window``). ``apply_window`` computes them
from the window it was given, before the strategy runs and never from anything the strategy
returns, so the checks may trust them. The window's own facts come from its
:class:`~footprint_lab.window.shape.Window` (the turns, which turns hold a call whose result
has not arrived, which are system messages, and whether every result sits in its own call's
turn — *local*: then a removal of whole turns can split no pair, and nothing outside a span
needs a look); this module adds what depends on the visit: the current request and the
paused call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from footprint_lab.messages import Message
from footprint_lab.window.shape import Window
from footprint_lab.window.turns import TurnTable


class WindowFacts(NamedTuple):
    """What a visit knows about the window it was given (see the module docstring).

    Immutable (a named tuple: built at every boundary, it costs a third of a frozen
    dataclass)."""

    window: Window
    """The window and its facts."""
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
    paused_turns: frozenset[int]
    """The turns holding a call with the id a paused run waits on (ids may be reused)."""


def scan(
    messages: Sequence[Message],
    request: str | None,
    paused_call_id: str | None,
    reuse: Window | None = None,
) -> WindowFacts:
    """The facts of ``messages`` at one visit (a :class:`Window` is used as it stands; the
    facts of ``reuse``, an earlier visit's window, are kept for the turns both share)."""
    window = Window.of(messages, reuse=reuse)
    request_index = request_index_of(window, request)
    paused_turns: frozenset[int] = frozenset()
    if paused_call_id is not None:
        msgs = window.messages
        paused_turns = frozenset(
            k for k, a in enumerate(window.starts) if paused_call_id in msgs[a].call_ids
        )
    request_turn = None if request_index is None else window.turn_of(request_index)
    return WindowFacts(  # positional, in field order: built at every boundary
        window,
        TurnTable(window.starts, window.ends),
        request_index,
        request_turn,
        window.cum[-1],
        window.local,
        window.bound,
        window.open_turns,
        window.system_turns,
        paused_turns,
    )


def request_index_of(window: Window, request: str | None) -> int | None:
    """:func:`~footprint_lab.window.request.current_request_index` read from the window's
    codes: only a user message a person wrote (code ``u``) can be the request."""
    codes, msgs = window.codes, window.messages
    i = codes.rfind("u")
    if i < 0:
        return None
    if request is None:
        return i
    fallback = i
    while i >= 0:
        if msgs[i].content == request:
            return i
        i = codes.rfind("u", 0, i)
    return fallback
