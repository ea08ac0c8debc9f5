"""A corpus store on disk: a folder of Parquet datasets, each file's runs' checkpoints, a manifest.

Layer: corpus. The layout (every name under the store's folder)::

    corpus.json                     marks the folder as a store (format, version)
    manifest/<path key>.json        one entry per source file: its content hash, what became
                                    of it, its runs, which families have a part for it
    runs/<part>.parquet             one part per imported file in each family's dataset:
    calls/ messages/ records/       runs, calls, messages, records, refusals, evictions and
    refusals/ evictions/ problems/  problems (a part only where the file has rows)
    checkpoints/<hash>.runs.zst     one pack per imported file (its content hash's first 16
                                    hex digits): each run as ``run.save`` writes it, a
                                    Zstandard frame each, behind an index of their sizes
    results/<name>.parquet          grid results written back (evidence, cost, sweep)

A part is named by the file's content hash, so the same file gives the same part wherever it
lies. **The manifest is the truth**: a part or checkpoint no entry names is never read, and a
build removes it. Every file is written atomically (a temp file in the same folder, then a
rename), and an entry only after its file's parts and checkpoints, so a build that is killed
leaves the store as it was before the file it was importing — the next build imports that file
again and ends where an uninterrupted one would. One build at a time writes a store: it holds
the store's lock (``.lock``, :mod:`footprint_lab.corpus._lock`) from before it reads the
manifest until it returns.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import zstandard

from footprint_lab.agent.checkpoint import RunFileError, run_from_text
from footprint_lab.agent.run import Run
from footprint_lab.corpus._arrow import FAMILIES, arrow_schema, family_columns, to_pandas
from footprint_lab.corpus._pack import (
    PACK_NAME,
    PACK_SUFFIX,
    PackError,
    pack,
    place_of,
    read_frame,
    unpack_text,
)
from footprint_lab.corpus.manifest import PART_NAME, RUN_ID, Damage, Entry, Seal, path_key

__all__ = [
    "LOCK_FILE",
    "STORE_FORMAT",
    "STORE_VERSION",
    "CorpusError",
    "Store",
    "Where",
    "drop_parts",
]

STORE_FORMAT = "footprint-lab/corpus"
"""The ``format`` of a store's ``corpus.json``."""
STORE_VERSION = 6
"""The store layout's version (2: a ``findings`` family, the judge's findings per run; 3: run
files of version 2, the origin kept, and the calls' ``scaled_from``; 4: the records' columns of
the providers' own policies — ``server_edits``, what their twins measured and cleared; 5: each
entry seals its parts and checkpoints — their SHA-256 and size; 6: a file's runs' checkpoints
in one pack, sealed once — a store of 10,000 runs no longer makes 10,000 files)."""

Where: TypeAlias = "ds.Expression | Sequence[Any] | Mapping[str, Any] | None"
"""A row filter: a ``pyarrow.dataset`` expression, filters in pyarrow's list form
(``[("model", "=", "gpt-4o"), ("calls", ">", 3)]``), or ``{column: value or [values]}``."""

_MARKER = "corpus.json"
_TEMP_PREFIX = ".tmp-"
LOCK_FILE = ".lock"
"""The lock file's name in the store's folder (:mod:`footprint_lab.corpus._lock` holds it)."""


class CorpusError(ValueError):
    """A corpus store cannot be used as asked: the message names the folder and what to do."""


def _write_atomic(target: Path, content: bytes | Callable[[Path], object]) -> None:
    """Write ``content`` (bytes, or a ``write(temp_path)``) to a temp file beside ``target``,
    then rename it over."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=_TEMP_PREFIX, dir=target.parent)
    try:
        if isinstance(content, bytes):
            # through the descriptor the temp file was made with: no second open (a store
            # writes a file per run)
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
        else:
            os.close(fd)
            content(Path(temp))
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _expression(where: Where, schema: pa.Schema) -> ds.Expression | None:
    """``where`` as a dataset expression (see :data:`Where`)."""
    if where is None or isinstance(where, ds.Expression):
        return where
    if isinstance(where, Mapping):
        unknown = sorted(set(where) - set(schema.names))
        if unknown:
            raise KeyError(f"where= names no column {unknown}; columns are {schema.names}")
        parts = []
        for name, value in where.items():
            if isinstance(value, list | tuple | set | frozenset):
                # Typed as the column, so an empty list is a set of no values, not of nulls.
                values = pa.array(list(value), type=schema.field(name).type)
                parts.append(pc.field(name).isin(values))
            else:
                parts.append(pc.field(name) == value)
        out = parts[0]
        for part in parts[1:]:
            out = out & part
        return out
    expression: ds.Expression = pq.filters_to_expression(list(where))
    return expression


class Store:
    """A corpus store's folder: read and write its manifest, parts, checkpoints and results."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        """A handle on the store at ``root`` (nothing is read; see :meth:`open`)."""
        self.root = Path(root).absolute()

    # -- the folder ---------------------------------------------------------------------------

    @classmethod
    def prepare(cls, root: str | os.PathLike[str]) -> Store:
        """A handle on the folder a store is (or is to be) at ``root``, made if missing; the
        store itself is made by :meth:`create`, with the folder's lock held.

        Raises:
            CorpusError: ``root`` is a file, or a folder that holds other things and no store.
        """
        store = cls(root)
        if store.root.exists() and not store.root.is_dir():
            raise CorpusError(f"{store.root}: a file, not a folder: give a folder for the store")
        store._refuse_a_stranger()
        store.root.mkdir(parents=True, exist_ok=True)
        return store

    @classmethod
    def create(cls, root: str | os.PathLike[str]) -> Store:
        """The store at ``root``, made if it is missing. A build calls it holding the folder's
        lock (:meth:`prepare` first), so no other build is making the store this moment.

        Raises:
            CorpusError: ``root`` is a file, or a folder that holds other things and no store.
        """
        store = cls.prepare(root)
        marker = store.root / _MARKER
        if not marker.is_file():
            payload = json.dumps({"format": STORE_FORMAT, "version": STORE_VERSION})
            _write_atomic(marker, (payload + "\n").encode("utf-8"))
        return cls.open(store.root)

    def _refuse_a_stranger(self) -> None:
        """Refuse a folder that holds something and no store: someone else's. What a store's
        first moments leave (its lock, a temp file of a build killed then) is the store's."""
        if not self.root.is_dir() or (self.root / _MARKER).is_file():
            return
        if any(
            e.name != LOCK_FILE and not e.name.startswith(_TEMP_PREFIX) for e in self.root.iterdir()
        ):
            raise CorpusError(
                f"{self.root}: a folder that holds other files and no corpus store "
                f"({_MARKER}): give an empty or new folder"
            )

    @classmethod
    def open(cls, root: str | os.PathLike[str]) -> Store:
        """The existing store at ``root``.

        Raises:
            CorpusError: no store is there, or one of another format or version.
        """
        store = cls(root)
        marker = store.root / _MARKER
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CorpusError(
                f"{store.root}: no corpus store here (no {_MARKER}); build one with "
                "Corpus.build(paths, store) or footprint-lab corpus build PATHS -o STORE"
            ) from None
        except (OSError, ValueError) as exc:
            raise CorpusError(f"{marker}: unreadable store marker: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != STORE_FORMAT:
            raise CorpusError(f'{marker}: not a corpus store (expected "format": "{STORE_FORMAT}")')
        if data.get("version") != STORE_VERSION:
            raise CorpusError(
                f"{marker}: store version {data.get('version')!r}; this footprint_lab reads "
                f"version {STORE_VERSION}: build the corpus again"
            )
        return store

    # -- the manifest -------------------------------------------------------------------------

    def entries(self) -> dict[str, Entry]:
        """Every entry of the manifest, by source path, in path order.

        Raises:
            CorpusError: an entry does not parse (naming its file).
        """
        found: dict[str, Entry] = {}
        folder = self.root / "manifest"
        if not folder.is_dir():
            return found
        for item in sorted(folder.glob("*.json")):
            try:
                entry = Entry.model_validate_json(item.read_bytes())
            except (OSError, ValueError) as exc:
                raise CorpusError(f"{item}: corrupt manifest entry: {exc}") from None
            found[entry.path] = entry
        return dict(sorted(found.items()))

    def write_entry(self, entry: Entry) -> None:
        """File ``entry`` (atomically replacing the path's previous one)."""
        payload = entry.model_dump_json()
        target = self.root / "manifest" / f"{path_key(entry.path)}.json"
        _write_atomic(target, payload.encode("utf-8"))

    # -- parts and checkpoints ----------------------------------------------------------------

    def part_path(self, family: str, part: str) -> Path:
        """Where the part ``part`` of ``family``'s dataset lies.

        Raises:
            CorpusError: ``family`` is not one of the store's or ``part`` not a part's name
                (a path is never one: nothing reaches outside the store).
        """
        if family not in FAMILIES or not PART_NAME.fullmatch(part):
            raise CorpusError(f"{self.root}: no part {part!r} of {family!r}: not a part's name")
        return self.root / family / f"{part}.parquet"

    def write_part(self, family: str, part: str, table: pa.Table) -> Seal:
        """Write one part of a family's dataset, atomically; return its seal."""
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        data = sink.getvalue().to_pybytes()
        _write_atomic(self.part_path(family, part), data)
        return Seal.of(data)

    def checkpoint_path(self, run_id: str) -> Path:
        """Where run ``run_id``'s checkpoint lies: the pack of its file's runs.

        Raises:
            CorpusError: ``run_id`` is not a run id (:data:`RUN_ID`): the store has no such
                run, and a path is never one.
        """
        if not RUN_ID.fullmatch(run_id):
            raise CorpusError(
                f"{self.root}: no run {run_id!r} in the corpus (a run id is <16 hex>-<index>)"
            )
        return self.root / "checkpoints" / f"{place_of(run_id)[0]}{PACK_SUFFIX}"

    def write_checkpoints(
        self, run_ids: Sequence[str], texts: Sequence[str]
    ) -> tuple[Seal, list[int]]:
        """Write one file's runs' file texts (``run_file_text``, in the order of ``run_ids``,
        the file's runs) as its pack, atomically: each compressed as a Zstandard frame of its
        own (a run is read without its neighbours), behind an index of the frames' sizes.
        Returns the pack's seal and each run's compressed size."""
        data, sizes = pack(texts)
        _write_atomic(self.checkpoint_path(run_ids[0]), data)
        return Seal.of(data), sizes

    def read_run(self, run_id: str) -> Run:
        """Run ``run_id``, rebuilt from its checkpoint in its file's pack.

        Raises:
            CorpusError: the store has no such run, or its checkpoint is corrupt.
        """
        path = self.checkpoint_path(run_id)
        index = place_of(run_id)[1]
        try:
            with path.open("rb") as handle:
                frame = read_frame(handle, index)
        except FileNotFoundError:
            raise CorpusError(f"{self.root}: no run {run_id!r} in the corpus") from None
        except PackError as exc:
            raise CorpusError(f"{path}: corrupt checkpoint pack: {exc}") from None
        if frame is None:
            raise CorpusError(f"{self.root}: no run {run_id!r} in the corpus")
        try:
            text = unpack_text(frame)
            return run_from_text(text, source=f"{path} (run {index})")
        except (zstandard.ZstdError, UnicodeDecodeError, RunFileError) as exc:
            raise CorpusError(f"{path}: corrupt checkpoint of run {index}: {exc}") from None

    def remove_unnamed(self, entries: Mapping[str, Entry]) -> int:
        """Delete every part, checkpoint and temp file no entry names (a replaced file's, a
        killed build's); return how many. Only files the store writes are touched — a part or
        checkpoint by its name's pattern, a temp file by its prefix — never another file put
        there, never a symlink, never a file outside the store."""
        parts = {(f, e.part) for e in entries.values() for f in e.families}
        runs = {r for e in entries.values() for r in e.runs}
        removed = 0
        for family in FAMILIES:
            for item in self._own_files(family):
                name = item.name
                ours = name.endswith(".parquet") and PART_NAME.fullmatch(item.stem)
                if ours and (family, item.stem) in parts:
                    continue
                if ours or name.startswith(_TEMP_PREFIX):
                    item.unlink(missing_ok=True)
                    removed += 1
        packs = {place_of(run_id)[0] for run_id in runs}
        for item in self._own_files("checkpoints"):
            prefix = item.name.removesuffix(PACK_SUFFIX)
            ours = item.name.endswith(PACK_SUFFIX) and PACK_NAME.fullmatch(prefix)
            if ours and prefix in packs:
                continue
            if ours or item.name.startswith(_TEMP_PREFIX):
                item.unlink(missing_ok=True)
                removed += 1
        for folder in ("manifest", "results"):
            for item in self._own_files(folder):
                if item.name.startswith(_TEMP_PREFIX):
                    item.unlink(missing_ok=True)
                    removed += 1
        # the store's own folder (which may be a link the user gave): a marker's temp file of
        # a build killed making the store
        for item in self.root.iterdir():
            if item.name.startswith(_TEMP_PREFIX) and not item.is_symlink() and item.is_file():
                item.unlink(missing_ok=True)
                removed += 1
        return removed

    def _own_files(self, folder: str) -> list[Path]:
        """The regular files directly in the store's ``folder`` (none when it is missing).
        A symlink is never the store's: it is neither followed nor deleted.

        Raises:
            CorpusError: the folder itself is a symlink (it could lead outside the store).
        """
        path = self.root / folder
        if path.is_symlink():
            raise CorpusError(
                f"{path}: a symlink, not the store's own folder: a store's folders are its "
                "own (it could lead a build's clean-up outside the store); replace it by a folder"
            )
        if not path.is_dir():
            return []
        return [p for p in path.iterdir() if not p.is_symlink() and p.is_file()]

    def damage(self, entries: Mapping[str, Entry], *, deep: bool = False) -> list[Damage]:
        """Every file the manifest names that is not as it was sealed: missing, or (``deep``:
        its bytes hashed) changed; without ``deep``, a size other than the seal's is a change.
        An entry without seals (none recorded) is checked for presence only."""
        found: list[Damage] = []
        for entry in entries.values():
            named = [(self.part_path(f, entry.part), entry.parts.get(f)) for f in entry.families]
            if entry.runs:
                named.append((self.checkpoint_path(entry.runs[0]), entry.checkpoint))
            for path, seal in named:
                if seal is not None:
                    kind = seal.broken_by(path, deep=deep)
                else:  # no seal recorded: present is all that can be asked
                    kind = None if path.exists() else "missing"
                if kind is not None:
                    file = path.relative_to(self.root).as_posix()
                    found.append(Damage(source=entry.path, file=file, kind=kind))
        return found

    # -- reading ------------------------------------------------------------------------------

    def part_files(self, family: str, entries: Mapping[str, Entry] | None = None) -> list[Path]:
        """The parts of ``family``'s dataset the manifest names, in source-path order."""
        family_columns(family)  # an unknown family is a KeyError naming the families
        named = self.entries() if entries is None else entries
        return [self.part_path(family, e.part) for e in named.values() if family in e.families]

    def dataset(self, family: str, entries: Mapping[str, Entry] | None = None) -> ds.Dataset:
        """``family``'s dataset: its live parts, with the family's schema."""
        schema = arrow_schema(family_columns(family))
        files = [str(p) for p in self.part_files(family, entries)]
        if not files:
            return ds.dataset(schema.empty_table())
        return ds.dataset(files, schema=schema, format="parquet")

    def table(
        self,
        family: str,
        columns: Sequence[str] | None = None,
        where: Where = None,
        entries: Mapping[str, Entry] | None = None,
    ) -> pa.Table:
        """Rows of ``family`` as Arrow, the column choice and the filter pushed to the scan.

        Raises:
            KeyError: no such family, or a column it does not have.
        """
        dataset = self.dataset(family, entries)
        names = dataset.schema.names
        if columns is not None:
            unknown = [c for c in columns if c not in names]
            if unknown:
                raise KeyError(f"corpus frame {family!r} has no column {unknown}; it has {names}")
        table: pa.Table = dataset.to_table(
            columns=None if columns is None else list(columns),
            filter=_expression(where, dataset.schema),
        )
        return table

    def frame(
        self,
        family: str,
        columns: Sequence[str] | None = None,
        where: Where = None,
        entries: Mapping[str, Entry] | None = None,
    ) -> pd.DataFrame:
        """:meth:`table` as pandas, in the specs' dtypes."""
        return to_pandas(self.table(family, columns, where, entries))

    # -- results ------------------------------------------------------------------------------

    def result_path(self, name: str) -> Path:
        """Where the result table ``name`` lies."""
        if not name or not all(ch.isalnum() or ch in "_-" for ch in name):
            raise CorpusError(
                f"result name {name!r}: use letters, digits, '_' and '-' (it names a file and "
                "a SQL view)"
            )
        return self.root / "results" / f"{name}.parquet"

    def write_result(self, name: str, frame: pd.DataFrame) -> Path:
        """Write a grid's frame back as the table ``name`` (its dtypes kept); return its path."""
        table = pa.Table.from_pandas(frame, preserve_index=False)
        path = self.result_path(name)
        _write_atomic(path, lambda p: pq.write_table(table, p))
        return path

    def result_dataset(self, name: str) -> ds.Dataset:
        """The result table ``name`` as an Arrow dataset (read lazily).

        Raises:
            CorpusError: there is no such table.
        """
        return ds.dataset(str(self._result_file(name)), format="parquet")

    def results(self) -> list[str]:
        """The names of the result tables written back, sorted."""
        folder = self.root / "results"
        return sorted(p.stem for p in folder.glob("*.parquet")) if folder.is_dir() else []

    def read_result(self, name: str) -> pd.DataFrame:
        """The result table ``name`` as it was written (pandas dtypes restored).

        Raises:
            CorpusError: there is no such table.
        """
        frame: pd.DataFrame = pq.read_table(self._result_file(name)).to_pandas()
        return frame

    def _result_file(self, name: str) -> Path:
        """The file of the result table ``name``, which must exist.

        Raises:
            CorpusError: there is no such table (naming those there are).
        """
        path = self.result_path(name)
        if not path.is_file():
            raise CorpusError(f"{self.root}: no result table {name!r}; there are {self.results()}")
        return path


def drop_parts(store: Store, entry: Entry, keep: Iterable[Entry]) -> None:
    """Delete ``entry``'s parts and checkpoints that none of ``keep`` names (the entry was
    replaced: its file changed)."""
    kept = list(keep)
    parts = {(f, e.part) for e in kept for f in e.families}
    packs = {store.checkpoint_path(e.runs[0]) for e in kept if e.runs}
    for family in entry.families:
        if (family, entry.part) not in parts:
            store.part_path(family, entry.part).unlink(missing_ok=True)
    if entry.runs and store.checkpoint_path(entry.runs[0]) not in packs:
        store.checkpoint_path(entry.runs[0]).unlink(missing_ok=True)
