"""Library-authored messages the window writes: the drop notice, the compaction frame and the
cleared-result placeholder.

Layer: window core (see the law in ``footprint_lab.window``: these messages are how a strategy
says, on the wire, what it stopped sending).

The drop notice exists for the wire first: an agent window opens on a user turn, and dropping
the oldest turns would leave an assistant message at the head. Every character of it is a
library constant plus counts and shape-filtered names (tools, the strategy); no caller prose
reaches it.

Library-authored messages are recognised by their provenance — the ``authored`` field the
library sets when it writes one — never by their text: a person's request or a tool result
whose text happens to start with :data:`DROP_NOTICE_PREFIX` is still what it is.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from footprint_lab.messages import (
    Message,
    ToolCall,
    construct_trusted,
    shape_of,
    stamp_computed,
    storable_text,
)

# Provenance is defined once, with the message; re-exported here, where it has always been.
from footprint_lab.messages import is_cleared_result as is_cleared_result
from footprint_lab.messages import is_compaction_frame as is_compaction_frame
from footprint_lab.messages import is_drop_notice as is_drop_notice
from footprint_lab.messages import is_notice_or_frame as is_notice_or_frame
from footprint_lab.messages import is_stand_in as is_stand_in

DROP_NOTICE_PREFIX = "[dropped history — "
"""Every drop notice starts with this."""

COMPACTION_FRAME_PREFIX = "[compacted history — "
"""Every compaction frame starts with this."""

CLEARED_RESULT_PREFIX = "[cleared tool result — "
"""Every cleared-result placeholder starts with this."""

CLEARED_ARGUMENTS_KEY = "cleared"
"""The one key of a call's arguments once ``clear_tool_inputs`` replaced them."""

MAX_NAMED_TOOLS = 4
_PLAIN_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")


GENERIC_STRATEGY_NAME = "custom"
"""Stands in a notice for a strategy name that is not a plain identifier."""


def plain_name(name: str, generic: str = GENERIC_STRATEGY_NAME) -> str:
    """``name`` when it is a plain identifier (at most 64 characters), else ``generic``: the
    shape filter every name passes before it reaches text the model reads."""
    return name if _PLAIN_IDENTIFIER.fullmatch(name) else generic


def plain_tool_names(names: Sequence[str], known: Collection[str] | None = None) -> list[str]:
    """Names fit to appear in a notice: plain identifiers only, each once, in order.

    A name that is not a plain identifier (or is longer than 64 characters) is dropped, never
    truncated, so a hostile tool name cannot smuggle text into the model's context. With
    ``known`` (the agent's tool roster), a name the agent does not have — one the model
    invented — is dropped the same way.
    """
    out: list[str] = []
    for name in names:
        if known is not None and name not in known:
            continue
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
        strategy: The strategy's name (shape-filtered: a name that is not a plain identifier
            reads as "custom").
        request_kept: ``"above"`` or ``"below"`` when the current request is still in the
            window on that side of the notice; None when there is no request to mention.
        tool_names: Tools whose results left, already filtered; None for the plain notice.
    """
    parts = [
        f"{DROP_NOTICE_PREFIX}{count} earlier message(s) were dropped from this window at "
        f"iteration {iteration} by the '{plain_name(strategy)}' window strategy."
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


def plain_notice_chars(
    *, count: int, iteration: int, strategy: str, request_kept: str | None
) -> int:
    """The size of the plain notice (:func:`drop_notice_text` with no tools) without writing
    it. The plain notice is the shortest the ladder writes (a named one adds a line), so a
    span no larger than this gets no notice at all: in a running loop that drops a turn at
    every visit, that is most visits, and neither text need be written."""
    size = _PLAIN_FIXED_CHARS[request_kept is not None] + len(plain_name(strategy))
    size += len(str(count)) + len(str(iteration))
    return size + (len(request_kept) if request_kept is not None else 0)


# The plain notice's characters besides its two numbers, the strategy's name and the side the
# request is kept on (each written here as one character, or none, and taken off).
_PLAIN_FIXED_CHARS = {
    False: len(
        drop_notice_text(count=0, iteration=0, strategy="a", request_kept=None, tool_names=None)
    )
    - 3,
    True: len(
        drop_notice_text(count=0, iteration=0, strategy="a", request_kept="", tool_names=None)
    )
    - 3,
}


def notice_message(text: str) -> Message:
    """The drop notice carrying ``text`` (``authored='drop-notice'``: known by provenance)."""
    return _library_message("user", storable_text(text), "drop-notice")


def _library_message(
    role: str,
    text: str,
    authored: str,
    tool_call_id: str | None = None,
    name: str | None = None,
) -> Message:
    """A message the library writes, built from parts already validated (storable text made of
    filtered names and numbers, an original's call id and tool name): no second validation on
    the hot path."""
    message = construct_trusted(
        Message,
        role=role,
        content=text,
        tool_calls=[],
        tool_call_id=tool_call_id,
        name=name,
        stage_id=None,
        authored=authored,
        parts=[],
    )
    # Its size and shape are known here (text only: no calls, no parts): stamped now, not
    # computed again by the first visit that reads them (a clearing writes thousands).
    size = len(text)
    stamp_computed(
        message, chars=size, shape=shape_of(role, authored, None, size, name, (), tool_call_id)
    )
    return message


def drop_notice(
    *,
    count: int,
    iteration: int,
    strategy: str,
    request_kept: str | None,
    tool_names: Sequence[str] | None,
) -> Message:
    """A drop notice message, its text from :func:`drop_notice_text`."""
    return notice_message(
        drop_notice_text(
            count=count,
            iteration=iteration,
            strategy=strategy,
            request_kept=request_kept,
            tool_names=tool_names,
        )
    )


def compaction_frame(*, count: int, iteration: int, strategy: str, summary: str) -> Message:
    """A compaction frame: a summary that stands for ``count`` folded messages."""
    text = (
        f"{COMPACTION_FRAME_PREFIX}{count} earlier message(s) were replaced at iteration "
        f"{iteration} by a summary written by the '{plain_name(strategy)}' window strategy. "
        "It is a model's paraphrase, not the originals, which are retained verbatim in this run's "
        "commit log.]\n\n"
        f"{summary}"
    )
    return Message(role="user", content=text, authored="compaction-frame")


def cleared_result_text(*, tool_name: str | None, iteration: int, strategy: str) -> str:
    """The text of a cleared-result placeholder: which tool, when, by which strategy, and what
    to do (call the tool again; the original is in the commit log). Short on purpose: it is
    re-sent in place of every result it clears."""
    names = plain_tool_names([tool_name] if tool_name else [])
    tool = f"output of '{names[0]}'" if names else "tool output"
    return storable_text(
        f"{CLEARED_RESULT_PREFIX}{tool} cleared at iteration {iteration} by "
        f"'{plain_name(strategy)}'. Call the tool again if you need it; do not reconstruct it "
        "from memory. The original is in the commit log.]"
    )


def cleared_result(
    original: Message, *, iteration: int, strategy: str, text: str | None = None
) -> Message:
    """The placeholder for the tool result ``original``: same role, call id and tool name (so
    no pair is split), its content replaced (``authored='cleared-result'``). ``text``: its
    :func:`cleared_result_text`, when the caller already has it (one per tool and visit)."""
    if text is None:
        text = cleared_result_text(tool_name=original.name, iteration=iteration, strategy=strategy)
    return _library_message("tool", text, "cleared-result", original.tool_call_id, original.name)


def cleared_arguments(original: Message, call_ids: Collection[str]) -> Message:
    """The stand-in for the assistant message ``original`` whose calls ``call_ids`` had their
    arguments cleared: same text, same calls (ids and names), those arguments replaced by
    ``{"cleared": true}`` (``authored='cleared-result'``) — the shortest note: the results'
    placeholders name the iteration and the strategy."""
    note = {CLEARED_ARGUMENTS_KEY: True}
    calls = [
        ToolCall(id=c.id, name=c.name, arguments=note) if c.id in call_ids else c
        for c in original.tool_calls
    ]
    return original.model_copy(
        update={"tool_calls": calls, "authored": "cleared-result", "stage_id": None}
    )
