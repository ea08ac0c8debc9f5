"""What a format reads of a file before it claims it, and what a format is to the registry.

Layer: importers (private; below every format module and the registry in :mod:`._detect`).

A :class:`Sniff` is the start of a file, read once for every format: its first bytes, those
bytes as text when they are UTF-8, the shape of its first JSON value (:func:`shape_of`: the
keys of the top-level object, or of a top-level list's first item, read by a tokenizer, never
by parsing the whole file) and the shapes of its first JSON lines. A folder is sniffed by its
entry names. Each format module declares a :class:`FileFormat`: its name, how it is told, its
loader, a ``claims`` test on a sniff (exact: a format claims only files it reads) and a
``resembles`` test that, for a file nobody claims, says which stack it looks like and what to
do. So a file that is truncated or corrupt *for its format* is still recognised (the loader's
own error then names the place), and a foreign file is never read as the wrong stack.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal, Protocol

from footprint_lab.agent.run import Run

__all__ = [
    "MAX_LINES",
    "SNIFF_BYTES",
    "FileFormat",
    "Loader",
    "Shape",
    "Sniff",
    "shape_of",
    "sniff",
]

SNIFF_BYTES = 1 << 20
"""How much of a file a sniff reads."""
MAX_LINES = 64
"""How many non-blank lines :attr:`Sniff.lines` reads."""

# One JSON token: a string (its closing quote missing where the prefix cuts it), punctuation,
# a bare word or number, or white space.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\],:]|[^\s"{}\[\],:]+|\s+')
# Inside a value deeper than the keys being read, all up to the next bracket or line break (text
# whole, quotes respected): one match, where a log of a megabyte is a million tokens.
_DEEP = re.compile(r'(?:[^"{}\[\]\n]+|"[^"\\]*(?:\\.[^"\\]*)*"?)+')


class Loader(Protocol):
    """What every format's loader is: a file (or folder) to runs."""

    def __call__(self, path: str | Path, *, strict: bool = False) -> list[Run]: ...


@dataclass
class Shape:
    """The start of a JSON value."""

    kind: Literal["object", "list", "other", "empty"]
    """What the value is (``other``: not JSON at all; ``empty``: nothing but white space)."""
    keys: set[str] = field(default_factory=set)
    """An object's keys, or the keys of a list's first item (when that is an object)."""
    texts: dict[str, str] = field(default_factory=dict)
    """The keys above whose value is text, with the text."""
    one_line: bool = True
    """No line break inside the value (as far as it was read)."""

    def text(self, key: str) -> str | None:
        """The text value of ``key`` (None when absent or not text)."""
        return self.texts.get(key)


def _string(token: str) -> str:
    try:
        value = json.loads(token)
    except ValueError:
        return token[1:-1] if token.endswith('"') else token[1:]
    return value if isinstance(value, str) else token


_DECODER = json.JSONDecoder()

_CUT = -1
"""What :func:`_skip_value` returns for a value that is JSON up to where the text stops."""


def _skip_value(text: str, start: int) -> int | None:
    """Where the JSON value at ``start`` ends; :data:`_CUT` when it is JSON up to the end of
    ``text`` (a sniff cut it: nothing after it can be read); None when it is not JSON (then
    the tokenizer reads on, as lenient as before)."""
    try:
        return _DECODER.raw_decode(text, start)[1]
    except json.JSONDecodeError as exc:
        # The decoder stops at the first fault: a string it found no end of, or a value or
        # delimiter expected where the text stops, means all before it was JSON, so the value
        # runs to the end. A character JSON forbids is a fault wherever it stands (a raw line
        # break inside a string at the very end is no line break between tokens).
        if exc.msg.startswith("Unterminated string"):
            return _CUT
        if exc.msg.startswith("Expecting") and exc.pos >= len(text.rstrip()):
            return _CUT
        return None
    except ValueError:
        return None


def shape_of(text: str) -> Shape:
    """The shape of the first JSON value in ``text`` (which may stop anywhere in it)."""
    shape: Shape | None = None
    depth = 0
    level = 0  # the depth whose keys are collected (1: an object; 2: a list's first item)
    expect_key = False
    key: str | None = None
    pos, end = 0, len(text)
    while pos < end:
        if depth > level:
            deep = _DEEP.match(text, pos)
            if deep is not None:
                pos = deep.end()
                continue
        match = _TOKEN.match(text, pos)
        assert match is not None  # every character starts a token
        token = match.group()
        pos = match.end()
        first = token[0]
        if first.isspace():
            if shape is not None and "\n" in token:
                shape.one_line = False
            continue
        if shape is None:
            kind = {"{": "object", "[": "list"}.get(first)
            if kind is None:
                return Shape("other")
            shape = Shape("object" if kind == "object" else "list")
            depth, level, expect_key = 1, (1 if kind == "object" else 2), kind == "object"
            continue
        if shape.kind == "list" and depth == 1 and first != "{":
            return shape  # the first item is not an object (or there is none): no keys
        if first in "{[":
            if depth == level:
                # a value under a key being read: skipped whole by the C decoder when it is
                # JSON (valid JSON has a line break only between tokens), else read on
                skipped = _skip_value(text, match.start())
                if skipped == _CUT:
                    # JSON to the end: a line break there lies between tokens
                    shape.one_line = shape.one_line and "\n" not in text[match.start() :]
                    return shape
                if skipped is not None:
                    if "\n" in text[match.start() : skipped]:
                        shape.one_line = False
                    pos, key, expect_key = skipped, None, False
                    continue
            depth += 1
            key = None
            expect_key = depth == level and first == "{"
            continue
        if first in "}]":
            depth -= 1
            if depth == 0 or depth < level:
                return shape  # the first value (or the list's first item) is complete
            continue
        if depth != level:
            continue
        if first == ",":
            expect_key, key = True, None
        elif first == ":":
            expect_key = False
        elif first == '"' and expect_key:
            key = _string(token)
            shape.keys.add(key)
        elif first == '"' and key is not None:
            shape.texts[key] = _string(token)
    return shape or Shape("empty")


@dataclass(frozen=True)
class Sniff:
    """The start of one file (or the entries of one folder), read once for every format."""

    path: Path
    """The file or folder."""
    head: bytes = b""
    """Its first :data:`SNIFF_BYTES` bytes (empty for a folder)."""
    text: str | None = None
    """``head`` as UTF-8 text (None: not UTF-8, or a folder)."""
    complete: bool = True
    """Whether ``head`` is the whole file."""
    entries: frozenset[str] = frozenset()
    """A folder's entry names (empty for a file)."""
    is_dir: bool = False
    """Whether ``path`` is a folder."""

    @property
    def name(self) -> str:
        """The file name, lower case."""
        return self.path.name.lower()

    @cached_property
    def first(self) -> Shape:
        """The shape of the first JSON value (kind ``other`` when the text is not JSON)."""
        return shape_of(self.text) if self.text is not None else Shape("other")

    @cached_property
    def lines(self) -> tuple[Shape, ...]:
        """The shapes of the first :data:`MAX_LINES` non-blank lines, each read alone (JSON
        lines formats are told by them); empty when the first value spans lines."""
        if self.text is None or not self.first.one_line:
            return ()
        out: list[Shape] = []
        for line in self.text.split("\n"):
            if line.strip():
                out.append(shape_of(line))
                if len(out) == MAX_LINES:
                    break
        return tuple(out)

    def first_lines(self, count: int) -> list[str]:
        """The first ``count`` lines of text (empty when the file is not text)."""
        if self.text is None:
            return []
        return self.text.split("\n", count)[:count]


def sniff(path: Path) -> Sniff:
    """Read the start of ``path`` (a regular file already checked, or a folder).

    Raises:
        OSError: the file or folder cannot be read.
    """
    if path.is_dir():
        names = frozenset(entry.name for entry in path.iterdir())
        return Sniff(path, entries=names, is_dir=True)
    with path.open("rb") as handle:
        data = handle.read(SNIFF_BYTES)
    complete = len(data) < SNIFF_BYTES
    try:
        # The read may cut a character in two at its end: only a whole file must end whole.
        text: str | None = codecs.getincrementaldecoder("utf-8")().decode(data, final=complete)
    except UnicodeDecodeError:
        text = None
    return Sniff(path, data, text, complete)


@dataclass(frozen=True)
class FileFormat:
    """One format the registry knows: how it is told and how it is read."""

    name: str
    """Its name (``detect_format``'s answer, ``run.origin.format``, its loader's error source)."""
    told_by: str
    """How it is told, in a few words (listed in the error of a file no format claims)."""
    loader: Loader
    """Its loader."""
    claims: Callable[[Sniff], bool]
    """Whether it reads the sniffed file. Exact: no two formats claim one file."""
    resembles: Callable[[Sniff], str | None] = lambda _: None
    """For a file no format claims: a sentence naming this stack and what to do, when the
    file looks like it (else None)."""
    tool_loop: bool = False
    """Whether the loader takes ``tool_loop=`` (a text-mode agent's actions rebuilt as calls)."""
    folders: bool = False
    """Whether it claims folders (read whole, as one source)."""
