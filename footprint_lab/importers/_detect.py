"""Which stack wrote a file, and the one loader that reads any of them.

Layer: importers. :func:`detect_format` decides from a file's suffix and the start of its first
JSON value: the keys of the top-level object (or of a top-level list's first item), read by a
tokenizer over at most :data:`SNIFF_BYTES` bytes, never by parsing the whole file. So a file
that is truncated or corrupt *for its format* is still recognised, and :func:`load` hands it
to that format's loader, whose :class:`TranscriptError` names the file, the format (its
``source``), the index and the field. A file no format claims (not text, empty, JSON of another
shape) is a :class:`TranscriptError` from source ``'load'`` that says why and lists every
format tried.

How each format is told (first match wins):

* ``.traj`` -> ``swe-agent``; ``.eval`` -> ``inspect``, by the suffix alone (the loader
  checks the content).
* An object with ``"format": "footprint-lab/run"`` (or, cut before that key, the keys a saved
  run starts with) -> ``footprint-lab-run``; with ``resourceSpans`` -> ``otel``; with ``eval``
  and ``samples`` / ``status`` / ``version`` -> ``inspect``; with ``trajectory`` ->
  ``swe-agent``; with ``history`` (or ``instance_id`` beside ``test_result`` / ``instruction``
  / ``metadata``) -> ``openhands``; a one-line object with ``type`` and a Claude Code entry key
  (``uuid``, ``sessionId``, ``message``, ...) -> ``claude-code``.
* A list whose first item has ``traj`` or ``task_id`` -> ``tau-bench``; ``history``,
  ``action``, ``observation`` (or ``id`` and ``source``) -> ``openhands``.
* A folder holding tau-bench's ``gpt-4o-airline-dev.json`` -> ``tau-bench``.

Only the first value is read, so JSON lines (Claude Code, OpenHands, the collector's OTLP
files) are told by their first line.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from footprint_lab.agent.checkpoint import RunFileError, load_run
from footprint_lab.agent.run import FORMAT as RUN_FORMAT
from footprint_lab.agent.run import Run
from footprint_lab.importers._parts import TranscriptError
from footprint_lab.importers.claude_code import load_claude_code
from footprint_lab.importers.inspect import load_inspect
from footprint_lab.importers.openhands import load_openhands
from footprint_lab.importers.otel import load_otel
from footprint_lab.importers.swe_agent import load_swe_agent
from footprint_lab.importers.tau_bench import DEFAULT_FILE as TAU_BENCH_FILE
from footprint_lab.importers.tau_bench import load_tau_bench
from footprint_lab.reading.files import check_regular

__all__ = [
    "FORMATS",
    "LOADERS",
    "RUN_SOURCE",
    "SNIFF_BYTES",
    "SOURCE",
    "Format",
    "Loader",
    "detect_format",
    "folder_entries",
    "load",
]

Format = Literal[
    "swe-agent", "openhands", "inspect", "claude-code", "otel", "tau-bench", "footprint-lab-run"
]
"""A format :func:`load` reads; also the ``source`` of its loader's errors."""

FORMATS: dict[Format, str] = {
    "swe-agent": "SWE-agent trajectory: .traj, an object with trajectory / history",
    "openhands": "OpenHands events: a list of action/observation events, or objects with history",
    "inspect": "Inspect AI log: an .eval zip, or an object with eval and samples",
    "claude-code": "Claude Code session: JSON lines, each an entry with type and uuid / message",
    "otel": "OpenTelemetry traces: OTLP JSON with resourceSpans",
    "tau-bench": "tau-bench trajectories: a list of entries with task_id and traj",
    "footprint-lab-run": f'a run saved by run.save: "format": "{RUN_FORMAT}"',
}
"""Every format :func:`load` knows, with how it is told."""

SOURCE = "load"
"""The ``source`` of an error about a file no format claims."""
RUN_SOURCE: Format = "footprint-lab-run"
"""The ``source`` of an error about a saved run that does not load."""
SNIFF_BYTES = 1 << 20
"""How much of a file :func:`detect_format` reads."""


class Loader(Protocol):
    """What every format's loader is: a file (or folder) to runs."""

    def __call__(self, path: str | Path, *, strict: bool = False) -> list[Run]: ...


def _load_saved_run(path: str | Path, *, strict: bool = False) -> list[Run]:
    """A run saved with ``run.save``, as :func:`footprint_lab.load_run` reopens it.

    ``strict`` does not apply: a saved run is reopened as it was saved (its import problems,
    if any, were listed when it was imported).

    Raises:
        TranscriptError: the run file does not load (the place is the JSON path it names).
    """
    del strict
    try:
        return [load_run(path)]
    except RunFileError as exc:
        text = str(exc)
        head = f"{path}: "
        text = text[len(head) :] if text.startswith(head) else text
        # "<kind> — <where>: <rule>" names a place in the document; other faults the file.
        kind, dash, rest = text.partition(" — ")
        where, colon, rule = rest.partition(": ")
        if dash and colon:
            raise TranscriptError(
                RUN_SOURCE, None, where, f"{kind}: {rule}", path=str(path)
            ) from None
        raise TranscriptError(RUN_SOURCE, None, "file", text, path=str(path)) from None


LOADERS: dict[Format, Loader] = {
    "swe-agent": load_swe_agent,
    "openhands": load_openhands,
    "inspect": load_inspect,
    "claude-code": load_claude_code,
    "otel": load_otel,
    "tau-bench": load_tau_bench,
    "footprint-lab-run": _load_saved_run,
}
"""The loader of each format."""

_BY_SUFFIX: dict[str, Format] = {".traj": "swe-agent", ".eval": "inspect"}
"""Suffixes that decide alone (the loader checks the content)."""
_SKIPPED_STEMS = frozenset({"LICENSE", "LICENCE", "COPYING", "NOTICE", "README", "SOURCE"})
_SKIPPED_SUFFIXES = frozenset({".md", ".txt", ".rst"})
_RUN_KEYS = frozenset({"request", "requests", "phase", "iterations"})
"""Keys a saved run starts with (its ``format`` comes after its meta, which may be long)."""
_CLAUDE_KEYS = frozenset({"uuid", "parentUuid", "sessionId", "leafUuid", "message", "summary"})
_INSPECT_KEYS = frozenset({"samples", "status", "version", "plan", "results"})
_INSTANCE_KEYS = frozenset({"test_result", "instruction", "metadata"})
# One JSON token: a string (its closing quote missing where the prefix cuts it), punctuation,
# a bare word or number, or white space.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\],:]|[^\s"{}\[\],:]+|\s+')


@dataclass
class _Shape:
    """The start of a file's first JSON value."""

    kind: Literal["object", "list", "other", "empty"]
    keys: set[str] = field(default_factory=set)
    """An object's keys, or the keys of a list's first item (when that is an object)."""
    texts: dict[str, str] = field(default_factory=dict)
    """The keys above whose value is text, with the text."""
    one_line: bool = True
    """No line break inside the value (as far as it was read)."""


def _string(token: str) -> str:
    try:
        value = json.loads(token)
    except ValueError:
        return token[1:-1] if token.endswith('"') else token[1:]
    return value if isinstance(value, str) else token


def _shape(text: str) -> _Shape:
    """The shape of the first JSON value in ``text`` (which may stop anywhere in it)."""
    shape: _Shape | None = None
    depth = 0
    level = 0  # the depth whose keys are collected (1: an object; 2: a list's first item)
    expect_key = False
    key: str | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first.isspace():
            if shape is not None and "\n" in token:
                shape.one_line = False
            continue
        if shape is None:
            kind = {"{": "object", "[": "list"}.get(first)
            if kind is None:
                return _Shape("other")
            shape = _Shape("object" if kind == "object" else "list")
            depth, level, expect_key = 1, (1 if kind == "object" else 2), kind == "object"
            continue
        if shape.kind == "list" and depth == 1 and first != "{":
            return shape  # the first item is not an object (or there is none): no keys
        if first in "{[":
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
    return shape or _Shape("empty")


def _claim(shape: _Shape) -> Format | None:
    """The format a file of this shape is, or None."""
    keys = shape.keys
    if shape.kind == "object":
        given = shape.texts.get("format")
        if given == RUN_FORMAT or (given is None and keys >= _RUN_KEYS):
            return "footprint-lab-run"
        if "resourceSpans" in keys or "resource_spans" in keys:
            return "otel"
        if "eval" in keys and keys & _INSPECT_KEYS:
            return "inspect"
        if "trajectory" in keys:
            return "swe-agent"
        if "history" in keys or ("instance_id" in keys and keys & _INSTANCE_KEYS):
            return "openhands"
        if shape.one_line and "type" in keys and keys & _CLAUDE_KEYS:
            return "claude-code"
    if shape.kind == "list":
        if "traj" in keys or "task_id" in keys:
            return "tau-bench"
        if keys & {"history", "action", "observation"} or {"id", "source"} <= keys:
            return "openhands"
    return None


def _unknown(where: str, why: str) -> TranscriptError:
    """The error of a file no format claims: it names the file (``path``), says why, and lists
    every format tried (:data:`FORMATS`), each with how it is told."""
    tried = "; ".join(f"{name} ({how})" for name, how in FORMATS.items())
    return TranscriptError(
        SOURCE,
        None,
        "file",
        f"not a format footprint_lab reads: {why}; formats tried: {tried}",
        path=where,
    )


def _is_tau_folder(path: Path) -> bool:
    return path.is_dir() and (path / TAU_BENCH_FILE).is_file()


def detect_format(path: str | Path) -> Format:
    """The format of the file ``path`` (see the module docstring and :data:`FORMATS`).

    Raises:
        TranscriptError: the file cannot be read, or no format claims it (source ``'load'``;
            the message says why and lists every format tried).
    """
    source = Path(path)
    where = str(source)
    if _is_tau_folder(source):
        return "tau-bench"
    if source.is_dir():
        raise TranscriptError(
            SOURCE,
            None,
            "path",
            "a folder: pass a file (load reads a folder file by file)",
            path=where,
        )
    check_regular(source, SOURCE)
    by_suffix = _BY_SUFFIX.get(source.suffix.lower())
    if by_suffix is not None:
        return by_suffix
    try:
        with source.open("rb") as handle:
            data = handle.read(SNIFF_BYTES)
    except OSError as exc:
        raise TranscriptError(
            SOURCE, None, "path", f"cannot read: {exc.strerror or exc}", path=where
        ) from None
    if data.startswith(b"PK\x03\x04"):
        raise _unknown(where, "a zip archive (an Inspect log is read as an .eval file)")
    try:
        # The read may cut a character in two at its end: only a whole file must end whole.
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=len(data) < SNIFF_BYTES)
    except UnicodeDecodeError as exc:
        raise _unknown(where, f"not UTF-8 text (byte {exc.start})") from None
    shape = _shape(text)
    found = _claim(shape)
    if found is not None:
        return found
    if shape.kind == "empty":
        raise _unknown(where, "an empty file")
    if shape.kind == "other":
        raise _unknown(where, f"not JSON (it starts {text.lstrip()[:20]!r})")
    if not shape.keys:
        what = "an object without keys" if shape.kind == "object" else "a list of no objects"
        raise _unknown(where, f"JSON of no known shape ({what})")
    keys = ", ".join(sorted(shape.keys)[:8])
    what = "an object" if shape.kind == "object" else "a list of objects, the first"
    raise _unknown(where, f"JSON of no known shape ({what} with the keys {keys})")


def folder_entries(folder: Path) -> list[Path]:
    """What :func:`load` reads in ``folder``: every entry by name, less hidden ones and
    documentation (README, SOURCE, LICENSE ... and .md / .txt / .rst files)."""
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise TranscriptError(
            SOURCE, None, "path", f"cannot list the folder: {exc.strerror or exc}", path=str(folder)
        ) from None
    return [
        p
        for p in entries
        if not p.name.startswith(".")
        and p.stem.upper() not in _SKIPPED_STEMS
        and p.suffix.lower() not in _SKIPPED_SUFFIXES
    ]


def load(path: str | Path, *, strict: bool = False, tool_loop: bool = True) -> list[Run]:
    """Every run in ``path``, whatever stack wrote it, as a list: each file's format is
    detected (:func:`detect_format`), read by that format's loader, and named in each of its
    runs' ``meta["format"]``. A file may hold several runs, so the list has one per run it
    recorded: a saved run, a SWE-agent trajectory or a Claude Code session is one; an
    OpenHands file one per instance, an Inspect log one per sample (possibly none), an OTLP
    file one per root agent span, a tau-bench file one per trajectory. Unpack a one-run file
    as ``[run] = load(path)``.

    A folder is read entry by entry in name order (subfolders too), less hidden entries and
    documentation (README, SOURCE, LICENSE, .md ...); a tau-bench folder is its one file of
    trajectories.

    Args:
        path: A file, or a folder.
        strict: Passed to the format's loader: raise at the first problem instead of listing
            it in ``run.import_problems`` (a saved run is reopened as it was saved).
        tool_loop: Passed to the loaders of text-mode agents (SWE-agent, OpenHands): rebuild
            actions and observations written as text as tool calls and their results (False:
            keep the literal text, the observations still never requests).

    Raises:
        TranscriptError: naming the file, the format (``source``: the format's name, or
            ``'load'`` when no format claims the file, with the formats tried) and the place
            (``index``, ``field``).
    """
    source = Path(path)
    if source.is_dir() and not _is_tau_folder(source):
        entries = folder_entries(source)
        if not entries:
            raise TranscriptError(
                SOURCE, None, "path", "no transcript files in the folder", path=str(source)
            )
        return [run for entry in entries for run in load(entry, strict=strict, tool_loop=tool_loop)]
    found = detect_format(source)
    if found == "swe-agent":
        runs = load_swe_agent(source, strict=strict, tool_loop=tool_loop)
    elif found == "openhands":
        runs = load_openhands(source, strict=strict, tool_loop=tool_loop)
    else:
        runs = LOADERS[found](source, strict=strict)
    for run in runs:
        run.meta = {**run.meta, "format": found}
    return runs
