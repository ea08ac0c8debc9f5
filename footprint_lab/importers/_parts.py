"""What every importer shares: the error, problem collection, safe usage numbers, tool-call
arguments kept as they are, typed content parts, the small validators, reading files and
folders, and renaming what a nested import found.

Layer: importers. Two kinds of fault, one rule each:

* **Malformed** input (a field of the wrong type, a value JSON cannot carry, text nested deeper
  than :data:`MAX_DEPTH`) raises :class:`TranscriptError` naming the source, the index and the
  field — never a raw ``TypeError`` or ``ValueError``.
* Input a provider would have **accepted** but that is wrong (an orphan result, a duplicate call
  id, arguments that are not an object, ``null`` text, an empty name, negative usage) is kept as
  it is and listed as an :class:`~footprint_lab.agent.run.ImportProblem` — or raises at the first
  one when the import is strict.

Every importer names places the same way: ``index`` counts what its source counts (a message,
an entry, a line, a sample, an event, a span: the error's ``unit``) and ``field`` is the path
inside it. An importer that hands part of its input to another (SWE-agent history to the
OpenAI importer, Claude Code entries to the Anthropic one) renames what that one found with
:func:`nested`, so an error and a listed problem always name the same place.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, overload

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

    The text reads ``[path: ]source: <unit> <index>, field '<field>': <problem>`` (``transcript``
    in place of the unit and index when the index is None).

    Attributes:
        source: Where it came from ('openai', 'anthropic', 'langchain', 'tau-bench', ...).
        index: The position of the item at fault (its ``unit``), or None for the transcript as
            a whole.
        field: The field, as a path inside that item.
        problem: What is wrong.
        path: The file, for file loaders (else None).
        unit: What ``index`` counts: 'message' (the default), 'entry', 'line', 'sample',
            'event', 'span'.
    """

    def __init__(
        self,
        source: str,
        index: int | None,
        field: str,
        problem: str,
        *,
        path: str | None = None,
        unit: str = "message",
    ) -> None:
        where = f"{unit} {index}" if index is not None else "transcript"
        prefix = f"{path}: " if path is not None else ""
        super().__init__(f"{prefix}{source}: {where}, field {field!r}: {problem}")
        self.source = source
        self.index = index
        self.field = field
        self.problem = problem
        self.path = path
        self.unit = unit


class Problems:
    """Collects what an import found wrong; raises at the first one when strict."""

    def __init__(self, source: str, *, strict: bool = False, unit: str = "message") -> None:
        """Start an empty collection for ``source``, whose indices count ``unit`` s."""
        self.source = source
        self.strict = strict
        self.unit = unit
        self.found: list[ImportProblem] = []

    def note(self, index: int | None, field: str, problem: str) -> None:
        """List a problem (kept as it is), or raise it when strict.

        Raises:
            TranscriptError: the import is strict.
        """
        if self.strict:
            raise TranscriptError(self.source, index, field, problem, unit=self.unit)
        self.found.append(
            ImportProblem(source=self.source, index=index, field=field, problem=problem)
        )

    def fail(self, index: int | None, field: str, problem: str) -> NoReturn:
        """Raise :class:`TranscriptError` for malformed input."""
        raise TranscriptError(self.source, index, field, problem, unit=self.unit)


def ordered(
    found: Iterable[ImportProblem], *, strict: bool, unit: str = "message"
) -> list[ImportProblem]:
    """Problems in index order (those of the transcript as a whole first; ties keep the
    order found); when ``strict``, the first of them raised.

    For an importer that collects every problem before deciding (its own and a nested
    import's, found in different passes), so that a strict import raises the problem a
    lenient one lists first.

    Raises:
        TranscriptError: ``strict`` and a problem was found (its ``unit`` as given).
    """
    listed = sorted(found, key=lambda p: -1 if p.index is None else p.index)
    if strict and listed:
        first = listed[0]
        raise TranscriptError(first.source, first.index, first.field, first.problem, unit=unit)
    return listed


Place = Callable[[int | None, str], tuple[int | None, str]]
"""Maps a place (index, field) in a nested import's input to the outer import's place."""


def item_field(prefix: str, index: int | None, field: str) -> str:
    """``field`` of item ``index`` of the list ``prefix`` (``history[3].content``), or of the
    list itself when ``index`` is None (``history.messages``)."""
    return f"{prefix}[{index}].{field}" if index is not None else f"{prefix}.{field}"


@overload
def nested(
    found: TranscriptError,
    source: str,
    place: Place | None = None,
    *,
    unit: str | None = None,
    path: str | None = None,
) -> TranscriptError: ...


@overload
def nested(
    found: Iterable[ImportProblem],
    source: str,
    place: Place | None = None,
    *,
    unit: str | None = None,
    path: str | None = None,
) -> list[ImportProblem]: ...


def nested(
    found: TranscriptError | Iterable[ImportProblem],
    source: str,
    place: Place | None = None,
    *,
    unit: str | None = None,
    path: str | None = None,
) -> TranscriptError | list[ImportProblem]:
    """What a nested import found (its error, or its problems), named as the outer import
    names places: ``place`` maps each (index, field) to the outer one (default: unchanged),
    and ``source`` replaces the inner source.

    Both go through the same ``place``, so a strict import's error and the problem a lenient
    one lists name the same place. An error also gets the outer ``unit`` (default: its own)
    and the file ``path`` (kept when it already names one); raise it ``from None``.

    Args:
        found: A :class:`TranscriptError`, or the :class:`ImportProblem` s of the nested import.
        source: The outer importer's source.
        place: (inner index, inner field) -> (outer index, outer field).
        unit: What the outer index counts (errors only).
        path: The file (errors only).
    """
    where = place or (lambda index, field: (index, field))
    if isinstance(found, TranscriptError):
        index, field = where(found.index, found.field)
        return TranscriptError(
            source,
            index,
            field,
            found.problem,
            path=found.path if found.path is not None else path,
            unit=found.unit if unit is None else unit,
        )
    out: list[ImportProblem] = []
    for problem in found:
        index, field = where(problem.index, problem.field)
        out.append(ImportProblem(source=source, index=index, field=field, problem=problem.problem))
    return out


def short(value: Any) -> str:
    """``repr(value)``, cut to 60 characters: how an error quotes a value it rejects."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def reject_constant(name: str) -> NoReturn:
    """``parse_constant`` for :func:`json.loads`: NaN and infinities are not JSON.

    Raises:
        ValueError: always.
    """
    raise ValueError(f"{name} is not JSON")


def object_of(value: Any, problems: Problems, index: int | None, field: str) -> Mapping[str, Any]:
    """An object field that may be absent (then empty).

    Raises:
        TranscriptError: present and not an object.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.fail(index, field, f"expected an object, got {short(value)}")
    return value


def text_or_empty(value: Any, problems: Problems, index: int | None, field: str) -> str:
    """A text field that may be absent (then empty); unlike :func:`text_of`, a ``null`` here
    is no problem (the source writes it for "none").

    Raises:
        TranscriptError: present and not text.
    """
    return optional_str(value, problems, index, field) or ""


def int_of(value: Any, problems: Problems, index: int | None, field: str) -> int:
    """An integer field (a boolean is not one).

    Raises:
        TranscriptError: not an integer.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        problems.fail(index, field, f"expected an integer, got {short(value)}")
    return value


def json_value(value: Any, problems: Problems, index: int | None, field: str) -> Any:
    """``value`` as given, when JSON can carry it exactly (see :func:`json_problem`).

    Raises:
        TranscriptError: it cannot (NaN, a huge integer, deep nesting, ...).
    """
    why = json_problem(value)
    if why is not None:
        problems.fail(index, field, f"holds {why}")
    return value


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
    problems.fail(index, field, f"expected text, got {short(value)}")


def optional_str(value: Any, problems: Problems, index: int | None, field: str) -> str | None:
    """A string field that may be absent (None).

    Raises:
        TranscriptError: the value is present and not text.
    """
    if value is None or isinstance(value, str):
        return value
    problems.fail(index, field, f"expected text, got {short(value)}")


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
        problems.fail(index, field, f"expected a token count, got {short(value)}")
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        problems.fail(index, field, f"expected a whole token count, got {value!r}")
    if abs(value) > MAX_USAGE:
        problems.fail(index, field, f"token count {short(value)} is out of range")
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


def message_list(value: Any, problems: Problems, what: str = "message objects") -> Sequence[Any]:
    """``value``, a list of messages (any sequence but text).

    Raises:
        TranscriptError: it is not one (field ``messages``).
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        problems.fail(None, "messages", f"expected a list of {what}")
    return value


def usage_by_keys(
    raw: Any, keys: Mapping[str, str], problems: Problems, index: int, field: str
) -> Usage | None:
    """:func:`usage_from` for a report whose counts sit directly in it: ``keys`` maps each
    ``Usage`` field to the report's key for it, and each count's field is ``{field}.{key}``.

    Raises:
        TranscriptError: as :func:`usage_from`.
    """
    counts = (
        {name: (raw.get(key), f"{field}.{key}") for name, key in keys.items()}
        if isinstance(raw, Mapping)
        else {}
    )
    return usage_from(raw, counts, problems, index, field)


def _unparsed(text: str, problems: Problems, index: int, field: str, why: str) -> dict[str, Any]:
    problems.note(index, field, f"{why}; kept as text under {UNPARSED_ARGUMENTS_KEY!r}")
    return {UNPARSED_ARGUMENTS_KEY: text}


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
            parsed = json.loads(value, parse_constant=reject_constant)
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
        problems.fail(index, field, f"expected a string or a list of blocks, got {short(content)}")
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
            self.problems.fail(index, field, f"a tool name must be text, got {short(value)}")
        if not value:
            self.problems.note(index, field, "empty tool name")
        return value

    def asked(
        self,
        calls: list[ToolCall],
        index: int,
        field: str,
        positions: Sequence[int] | None = None,
    ) -> None:
        """Record the calls of one assistant message (a duplicate id inside it is listed;
        reusing an id of an earlier message is accepted).

        Args:
            calls: The message's calls, in order.
            index: The message's index.
            field: The list the calls came from (``tool_calls``, ``content``).
            positions: Each call's index in that list, where the list holds more than calls
                (content blocks); by default a call's position among the calls.
        """
        seen: set[str] = set()
        for k, call in enumerate(calls):
            if call.id in seen:
                at = k if positions is None else positions[k]
                self.problems.note(index, f"{field}[{at}].id", f"duplicate call id {call.id!r}")
            seen.add(call.id)
            self.names[call.id] = call.name

    def result_name(
        self, call_id: str, given: Any, index: int, id_field: str, name_field: str
    ) -> str:
        """The tool name of a result: the name it gives (checked as :meth:`name` checks it),
        else the name of the call it answers (see :meth:`answered`), else ``'unknown'``.

        Raises:
            TranscriptError: the given name is present and not text.
        """
        name = optional_str(given, self.problems, index, name_field)
        if name is not None:
            self.name(index, name_field, name)
        known = self.answered(call_id, index, id_field)
        return name if name is not None else known or "unknown"

    def answered(self, call_id: str, index: int, field: str) -> str | None:
        """The name of the call ``call_id`` answers (None, with a problem listed, when no
        earlier assistant message made it)."""
        name = self.names.get(storable_text(call_id))
        if name is None:
            self.problems.note(
                index, field, f"orphan result: no earlier assistant message called {call_id!r}"
            )
        return name


def files_in(path: str | Path, suffixes: Sequence[str], source: str) -> list[Path]:
    """The files a folder loader reads: ``path`` itself when it is a file, else every file
    directly in the folder ``path`` whose suffix is one of ``suffixes``, sorted by name.

    Raises:
        TranscriptError: ``path`` does not exist or cannot be listed, or the folder holds no
            such file (naming the path and the suffixes looked for).
    """
    source_path = Path(path)
    where = str(source_path)
    looked_for = " or ".join(suffixes)
    try:
        if not source_path.is_dir():
            source_path.stat()  # a missing path is named here, not as a file that won't read
            return [source_path]
        found = [p for p in source_path.iterdir() if p.suffix in suffixes and p.is_file()]
    except OSError as exc:
        raise TranscriptError(
            source,
            None,
            "path",
            f"cannot read: {exc.strerror or exc} (looking for a {looked_for} file or a folder "
            "of them)",
            path=where,
        ) from None
    if not found:
        raise TranscriptError(
            source, None, "path", f"no {looked_for} files in the folder", path=where
        )
    return sorted(found, key=lambda p: p.name)


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
