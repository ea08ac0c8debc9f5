"""A corpus's manifest: one entry per source file, and the seals of the files it names.

Layer: corpus. An :class:`Entry` says what became of a source file (imported, an error, a
duplicate), names its parts and runs — by name, never by path (:data:`PART_NAME`,
:data:`RUN_ID`): a received store cannot make a read or a delete reach outside itself — and
seals each part and checkpoint as it was written (:class:`Seal`: SHA-256 and size), so a file
damaged since is found (:class:`Damage`, :meth:`~footprint_lab.corpus.store.Store.damage`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from footprint_lab.corpus._arrow import FAMILIES
from footprint_lab.importers import TranscriptError, check_regular

__all__ = [
    "PART_NAME",
    "RUN_ID",
    "Damage",
    "Entry",
    "EntryStatus",
    "Seal",
    "content_hash",
    "path_key",
]

_CHUNK = 1 << 20

EntryStatus = Literal["imported", "error", "duplicate"]
"""What became of a source file: its runs are in the store; it did not import (its error is
in ``problems``); or its content is another file's, whose runs stand for it."""

PART_NAME = re.compile(r"[0-9a-f]{64}|(?:path|dup)-[0-9a-f]{32}")
"""What a part's name may be: a content hash, or ``path-``/``dup-`` and a path key. A name
is never a path: nothing a manifest says can point outside the store."""

RUN_ID = re.compile(r"[0-9a-f]{16}-[0-9]{1,9}")
"""What a run id of a store may be (``<16 hex of the file's hash>-<index>``)."""


class Seal(BaseModel):
    """What a file of the store held when it was written: checked on open (its size) and by
    :meth:`Store.damage` with ``deep`` (its hash)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sha256: str
    """SHA-256 of its bytes."""
    size: int
    """Its size in bytes."""

    @classmethod
    def of(cls, data: bytes) -> Seal:
        """The seal of ``data``."""
        return cls(sha256=hashlib.sha256(data).hexdigest(), size=len(data))

    def broken_by(self, path: Path, *, deep: bool) -> Literal["missing", "changed"] | None:
        """How the file at ``path`` differs from this seal (None: it does not): missing, or
        changed — another size, or (``deep``) other bytes."""
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return "missing"
        if size != self.size:
            return "changed"
        if deep:
            with path.open("rb") as handle:
                if hashlib.file_digest(handle, "sha256").hexdigest() != self.sha256:
                    return "changed"
        return None


class Damage(BaseModel):
    """A file of the store that is not what its entry sealed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    """The source file whose entry names it."""
    file: str
    """The damaged file, relative to the store (``runs/<part>.parquet``,
    ``checkpoints/<hash>.runs.zst``)."""
    kind: Literal["missing", "changed"]
    """Gone, or holding other bytes than it was written with."""

    def __str__(self) -> str:
        return f"{self.file} {self.kind} (from {self.source})"


class Entry(BaseModel):
    """One source file of a corpus, as the manifest records it. Its part and run ids are names
    (:data:`PART_NAME`, :data:`RUN_ID`), its families the store's: an entry that says otherwise
    does not validate, so a received store cannot make a read or a delete reach outside it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    """The file (absolute)."""
    content_hash: str | None
    """SHA-256 of its bytes; None when it could not be read (it is tried again each build)."""
    status: EntryStatus
    """What became of it."""
    part: str
    """The name of its parts in each dataset (its content hash, or a key of its path when it
    could not be read)."""
    families: list[str]
    """The families that have a part for it."""
    runs: list[str]
    """The ids of its runs, in file order."""
    problems: int
    """Rows it has in ``problems``."""
    format: str | None = None
    """The format it was read as (None when it did not import)."""
    duplicate_of: str | None = None
    """For a duplicate: the file whose runs stand for it."""
    parts: dict[str, Seal] = {}
    """Each of ``families``' part, sealed as it was written."""
    checkpoint: Seal | None = None
    """The pack of ``runs``' checkpoints, sealed as it was written (None: no runs)."""

    @field_validator("part")
    @classmethod
    def _part_is_a_name(cls, value: str) -> str:
        if not PART_NAME.fullmatch(value):
            raise ValueError(
                f"part {value!r} is not a part name (a content hash, or path-/dup- and a path "
                "key): a manifest names parts, it never gives paths"
            )
        return value

    @field_validator("runs")
    @classmethod
    def _runs_are_ids(cls, value: list[str]) -> list[str]:
        bad = [run for run in value if not RUN_ID.fullmatch(run)]
        if bad:
            raise ValueError(f"run ids {bad[:3]!r} are not run ids (<16 hex>-<index>)")
        return value

    @field_validator("families")
    @classmethod
    def _families_are_the_stores(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(FAMILIES))
        if unknown:
            raise ValueError(f"families {unknown} are not the store's ({', '.join(FAMILIES)})")
        return value


def path_key(path: str) -> str:
    """The manifest key of a source path: 32 hex digits of its SHA-256."""
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def content_hash(path: Path) -> str:
    """SHA-256 of the regular file ``path``'s bytes, read in chunks; of a folder read whole
    (:func:`~footprint_lab.importers.is_whole_folder`), of each of its files' relative path
    and bytes, in path order.

    Raises:
        TranscriptError: ``path`` is not a regular file (a FIFO is never opened), or cannot
            be read.
    """
    digest = hashlib.sha256()
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file())
    else:
        check_regular(path, "corpus")
        files = [path]
    try:
        for file in files:
            if file is not path:
                check_regular(file, "corpus")
                digest.update(file.relative_to(path).as_posix().encode() + b"\0")
            with file.open("rb") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
    except OSError as exc:
        raise TranscriptError(
            "corpus", None, "file", f"cannot read: {exc.strerror or exc}", path=str(path)
        ) from None
    return digest.hexdigest()
