"""Grouping the spans of an OTLP file into runs: one per root agent span, or per trace.

Layer: otlp (reading the format). Which spans are agent, chat and tool spans, and which spans
belong to the run of which root ``invoke_agent`` span (a trace without one is one run when it
has chat spans).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from footprint_lab.otlp.names import (
    CHAT_OPERATIONS,
    EXECUTE_TOOL,
    INPUT_MESSAGES,
    INVOKE_AGENT,
    LEGACY_CHOICE,
    LEGACY_ROLES,
    OUTPUT_MESSAGES,
)
from footprint_lab.otlp.read import OtelSpan, fail

__all__ = [
    "SpanGroup",
    "group_spans",
    "is_agent",
    "is_chat",
    "is_tool",
]

# -- grouping spans into runs -----------------------------------------------------------------


def is_agent(span: OtelSpan) -> bool:
    op = span.operation
    return op == INVOKE_AGENT or (op is None and span.name.startswith(INVOKE_AGENT))


def is_chat(span: OtelSpan) -> bool:
    op = span.operation
    if op is not None:
        return op in CHAT_OPERATIONS
    if INPUT_MESSAGES in span.attributes or OUTPUT_MESSAGES in span.attributes:
        return not span.name.startswith((INVOKE_AGENT, EXECUTE_TOOL))
    return any(e.name in LEGACY_ROLES or e.name == LEGACY_CHOICE for e in span.events)


def is_tool(span: OtelSpan) -> bool:
    op = span.operation
    return op == EXECUTE_TOOL or (op is None and span.name.startswith(EXECUTE_TOOL))


@dataclass
class SpanGroup:
    """The spans of one run: its root agent span (None: a trace without one) and members."""

    trace_id: str
    head: OtelSpan | None
    members: list[OtelSpan] = field(default_factory=list)


def group_spans(spans: Sequence[OtelSpan]) -> list[SpanGroup]:
    """One group per root agent span, plus one per trace for spans under no agent span."""
    by_id: dict[tuple[str, str], OtelSpan] = {}
    for span in spans:
        key = (span.trace_id, span.span_id)
        if key in by_id:
            fail(span.index, "spanId", f"repeats the span id of span {by_id[key].index}")
        by_id[key] = span
    root_of: dict[int, OtelSpan | None] = {}

    def root_agent(span: OtelSpan) -> OtelSpan | None:
        chain: list[OtelSpan] = []
        seen: set[int] = set()
        current: OtelSpan | None = span
        found: OtelSpan | None = None
        while current is not None:
            if current.index in root_of:
                found = root_of[current.index]
                break
            if current.index in seen:
                fail(span.index, "parentSpanId", "the spans' parents form a cycle")
            seen.add(current.index)
            chain.append(current)
            parent = current.parent_id
            current = None if parent is None else by_id.get((span.trace_id, parent))
        # The outermost agent span of the chain (or the one found above it) is the root.
        for member in reversed(chain):
            if is_agent(member) and found is None:
                found = member
            root_of[member.index] = found
        return found

    groups: dict[tuple[str, int | None], SpanGroup] = {}
    for span in spans:
        head = root_agent(span)
        slot = (span.trace_id, None if head is None else head.index)
        group = groups.get(slot)
        if group is None:
            group = groups[slot] = SpanGroup(span.trace_id, head)
        group.members.append(span)
    return [g for g in groups.values() if g.head is not None or any(is_chat(s) for s in g.members)]
