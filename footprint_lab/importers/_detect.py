"""Which stack wrote a file, and the one loader that reads any of them: the format registry.

Layer: importers. Each format lives in its own module and declares a
:class:`~footprint_lab.importers._sniff.FileFormat` (``FILE_FORMAT``): its name, how it is
told, its loader and a ``claims`` test on the start of a file (a
:class:`~footprint_lab.importers._sniff.Sniff`: the first bytes, the shape of the first JSON
value, the first JSON lines), the way Inspect's log recorders each claim a location.
:func:`detect_format` sniffs a file once and asks each format in turn (:data:`REGISTRY`); the
claims are exact, so no file is claimed by two formats (a property the tests hold on every
file in ``data/``). A file that is truncated or corrupt *for its format* is still claimed and
handed to that format's loader, whose :class:`TranscriptError` names the file, the format (its
``source``), the index and the field.

A file no format claims is a :class:`TranscriptError` from source ``'load'`` that names the
file, says why (not text, empty, JSON of another shape), names the stacks it resembles and what
to do (each format's ``resembles``: "it looks like a Codex CLI rollout: ..."), and lists every
format tried. A folder is read entry by entry unless a format claims the folder itself (an
OpenHands V1 conversation, a tau-bench results folder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, cast

from footprint_lab.agent.origin import Import
from footprint_lab.agent.run import Run
from footprint_lab.importers import (
    aider,
    claude_code,
    codex,
    gemini_cli,
    inspect,
    mini_swe_agent,
    openhands,
    openhands_v1,
    otel,
    pi,
    saved_run,
    swe_agent,
    tau_bench,
)
from footprint_lab.importers._parts import TranscriptError
from footprint_lab.importers._sniff import SNIFF_BYTES, FileFormat, Loader, Sniff, sniff
from footprint_lab.importers.chat import responses
from footprint_lab.reading.files import check_regular
from footprint_lab.reading.paths import path_text

__all__ = [
    "FORMATS",
    "LOADERS",
    "REGISTRY",
    "RUN_SOURCE",
    "SNIFF_BYTES",
    "SOURCE",
    "Format",
    "Loader",
    "detect_format",
    "folder_entries",
    "format_of",
    "is_whole_folder",
    "load",
]

Format = Literal[
    "swe-agent",
    "mini-swe-agent",
    "openhands",
    "openhands-v1",
    "inspect",
    "claude-code",
    "codex",
    "gemini-cli",
    "openai-responses",
    "aider",
    "pi",
    "otel",
    "tau-bench",
    "footprint-lab-run",
]
"""A format :func:`load` reads; also the ``source`` of its loader's errors."""

REGISTRY: tuple[FileFormat, ...] = (
    saved_run.FILE_FORMAT,
    otel.FILE_FORMAT,
    inspect.FILE_FORMAT,
    swe_agent.FILE_FORMAT,
    mini_swe_agent.FILE_FORMAT,
    openhands.FILE_FORMAT,
    openhands_v1.FILE_FORMAT,
    claude_code.FILE_FORMAT,
    codex.FILE_FORMAT,
    gemini_cli.FILE_FORMAT,
    pi.FILE_FORMAT,
    responses.FILE_FORMAT,
    aider.FILE_FORMAT,
    tau_bench.FILE_FORMAT,
)
"""Every format :func:`load` reads, each claiming its own files."""

FORMATS: dict[Format, str] = {cast("Format", f.name): f.told_by for f in REGISTRY}
"""Every format :func:`load` knows, with how it is told."""
LOADERS: dict[Format, Loader] = {cast("Format", f.name): f.loader for f in REGISTRY}
"""The loader of each format."""

SOURCE = "load"
"""The ``source`` of an error about a file no format claims."""
RUN_SOURCE: Format = "footprint-lab-run"
"""The ``source`` of an error about a saved run that does not load."""

_SKIPPED_STEMS = frozenset({"LICENSE", "LICENCE", "COPYING", "NOTICE", "README", "SOURCE"})
_SKIPPED_SUFFIXES = frozenset({".md", ".txt", ".rst"})


def format_of(found: Sniff) -> FileFormat | None:
    """The format that claims the sniffed file or folder, or None."""
    for candidate in REGISTRY:
        if (candidate.folders or not found.is_dir) and candidate.claims(found):
            return candidate
    return None


def _unknown(found: Sniff, why: str) -> TranscriptError:
    """The error of a file no format claims: it names the file (``path``), says why, names
    the stacks it resembles with what to do, and lists every format tried."""
    hints = [hint for f in REGISTRY if (hint := f.resembles(found)) is not None]
    said = "".join(f"; {hint}" for hint in hints)
    tried = "; ".join(f"{name} ({how})" for name, how in FORMATS.items())
    return TranscriptError(
        SOURCE,
        None,
        "file",
        f"not a format footprint_lab reads: {why}{said}; formats tried: {tried}",
        path=str(found.path),
    )


def _why(found: Sniff) -> str:
    """Why no format claims a file, in a few words."""
    if found.head.startswith(b"PK\x03\x04"):
        return "a zip archive (an Inspect log is read as an .eval file)"
    if found.text is None:
        try:
            found.head.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"not UTF-8 text (byte {exc.start})"
        return "not UTF-8 text"
    shape = found.first
    if shape.kind == "empty":
        return "an empty file"
    if shape.kind == "other":
        return f"not JSON (it starts {found.text.lstrip()[:20]!r})"
    if not shape.keys:
        what = "an object without keys" if shape.kind == "object" else "a list of no objects"
        return f"JSON of no known shape ({what})"
    keys = ", ".join(sorted(shape.keys)[:8])
    what = "an object" if shape.kind == "object" else "a list of objects, the first"
    return f"JSON of no known shape ({what} with the keys {keys})"


def _sniffed(source: Path) -> Sniff:
    try:
        return sniff(source)
    except OSError as exc:
        raise TranscriptError(
            SOURCE, None, "path", f"cannot read: {exc.strerror or exc}", path=str(source)
        ) from None


def _folder_format(source: Path) -> FileFormat | None:
    """The format that claims the folder ``source`` whole, or None."""
    found = _sniffed(source)
    return next((f for f in REGISTRY if f.folders and f.claims(found)), None)


def detect_format(path: str | Path) -> Format:
    """The format of the file (or folder read whole) ``path``: the one format of
    :data:`REGISTRY` that claims it.

    Raises:
        TranscriptError: the file cannot be read, or no format claims it (source ``'load'``;
            the message says why, names the stacks it resembles and lists every format tried).
    """
    source = Path(path)
    if source.is_dir():
        whole = _folder_format(source)
        if whole is not None:
            return cast("Format", whole.name)
        raise TranscriptError(
            SOURCE,
            None,
            "path",
            "a folder: pass a file (load reads a folder file by file)",
            path=str(source),
        )
    check_regular(source, SOURCE)
    found = _sniffed(source)
    claimed = format_of(found)
    if claimed is None:
        raise _unknown(found, _why(found))
    return cast("Format", claimed.name)


def _claimed(path: Path) -> bool:
    """Whether a format claims ``path`` (a file skipped by its name is read when one does)."""
    try:
        check_regular(path, SOURCE)
        return format_of(sniff(path)) is not None
    except (TranscriptError, OSError):
        return False


def folder_entries(folder: Path) -> list[Path]:
    """What :func:`load` reads in ``folder``: every entry by name, less hidden ones and
    documentation (README, SOURCE, LICENSE ... and .md / .txt / .rst files) — unless a format
    claims the file (an Aider chat history is a ``.md`` file, often hidden)."""
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise TranscriptError(
            SOURCE, None, "path", f"cannot list the folder: {exc.strerror or exc}", path=str(folder)
        ) from None
    kept: list[Path] = []
    for entry in entries:
        skipped = (
            entry.name.startswith(".")
            or entry.stem.upper() in _SKIPPED_STEMS
            or entry.suffix.lower() in _SKIPPED_SUFFIXES
        )
        if not skipped or (entry.is_file() and _claimed(entry)):
            kept.append(entry)
    return kept


def is_whole_folder(path: Path) -> bool:
    """Whether ``path`` is a folder read whole, as one source: a format claims the folder and
    none of its files is a source of its own (an OpenHands V1 conversation: its event files
    are parts of it). A tau-bench folder is claimed too, but its results file is a source
    itself, so it is read file by file, as any folder is (the same runs)."""
    if not path.is_dir() or _folder_format(path) is None:
        return False
    try:
        files = [entry for entry in path.iterdir() if entry.is_file()]
    except OSError:
        return False
    return not any(_claimed(entry) for entry in files)


def load(path: str | Path, *, strict: bool = False, tool_loop: bool = True) -> list[Run]:
    """Every run in ``path``, whatever stack wrote it, as a list: each file's format is
    detected (:func:`detect_format`), read by that format's loader, and named in each of its
    runs' origin (``run.origin.format``, with the path). A file may hold several runs, so the
    list has one per run it recorded: a saved run, a SWE-agent trajectory or a Claude Code
    session is one; an OpenHands file one per instance, an Inspect log one per sample
    (possibly none), an OTLP file one per root agent span, a tau-bench file one per trajectory,
    an Aider history one per session. Unpack a one-run file as ``[run] = load(path)``.

    A folder is read entry by entry in name order (subfolders too), less hidden entries and
    documentation (README, SOURCE, LICENSE, .md ... unless a format claims the file); a folder
    a format reads whole (an OpenHands V1 conversation, a tau-bench folder) is that source.

    Args:
        path: A file, or a folder.
        strict: Passed to the format's loader: raise at the first problem instead of listing
            it in ``run.import_problems`` (a saved run is reopened as it was saved).
        tool_loop: Passed to the loaders of text-mode agents (SWE-agent, OpenHands, ...):
            rebuild actions and observations written as text as tool calls and their results
            (False: keep the literal text, the observations still never requests).

    Raises:
        TranscriptError: naming the file, the format (``source``: the format's name, or
            ``'load'`` when no format claims the file, with the formats tried) and the place
            (``index``, ``field``).
    """
    source = Path(path)
    if source.is_dir() and not is_whole_folder(source):
        entries = folder_entries(source)
        if not entries:
            raise TranscriptError(
                SOURCE, None, "path", "no transcript files in the folder", path=str(source)
            )
        return [run for entry in entries for run in load(entry, strict=strict, tool_loop=tool_loop)]
    found = detect_format(source)
    spec = next(f for f in REGISTRY if f.name == found)
    if spec.tool_loop:
        runs: list[Run] = spec.loader(source, strict=strict, tool_loop=tool_loop)  # type: ignore[call-arg]
    else:
        runs = spec.loader(source, strict=strict)
    for run in runs:
        # An import says which format it was read as, and from which file; a run this lab
        # saved (a run file, or a trace it wrote, read back exactly) keeps the origin it was
        # saved with.
        origin = run.origin
        if isinstance(origin, Import) and origin.path is None and found != RUN_SOURCE:
            run.origin = origin.model_copy(update={"format": found, "path": path_text(source)})
    return runs
