"""The OpenHands stream as converted: the agent history's events (what each renders as, and
what a condensation among them forgets), the OpenAI-shaped messages they became, which user
messages are observations rather than requests, and the text-mode actions rebuilt as tool
calls that still wait for their observation.

Layer: importers. Filled by :mod:`._events` and :mod:`._render`, read by
:mod:`._windows` to rebuild the windows OpenHands' condensers left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._build import UserKind
from footprint_lab.usage import Usage


@dataclass
class _Condensation:
    """What one condensation action forgets (besides itself), and its summary."""

    ids: frozenset[int]
    """Event ids it forgets by name."""
    span: tuple[int, int] | None
    """The first and last id of a range it forgets (never expanded: it may be huge)."""
    summary: str | None
    offset: int | None


@dataclass
class _Event:
    """One event of the agent's history (the events the controller keeps)."""

    id: int
    named: bool = True
    """Whether the file wrote the id (else ``id`` is a stand-in: legacy events have none)."""
    items: list[int] = field(default_factory=list)
    """Indices (in the converted list) of the messages this event renders as."""
    user_message: bool = False
    condensation: _Condensation | None = None
    request: bool = False
    system: bool = False


@dataclass
class _Stream:
    """The converted stream: OpenAI-shaped messages, where each came from, usages, and the
    agent history with each reply's place in it."""

    wire: list[dict[str, Any]] = field(default_factory=list)
    fields: list[tuple[int, str, dict[str, str]]] = field(default_factory=list)
    """Per converted message: the event index, the field its keys live under, and overrides."""
    usages: list[Usage | None] = field(default_factory=list)
    replies: list[int] = field(default_factory=list)
    """Per assistant message: how many history events came before the call."""
    events: list[_Event] = field(default_factory=list)
    groups: dict[str, int] = field(default_factory=dict)
    model: str | None = None
    read: int = 0
    """How many events the history holds (a history of pairs: two a pair)."""
    condensations: int = 0
    tool_loop: bool = True
    """Rebuild text-mode actions (no tool call metadata) as tool calls and their results."""
    kinds: dict[int, UserKind] = field(default_factory=dict)
    """Per converted user message that is not a request (by index in ``wire``): its kind."""
    waiting: dict[int, tuple[str, str, int]] = field(default_factory=dict)
    """Rebuilt calls no observation answered yet: action event id -> (call id, tool name,
    index of the reply in ``wire``)."""
    last_rebuilt: tuple[int, int] | None = None
    """The latest rebuilt call: (its action's place in the history, its event id), for an
    observation written without a ``cause`` right after it (legacy serializations)."""
    rebuilt: int = 0
    """How many tool calls were rebuilt from text-mode actions."""

    def add(
        self,
        message: dict[str, Any],
        index: int,
        at: str,
        event: _Event | None,
        *,
        usage: Usage | None = None,
        overrides: dict[str, str] | None = None,
    ) -> int:
        if message["role"] == "assistant":
            self.replies.append(len(self.events))
            self.usages.append(usage)
        self.wire.append(message)
        self.fields.append((index, at, overrides or {}))
        if event is not None:
            event.items.append(len(self.wire) - 1)
        return len(self.wire) - 1

    def unanswered_as_text(self) -> None:
        """Drop each rebuilt call no observation answered (the action stays the text it was):
        a call without its result is not a tool loop."""
        for _call_id, _name, at in self.waiting.values():
            self.wire[at].pop("tool_calls", None)
            self.rebuilt -= 1
        self.waiting.clear()
