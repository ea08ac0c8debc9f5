"""A folder of Inspect logs made from the repository's real ones: the corpus Inspect reads too.

Layer: bench (a helper of :mod:`bench.corpus_inspect`; reads ``data/``, writes Inspect logs).

:func:`write_inspect_logs` ``(folder, copies, seed)`` writes ``copies`` relabelled copies of
each real Inspect log under ``data/transcripts/inspect`` and ``data/transcripts-extra/inspect``
(``.json`` logs and ``.eval`` zips), so both our :meth:`~footprint_lab.corpus.Corpus.build` and
Inspect's own ``samples_df`` / ``messages_df`` read the same files. A copy differs from its
source in its identifiers only: the log's ``task_id``, ``eval_id`` and ``run_id`` and every
sample's ``uuid`` are replaced (an old value by the same new one wherever it occurs in the
file) by seeded names of the same length and alphabet, so no two files share a content hash
(checked as they are written) and Inspect reads each sample as its own. Each copy is named as
Inspect names a log (its creation time, task and task id): Inspect lists a ``.json`` file as a
log only by such a name.

An ``.eval`` copy is written entry by entry in the order of its source, each entry with its
source's compression; a source compressed with Zstandard (``retry-2-then-success.zstd.eval``)
is left out: Python 3.11's ``zipfile`` cannot write Zstandard entries, and recompressing it
with another method would make a file no stack wrote.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (
    ROOT / "data" / "transcripts" / "inspect",
    ROOT / "data" / "transcripts-extra" / "inspect",
)
_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
"""The alphabet of Inspect's short uuids."""


@dataclass(frozen=True)
class InspectSource:
    """One real Inspect log the copies are made from."""

    path: Path
    """The real file."""
    identifiers: tuple[str, ...]
    """Its log's task id, eval id (a log of Inspect before 0.3.60 has none) and run id, then
    its samples' uuids: what a copy renames."""
    stem: str
    """A copy's name before its task id: the log's creation time and task, as Inspect names a
    log (``2025-01-31T09-30-00+00-00_popularity_``). Inspect's ``samples_df`` lists a ``.json``
    file as a log only when its name starts with such a time."""


def _writable(path: Path) -> bool:
    if path.suffix == ".json":
        return True
    if path.suffix != ".eval":
        return False
    with zipfile.ZipFile(path) as archive:
        return all(
            info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
            for info in archive.infolist()
        )


def _source(path: Path, header: dict[str, Any], samples: list[dict[str, Any]]) -> InspectSource:
    spec = header["eval"]
    found = [spec["task_id"], spec.get("eval_id"), spec.get("run_id")]
    found += [s.get("uuid") for s in samples]
    identifiers = tuple(dict.fromkeys(v for v in found if isinstance(v, str) and v))
    created = re.sub(r"[:.]", "-", str(spec["created"]))
    task = re.sub(r"[^A-Za-z0-9-]", "-", str(spec["task"]))
    return InspectSource(path, identifiers, f"{created}_{task}_")


def sources() -> list[InspectSource]:
    """The real Inspect logs a copy can be written of, with the identifiers a copy renames."""
    out: list[InspectSource] = []
    for folder in FOLDERS:
        for path in sorted(folder.iterdir()):
            if not _writable(path):
                continue
            if path.suffix == ".json":
                data = json.loads(path.read_text(encoding="utf-8"))
                out.append(_source(path, data, data.get("samples") or []))
                continue
            with zipfile.ZipFile(path) as archive:
                header = json.loads(archive.read("_journal/start.json"))
                samples = [
                    json.loads(archive.read(name))
                    for name in archive.namelist()
                    if name.startswith("samples/")
                ]
            out.append(_source(path, header, samples))
    return out


def _renamer(source: InspectSource, rng: random.Random) -> dict[bytes, bytes]:
    return {
        old.encode(): "".join(rng.choice(_ALPHABET) for _ in old).encode()
        for old in source.identifiers
    }


def _renamed(data: bytes, names: dict[bytes, bytes]) -> bytes:
    for old, new in names.items():
        data = data.replace(old, new)
    return data


def _copy(source: InspectSource, folder: Path, rng: random.Random) -> tuple[Path, bytes]:
    names = _renamer(source, rng)
    task_id = names[source.identifiers[0].encode()].decode()
    target = folder / f"{source.stem}{task_id}{source.path.suffix}"
    if source.path.suffix == ".json":
        data = _renamed(source.path.read_bytes(), names)
        target.write_bytes(data)
        return target, data
    with zipfile.ZipFile(source.path) as archive, zipfile.ZipFile(target, "w") as out:
        for info in archive.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            entry.compress_type = info.compress_type
            out.writestr(entry, _renamed(archive.read(info), names))
    return target, target.read_bytes()


def write_inspect_logs(folder: Path, copies: int, seed: int = 0) -> list[Path]:
    """Write ``copies`` relabelled copies of every real Inspect log under ``folder`` (see the
    module docstring), each named as Inspect names a log (time, task, task id).

    Returns:
        The files written, in order.

    Raises:
        ValueError: ``copies`` is below 1.
        RuntimeError: two files came out the same (a defect of the generator).
    """
    if copies < 1:
        raise ValueError(f"copies must be at least 1, got {copies}")
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    hashes: set[str] = set()
    for _ in range(copies):
        for source in sources():
            target, data = _copy(source, folder, rng)
            digest = hashlib.sha256(data).hexdigest()
            if digest in hashes:
                raise RuntimeError(f"{target}: the same bytes as an earlier file (seed {seed})")
            hashes.add(digest)
            written.append(target)
    return written
