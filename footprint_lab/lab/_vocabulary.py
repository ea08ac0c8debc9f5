"""The lab's closed vocabularies: every membership state, message fate, eviction, pin, pause
and violation-window value a frame column may hold.

Layer: lab (private; :mod:`footprint_lab.lab.schema` re-exports every name).
"""

from __future__ import annotations

import pandas as pd

from footprint_lab.window.records import REFUSAL_REASONS

__all__ = [
    "EVICTION_HOWS",
    "IN_WINDOW_STATES",
    "LEFT_STATES",
    "MEMBERSHIP_STATES",
    "MESSAGE_FATES",
    "OUT_OF_WINDOW_STATES",
    "PAUSE_KINDS",
    "PAUSE_OUTCOMES",
    "PIN_KINDS",
    "STATE_DTYPE",
    "VIOLATION_WINDOWS",
]

MEMBERSHIP_STATES: tuple[str, ...] = (
    "in-window",
    "pinned",
    *(f"refused-{reason}" for reason in REFUSAL_REASONS),
    "notice",
    "frame",
    "placeholder",
    "dropped",
    "folded",
    "cleared",
)
"""Every state a message can be in at one iteration (see ``Frames.membership``)."""

OUT_OF_WINDOW_STATES: tuple[str, ...] = ("dropped", "folded", "cleared")
"""States of a message that was not sent: it left whole, into a summary, or was replaced in
place by a cleared-result placeholder."""

IN_WINDOW_STATES: frozenset[str] = frozenset(
    s for s in MEMBERSHIP_STATES if s not in OUT_OF_WINDOW_STATES
)
"""States of a message that was in the window sent."""

STATE_DTYPE = pd.CategoricalDtype(list(MEMBERSHIP_STATES), ordered=False)
"""The dtype of ``membership.state``: the same categories for every run."""

PIN_KINDS: tuple[str, ...] = ("pinned", "yielded", "stand-down")
"""Values of ``pins.kind``."""

MESSAGE_FATES: tuple[str, ...] = ("dropped", "summarized", "cleared", "still-in", "never-sent")
"""Values of ``messages.left``."""

EVICTION_HOWS: tuple[str, ...] = ("dropped", "summarized", "cleared")
"""Values of ``evictions.how``."""

LEFT_STATES: dict[str, str] = {"dropped": "dropped", "summarized": "folded", "cleared": "cleared"}
"""The membership state a message is in once it left: by how it left (``evictions.how``, the
``messages.left`` fate)."""

PAUSE_KINDS: tuple[str, ...] = ("ask-human", "check-in")
"""Values of ``pauses.kind``."""

PAUSE_OUTCOMES: tuple[str, ...] = ("answered", "approved", "denied")
"""Values of ``pauses.outcome`` (<NA> while the run still waits)."""

VIOLATION_WINDOWS: tuple[str, ...] = ("given", "sent")
"""Values of ``violations.window``: which window ``message_index`` counts in — the one the
policy was given, or the one it produced (and the call sent)."""
