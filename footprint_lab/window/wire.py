"""The wire rules: what a provider rejects in a window, message by message.

Layer: window core (pure: messages in, faults out; no pandas, no I/O). These are the law's
per-message predicates on one window, whoever produced it: the law's own checks on a
strategy's result (:func:`footprint_lab.window.law.breaches` reads the head from here, and
:func:`footprint_lab.window.law.wire_breaches` states the wire rules as breaches) and the
evidence layer's check of every window a run sent
(:class:`footprint_lab.evidence.losses.WireCheck`) are both these functions, not copies:

* ``result-without-call`` — a tool result whose call is not before it in the window;
* ``unanswered-calls`` — calls still without a result when a new turn (any message that is
  not a tool result) starts;
* ``window-opens-on-non-user`` — the first message that is not a system message is not a
  ``user`` message.

:class:`WireScan` is fed a window in pieces (a window that only grows by appending is scanned
once, not once per call): each message is looked at once, so a scan is linear.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from footprint_lab.messages import Message

__all__ = ["WIRE_RULES", "WireFault", "WireScan", "head_index", "is_head", "wire_faults"]

WIRE_RULES: tuple[str, ...] = (
    "result-without-call",
    "unanswered-calls",
    "window-opens-on-non-user",
)
"""The rules a window sent on the wire is held to, by the name a :class:`WireFault` carries."""


@dataclass(frozen=True, slots=True)
class WireFault:
    """One thing a provider would reject in a window."""

    rule: str
    """Which rule (one of :data:`WIRE_RULES`)."""
    message_index: int
    """Where, in the window: the result without its call, the message that started a new turn
    while calls were unanswered, or the head."""
    call_ids: tuple[str | None, ...] = ()
    """The calls concerned: the result's call id, or the unanswered calls (sorted)."""
    role: str | None = None
    """For the head: its role."""


def is_head(message: Message) -> bool:
    """Whether ``message`` can open a window on the wire (every message but a system one)."""
    return message.role != "system"


def head_index(window: Sequence[Message]) -> int | None:
    """Index of the window's head: its first message that is not a system message."""
    for i, message in enumerate(window):
        if is_head(message):
            return i
    return None


class WireScan:
    """The wire rules over a window fed in pieces, in order (see the module docstring)."""

    __slots__ = ("_calls_seen", "_pending", "faults", "fed", "head", "head_at")

    def __init__(self) -> None:
        self.faults: list[WireFault] = []
        """Faults of the results and turns fed so far, in order (the head's fault is read
        from :attr:`head`, known only once the head is fed: see :meth:`all`)."""
        self.head: str | None = None
        """Role of the window's head (None: only system messages fed so far)."""
        self.head_at: int | None = None
        """Index of the head."""
        self.fed = 0
        """How many messages were fed."""
        self._calls_seen: set[str] = set()
        self._pending: set[str] = set()

    def feed(self, messages: Iterable[Message]) -> WireScan:
        """Scan the next messages of the window; returns self."""
        faults = self.faults
        calls_seen = self._calls_seen
        pending = self._pending
        head = self.head
        index = self.fed - 1
        for message in messages:
            index += 1
            role = message.role
            if head is None and role != "system":  # is_head(message), inlined: per message
                head = self.head = role
                self.head_at = index
            if role == "tool":
                call_id = message.tool_call_id
                if call_id not in calls_seen:
                    faults.append(WireFault("result-without-call", index, (call_id,)))
                pending.discard(call_id or "")
                continue
            if pending:
                faults.append(WireFault("unanswered-calls", index, tuple(sorted(pending))))
                pending.clear()
            for call in message.tool_calls:
                calls_seen.add(call.id)
                pending.add(call.id)
        self.fed = index + 1
        return self

    @property
    def head_fault(self) -> WireFault | None:
        """The head's fault, when the window fed so far opens on something but a user message."""
        if self.head is None or self.head == "user" or self.head_at is None:
            return None
        return WireFault("window-opens-on-non-user", self.head_at, role=self.head)

    def all(self) -> list[WireFault]:
        """Every fault of the window fed so far: the results' and turns' in order, then the
        head's."""
        head = self.head_fault
        return [*self.faults, head] if head is not None else list(self.faults)

    @property
    def rejected(self) -> bool:
        """Whether a provider would reject the window fed so far."""
        return bool(self.faults) or (self.head is not None and self.head != "user")


def wire_faults(window: Sequence[Message]) -> list[WireFault]:
    """Every wire fault of ``window`` (:class:`WireScan` over the whole window)."""
    return WireScan().feed(window).all()
