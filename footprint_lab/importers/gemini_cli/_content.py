"""The parts of a Gemini CLI message record: its content, its results, its usage, and the
types a record is read into.

Layer: importers (private to :mod:`footprint_lab.importers.gemini_cli`). A record's content is
Gemini's ``PartListUnion``: text, one part, or a list of parts (``text`` — a ``thought: true``
one is thinking —, ``functionCall``, ``functionResponse``, ``inlineData``, ``fileData`` ...).
What this module makes of one record does not depend on the records around it, so the same
record reads the same in the history and in every window that holds it; what depends on the
conversation (which call a result answers, duplicates) is :mod:`._thread`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._build import UserKind
from footprint_lab.importers._parts import (
    MAX_USAGE,
    Problems,
    json_value,
    optional_str,
    short,
    text_of,
    usage_int,
)
from footprint_lab.messages import ContentPart, Message, ToolCall, arguments_json
from footprint_lab.usage import Usage

__all__ = [
    "BINARY_ACK",
    "COMPRESSION_ACK",
    "MESSAGE_TYPES",
    "NOTICE_TYPES",
    "Call",
    "Converted",
    "Result",
    "Version",
    "content_of",
    "injected",
    "parts_of",
    "reply_key",
    "result_of",
    "span_of",
    "text_of_content",
    "tool_name",
    "typed_part",
    "usage_of",
]

MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
"""The message types Gemini CLI records."""
NOTICE_TYPES = frozenset({"info", "error", "warning"})
"""The types of the CLI's own notices (shown to the person, never sent to the model)."""
COMPRESSION_ACK = "Got it. Thanks for the additional context!"
"""The model turn Gemini CLI writes after a compression summary."""
BINARY_ACK = "Binary content received. Proceeding with analysis."
"""The thought Gemini CLI writes as a model turn before binary tool output it sends."""
_INJECTED_EXACT = frozenset({"Please continue.", "System: Please continue."})
_INJECTED_PREFIXES = (
    "<session_context>",
    "<hook_context>",
    "Here is the user's editor context",
    "Here is a summary of changes in the user's editor context",
    "I ran the following shell command:",
    "User has manually exited Plan Mode.",
    "Plan approved. Switching to",
    "Background execution update:",
    "- **Workspace Directories:**",
)
_MEDIA = {"image": "image", "audio": "audio", "video": "video"}
_INVISIBLE = re.compile("[\u200b-\u200d\ufeff\u200e\u200f]")
_COMMENT = re.compile(r"<!--[\s\S]*?-->")


def reply_key(message: Message) -> tuple[object, ...]:
    """What tells two versions of one reply apart: its text as Gemini CLI records it (zero-width
    characters and HTML comments removed, trimmed: the recorder writes a reply's text so, while
    a checkpoint writes the parts as sent) and its calls."""
    text = _INVISIBLE.sub("", message.content)
    previous = None
    while previous != text:
        previous, text = text, _COMMENT.sub("", text)
    calls = tuple((c.id, c.name, arguments_json(c.arguments)) for c in message.tool_calls)
    return (message.role, text.strip(), calls)


def injected(text: str) -> bool:
    """Whether a user message's text is one Gemini CLI writes itself (see the package
    docstring): its session and hook context, the next-speaker nudge, IDE context, the report
    of a shell command the person ran, plan-mode and background-task notes."""
    return text.strip() in _INJECTED_EXACT or text.lstrip().startswith(_INJECTED_PREFIXES)


@dataclass(frozen=True, eq=False)
class Version:
    """One version of a message record as the file gives it, and where."""

    raw: Mapping[str, Any]
    """The record."""
    index: int
    """Its place: the line (JSON lines, from 1) or its position in ``messages`` (from 0)."""
    prefix: str = ""
    """The path of the record inside that place (``$set.messages[2].`` ...)."""

    def at(self, name: str) -> str:
        """The field ``name`` of the record, as problems name it."""
        return f"{self.prefix}{name}"

    @property
    def id(self) -> str | None:
        """The record's id (None when it has none)."""
        value = self.raw.get("id")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Call:
    """One call of a reply, with the field of its id (for problems)."""

    call: ToolCall
    field: str


@dataclass(frozen=True)
class Result:
    """A tool result as the record gives it; the call it answers is settled in context."""

    call_id: str | None
    name: str | None
    text: str
    parts: list[ContentPart]
    index: int
    field: str
    from_status: bool = False
    """Made from the call's ``status`` (error, cancelled) where no result was recorded."""


@dataclass
class Converted:
    """What one record is in the conversation."""

    version: Version
    kind: str
    """'user', 'gemini', a notice type, or 'skipped' (nothing the model was sent)."""
    message: Message | None = None
    """The user or assistant message (None: results only, or nothing)."""
    results: list[Result] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    usage: Usage | None = None
    model: str | None = None
    user_kind: UserKind | None = None
    text: str = ""
    """The record's text (of a notice: what the person was shown)."""
    why: str | None = None
    """Why a record was skipped."""

    def keys(self) -> list[tuple[object, ...]]:
        """What the record sends, piece by piece on the wire (its message, each result): what
        tells a re-recorded copy (a new id, the same content) from a new message."""
        out: list[tuple[object, ...]] = []
        message = self.message
        if message is not None:
            out.append(reply_key(message) if message.role == "assistant" else (message.content,))
        out.extend(("tool", r.call_id, r.text) for r in self.results)
        return out


def parts_of(value: Any, problems: Problems, v: Version, name: str) -> list[Any]:
    """A ``PartListUnion`` as a list of parts (text as a text part)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"text": value}]
    if isinstance(value, Mapping):
        return [value]
    if not isinstance(value, list):
        problems.fail(v.index, v.at(name), f"expected text or parts, got {short(value)}")
    out: list[Any] = []
    for k, part in enumerate(value):
        if isinstance(part, str):
            out.append({"text": part})
        elif isinstance(part, Mapping):
            out.append(part)
        else:
            problems.fail(v.index, v.at(f"{name}[{k}]"), f"expected a part, got {short(part)}")
    return out


def tool_name(value: Any, problems: Problems, v: Version, at: str) -> str:
    """A tool name as given; an empty one is listed."""
    if not isinstance(value, str):
        problems.fail(v.index, v.at(at), f"a tool name must be text, got {short(value)}")
    if not value:
        problems.note(v.index, v.at(at), "empty tool name")
    return value


def typed_part(part: Mapping[str, Any], problems: Problems, v: Version, at: str) -> ContentPart:
    """A part that is not text: media at the length of its data, anything else at the length
    of its JSON, kept whole."""
    json_value(dict(part), problems, v.index, v.at(at))
    for key in ("inlineData", "fileData"):
        blob = part.get(key)
        if isinstance(blob, Mapping):
            mime = blob.get("mimeType")
            major = mime.split("/", 1)[0] if isinstance(mime, str) else ""
            data = blob.get("data" if key == "inlineData" else "fileUri")
            size = len(data) if isinstance(data, str) else len(arguments_json(dict(blob)))
            return ContentPart(
                kind=_MEDIA.get(major, "document"), data_chars=size, original=dict(part)
            )
    kind = next((k for k in part if k not in ("thoughtSignature", "thought")), "part")
    return ContentPart(kind=kind, data_chars=len(arguments_json(dict(part))), original=dict(part))


def _response_text(response: Any, problems: Problems, v: Version, at: str) -> str:
    """What a ``functionResponse.response`` says: its ``output`` text when that is all it
    holds, else its compact JSON."""
    json_value(response, problems, v.index, v.at(at))
    if response is None:
        return ""
    if isinstance(response, str):
        return response
    if isinstance(response, Mapping) and set(response) == {"output"}:
        output = response["output"]
        if isinstance(output, str):
            return output
    return arguments_json(response)


def span_of(parts: list[Any], call_id: str | None, name: str | None) -> tuple[int, int]:
    """Where a call's own result lies in ``parts``: its ``functionResponse`` (by id, else the
    first id-less one with its name, else the first) and the parts after it up to the next
    one; parts before the first response belong to the first. Gemini CLI may store a whole
    turn's responses on each call, so the list can hold other calls' results too."""
    responses = [k for k, p in enumerate(parts) if isinstance(p.get("functionResponse"), Mapping)]
    if not responses:
        return 0, len(parts)
    given = [parts[k]["functionResponse"] for k in responses]
    pick = next(
        (n for n, r in enumerate(given) if call_id is not None and r.get("id") == call_id), None
    )
    if pick is None:
        pick = next(
            (n for n, r in enumerate(given) if r.get("id") is None and r.get("name") == name), 0
        )
    start = 0 if pick == 0 else responses[pick]
    end = responses[pick + 1] if pick + 1 < len(responses) else len(parts)
    return start, end


def result_of(
    parts: list[Any],
    span: tuple[int, int],
    problems: Problems,
    v: Version,
    at: str,
    call: tuple[str | None, str | None],
) -> Result:
    """The result ``parts[span]`` holds: a ``functionResponse``'s text (and its own parts);
    text parts join its text, other parts are kept as parts."""
    call_id, name = call
    texts: list[str] = []
    kept: list[ContentPart] = []
    own_id, own_name, id_field = call_id, name, f"{at}[{span[0]}]"
    for k in range(*span):
        part, where = parts[k], f"{at}[{k}]"
        response = part.get("functionResponse")
        if isinstance(response, Mapping):
            got = f"{where}.functionResponse"
            given_id = optional_str(response.get("id"), problems, v.index, v.at(f"{got}.id"))
            given_name = optional_str(response.get("name"), problems, v.index, v.at(f"{got}.name"))
            if own_id is None and given_id is not None:
                own_id, id_field = given_id, f"{got}.id"
            own_name = own_name if own_name is not None else given_name
            texts.append(_response_text(response.get("response"), problems, v, f"{got}.response"))
            inner = parts_of(response.get("parts"), problems, v, f"{got}.parts")
            kept.extend(typed_part(p, problems, v, f"{got}.parts") for p in inner)
        elif "text" in part and part.get("thought") is not True:
            texts.append(text_of(part["text"], problems, v.index, v.at(f"{where}.text")))
        else:
            kept.append(typed_part(part, problems, v, where))
    return Result(own_id, own_name, "".join(texts), kept, v.index, v.at(id_field))


def content_of(
    v: Version, problems: Problems
) -> tuple[str, list[ContentPart], list[tuple[int, Mapping[str, Any]]]]:
    """The text, typed parts and ``functionCall`` parts of the record's content: text parts
    marked ``thought`` are thinking; any other part (media, a ``functionResponse`` where no
    result belongs ...) is kept as a typed part."""
    parts = parts_of(v.raw.get("content"), problems, v, "content")
    texts: list[str] = []
    kept: list[ContentPart] = []
    calls: list[tuple[int, Mapping[str, Any]]] = []
    for k, part in enumerate(parts):
        where = f"content[{k}]"
        if isinstance(part.get("functionCall"), Mapping):
            calls.append((k, part["functionCall"]))
        elif "text" in part:
            text = text_of(part["text"], problems, v.index, v.at(f"{where}.text"))
            if part.get("thought") is True:
                json_value(dict(part), problems, v.index, v.at(where))
                kept.append(ContentPart(kind="thinking", text=text, original=dict(part)))
            else:
                texts.append(text)
        else:
            kept.append(typed_part(part, problems, v, where))
    return "".join(texts), kept, calls


def text_of_content(v: Version) -> str:
    """The text of a record's content, for a notice (its text parts, else its JSON)."""
    value = v.raw.get("content")
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(
        isinstance(p, Mapping) and isinstance(p.get("text"), str) for p in value
    ):
        return "".join(p["text"] for p in value)
    return "" if value is None else arguments_json(value)


def usage_of(v: Version, problems: Problems) -> Usage | None:
    """``tokens`` as :class:`Usage` (see the package docstring for the mapping)."""
    raw = v.raw.get("tokens")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        problems.fail(v.index, v.at("tokens"), f"expected an object, got {short(raw)}")
    counts: dict[str, int | None] = {}
    for key in ("input", "output", "cached", "thoughts", "tool", "total"):
        counts[key] = usage_int(
            raw.get(key), problems, v.index, v.at(f"tokens.{key}"), optional=True
        )
    negative = next(((k, n) for k, n in counts.items() if n is not None and n < 0), None)
    if negative is not None:
        given = short(dict(raw))
        problems.note(
            v.index,
            v.at(f"tokens.{negative[0]}"),
            f"negative token count {negative[1]}; the reply is recorded as not reporting "
            f"usage; as given: {given}",
        )
        return None
    if all(n is None for n in counts.values()):
        return None
    sent = (counts["input"] or 0) + (counts["tool"] or 0)
    made = (counts["output"] or 0) + (counts["thoughts"] or 0)
    for total, what in ((sent, "input"), (made, "output")):
        if total > MAX_USAGE:
            problems.fail(v.index, v.at(f"tokens.{what}"), "token count is out of range")
    return Usage(input_tokens=sent, output_tokens=made, cache_read_tokens=counts["cached"])
