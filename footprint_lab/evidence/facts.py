"""A transcript read once into flat facts: the columns every evidence measure reads.

Layer: evidence (pure: messages in, facts out; no pandas). Evidence asks several things of a
run's transcript — which calls took an argument from an earlier tool result
(:mod:`footprint_lab.evidence.dependencies`), which LLM call made each reply (losses), how many
calls it holds, what it would send with no window management — and a grid asks them again of
every replay. Asked message by message, each question is a pass over every object of the run.
:class:`TranscriptFacts` reads each message once, at C speed (one ``attrgetter`` map split into
columns, as :class:`~footprint_lab.window.shape.Window` reads a window), and every question is
then answered from the columns.

Dependencies are kept as :class:`Link` s between transcript indices, not stage ids: a replay
commits its source's transcript again, the same messages in the same order, each stamped with
the replay's own stage id. So the dependencies of every replay of a run are the source's links
named by the replay's stage ids (:meth:`TranscriptFacts.aligned_stage_ids` checks that the
replay's transcript is the source's), and a grid finds them once per run, not once per run x
configuration.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, compress
from typing import Any, NamedTuple

from footprint_lab.evidence._text_index import TextIndex
from footprint_lab.messages import Message, ToolCall

__all__ = ["Link", "TranscriptFacts", "argument_leaves"]

_COLUMNS = operator.attrgetter("role", "content", "tool_calls", "stage_id", "chars")
_IS_TOOL = "tool".__eq__
_IS_ASSISTANT = "assistant".__eq__
_SAID_ROLES = frozenset(("user", "system")).__contains__


def argument_leaves(arguments: Any) -> Iterator[str]:
    """Every string or integer leaf of a call's arguments, as text (booleans excluded)."""
    if isinstance(arguments, dict):
        for value in arguments.values():
            yield from argument_leaves(value)
    elif isinstance(arguments, list | tuple):
        for value in arguments:
            yield from argument_leaves(value)
    elif isinstance(arguments, bool):
        return
    elif isinstance(arguments, str | int):
        yield str(arguments)


class Link(NamedTuple):
    """One value a tool call took from earlier tool evidence, by transcript index (a
    :class:`~footprint_lab.evidence.Dependency` before its carriers are named by stage id)."""

    message_index: int
    """Transcript index of the assistant message that made the call."""
    call_id: str
    """The dependent call."""
    tool_name: str
    """The tool it calls."""
    value: str
    """The argument value, as text."""
    carriers: tuple[int, ...]
    """Transcript indices of the earlier tool messages that carry it, ascending."""


class _Call(NamedTuple):
    """One tool call of the transcript and its argument leaves, read once."""

    message_index: int
    call_id: str
    tool_name: str
    leaves: tuple[str, ...]
    """Its distinct argument leaves, in order of first appearance."""


class TranscriptFacts:
    """A transcript's messages read once into columns (see the module docstring).

    Args:
        messages: The transcript, in order (read once, never changed).
        system: The run's system prompt (said before the first message).
    """

    __slots__ = (
        "_calls",
        "_links",
        "calls",
        "chars",
        "contents",
        "messages",
        "replies",
        "roles",
        "stage_ids",
        "system",
    )

    messages: tuple[Message, ...]
    """The messages, in transcript order."""
    system: str | None
    """The system prompt."""
    roles: tuple[str, ...]
    """Each message's role."""
    contents: tuple[str, ...]
    """Each message's text."""
    calls: tuple[list[ToolCall], ...]
    """Each message's tool calls (the message's own lists, not copies)."""
    stage_ids: tuple[str | None, ...]
    """Each message's stage id."""
    chars: tuple[int, ...]
    """Each message's size (``Message.chars``)."""
    replies: list[int]
    """Transcript indices of the assistant messages: reply ``k`` was made by LLM call ``k``."""

    def __init__(self, messages: Iterable[Message], system: str | None = None) -> None:
        msgs = tuple(messages)
        self.messages = msgs
        self.system = system
        self.roles, self.contents, self.calls, self.stage_ids, self.chars = _columns(msgs)
        self.replies = list(compress(range(len(msgs)), map(_IS_ASSISTANT, self.roles)))
        self._calls: list[_Call] | None = None
        self._links: dict[int, tuple[Link, ...]] = {}

    def __len__(self) -> int:
        return len(self.messages)

    @property
    def tool_calls(self) -> int:
        """How many tool calls the transcript holds."""
        return sum(map(len, self.calls))

    def reply_calls(self) -> dict[int, int]:
        """For each transcript index of an assistant reply, the index of the LLM call that
        made it (by position: real transcripts reuse call ids within one run)."""
        return dict(zip(self.replies, range(len(self.replies)), strict=True))

    def baseline_sends(self) -> Iterator[int]:
        """Characters each call would send with no window management: before each reply,
        every transcript message before it (the system prompt not counted)."""
        cumulative = list(accumulate(self.chars, initial=0))
        return map(cumulative.__getitem__, self.replies)

    def aligned_stage_ids(
        self, messages: Sequence[Message], system: str | None
    ) -> tuple[str | None, ...] | None:
        """The stage ids of ``messages`` when they are this transcript committed again (a
        replay's: the same roles, texts and calls in the same order, and the same system
        prompt), else None. Compared column by column at C speed; the identity shortcut of
        sequence equality makes a replay's shared texts and call lists one pointer check."""
        if len(messages) != len(self.messages) or system != self.system:
            return None
        roles, contents, calls, stage_ids, _ = _columns(tuple(messages))
        if roles != self.roles or contents != self.contents or calls != self.calls:
            return None
        return stage_ids

    def links(self, min_chars: int) -> tuple[Link, ...]:
        """Every (call, value) by which a call depends on earlier tool evidence: a value of at
        least ``min_chars`` characters that an earlier ``tool`` message contains and no
        earlier ``user`` or ``system`` message (the system prompt included) does.

        Linear in the text plus the size of the answer: the tool texts and the user/system
        texts are each indexed once (:class:`~footprint_lab.evidence._text_index.TextIndex`),
        so a value is checked only against texts that can contain it (memoised per
        ``min_chars``).
        """
        found = self._links.get(min_chars)
        if found is None:
            found = self._links[min_chars] = tuple(self._find_links(min_chars))
        return found

    def _tool_calls(self) -> list[_Call]:
        if self._calls is None:
            out: list[_Call] = []
            for index in compress(range(len(self.calls)), self.calls):
                for call in self.calls[index]:
                    leaves = tuple(dict.fromkeys(argument_leaves(call.arguments)))
                    out.append(_Call(index, call.id, call.name, leaves))
            self._calls = out
        return self._calls

    def _find_links(self, min_chars: int) -> Iterator[Link]:
        roles, contents, system = self.roles, self.contents, self.system
        positions = range(len(roles))
        tool_at = list(compress(positions, map(_IS_TOOL, roles)))
        # The system prompt counts as said before the first message (index -1).
        said_at = ([-1] if system else []) + list(compress(positions, map(_SAID_ROLES, roles)))
        said_texts = ([system] if system else []) + [contents[i] for i in said_at if i >= 0]
        calls = self._tool_calls()
        # Every value that will be looked up, so each index resolves them in one pass.
        values = {v for call in calls for v in call.leaves if len(v) >= min_chars}
        if not values:
            return
        tools = TextIndex([contents[i] for i in tool_at], values)
        said = TextIndex(said_texts, values)
        for index, call_id, tool_name, leaves in calls:
            # Tool messages strictly before this one: the prefix tool_at[:tools_before].
            tools_before = bisect.bisect_left(tool_at, index)
            if not tools_before:
                continue
            for value in leaves:
                if len(value) < min_chars:
                    continue
                first_said = said.containing(value)
                if first_said and said_at[first_said[0]] < index:
                    continue
                hits = tools.containing(value)
                earlier = hits[: bisect.bisect_left(hits, tools_before)]
                if earlier:
                    carriers = tuple(map(tool_at.__getitem__, earlier))
                    yield Link(index, call_id, tool_name, value, carriers)


def _columns(
    messages: tuple[Message, ...],
) -> tuple[
    tuple[str, ...],
    tuple[str, ...],
    tuple[list[ToolCall], ...],
    tuple[str | None, ...],
    tuple[int, ...],
]:
    """Roles, texts, call lists, stage ids and sizes of ``messages``: one attribute read per
    message, split into columns at C speed."""
    if not messages:
        return (), (), (), (), ()
    roles, contents, calls, stage_ids, chars = zip(*map(_COLUMNS, messages), strict=True)
    return roles, contents, calls, stage_ids, chars
