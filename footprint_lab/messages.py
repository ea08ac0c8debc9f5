"""Messages and tool calls: the unit everything else counts, commits and removes.

Layer: bottom. Imports nothing from the rest of the package.

A :class:`Message` is immutable. The ledger shares message objects between commits instead of
copying them, so identity matters: the same object is the same message everywhere it appears.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]
"""The four wire roles."""

Authored = Literal["drop-notice", "compaction-frame", "injection"]
"""Kinds of message written by this library rather than by a person or a model."""

AUTHORED_KINDS: tuple[str, ...] = ("drop-notice", "compaction-frame", "injection")


class PositionalModel(BaseModel):
    """A pydantic model whose fields may also be given positionally, in the order named by
    ``__positional__`` (so ``ToolCall("c1", "read_log", {...})`` reads like the contract)."""

    __positional__: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *args: Any, **data: Any) -> None:
        if args:
            names = type(self).__positional__
            if len(args) > len(names):
                raise TypeError(
                    f"{type(self).__name__} takes at most {len(names)} positional arguments "
                    f"({', '.join(names)}), got {len(args)}"
                )
            for name, value in zip(names, args, strict=False):
                if name in data:
                    raise TypeError(f"{type(self).__name__} got {name!r} twice")
                data[name] = value
        super().__init__(**data)


class ToolCall(PositionalModel):
    """One tool call an assistant message asks for."""

    model_config = ConfigDict(frozen=True)
    __positional__ = ("id", "name", "arguments")

    id: str
    """The provider's call id; the matching tool message carries it as ``tool_call_id``."""
    name: str
    """The tool's name."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The arguments as parsed JSON."""


class Message(BaseModel):
    """One message of a conversation, as the wire and the ledger see it."""

    model_config = ConfigDict(frozen=True)

    role: Role
    """Who speaks: 'system', 'user', 'assistant' or 'tool'."""
    content: str = ""
    """The text. Tool results are text too."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Calls an assistant message asks for; empty elsewhere."""
    tool_call_id: str | None = None
    """On a tool message: the id of the call it answers."""
    name: str | None = None
    """On a tool message: the name of the tool that produced it."""
    stage_id: str | None = None
    """The ledger stage that committed this message (``seed#0``, ``tool-calls#4`` ...)."""
    authored: Authored | None = None
    """None for real messages; which library-authored kind otherwise."""

    @classmethod
    def user(cls, text: str, **kw: Any) -> Message:
        """A user message."""
        return cls(role="user", content=text, **kw)

    @classmethod
    def system(cls, text: str, **kw: Any) -> Message:
        """A system message."""
        return cls(role="system", content=text, **kw)

    @classmethod
    def assistant(cls, text: str = "", tool_calls: Iterable[ToolCall] = (), **kw: Any) -> Message:
        """An assistant message, optionally asking for tool calls."""
        return cls(role="assistant", content=text, tool_calls=list(tool_calls), **kw)

    @classmethod
    def tool(cls, call_id: str, name: str, content: str, **kw: Any) -> Message:
        """A tool result answering the call ``call_id`` of tool ``name``."""
        return cls(role="tool", content=content, tool_call_id=call_id, name=name, **kw)

    @property
    def chars(self) -> int:
        """Exact character count of this message: the length of its content."""
        return len(self.content)

    def with_stage(self, stage_id: str) -> Message:
        """This message stamped with the stage that commits it."""
        return self.model_copy(update={"stage_id": stage_id})


def window_chars(messages: Sequence[Message]) -> int:
    """Exact characters of a window: the sum of its messages' content lengths.

    Tool-call arguments are not counted; tokens are never estimated here.
    """
    return sum(len(m.content) for m in messages)


def content_hash(message: Message) -> str:
    """A short stable hash of what a message says (role, content, tool calls, call id, name);
    the stage that committed it does not count."""
    digest = hashlib.sha256()
    for part in (message.role, message.tool_call_id or "", message.name or "", message.content):
        digest.update(part.encode())
        digest.update(b"\x1f")
    if message.tool_calls:
        calls = [[c.id, c.name, c.arguments] for c in message.tool_calls]
        digest.update(json.dumps(calls, sort_keys=True, ensure_ascii=False, default=str).encode())
    return digest.hexdigest()[:16]
