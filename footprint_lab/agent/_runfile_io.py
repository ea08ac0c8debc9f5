"""Run-file I/O: bounded reading, checksums, and saves that leave nothing behind.

Layer: agent (private; used by :mod:`footprint_lab.agent.checkpoint`, which re-exports
:class:`RunFileError` and :data:`MAX_RUN_FILE_BYTES`). No knowledge of the document's fields
beyond the checksum in front of them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

MAX_RUN_FILE_BYTES = 512 * 1024 * 1024
"""The largest run file :func:`load_run` reads (512 MiB); pass ``max_bytes=`` to change it."""
CHECKSUM_FIELD = "checksum"
"""The run file's content checksum: ``"sha256:"`` and 64 lowercase hex digits."""
_CHECKSUM = re.compile(r"sha256:[0-9a-f]{64}")


class RunFileError(ValueError):
    """A run file could not be read: the message names the file and what is wrong."""


def with_checksum(payload: str) -> str:
    """``payload`` (a JSON object as ``model_dump_json`` writes it) with its checksum in front.

    The checksum is the SHA-256 of ``payload``'s UTF-8 bytes; the file is ``{"checksum":
    "sha256:<hex>",`` followed by ``payload`` without its opening brace.
    """
    if not payload.startswith("{") or payload.startswith("{}"):
        raise ValueError("a run file is a non-empty JSON object")
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    return f'{{"{CHECKSUM_FIELD}":"sha256:{digest}",{payload[1:]}'


def verify_checksum(source: Path, text: str, checksum: Any) -> None:
    """Check a run file's text against the checksum it carries (see :func:`with_checksum`).

    The text must open exactly as :func:`with_checksum` wrote it; what follows (trailing
    whitespace aside, which an editor may add) is hashed as it stands, byte for byte.

    Raises:
        RunFileError: the checksum is malformed, or the text is not what was written.
    """
    if not isinstance(checksum, str) or not _CHECKSUM.fullmatch(checksum):
        raise RunFileError(
            f'{source}: corrupt run file — {CHECKSUM_FIELD}: must be "sha256:" and 64 '
            "lowercase hex digits"
        )
    head = f'{{"{CHECKSUM_FIELD}":"{checksum}",'
    mismatch = RunFileError(f"{source}: checksum mismatch — the file was altered or corrupted")
    if not text.startswith(head):
        raise mismatch  # re-serialised, or the checksum moved: not the bytes that were written
    body = "{" + text[len(head) :].rstrip(" \t\r\n")
    if "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest() != checksum:
        raise mismatch


_TEMP_MIDDLE = re.compile(r"[A-Za-z0-9_]+")
"""What ``mkstemp`` puts between our prefix and suffix (no dots: ``.a.json.x.<rand>.tmp`` is
the temp of ``a.json.x``, not of ``a.json``)."""


def _same_file(path: Path, fd: int) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not unlinked, not replaced)."""
    try:
        here, held = os.stat(path, follow_symlinks=False), os.fstat(fd)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def _remove_if_unlocked(path: Path) -> bool:
    """Remove the temp file ``path`` if no live save holds it; True when it was removed.

    The lock protocol (see :func:`atomic_write`): a save holds its temp file locked from
    before its name may be trusted until the rename; a sweep takes the same lock without
    waiting, and removes the name only while holding it and only if the name still is the
    file it locked. So a live save's temp is never removed: either the sweep cannot lock it,
    or it locked it first — and then the save, locking after it, sees its name gone and
    starts over with a new temp file.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return False  # no advisory locks: a live temp cannot be told from a stale one
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return False  # gone, or cannot tell: leave it alone
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a live save holds it
        if not _same_file(path, fd):
            return False  # renamed into place (or replaced) since it was opened
        path.unlink()
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # releases the lock


def _lock(fd: int, path: Path) -> bool:
    """Take ``fd``'s lock (waiting out a sweep that holds it); False when a sweep removed
    ``path`` first (the save must start over with a new temp file)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True  # no advisory locks, and no sweep either (see _remove_if_unlocked)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:  # pragma: no cover - a file system without flock
        return True
    return _same_file(path, fd)


def remove_stale_temps(target: Path) -> list[Path]:
    """Remove the temp files killed saves to ``target`` left beside it; return them.

    Only regular files named exactly ``.{target.name}.<letters, digits, _>.tmp`` are removed,
    and never one a live save holds (see :func:`_remove_if_unlocked`); everything else in the
    folder is left alone. Without advisory locks (not POSIX) nothing is removed.
    """
    prefix, suffix = f".{target.name}.", ".tmp"
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        if not _TEMP_MIDDLE.fullmatch(name[len(prefix) : -len(suffix)]):
            continue
        path = Path(entry.path)
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
        except OSError:
            continue
        if _remove_if_unlocked(path):
            removed.append(path)
    return removed


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # no way to read it without setting it
    os.umask(mask)
    return mask


def _mode_for(target: Path) -> int:
    """The mode ``open(target, "w")`` would leave: an existing file keeps its own; a new one
    gets ``0o666 & ~umask``."""
    try:
        st = os.stat(target)
    except OSError:
        return 0o666 & ~_umask()
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o666 & ~_umask()


def _fsync_folder(folder: Path) -> None:
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(folder, flags)
    except OSError:  # pragma: no cover - not POSIX
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: str | Path, payload: str) -> Path:
    """Write ``payload`` to ``path`` atomically and leave nothing behind.

    A symlink at ``path`` is written through (its target is replaced, the link stays). Stale
    temp files of killed saves to the same place are removed first (see
    :func:`remove_stale_temps`). The payload goes to a locked temp file in the target's folder,
    is given the mode ``open()`` would give the file, synced, and renamed over the target.

    Concurrent saves to one path (threads, processes) all succeed, and the last rename wins:
    each writes its own temp file, and a sweep never removes one a save holds. A temp is
    locked before it is written and its name checked after the lock is taken; one a sweep
    removed in the instant before is replaced by a new one (see :func:`_remove_if_unlocked`).
    """
    given = Path(path)
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(target)
    if target != given:  # saves before links were written through left theirs by the link
        remove_stale_temps(given)
    mode = _mode_for(target)
    data = payload.encode("utf-8")
    while True:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                if not _lock(handle.fileno(), Path(tmp)):
                    continue  # a sweep took this temp before it was locked: take another
                if hasattr(os, "fchmod"):
                    os.fchmod(handle.fileno(), mode)
                else:  # pragma: no cover - not POSIX
                    os.chmod(tmp, mode)
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                os.replace(tmp, target)  # still locked: the lock goes with the file
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        break
    _fsync_folder(target.parent)
    return given


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(source: Path, mode: int) -> RunFileError:
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return RunFileError(f"{source}: is {kind}, not a run file (a run file is a regular file)")


def _too_big(source: Path, size: int, limit: int) -> RunFileError:
    return RunFileError(
        f"{source}: {size} bytes is over the run file size limit of {limit} bytes (pass "
        "max_bytes= to raise it)"
    )


def read_run_text(path: str | Path, max_bytes: int = MAX_RUN_FILE_BYTES) -> str:
    """The text of a run file, read without blocking and within a size bound.

    Raises:
        RunFileError: missing or unreadable; not a regular file (a directory, FIFO, device or
            socket is refused before it is opened); over ``max_bytes``; not UTF-8 (a BOM is
            accepted and dropped).
    """
    source = Path(path)
    if type(max_bytes) is not int or max_bytes < 0:
        raise ValueError(f"max_bytes must be an integer >= 0, not {max_bytes!r}")
    try:
        st = os.stat(source)
    except FileNotFoundError:
        raise RunFileError(f"{source}: no such run file") from None
    except (OSError, ValueError) as exc:
        raise RunFileError(f"{source}: cannot be read as a run file ({exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(source, st.st_mode)
    if st.st_size > max_bytes:
        raise _too_big(source, st.st_size, max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(source, flags)
        with os.fdopen(fd, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if not stat.S_ISREG(mode):  # swapped after the stat
                raise _not_regular(source, mode)
            raw = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise RunFileError(f"{source}: no such run file") from None
    except OSError as exc:
        raise RunFileError(f"{source}: cannot be read as a run file ({exc})") from None
    if len(raw) > max_bytes:
        raise _too_big(source, len(raw), max_bytes)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RunFileError(
            f"{source}: not valid UTF-8 at byte {exc.start} ({exc.reason}) — the file is corrupt"
        ) from None
