"""A run's recorded conversation: what the model was sent and said, without what window
stages and injections wrote.

Layer: agent (reads a run's ledger). Replay re-applies a strategy over it; the evidence layer
measures dependencies and losses on it (:mod:`footprint_lab.evidence.dependencies` re-exports
:func:`transcript`, its old home).
"""

from __future__ import annotations

from collections.abc import Sequence

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
    out: list[Message] = []
    i, n = 0, len(messages)
    while i < n:
        head = messages[i]
        out.append(head)
        i += 1
        if len(head.tool_calls) < 2:
            continue
        j = i
        while j < n and messages[j].role == "tool":
            j += 1
        rank = {c.id: k for k, c in enumerate(head.tool_calls)}
        out.extend(sorted(messages[i:j], key=lambda m: rank.get(m.tool_call_id or "", len(rank))))
        i = j
    return out
