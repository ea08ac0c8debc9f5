"""Which messages a provider's server-side clearing took, from the count it reported.

Layer: window core (pure). Anthropic's context editing reports how many tool uses and thinking
turns it cleared from a request (``applied_edits[].cleared_tool_uses`` /
``cleared_thinking_turns``), never which; its documented rule determines them: "the API
automatically clears the oldest tool results in chronological order" (never an excluded
tool's), and thinking clearing keeps the most recent turns. The agent (naming what a live
response reported) and the importer of stored Messages lists (naming what a file's responses
reported) read a count back into messages with these two functions, the one reading of the rule.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from footprint_lab.messages import Message, has_thinking

__all__ = ["oldest_results", "oldest_thinking_replies"]


def oldest_results(
    window: Sequence[Message],
    count: int,
    *,
    exclude_tools: Collection[str] = (),
    taken: Collection[str] = (),
) -> tuple[list[Message], int]:
    """The ``count`` oldest tool results of ``window`` the server's clearing takes (real
    results, never an excluded tool's, none whose call id is in ``taken``), and how many such
    results the window held."""
    results = [
        m
        for m in window
        if m.role == "tool"
        and m.authored is None
        and m.name not in exclude_tools
        and m.tool_call_id not in taken
    ]
    return results[: max(0, count)], len(results)


def oldest_thinking_replies(
    window: Sequence[Message], count: int, *, taken: Collection[int] = ()
) -> tuple[list[Message], int]:
    """The ``count`` oldest replies of ``window`` holding thinking that the server sent
    without it (none whose ``id()`` is in ``taken``), and how many such replies it held."""
    replies = [
        m for m in window if m.role == "assistant" and has_thinking(m) and id(m) not in taken
    ]
    return replies[: max(0, count)], len(replies)
