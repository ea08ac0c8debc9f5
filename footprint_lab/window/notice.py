"""Library-authored messages the window writes: the drop notice and the compaction frame.

Layer: window core (see the law in ``footprint_lab.window``: these messages are how a strategy
says, on the wire, what it stopped sending).

The drop notice exists for the wire first: an agent window opens on a user turn, and dropping
the oldest turns would leave an assistant message at the head. Every character of it is a
library constant plus counts and shape-filtered tool names; no caller prose reaches it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from footprint_lab.messages import Message

DROP_NOTICE_PREFIX = "[dropped history — "
"""Every drop notice starts with this."""

COMPACTION_FRAME_PREFIX = "[compacted history — "
"""Every compaction frame starts with this."""

MAX_NAMED_TOOLS = 4
_PLAIN_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")


def is_drop_notice(message: Message) -> bool:
    """Whether ``message`` is a drop notice this library wrote."""
    return message.authored == "drop-notice" or (
        message.authored is None
        and message.role == "user"
        and message.content.startswith(DROP_NOTICE_PREFIX)
    )


def is_compaction_frame(message: Message) -> bool:
    """Whether ``message`` is a compaction frame (a summary standing for folded turns)."""
    return message.authored == "compaction-frame" or (
        message.authored is None
        and message.role == "user"
        and message.content.startswith(COMPACTION_FRAME_PREFIX)
    )


def plain_tool_names(names: Sequence[str]) -> list[str]:
    """Names fit to appear in a notice: plain identifiers only, each once, in order.

    A name that is not a plain identifier (or is longer than 64 characters) is dropped, never
    truncated, so a hostile tool name cannot smuggle text into the model's context.
    """
    out: list[str] = []
    for name in names:
        if _PLAIN_IDENTIFIER.fullmatch(name) and name not in out:
            out.append(name)
    return out


def drop_notice_text(
    *,
    count: int,
    iteration: int,
    strategy: str,
    request_kept: str | None,
    tool_names: Sequence[str] | None,
) -> str:
    """The text of a drop notice.

    Args:
        count: Messages dropped.
        iteration: The iteration the drop ran at.
        strategy: The strategy's name.
        request_kept: ``"above"`` or ``"below"`` when the current request is still in the
            window on that side of the notice; None when there is no request to mention.
        tool_names: Tools whose results left, already filtered; None for the plain notice.
    """
    parts = [
        f"{DROP_NOTICE_PREFIX}{count} earlier message(s) were dropped from this window at "
        f"iteration {iteration} by the '{strategy}' window strategy."
    ]
    if request_kept is not None:
        parts.append(
            f"Your current request is kept — it is still in this window, {request_kept} this "
            "line, and no window strategy may drop it."
        )
    if tool_names:
        shown = ", ".join(tool_names[:MAX_NAMED_TOOLS])
        if len(tool_names) > MAX_NAMED_TOOLS:
            shown += ", …"
        parts.append(
            f"Tool results are among them ({shown}) — call the tool again if you need its "
            "output; do not reconstruct ids or values from memory."
        )
    parts.append(
        "Nothing was summarized: those turns are simply not being re-sent. They are retained "
        "verbatim in this run's commit log.]"
    )
    return " ".join(parts)


def drop_notice(
    *,
    count: int,
    iteration: int,
    strategy: str,
    request_kept: str | None,
    tool_names: Sequence[str] | None,
) -> Message:
    """A drop notice message (``authored='drop-notice'``)."""
    text = drop_notice_text(
        count=count,
        iteration=iteration,
        strategy=strategy,
        request_kept=request_kept,
        tool_names=tool_names,
    )
    return Message(role="user", content=text, authored="drop-notice")


def compaction_frame(*, count: int, iteration: int, strategy: str, summary: str) -> Message:
    """A compaction frame: a summary that stands for ``count`` folded messages."""
    text = (
        f"{COMPACTION_FRAME_PREFIX}{count} earlier message(s) were replaced at iteration "
        f"{iteration} by a summary written by the '{strategy}' window strategy. It is a "
        "model's paraphrase, not the originals, which are retained verbatim in this run's "
        "commit log.]\n\n"
        f"{summary}"
    )
    return Message(role="user", content=text, authored="compaction-frame")
