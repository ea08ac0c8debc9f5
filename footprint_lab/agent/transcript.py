"""A run's recorded conversation: what the model was sent and said, without what window
stages and injections wrote.

Layer: agent (reads a run's ledger). Replay re-applies a strategy over it; the evidence layer
measures dependencies and losses on it (:mod:`footprint_lab.evidence.dependencies` re-exports
:func:`transcript`, its old home).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import compress, count

from footprint_lab.agent.run import Run
from footprint_lab.messages import Message, is_library_authored

__all__ = ["in_call_order", "transcript"]


def transcript(run: Run) -> list[Message]:
    """The recorded conversation, in order: every message except what a window stage wrote
    (notices, frames, an audited policy's rewrites) and library-authored injections — each
    batch's results in the order of its calls, as the model is sent them (the agent commits
    them in the order the calls finished)."""
    return in_call_order([m for m in run.ledger.messages if not is_library_authored(m)])


def in_call_order(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with the results that follow each assistant message in the order of its
    calls (a result answering none of them keeps its place after those that do); linear but
    for the sort inside each batch."""
    out = list(messages)
    n = len(out)
    # Only the results after a message making two or more calls can be out of order: those
    # messages are found at C speed, and every other message stays where it is.
    for i in compress(count(), map(_SEVERAL.__lt__, map(len, map(_CALLS, out)))):
        head = out[i]
        j = i + 1
        while j < n and out[j].role == "tool":
            j += 1
        if j - i > 2:
            rank = {c.id: k for k, c in enumerate(head.tool_calls)}
            out[i + 1 : j] = sorted(
                out[i + 1 : j], key=lambda m: rank.get(m.tool_call_id or "", len(rank))
            )
    return out


_CALLS = operator.attrgetter("tool_calls")
_SEVERAL = 1  # a message making more than one call
