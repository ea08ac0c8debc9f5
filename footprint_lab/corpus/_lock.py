"""One writer per store: an operating-system lock on ``<store>/.lock``, held for a whole build.

Layer: corpus. Two builds into one store at once would each clean up what the other has
written but not yet recorded, and both would end "successfully". :class:`StoreLock` takes an
exclusive lock on the store's lock file (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on
Windows) before a build reads the manifest and keeps it until the build returns. A second
build waits for it (saying once whom it waits for), or with ``wait=False`` refuses at once
with a :class:`~footprint_lab.corpus.store.CorpusError` naming the holder: its process id,
host, command and start time, which the holder writes into the file.

The lock belongs to the process, not the file: when a build is killed the system releases it,
so a lock left by a dead build never blocks; the next build finds the dead holder's words
still in the file (a holder that ends cleanly empties it), takes the lock over and says so
(:attr:`StoreLock.took_over`) — the manifest is the truth, so what the killed build half wrote
is removed unread. Locks on network file systems are only as good as the file system's.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import socket
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from footprint_lab.corpus.store import LOCK_FILE, CorpusError

__all__ = ["LOCK_FILE", "StoreLock", "Wait"]

Wait = bool | float
"""How long a build waits for another one: True as long as it takes, False not at all, a
number of seconds at most."""

_POLL_S = 0.1

if sys.platform == "win32":  # pragma: no cover - the suite runs on Linux
    import msvcrt

    def _try_lock(handle: IO[str]) -> bool:
        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(handle: IO[str]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _holder_words(text: str) -> str:
    """The holder a lock file names, in words ("process 123 on host, ... since ...")."""
    try:
        data: Any = json.loads(text)
        return (
            f"process {data['pid']} on {data['host']} ({data['command']}), "
            f"started {data['started']}"
        )
    except (ValueError, KeyError, TypeError):
        return "a holder that did not say who it is"


class StoreLock:
    """The store's write lock, as a context manager: ``with StoreLock(root, wait=True): ...``.

    Raises (on entering):
        CorpusError: ``wait`` is False and another build holds the lock, or the wait ran out
            (naming the holder); or the lock file cannot be opened.
    """

    def __init__(self, root: str | os.PathLike[str], *, wait: Wait = True, what: str = "build"):
        self.path = Path(root) / LOCK_FILE
        self.wait = wait
        self.what = what
        self.took_over: str | None = None
        """The holder a killed writer left in the file, which this lock took over (None when
        the last writer ended cleanly)."""
        self._handle: IO[str] | None = None

    def _refuse(self, holder: str, waited: float | None) -> CorpusError:
        store = self.path.parent
        waited_words = "" if waited is None else f" after waiting {waited:g} s"
        return CorpusError(
            f"{store}: another build is writing this store{waited_words}: {holder}. One build "
            "at a time may write a store: wait for it (wait=True, the default; "
            "footprint-lab corpus build waits unless --no-wait), or build into another folder"
        )

    def __enter__(self) -> StoreLock:
        try:
            handle = self.path.open("a+", encoding="utf-8")
        except OSError as exc:
            raise CorpusError(f"{self.path}: cannot open the store's lock file: {exc}") from None
        started = time.monotonic()
        told = False
        while not _try_lock(handle):
            handle.seek(0)
            holder = _holder_words(handle.read())
            waited = time.monotonic() - started
            if self.wait is False or (self.wait is not True and waited >= float(self.wait)):
                handle.close()
                raise self._refuse(holder, None if self.wait is False else float(self.wait))
            if not told:
                print(f"{self.path.parent}: waiting for {holder}", file=sys.stderr)
                told = True
            time.sleep(_POLL_S)
        handle.seek(0)
        left = handle.read().strip()
        if left:  # a holder that never emptied the file: killed mid-way
            self.took_over = _holder_words(left)
        handle.seek(0)
        handle.truncate()
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        handle.write(
            json.dumps(
                {
                    "pid": os.getpid(),
                    "host": socket.gethostname(),
                    "command": f"corpus {self.what}",
                    "started": stamp,
                }
            )
        )
        handle.flush()
        self._handle = handle
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        with contextlib.suppress(OSError):
            handle.seek(0)
            handle.truncate()  # ended cleanly: no holder left behind
            handle.flush()
        with contextlib.suppress(OSError):
            _unlock(handle)
        handle.close()
