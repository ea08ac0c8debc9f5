"""What every importer shares: the error, problem collection, safe usage numbers, tool-call
arguments kept as they are, and typed content parts.

Layer: importers. Two kinds of fault, one rule each:

* **Malformed** input (a field of the wrong type, a value JSON cannot carry, text nested deeper
  than :data:`MAX_DEPTH`) raises :class:`TranscriptError` naming the source, the message index
  and the field — never a raw ``TypeError`` or ``ValueError``.
* Input a provider would have **accepted** but that is wrong (an orphan result, a duplicate call
  id, arguments that are not an object, ``null`` text, an empty name, negative usage) is kept as
  it is and listed as an :class:`~footprint_lab.agent.run.ImportProblem` — or raises at the first
  one when the import is strict.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from footprint_lab.agent.run import ImportProblem
from footprint_lab.messages import ContentPart, ToolCall, arguments_json, storable_text
from footprint_lab.providers._common import UNPARSED_ARGUMENTS_KEY
from footprint_lab.usage import Usage

MAX_DEPTH = 64
"""Deepest nesting of lists and objects an imported value may have."""
MAX_INT_BITS = 8192
"""Largest integer (in bits) an imported value may carry (JSON text of it stays convertible)."""
MAX_USAGE = 2**63 - 1
"""Largest token count a usage field may report."""
TEXT_TYPES = frozenset({"text", "input_text", "output_text"})
"""Block types whose ``text`` is message text."""

_KINDS: dict[str, str] = {
    "image_url": "image",
    "input_image": "image",
    "image": "image",
    "document": "document",
    "file": "document",
    "input_file": "document",
    "input_audio": "audio",
    "audio": "audio",
    "thinking": "thinking",
    "redacted_thinking": "redacted-thinking",
    "refusal": "refusal",
}
_TEXT_FIELD: dict[str, str] = {"thinking": "thinking", "refusal": "refusal"}
_NESTED = ("source", "image_url", "input_image", "file", "input_audio", "audio")
_DATA_KEYS = ("data", "url", "image_url", "file_data", "file_url", "file_id")


class TranscriptError(ValueError):
    """An imported transcript is malformed (or, when strict, has a problem).

    Attributes:
        source: Where it came from ('openai', 'anthropic', 'langchain', 'tau-bench', ...).
        index: The message (or entry) index, or None for the transcript as a whole.
        field: The field, as a path inside the message.
        problem: What is wrong.
        path: The file, for file loaders (else None).
    """

    def __init__(
        self,
        source: str,
        index: int | None,
        field: str,
        problem: str,
        *,
        path: str | None = None,
    ) -> None:
        where = f"message {index}" if index is not None else "transcript"
        prefix = f"{path}: " if path is not None else ""
        super().__init__(f"{prefix}{source}: {where}, field {field!r}: {problem}")
        self.source = source
        self.index = index
        self.field = field
        self.problem = problem
        self.path = path


class Problems:
    """Collects what an import found wrong; raises at the first one when strict."""

    def __init__(self, source: str, *, strict: bool = False) -> None:
        """Start an empty collection for ``source``."""
        self.source = source
        self.strict = strict
        self.found: list[ImportProblem] = []

    def note(self, index: int | None, field: str, problem: str) -> None:
        """List a problem (kept as it is), or raise it when strict.

        Raises:
            TranscriptError: the import is strict.
        """
        if self.strict:
            raise TranscriptError(self.source, index, field, problem)
        self.found.append(
            ImportProblem(source=self.source, index=index, field=field, problem=problem)
        )

    def fail(self, index: int | None, field: str, problem: str) -> NoReturn:
        """Raise :class:`TranscriptError` for malformed input."""
        raise TranscriptError(self.source, index, field, problem)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def json_problem(value: Any) -> str | None:
    """Why ``value`` cannot be carried as JSON exactly (None when it can): a non-JSON type, a
    non-string key, NaN or infinity, a huge integer, or nesting deeper than :data:`MAX_DEPTH`."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, (bool, str)):
            continue
        if isinstance(item, int):
            if item.bit_length() > MAX_INT_BITS:
                return "an integer too large to carry"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{item!r} is not a JSON number"
        elif isinstance(item, (list, tuple, dict)):
            if depth >= MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            if isinstance(item, dict):
                if not all(isinstance(k, str) for k in item):
                    return "an object key that is not text"
                stack.extend((v, depth + 1) for v in item.values())
            else:
                stack.extend((v, depth + 1) for v in item)
        else:
            return f"a {type(item).__name__} is not a JSON value"
    return None


def text_of(value: Any, problems: Problems, index: int | None, field: str) -> str:
    """Text as given; ``null`` becomes ``""`` with a problem listed.

    Raises:
        TranscriptError: the value is neither text nor ``null``.
    """
    if isinstance(value, str):
        return value
    if value is None:
        problems.note(index, field, "null text, imported as empty text")
        return ""
    problems.fail(index, field, f"expected text, got {_short(value)}")


def optional_str(value: Any, problems: Problems, index: int | None, field: str) -> str | None:
    """A string field that may be absent (None).

    Raises:
        TranscriptError: the value is present and not text.
    """
    if value is None or isinstance(value, str):
        return value
    problems.fail(index, field, f"expected text, got {_short(value)}")


def usage_int(
    value: Any, problems: Problems, index: int | None, field: str, *, optional: bool = False
) -> int | None:
    """A token count as reported: an int (or an integral float) within range, negative
    included; absent is 0 (None when ``optional``).

    Raises:
        TranscriptError: not a number, not integral, not finite, or out of range.
    """
    if value is None:
        return None if optional else 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.fail(index, field, f"expected a token count, got {_short(value)}")
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        problems.fail(index, field, f"expected a whole token count, got {value!r}")
    if abs(value) > MAX_USAGE:
        problems.fail(index, field, f"token count {_short(value)} is out of range")
    return int(value)


def usage_from(
    raw: Any,
    counts: Mapping[str, tuple[Any, str]],
    problems: Problems,
    index: int,
    field: str,
) -> Usage | None:
    """The :class:`Usage` a reply reported, from ``counts`` (``Usage`` field -> (value as
    given, its field path)); None when nothing was reported.

    A negative count is listed as a problem with the report exactly as given, and the reply is
    recorded as not reporting usage (a run file holds no negative counts, and a strategy must
    not measure one).

    Raises:
        TranscriptError: the report is not an object, or a count is not a token count.
    """
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        problems.fail(index, field, "expected an object")
    values: dict[str, int | None] = {}
    negative: tuple[str, int] | None = None
    for name, (value, path) in counts.items():
        count = usage_int(value, problems, index, path, optional=name.startswith("cache"))
        if count is not None and count < 0 and negative is None:
            negative = (path, count)
        values[name] = count
    if negative is not None:
        given = repr(dict(raw))
        given = given if len(given) <= 500 else given[:497] + "..."
        problems.note(
            index,
            negative[0],
            f"negative token count {negative[1]}; the reply is recorded as not reporting "
            f"usage; as given: {given}",
        )
        return None
    return Usage.model_validate(values)


def _unparsed(text: str, problems: Problems, index: int, field: str, why: str) -> dict[str, Any]:
    problems.note(index, field, f"{why}; kept as text under {UNPARSED_ARGUMENTS_KEY!r}")
    return {UNPARSED_ARGUMENTS_KEY: text}


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def arguments_of(
    value: Any, problems: Problems, index: int, field: str, *, missing: bool = False
) -> dict[str, Any]:
    """Tool-call arguments kept as they are: an object as given; JSON text of an object parsed;
    anything else (text that is not JSON, JSON that is not an object, ``null``, a number ...)
    kept as its JSON text under ``UNPARSED_ARGUMENTS_KEY`` with a problem listed. Absent
    arguments and empty text mean no arguments.

    Raises:
        TranscriptError: the value cannot be carried as JSON (NaN, deep nesting, ...).
    """
    if missing or (isinstance(value, str) and not value.strip()):
        return {}
    if isinstance(value, str):
        try:
            parsed = json.loads(value, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc) or "too deep"
            return _unparsed(value, problems, index, field, f"not JSON ({why})")
        if not isinstance(parsed, dict):
            return _unparsed(value, problems, index, field, "JSON that is not an object")
        deep = json_problem(parsed)
        if deep is not None:
            return _unparsed(value, problems, index, field, f"arguments with {deep}")
        return parsed
    unfit = json_problem(value)
    if unfit is not None:
        problems.fail(index, field, f"arguments hold {unfit}")
    if isinstance(value, dict):
        return value
    return _unparsed(arguments_json(value), problems, index, field, "arguments not an object")


def _data_chars(block: Mapping[str, Any]) -> int | None:
    holders: list[Any] = [block, *(block.get(k) for k in _NESTED)]
    for n, holder in enumerate(holders):
        if n and isinstance(holder, str):
            return len(holder)
        if isinstance(holder, Mapping):
            for key in _DATA_KEYS:
                data = holder.get(key)
                if isinstance(data, str):
                    return len(data)
    return None


def content_part(
    block: Mapping[str, Any],
    problems: Problems,
    index: int | None,
    field: str,
    *,
    kind_of: str | None = None,
) -> ContentPart:
    """A typed block (image, document, audio, thinking, refusal, or a type we do not know)
    kept whole as a :class:`ContentPart`: its text when it has text, else the length of its
    encoded data or URL (of its compact JSON when it names neither). ``kind_of`` names the
    block's type when the block itself has none (an assistant's ``audio`` object).

    Raises:
        TranscriptError: the block cannot be carried as JSON, or its text is not text.
    """
    why = json_problem(block)
    if why is not None:
        problems.fail(index, field, f"block holds {why}")
    if kind_of is None:
        kind_of = str(block.get("type"))
    kind = _KINDS.get(kind_of, kind_of)
    original = dict(block)
    text_key = _TEXT_FIELD.get(kind_of)
    if text_key is not None:
        text = text_of(block.get(text_key), problems, index, f"{field}.{text_key}")
        return ContentPart(kind=kind, text=text, original=original)
    chars = _data_chars(block) if kind_of in _KINDS else None
    if chars is None:
        chars = len(arguments_json(block))
    return ContentPart(kind=kind, data_chars=chars, original=original)


def blocks_of(
    content: Any, problems: Problems, index: int | None, field: str
) -> list[Mapping[str, Any]]:
    """A content list whose items are all objects with a text ``type``.

    Raises:
        TranscriptError: it is not a list, or an item is not a typed object.
    """
    if not isinstance(content, list):
        problems.fail(index, field, f"expected a string or a list of blocks, got {_short(content)}")
    for k, block in enumerate(content):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            problems.fail(index, f"{field}[{k}]", "a block needs a type")
    return content


def text_and_parts(
    blocks: list[Mapping[str, Any]], problems: Problems, index: int, field: str
) -> tuple[str, list[ContentPart]]:
    """Text blocks joined as the text; every other block kept as a part."""
    texts: list[str] = []
    parts: list[ContentPart] = []
    for k, block in enumerate(blocks):
        if block["type"] in TEXT_TYPES:
            texts.append(text_of(block.get("text"), problems, index, f"{field}[{k}].text"))
        else:
            parts.append(content_part(block, problems, index, f"{field}[{k}]"))
    return "".join(texts), parts


class CallIds:
    """The tool calls seen so far: names results, and lists orphans and duplicate ids."""

    def __init__(self, problems: Problems) -> None:
        """Track calls for one import."""
        self.problems = problems
        self.names: dict[str, str] = {}

    def name(self, index: int, field: str, value: Any) -> str:
        """A tool name as given; an empty one is listed as a problem.

        Raises:
            TranscriptError: the name is not text.
        """
        if not isinstance(value, str):
            self.problems.fail(index, field, f"a tool name must be text, got {_short(value)}")
        if not value:
            self.problems.note(index, field, "empty tool name")
        return value

    def asked(self, calls: list[ToolCall], index: int, field: str) -> None:
        """Record the calls of one assistant message (a duplicate id inside it is listed;
        reusing an id of an earlier message is accepted)."""
        seen: set[str] = set()
        for k, call in enumerate(calls):
            if call.id in seen:
                self.problems.note(index, f"{field}[{k}].id", f"duplicate call id {call.id!r}")
            seen.add(call.id)
            self.names[call.id] = call.name

    def answered(self, call_id: str, index: int, field: str) -> str | None:
        """The name of the call ``call_id`` answers (None, with a problem listed, when no
        earlier assistant message made it)."""
        name = self.names.get(storable_text(call_id))
        if name is None:
            self.problems.note(
                index, field, f"orphan result: no earlier assistant message called {call_id!r}"
            )
        return name


def read_text_file(path: str | Path, source: str) -> str:
    """The UTF-8 text of ``path``, or :class:`TranscriptError` naming the file and the rule."""
    where = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise TranscriptError(
            source, None, "file", f"cannot read: {exc.strerror}", path=where
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptError(
            source, None, "file", f"not UTF-8 text (byte {exc.start})", path=where
        ) from None


def parse_json_text(text: str, source: str, where: str, field: str = "file") -> Any:
    """``text`` as JSON, or :class:`TranscriptError` saying where it stopped being JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(
            source,
            None,
            field,
            f"not JSON at line {exc.lineno} column {exc.colno}: {exc.msg} (truncated or corrupt?)",
            path=where,
        ) from None
    except RecursionError:
        raise TranscriptError(source, None, field, "JSON nested too deep", path=where) from None
    except ValueError as exc:  # e.g. an integer too long to convert
        raise TranscriptError(
            source, None, field, f"not readable JSON: {exc}", path=where
        ) from None


def read_json_file(path: str | Path, source: str) -> Any:
    """The JSON value in the UTF-8 file ``path``; any fault is a :class:`TranscriptError`
    naming the file (not UTF-8, not JSON, truncated, nested too deep)."""
    return parse_json_text(read_text_file(path, source), source, str(path))
