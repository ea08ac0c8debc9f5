"""Summarizers that need no model: deterministic stand-ins for ``summarize_oldest``.

Layer: window core (pure: messages in, a :class:`SummaryResult` out). A summary is a claim,
so what it claims is kept checkable: see the law in ``footprint_lab.window``. Provider-backed
summarizers live with the providers (``footprint_lab.providers.provider_summarizer``).
"""

from __future__ import annotations

from collections.abc import Sequence

from footprint_lab.messages import Message
from footprint_lab.window.strategies.summarize_oldest import SummaryResult


def extractive_summarizer(messages: Sequence[Message]) -> SummaryResult:
    """A deterministic summarizer for scripted runs: the first line of each tool result and
    the names of the tools called, with token counts at four characters a token."""
    lines = []
    for message in messages:
        if message.role == "tool":
            first = message.content.splitlines()[0] if message.content else ""
            lines.append(f"- {message.name}: {first[:80]}")
        elif message.role == "assistant" and message.tool_calls:
            calls = ", ".join(c.name for c in message.tool_calls)
            lines.append(f"- called {calls}")
    text = "\n".join(lines) or "- (nothing of note)"
    return SummaryResult(
        text=text,
        input_tokens=sum(m.chars for m in messages) // 4 or 1,
        output_tokens=max(1, len(text) // 4),
    )
