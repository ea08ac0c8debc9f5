"""The cache lens: how much of each request a provider's prefix cache could reuse.

Layer: evidence (pure; reads the ledger, never writes it). A provider's prompt cache reuses the
longest prefix a request shares with an earlier one; trimming the front of a window rewrites
that prefix. ``prefix_chars`` is the longest common prefix of a call's request and the
previous call's (the system prompt, then the messages in wire order, in the unit of
``window_chars``): messages the two windows share by ledger position (or that are equal on the
wire) count whole; at the first that differs, the common prefix of its text counts and the walk
stops — a prefix cache reuses nothing after the first change. Tool schemas are not recorded in
a run; they are the same for every call, so they would add the same amount to both requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

from footprint_lab.agent.run import Run
from footprint_lab.evidence.windows import SentWindows
from footprint_lab.messages import Message

__all__ = ["CallPrefixes", "call_prefixes", "common_prefix_chars", "prefixes_of"]

Runs = Sequence[tuple[int, int]]

CallPrefixes = tuple[list[int], list[int]]
"""``(request_chars, prefix_chars)``, one entry per call."""


def _text_prefix(a: str, b: str) -> int:
    """Length of the common prefix of two strings (binary search on slices: C-speed)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _same_on_the_wire(a: Message, b: Message) -> bool:
    return (
        a.role == b.role
        and a.content == b.content
        and a.tool_call_id == b.tool_call_id
        and a.name == b.name
        and a.tool_calls == b.tool_calls
        and a.parts == b.parts
    )


def common_prefix_chars(
    previous: Sequence[tuple[int, int]],
    current: Sequence[tuple[int, int]],
    messages: Sequence[Message],
    cumulative: Sequence[int],
) -> int:
    """Characters two windows share from the front. Windows are runs of ledger positions in
    wire order; ``cumulative[p]`` is the characters of the messages before position ``p``, so a
    stretch both windows hold by position costs one subtraction, not a walk."""
    previous = [r for r in previous if r[1] > r[0]]
    current = [r for r in current if r[1] > r[0]]
    total = 0
    i = j = 0
    pa, pb = (previous[0][0] if previous else 0), (current[0][0] if current else 0)
    while i < len(previous) and j < len(current):
        ea, eb = previous[i][1], current[j][1]
        if pa == pb:
            step = min(ea - pa, eb - pb)
            total += cumulative[pa + step] - cumulative[pa]
            pa += step
            pb += step
        else:
            a, b = messages[pa], messages[pb]
            if not _same_on_the_wire(a, b):
                if a.role == b.role:
                    total += _text_prefix(a.content, b.content)
                return total
            total += b.chars
            pa += 1
            pb += 1
        if pa >= ea:
            i += 1
            pa = previous[i][0] if i < len(previous) else pa
        if pb >= eb:
            j += 1
            pb = current[j][0] if j < len(current) else pb
    return total


def prefixes_of(
    windows: Sequence[Runs], messages: Sequence[Message], chars: Sequence[int], system_chars: int
) -> CallPrefixes:
    """``request_chars`` and ``prefix_chars`` of every call, from each call's window as runs of
    ledger positions and each message's size (``chars[p]``)."""
    cumulative = [0, *accumulate(chars)]
    request = [
        system_chars + sum(cumulative[b] - cumulative[a] for a, b in runs) for runs in windows
    ]
    prefix = [0] * len(windows)
    for k in range(1, len(windows)):
        if not windows[k] or not windows[k - 1]:
            continue
        prefix[k] = system_chars + common_prefix_chars(
            windows[k - 1], windows[k], messages, cumulative
        )
    return request, prefix


def call_prefixes(run: Run, windows: SentWindows | None = None) -> CallPrefixes:
    """:func:`prefixes_of` for every call of ``run`` (its sent windows decoded once)."""
    sent = SentWindows(run) if windows is None else windows
    messages = run.ledger.messages
    return prefixes_of(
        [sent.runs(i) for i in range(len(sent))],
        messages,
        [m.chars for m in messages],
        len(run.system or ""),
    )
