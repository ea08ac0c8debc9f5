"""Messages in plain text: who a message is from (worded in the window core,
:func:`footprint_lab.window.words.who`, and re-exported here), its typed parts as badges, a
tool call as text, and a message's one-line preview.

Layer: lab. Pure functions of a :class:`~footprint_lab.messages.Message`, shared by the boundary
views (:mod:`footprint_lab.lab._boundary_views`) and re-exported by
:mod:`footprint_lab.lab.views`. No HTML here.
"""

from __future__ import annotations

from footprint_lab.messages import Message, ToolCall
from footprint_lab.window.words import who

__all__ = ["PREVIEW_CHARS", "part_badges", "preview", "tool_call_text", "who"]

PREVIEW_CHARS = 100
"""Characters of content shown per message in the boundary table."""


def part_badges(message: Message) -> str:
    """A message's typed parts as plain-text badges: ``[image 1,234 chars]`` ... (empty when it
    has none)."""
    return " ".join(f"[{part.kind} {part.chars:,} chars]" for part in message.parts)


def tool_call_text(call: ToolCall) -> str:
    """A tool call as text: ``name(key='value', n=3)``."""
    return f"{call.name}({', '.join(f'{k}={v!r}' for k, v in call.arguments.items())})"


def preview(message: Message, limit: int = PREVIEW_CHARS) -> str:
    """A message in one line of at most ``limit`` characters: its text (line breaks as ⏎), its
    tool calls, and its typed parts' badges (kept visible however long the text)."""
    text = " ⏎ ".join(line.strip() for line in message.content.splitlines() if line.strip())
    if message.tool_calls:
        calls = ", ".join(tool_call_text(c) for c in message.tool_calls)
        text = f"{text} → {calls}" if text else f"→ {calls}"
    badges = part_badges(message)
    if badges:
        room = max(limit - len(badges) - 1, 0)
        if len(text) > room:
            text = text[: room - 1] + "…" if room > 1 else ""
        return f"{text} {badges}" if text else badges
    return text if len(text) <= limit else text[: limit - 1] + "…"
