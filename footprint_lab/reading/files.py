"""Reading files and folders for the file loaders: the files a folder holds, UTF-8 text and
JSON, every fault a :class:`~footprint_lab.reading.problems.TranscriptError` naming the file.

Layer: reading (see :mod:`footprint_lab.reading`).

"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from footprint_lab.messages import storable_json
from footprint_lab.reading.problems import TranscriptError, nested

_T = TypeVar("_T")


def check_regular(path: str | Path, source: str) -> None:
    """Refuse what is not a regular file before anything reads it: a FIFO would block a
    reader forever and a device (``/dev/zero``) never ends.

    Raises:
        TranscriptError: ``path`` is missing, unreadable, or not a regular file (naming the
            kind of file it is).
    """
    where = str(path)
    try:
        mode = Path(path).stat().st_mode
    except OSError as exc:
        raise TranscriptError(
            source, None, "file", f"cannot read: {exc.strerror or exc}", path=where
        ) from None
    if not stat.S_ISREG(mode):
        kind = (
            "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "a folder"
            if stat.S_ISDIR(mode)
            else "not a regular file"
        )
        raise TranscriptError(
            source, None, "file", f"{kind}, not a regular file: pass a transcript file", path=where
        )


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
            check_regular(source_path, source)
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


def read_each(files: Iterable[Path], source: str, read: Callable[[Path], Iterable[_T]]) -> list[_T]:
    """Everything ``read`` gives for each of ``files``, in order (a folder loader's runs): an
    error a file raises is raised again under ``source``, naming that file."""
    out: list[_T] = []
    for file in files:
        try:
            out.extend(read(file))
        except TranscriptError as exc:
            raise nested(exc, source, path=str(file)) from None
    return out


def _expecting(problem: str, expected: str | None) -> str:
    """``problem``, saying which format the loader expected (when it says)."""
    return problem if expected is None else f"{problem}; expected {expected}"


def read_text_file(path: str | Path, source: str, expected: str | None = None) -> str:
    """The UTF-8 text of ``path``, or :class:`TranscriptError` naming the file, the rule and
    (when given) the format ``expected`` ('a Claude Code session (JSON lines)')."""
    where = str(path)
    check_regular(path, source)
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
            source,
            None,
            "file",
            _expecting(f"not UTF-8 text (byte {exc.start})", expected),
            path=where,
        ) from None


def parse_json_text(
    text: str, source: str, where: str, field: str = "file", expected: str | None = None
) -> Any:
    """``text`` as JSON (its strings storable text: a lone surrogate escaped), or
    :class:`TranscriptError` saying where it stopped being JSON (and, when given, the format
    ``expected``)."""
    try:
        return storable_json(text)
    except json.JSONDecodeError as exc:
        why = f"not JSON at line {exc.lineno} column {exc.colno}: {exc.msg} (truncated or corrupt?)"
        raise TranscriptError(source, None, field, _expecting(why, expected), path=where) from None
    except RecursionError:
        raise TranscriptError(source, None, field, "JSON nested too deep", path=where) from None
    except ValueError as exc:  # e.g. an integer too long to convert
        raise TranscriptError(
            source, None, field, f"not readable JSON: {exc}", path=where
        ) from None


def read_json_file(path: str | Path, source: str, expected: str | None = None) -> Any:
    """The JSON value in the UTF-8 file ``path``; any fault is a :class:`TranscriptError`
    naming the file (not UTF-8, not JSON, truncated, nested too deep) and, when given, the
    format ``expected``."""
    text = read_text_file(path, source, expected)
    return parse_json_text(text, source, str(path), expected=expected)
