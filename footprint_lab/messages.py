"""Messages and tool calls: the unit everything else counts, commits and removes.

Layer: bottom. Imports nothing from the rest of the package.

A :class:`Message` is immutable. The ledger shares message objects between commits instead of
copying them, so identity matters: the same object is the same message everywhere it appears.

Two rules live here, because this is the one place messages are built:

* **Sizes.** :func:`message_chars` is the one definition of a message's size, in characters of
  what a call sends: its content, plus for each tool call the call's name and its arguments as
  compact JSON (:func:`arguments_json`), plus each typed part (:class:`ContentPart`) at the
  length of its text or of its encoded data. ``window_chars``, every ``window_chars_*`` of a
  record, the notice ladder and ``CallRecord.chars`` all count with it.
* **Shape.** :attr:`Message.shape` is what the window engine reads of a message, computed once:
  one character for its role, calls and author (:data:`SHAPE_CODES`), its stage id, size, tool
  name, call ids and answered id. The engine reads a window's shapes column by column and joins
  the codes into one string, so turns, guards and pairs are string and list operations.
* **Storable text.** Any text is storable: a lone surrogate (``os.listdir`` on a file name
  that is not UTF-8 gives ``'report-\\udcff.txt'``) is escaped on the way in to the visible
  text ``\\udcff`` (backslash-u-d-c-f-f), so hashing, saving, capture and replay never meet an
  unencodable character. Valid text is kept exactly. Messages escape their own text; every
  other way text enters (the request, the system prompt, the model id, provider, strategy and
  tool names, a tool's description, a reply's finish reason, an error's message, a run file,
  the report's labels) applies :func:`storable_text` where it enters, or types its field
  :data:`StorableStr`.
"""

from __future__ import annotations

import hashlib
import json
import operator
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

# The trusted-construction helpers live in the one private module that touches pydantic's
# internals; they are re-exported here, where the rest of the package has always found them.
from footprint_lab._models import computed_once as computed_once
from footprint_lab._models import construct_trusted as construct_trusted
from footprint_lab._models import copy_trusted as copy_trusted
from footprint_lab._models import recompute as recompute
from footprint_lab._models import share_fields_set as share_fields_set
from footprint_lab._models import stamp_computed as stamp_computed
from footprint_lab._models import update_trusted as update_trusted

Role = Literal["system", "user", "assistant", "tool"]
"""The four wire roles."""

Authored = Literal["drop-notice", "compaction-frame", "injection", "cleared-result"]
"""Kinds of message written by this library rather than by a person or a model."""

AUTHORED_KINDS: tuple[str, ...] = ("drop-notice", "compaction-frame", "injection", "cleared-result")

STAND_IN_KINDS: frozenset[str] = frozenset({"drop-notice", "compaction-frame", "cleared-result"})
"""Authored kinds a window stage writes in place of what it stopped sending."""

SPAN_STAND_IN_KINDS: frozenset[str] = frozenset({"drop-notice", "compaction-frame"})
"""Authored kinds that stand for turns that left (a cleared-result placeholder stands only in
place of the one message it clears, in a turn that is still there)."""

WINDOW_STAGE_PREFIX = "window#"
"""Stage-id prefix of what a window visit committed: never a person's words."""


OBSERVATION_STAGES: tuple[str, ...] = ("observation#", "demonstration#")
"""Stage-id prefixes of user messages a person did not write: what an imported agent's
environment answered as text (an observation), and worked examples put in its prompt (a
demonstration). They are sent as ``user`` messages and are never the current request."""


def is_observation(message: Message) -> bool:
    """Whether ``message`` is a ``user`` message the environment wrote (an imported
    observation or demonstration): known by the stage that committed it, never by its text."""
    stage = message.stage_id
    return message.role == "user" and stage is not None and stage.startswith(OBSERVATION_STAGES)


# Provenance: what wrote a message, known by the ``authored`` field the library sets and the
# stage that committed it, never by its text (a person's request that starts like a drop
# notice is still the request). Defined here once; the window core re-exports it.


def authored_by_library(authored: str | None, stage_id: str | None) -> bool:
    """Whether a message with these fields is the library's: an authored kind, or anything a
    window stage committed (:func:`is_library_authored` on the fields themselves)."""
    return authored is not None or (stage_id or "").startswith(WINDOW_STAGE_PREFIX)


def is_library_authored(message: Message) -> bool:
    """Drop notices, compaction frames, placeholders and injections — and anything a window
    stage committed — are the library's, never the request anchor. Known by provenance (the
    ``authored`` field and the ``window#`` stage), never by text."""
    return authored_by_library(message.authored, message.stage_id)


def is_drop_notice(message: Message) -> bool:
    """Whether ``message`` is a drop notice this library wrote (by provenance, not by text)."""
    return message.authored == "drop-notice"


def is_compaction_frame(message: Message) -> bool:
    """Whether ``message`` is a compaction frame this library wrote (a summary standing for
    folded turns; by provenance, not by text)."""
    return message.authored == "compaction-frame"


def is_cleared_result(message: Message) -> bool:
    """Whether ``message`` is a placeholder this library put in place of a tool result (or of
    a call's arguments) it stopped sending (by provenance, not by text)."""
    return message.authored == "cleared-result"


def is_stand_in(message: Message) -> bool:
    """Whether ``message`` was written by a window stage in place of what it stopped sending
    (a drop notice, a compaction frame or a cleared-result placeholder)."""
    return message.authored in STAND_IN_KINDS


def is_notice_or_frame(message: Message) -> bool:
    """Whether ``message`` stands for turns that left (a drop notice or a compaction frame) —
    what a removal made only of such messages would gain nothing by removing. A cleared-result
    placeholder is not one: it stands in place of one message of a turn that is still there."""
    return message.authored in SPAN_STAND_IN_KINDS


def storable_text(text: str) -> str:
    """``text`` with every lone surrogate escaped as visible ``\\uXXXX`` text; valid text
    unchanged (the common case costs one ``isascii`` or one ``encode``)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


StorableStr = Annotated[str, AfterValidator(storable_text)]
"""A ``str`` field made :func:`storable_text` when its model is validated: for text an
exception, a strategy or a provider wrote (events, records, saved errors, replies)."""


def storable_value(value: Any) -> Any:
    """A JSON-like value with every string in it (keys too) made :func:`storable_text`."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable_value(k): storable_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(storable_value(v) for v in value)
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A JSON ``\\uD800``-``\\uDFFF`` escape: the only way JSON text carries a lone surrogate."""


def storable_json(text: str, **loads: Any) -> Any:
    """``json.loads(text, **loads)`` with every string in it made :func:`storable_text`: a file
    written by hand or by another tool may escape a lone surrogate (``"\\udcff"``). ``text``
    is decoded text (it holds no lone surrogate itself), so the walk runs only when it holds
    such an escape (one regex scan otherwise)."""
    value = json.loads(text, **loads)
    return storable_value(value) if _SURROGATE_ESCAPE.search(text) else value


def arguments_json(arguments: Any) -> str:
    """Tool-call arguments as compact JSON (no spaces, non-ASCII kept): how a call's arguments
    are sent and counted. Values JSON cannot encode are written as their ``str``."""
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False, default=str)


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

    model_config = ConfigDict(frozen=True, ignored_types=(computed_once,))
    __positional__ = ("id", "name", "arguments")

    id: str
    """The provider's call id; the matching tool message carries it as ``tool_call_id``."""
    name: str
    """The tool's name."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The arguments as parsed JSON."""

    @field_validator("id", "name", mode="after")
    @classmethod
    def _storable_text(cls, value: str) -> str:
        return storable_text(value)

    @field_validator("arguments", mode="after")
    @classmethod
    def _storable_arguments(cls, value: dict[str, Any]) -> dict[str, Any]:
        return value if not value else storable_value(value)

    @computed_once
    def chars(self) -> int:
        """Characters this call costs on the wire: its name plus its compact-JSON arguments."""
        return len(self.name) + len(arguments_json(self.arguments))

    def model_copy(
        self, *, update: Mapping[str, Any] | None = None, deep: bool = False
    ) -> ToolCall:
        """A copy; its size is measured afresh when ``update`` is given."""
        copied = super().model_copy(update=update, deep=deep)
        if update:
            recompute(copied, "chars")
        return copied


class ContentPart(BaseModel):
    """A piece of a message that is not its plain text: an image, a document, a thinking
    block, a refusal, a legacy ``function_call`` ... kept whole, with the block it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    """What it is: 'image', 'document', 'thinking', 'refusal', 'function-call', ..."""
    text: str | None = None
    """Its text, when it has text (a thinking block, a refusal)."""
    data_chars: int = Field(default=0, ge=0)
    """Length of its encoded data (base64 or URL) when it has no text."""
    original: dict[str, Any] = Field(default_factory=dict)
    """The block exactly as the source wrote it."""

    @field_validator("text", mode="after")
    @classmethod
    def _storable_text(cls, value: str | None) -> str | None:
        return None if value is None else storable_text(value)

    @field_validator("original", mode="after")
    @classmethod
    def _storable_original(cls, value: dict[str, Any]) -> dict[str, Any]:
        return value if not value else storable_value(value)

    @property
    def chars(self) -> int:
        """Characters it costs: the length of its text, else of its encoded data."""
        return len(self.text) if self.text is not None else self.data_chars


THINKING_KINDS: frozenset[str] = frozenset({"thinking", "redacted-thinking"})
"""Part kinds that hold a model's thinking (Anthropic's ``thinking`` and ``redacted_thinking``
blocks, OpenAI's ``reasoning`` items): kept with their reply, sent back untouched, counted in
its size, and the only parts ``clear_thinking`` takes."""


def has_thinking(message: Message) -> bool:
    """Whether ``message`` carries thinking (a part of a :data:`THINKING_KINDS` kind)."""
    return any(part.kind in THINKING_KINDS for part in message.parts)


def without_thinking(message: Message) -> list[ContentPart]:
    """``message``'s parts less its thinking, in order."""
    return [part for part in message.parts if part.kind not in THINKING_KINDS]


_SIZE_FIELDS = frozenset({"content", "tool_calls", "parts"})

SHAPE_CODES: dict[str, str] = {
    "s": "a system message",
    "u": "a user message a person wrote (the only kind that can be the current request)",
    "i": "a user message the library wrote (a drop notice, a compaction frame, an injection)",
    "o": "a user message the environment wrote (an imported observation or demonstration, "
    "committed by an ``observation#`` or ``demonstration#`` stage): never the request",
    "a": "an assistant message that makes no tool call",
    "1": "an assistant message making 1 tool call (up to '9': 9 calls)",
    "m": "an assistant message making more than 9 tool calls",
    "t": "a tool result",
    "p": "a tool result the library wrote (a cleared-result placeholder): never cleared again",
}
"""What each :attr:`Message.shape_code` means."""


class MessageShape(NamedTuple):
    """What the window engine reads of one message (:attr:`Message.shape`): a window of them
    is read column by column at C speed (``footprint_lab.window.shape``)."""

    code: str
    """One character for the role, the calls and the author (see :data:`SHAPE_CODES`)."""
    stage_id: str | None
    """The stage that committed the message."""
    chars: int
    """Its exact size (:func:`message_chars`)."""
    tool_name: str | None
    """On a tool result: the tool's name; None on every other message."""
    call_ids: tuple[str, ...]
    """The ids of the calls an assistant message makes, in order."""
    answers: str | None
    """On a tool result: the id of the call it answers; None on every other message."""


_CALL_COUNT_CODES = "a123456789"
_CHARS = operator.attrgetter("chars")
_CALL_ID = operator.attrgetter("id")


class Message(BaseModel):
    """One message of a conversation, as the wire and the ledger see it."""

    model_config = ConfigDict(frozen=True, ignored_types=(computed_once,))

    role: Role
    """Who speaks: 'system', 'user', 'assistant' or 'tool'."""
    content: str = ""
    """The text. Tool results are text too."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Calls an assistant message asks for; empty elsewhere."""
    tool_call_id: str | None = None
    """On a tool message: the id of the call it answers."""
    name: str | None = None
    """On a tool message: the name of the tool that produced it. On another message: the
    participant's name its source gave (OpenAI's and GenAI's ``name``), sent on the OpenAI
    wire; None when it gave none. Like the role, it is not counted in :attr:`chars`."""
    stage_id: str | None = None
    """The ledger stage that committed this message (``seed#0``, ``tool-calls#4`` ...)."""
    authored: Authored | None = None
    """None for real messages; which library-authored kind otherwise."""
    parts: list[ContentPart] = Field(default_factory=list)
    """Typed content beside the text (images, documents, thinking ...), kept whole."""

    @field_validator("content", mode="after")
    @classmethod
    def _storable_content(cls, value: str) -> str:
        return storable_text(value)

    @field_validator("tool_call_id", "name", mode="after")
    @classmethod
    def _storable_ids(cls, value: str | None) -> str | None:
        return None if value is None else storable_text(value)

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

    @computed_once
    def chars(self) -> int:
        """Exact characters of this message as a call sends it (see :func:`message_chars`);
        computed once per message object."""
        return message_chars(self)

    @computed_once
    def shape(self) -> MessageShape:
        """What the window engine reads of this message, in one tuple (see
        :class:`MessageShape`); computed once per message object."""
        return shape_of(
            self.role,
            self.authored,
            self.stage_id,
            self.chars,
            self.name,
            tuple(map(_CALL_ID, self.tool_calls)) if self.tool_calls else (),
            self.tool_call_id,
        )

    @property
    def shape_code(self) -> str:
        """One character for this message's shape (see :data:`SHAPE_CODES`)."""
        return self.shape.code

    @property
    def call_ids(self) -> tuple[str, ...]:
        """The ids of the calls this message makes, in order."""
        return self.shape.call_ids

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Message:
        """A copy; its size and shape are measured afresh when ``update`` changes them."""
        copied = share_fields_set(super().model_copy(update=update, deep=deep))
        if update:
            _measure_again(copied, not _SIZE_FIELDS.isdisjoint(update))
        return copied

    def with_stage(self, stage_id: str) -> Message:
        """This message stamped with the stage that commits it (a copy: the ledger stamps
        every message it commits, so this is the cheapest copy there is — the fields as they
        are, no second validation of what was validated when the message was built)."""
        copied = copy_trusted(self, stage_id=stage_id)
        _measure_again(copied, False)
        return copied


def _measure_again(message: Message, size_changed: bool) -> None:
    """Refresh the size (when ``size_changed``) and the shape a copy carried over from its
    original (see :func:`~footprint_lab._models.recompute`)."""
    if size_changed:
        recompute(message, "chars", "shape")
    else:
        recompute(message, "shape")


def shape_of(
    role: str,
    authored: str | None,
    stage_id: str | None,
    chars: int,
    name: str | None,
    call_ids: tuple[str, ...],
    tool_call_id: str | None,
) -> MessageShape:
    """The :class:`MessageShape` of a message with these fields (:attr:`Message.shape`; also
    how the library stamps a message it builds itself, whose shape it already knows)."""
    if role == "tool":
        code = "t" if authored is None else "p"
        return MessageShape(code, stage_id, chars, name, (), tool_call_id)
    if role == "assistant":
        code = _CALL_COUNT_CODES[len(call_ids)] if len(call_ids) < 10 else "m"
        return MessageShape(code, stage_id, chars, None, call_ids, None)
    if role == "user":
        if authored_by_library(authored, stage_id):
            return MessageShape("i", stage_id, chars, None, (), None)
        if stage_id is not None and stage_id.startswith(OBSERVATION_STAGES):
            return MessageShape("o", stage_id, chars, None, (), None)
        return MessageShape("u", stage_id, chars, None, (), None)
    return MessageShape("s", stage_id, chars, None, (), None)


def message_chars(message: Message) -> int:
    """The one definition of a message's size: its content, plus each tool call's name and
    compact-JSON arguments, plus each typed part's text or encoded data, in characters."""
    total = len(message.content)
    for call in message.tool_calls:
        total += call.chars
    for part in message.parts:
        total += part.chars
    return total


def window_chars(messages: Sequence[Message]) -> int:
    """Exact characters of a window: the sum of :func:`message_chars` over its messages.

    Tokens are never estimated here.
    """
    return sum(map(_CHARS, messages))


def content_hash(message: Message) -> str:
    """A short stable hash of what a message says (role, content, tool calls, call id, name,
    parts); the stage that committed it does not count."""
    digest = hashlib.sha256()
    for part in (message.role, message.tool_call_id or "", message.name or "", message.content):
        digest.update(part.encode("utf-8", "backslashreplace"))
        digest.update(b"\x1f")
    if message.tool_calls:
        calls = [[c.id, c.name, c.arguments] for c in message.tool_calls]
        digest.update(
            json.dumps(calls, sort_keys=True, ensure_ascii=False, default=str).encode(
                "utf-8", "backslashreplace"
            )
        )
    if message.parts:
        parts = [[p.kind, p.text, p.data_chars] for p in message.parts]
        digest.update(json.dumps(parts, ensure_ascii=False).encode("utf-8", "backslashreplace"))
    return digest.hexdigest()[:16]
