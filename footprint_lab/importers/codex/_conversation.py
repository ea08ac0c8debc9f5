"""The conversation a Codex rollout records, message by message, and the window Codex kept.

Layer: importers (private to :mod:`footprint_lab.importers.codex`). :class:`Conversation`
turns response items into messages in file order: the output items of one model response
(reasoning, assistant text, calls, provider-run tools) gather into one assistant message until
an input item, a ``token_count`` or a turn boundary closes it. Beside the history it keeps
Codex's own model-visible history (its ``ContextManager``): a ``compacted`` line replaces it
(:meth:`Conversation.compact`) and a ``thread_rolled_back`` event cuts turns off its end
(:meth:`Conversation.roll_back`); the first call after such a change is given that window as
what it was sent, so ``build_run`` files the observed record naming what left.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._build import UserKind
from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    blocks_of,
    optional_str,
    short,
    text_and_parts,
)
from footprint_lab.importers.codex._items import (
    CALL_TYPES,
    HOSTED_TYPES,
    OPAQUE_TYPES,
    RESULT_TYPES,
    SUMMARY_PREFIX,
    call_of,
    hosted_part,
    message_of,
    reasoning_parts,
    result_of,
)
from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.usage import Usage

__all__ = ["KEPT_USER_TOKENS", "Conversation"]

KEPT_USER_TOKENS = 20_000
"""How many tokens of the latest user messages Codex keeps after a compaction that records no
replacement history (``COMPACT_USER_MESSAGE_MAX_TOKENS``; a token is 4 bytes there)."""
NO_SUMMARY = "(no summary available)"
"""What Codex puts in place of an empty summary."""
_CONVERSATIONAL = frozenset({"content", "text", "output", "arguments", "input", "role"})
"""Keys of an item that carries conversation (an unknown such item is listed, not just counted)."""


@dataclass
class _Reply:
    """The output items of one model response, gathered until the response ends."""

    line: int
    texts: list[str] = field(default_factory=list)
    parts: list[ContentPart] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    places: list[tuple[int, str]] = field(default_factory=list)
    """Each call's line and call-id field."""
    item_ids: list[str] = field(default_factory=list)


class Conversation:
    """Messages, their usage and windows, in the order a rollout records them."""

    def __init__(self, problems: Problems, ids: CallIds) -> None:
        """Start empty; ``problems`` collects what is wrong, ``ids`` pairs calls and results."""
        self.problems = problems
        self.ids = ids
        self.messages: list[Message] = []
        self.usages: list[Usage | None] = []
        self.sent: list[list[Message] | None] = []
        self.kinds: dict[int, UserKind] = {}
        self.window: list[Message] = []
        """Codex's model-visible history as messages (stand-ins included)."""
        self.changed = False
        """Whether a compaction or rollback changed the window since the last call."""
        self.reply: _Reply | None = None
        self.awaiting: int | None = None
        """The assistant message (by usage index) a ``token_count`` would report."""
        self.observed: set[int] = set()
        """``id()`` of the user messages Codex wrote (observations)."""
        self.item_at: dict[str, Message] = {}
        """Response item id -> the message it became (compacted references name them)."""
        self.ignored: dict[str, int] = {}

    # -- items -----------------------------------------------------------------------------

    def item(self, item: Mapping[str, Any], line: int, at: str) -> None:
        """Read one response item (``at``: its field prefix in the line)."""
        problems = self.problems
        kind = item.get("type")
        if not isinstance(kind, str):
            problems.fail(line, f"{at}type", f"a response item needs a type, got {short(kind)}")
        item_id = item.get("id") if isinstance(item.get("id"), str) else None
        if kind == "message":
            role, text, parts, contextual = message_of(item, problems, line, at)
            if role == "assistant":
                reply = self._output(line, item_id)
                reply.texts.append(text)
                reply.parts.extend(parts)
            elif role == "user":
                self.add(Message.user(text, parts=parts), observation=contextual, item_id=item_id)
            elif role in ("developer", "system"):
                self.add(Message.system(text, parts=parts, name=role), item_id=item_id)
            else:
                problems.note(line, f"{at}role", f"unknown role {role!r}: kept as an observation")
                self.add(Message.user(text, parts=parts), observation=True, item_id=item_id)
        elif kind == "reasoning":
            self._output(line, item_id).parts.extend(reasoning_parts(item, problems, line, at))
        elif kind in CALL_TYPES:
            reply = self._output(line, item_id)
            call = call_of(kind, item, self.ids, problems, line, at)
            if call is None:
                reply.parts.append(hosted_part(kind, item, problems, line, at))
            else:
                by_id = kind == "local_shell_call" and item.get("call_id") is None
                reply.calls.append(call)
                reply.places.append((line, f"{at}{'id' if by_id else 'call_id'}"))
        elif kind in HOSTED_TYPES or kind in OPAQUE_TYPES:
            self._output(line, item_id).parts.append(hosted_part(kind, item, problems, line, at))
        elif kind in RESULT_TYPES:
            self.flush()
            self.add(result_of(kind, item, self.ids, problems, line, at), item_id=item_id)
        elif kind == "agent_message":
            self._agent_message(item, line, at, item_id)
        else:
            self._unknown(kind, item, line, at)

    def _agent_message(
        self, item: Mapping[str, Any], line: int, at: str, item_id: str | None
    ) -> None:
        """Another agent's message delivered into this history: an observation."""
        blocks = blocks_of(item.get("content"), self.problems, line, f"{at}content")
        text, parts = text_and_parts(blocks, self.problems, line, f"{at}content")
        author = optional_str(item.get("author"), self.problems, line, f"{at}author")
        self.add(Message.user(text, parts=parts, name=author), observation=True, item_id=item_id)

    def _unknown(self, kind: str, item: Mapping[str, Any], line: int, at: str) -> None:
        """An item Codex does not send (``ghost_snapshot``) or one this importer does not
        know: counted in meta; an unknown one carrying conversation is also listed."""
        key = f"response_item.{kind}"
        self.ignored[key] = self.ignored.get(key, 0) + 1
        if kind != "ghost_snapshot" and _CONVERSATIONAL & set(item):
            self.problems.note(
                line, f"{at}type", f"a response item of unknown type {kind!r}: not imported"
            )

    def _output(self, line: int, item_id: str | None) -> _Reply:
        if self.reply is None:
            self.reply = _Reply(line)
        if item_id is not None:
            self.reply.item_ids.append(item_id)
        return self.reply

    # -- committing ------------------------------------------------------------------------

    def add(
        self, message: Message, *, observation: bool = False, item_id: str | None = None
    ) -> None:
        """Append an input message (a user, system or tool message) after the open reply."""
        self.flush()
        if observation:
            self.kinds[len(self.messages)] = "observation"
            self.observed.add(id(message))
        if message.role == "user":
            self.awaiting = None
        self.messages.append(message)
        self.window.append(message)
        if item_id is not None:
            self.item_at[item_id] = message

    def is_request(self, message: Message) -> bool:
        """Whether ``message`` is a user message the person typed."""
        return (
            message.role == "user" and message.authored is None and id(message) not in self.observed
        )

    def flush(self) -> None:
        """Close the open reply: commit it as one assistant message with its calls; the call
        is sent the window when a compaction or rollback changed it."""
        reply, self.reply = self.reply, None
        if reply is None:
            return
        message = Message.assistant("".join(reply.texts), tool_calls=reply.calls, parts=reply.parts)
        line = reply.places[0][0] if reply.places else reply.line
        self.ids.asked(reply.calls, line, "calls")
        for call, place in zip(reply.calls, reply.places, strict=True):
            if call.id in self.ids.waiting:
                self.ids.waiting[call.id] = place
        self.sent.append(list(self.window) if self.changed else None)
        self.changed = False
        self.messages.append(message)
        self.window.append(message)
        self.usages.append(None)
        self.awaiting = len(self.usages) - 1
        for item_id in reply.item_ids:
            self.item_at[item_id] = message

    def report(self, usage: Usage | None) -> bool:
        """Give the latest reply the usage a ``token_count`` reported (it also ends the
        response); False when no reply awaits one (a compaction's call, a repeat)."""
        self.flush()
        if self.awaiting is None:
            return False
        self.usages[self.awaiting] = usage
        self.awaiting = None
        return True

    # -- what Codex did to its window ------------------------------------------------------

    def replace(self, window: list[Message]) -> None:
        """Codex's window is now ``window``."""
        self.flush()
        self.window = window
        self.changed = True
        self.awaiting = None

    def roll_back(self, turns: int) -> int:
        """Drop the last ``turns`` user turns from the window, as Codex's
        ``drop_last_n_user_turns`` does; returns how many messages left."""
        self.flush()
        starts = [i for i, m in enumerate(self.window) if self.is_request(m)]
        if turns <= 0 or not starts:
            return 0
        cut = starts[-turns] if turns <= len(starts) else starts[0]
        left = len(self.window) - cut
        if left:
            self.replace(self.window[:cut])
        return left

    def recent_requests(self) -> tuple[list[Message], bool]:
        """The latest requests in the window that fit :data:`KEPT_USER_TOKENS` (Codex's
        ``build_compacted_history``), in order, and whether one more was cut to fit (Codex
        sends it truncated; its text is not in the file, so it is not in the window)."""
        kept: list[Message] = []
        remaining = KEPT_USER_TOKENS
        cut = False
        for message in reversed(self.window):
            if not self.is_request(message) or message.content.lstrip().startswith(SUMMARY_PREFIX):
                continue
            if remaining == 0:
                break
            tokens = (len(message.content.encode("utf-8", "surrogatepass")) + 3) // 4
            if tokens > remaining:
                cut = True
                break
            kept.append(message)
            remaining -= tokens
        kept.reverse()
        return kept, cut

    def converted(self, items: list[tuple[str, Any]], line: int) -> list[Message]:
        """Response items (each with its field in the line: a replacement history) as
        messages, read apart from the conversation: their pairing is the compaction's own, and
        what they have wrong was listed where the items first came; malformed items raise."""
        quiet = Problems(self.problems.source, unit=self.problems.unit, path=self.problems.path)
        other = Conversation(quiet, CallIds(quiet, across=False))
        for at, item in items:
            if not isinstance(item, Mapping):
                self.problems.fail(line, at, f"expected an item object, got {short(item)}")
            other.item(item, line, f"{at}.")
        other.flush()
        return other.messages
