"""One source file into the store: import it, capture each run, write its parts.

Layer: corpus (private; :mod:`footprint_lab.corpus.build` sends :func:`import_file` to the
workers). A worker is handed the store's path and one file (:class:`FileTask`), never a run; it
imports the file with :func:`footprint_lab.importers.load`, captures each run's columns
(:func:`footprint_lab.lab.frames.capture_columns`: no pandas frame per run), writes each run's
checkpoint, then one Arrow part per family for the file, and hands back only a small
:class:`FileOutcome`. The runs are released when it
returns, so what a worker holds is one file's runs, whatever the size of the corpus.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import pyarrow as pa

from footprint_lab.agent.checkpoint import run_file_text
from footprint_lab.agent.origin import Import, imported_source
from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.corpus._arrow import arrow_schema, family_columns, from_columns
from footprint_lab.corpus.manifest import Seal, content_hash
from footprint_lab.corpus.store import Store
from footprint_lab.importers import TranscriptError, import_clock, load
from footprint_lab.importers.saved_run import SOURCE as RUN_SOURCE
from footprint_lab.lab.frames import capture_columns
from footprint_lab.lab.schema import CORPUS_FRAMES
from footprint_lab.lab.summary import run_summary
from footprint_lab.pricing import source_tokens_per_char

__all__ = [
    "CAPTURED",
    "STORE_CLOCK",
    "FileOutcome",
    "FileTask",
    "ImportFailure",
    "error_problems",
    "import_file",
    "problems_table",
    "run_id_of",
]

CAPTURED: tuple[str, ...] = CORPUS_FRAMES
"""The capture frames a store keeps (beside ``runs`` and ``problems``)."""


def STORE_CLOCK() -> int:
    """The ledger clock of an import into a store: always 0. An import is otherwise stamped with
    the wall clock it ran at, which the file does not record; at 0, the same file gives the same
    parts and checkpoints byte for byte whenever and wherever it is imported, so a resumed build
    ends identical to an uninterrupted one (``survival_ms`` is 0 for imported runs)."""
    return 0


def run_id_of(content_hash: str, index: int) -> str:
    """The id of the ``index``-th run of a file whose bytes hash to ``content_hash``."""
    return f"{content_hash[:16]}-{index}"


@dataclass(frozen=True)
class FileTask:
    """What a worker is sent for one file: the store, the file, and how to import it."""

    store: str
    """The store's folder."""
    path: str
    """The source file (absolute): what opens it."""
    name: str
    """The file as the store records it (the build's :func:`~footprint_lab.reading.paths.
    path_text` of it: a name that is not UTF-8 with its odd bytes escaped)."""
    content_hash: str
    """SHA-256 of its bytes (names its part and its runs)."""
    strict: bool = False
    """Import strictly: the first problem is an error."""
    tool_loop: bool = True
    """Passed to :func:`footprint_lab.importers.load`."""


@dataclass(frozen=True)
class ImportFailure:
    """A file's :class:`~footprint_lab.importers.TranscriptError`, as plain fields (an error
    with keyword arguments does not survive pickling back from a worker)."""

    source: str
    index: int | None
    field: str
    problem: str
    unit: str
    message: str

    def error(self, path: str) -> TranscriptError:
        """The error again, naming ``path``."""
        return TranscriptError(
            self.source, self.index, self.field, self.problem, path=path, unit=self.unit
        )


@dataclass(frozen=True)
class FileOutcome:
    """What a worker hands back for one file: small, whatever the file held."""

    path: str
    content_hash: str
    format: str | None
    runs: list[str] = field(default_factory=list)
    families: list[str] = field(default_factory=list)
    problems: int = 0
    failure: ImportFailure | None = None
    checkpoint_bytes: int = 0
    """The size of the runs' checkpoint pack."""
    parts: dict[str, Seal] = field(default_factory=dict)
    checkpoint: Seal | None = None
    """The runs' checkpoint pack, sealed (None: no runs)."""
    unsettled: bool = False
    """The file kept changing while it was imported: the next build tries it again."""


def _keyed_table(
    family: str, pieces: Sequence[Mapping[str, Any]], run_ids: Sequence[str], source_path: str
) -> pa.Table:
    """The captured columns of one file's runs (one mapping per run, in run order) as one
    table of the family, each row keyed by its run's id and the file."""
    sizes = [_rows_in(piece) for piece in pieces]
    if not any(sizes):  # most families of most files (few runs refuse or are judged)
        return arrow_schema(family_columns(family)).empty_table()
    ids = list(chain.from_iterable(map(repeat, run_ids, sizes)))
    keys = {
        "run_id": pa.array(ids, pa.string()),
        "source_path": pa.array([source_path] * len(ids), pa.string()),
    }
    return from_columns(family, pieces, keys)


def _rows_in(piece: Mapping[str, Any]) -> int:
    """How many rows a run's columns hold (every column has that length)."""
    return len(next(iter(piece.values())))


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def format_of_run(run: Run) -> str:
    """The format a stored run was read as: an import's stack (its origin says), else a run
    this lab saved."""
    origin = run.origin
    return origin.format if isinstance(origin, Import) else RUN_SOURCE


def _runs_row(
    run: Run, run_id: str, task: FileTask, digest: str, index: int, checkpoint_bytes: int
) -> dict[str, Any]:
    meta = run.meta if isinstance(run.meta, dict) else {}
    reward = meta.get("reward")
    ratio = source_tokens_per_char(run)
    return {
        "run_id": run_id,
        "source_path": task.name,
        "content_hash": digest,
        "index": index,
        "format": format_of_run(run),
        "label": _text_or_none(meta.get("label")),
        "task_id": _text_or_none(meta.get("task_id")),
        "reward": float(reward) if isinstance(reward, int | float) else None,
        "model": run.model,
        "provider": run.provider,
        "request": run.request,
        "requests": len(run.requests),
        "imported_from": run.provider if imported_source(run.origin) is not None else None,
        "tokens_per_char": ratio,
        "import_problems": len(run.import_problems),
        "meta": json.dumps(meta, sort_keys=True, default=str),
        "checkpoint_bytes": checkpoint_bytes,
        **run_summary(run),
    }


def problems_table(rows: Sequence[dict[str, Any]]) -> pa.Table:
    """Rows of the ``problems`` family as its Arrow table."""
    columns = {c: [row[c] for row in rows] for c in family_columns("problems")}
    return from_columns("problems", [columns], {})


def _problem_row(
    problem: ImportProblem, path: str, content_hash: str, run_id: str
) -> dict[str, Any]:
    where = f"{problem.unit} {problem.index}" if problem.index is not None else "transcript"
    return {
        "source_path": path,
        "content_hash": content_hash,
        "run_id": run_id,
        "kind": "import-problem",
        "source": problem.source,
        "unit": problem.unit,
        "index": problem.index,
        "field": problem.field,
        "problem": problem.problem,
        "message": f"{path}: {problem.source}: {where}, field {problem.field!r}: {problem.problem}",
    }


def error_problems(
    path: str, content_hash: str | None, error: TranscriptError | ImportFailure, kind: str
) -> list[dict[str, Any]]:
    """The ``problems`` row of a file that did not import (``kind`` 'error') or is another
    file's content (``kind`` 'duplicate', the error naming the other file)."""
    message = str(error) if isinstance(error, TranscriptError) else error.message
    return [
        {
            "source_path": path,
            "content_hash": content_hash,
            "run_id": None,
            "kind": kind,
            "source": error.source,
            "unit": error.unit,
            "index": error.index,
            "field": error.field,
            "problem": error.problem,
            "message": message,
        }
    ]


def _failure(error: TranscriptError) -> ImportFailure:
    return ImportFailure(
        error.source, error.index, error.field, error.problem, error.unit, str(error)
    )


def _load_as_hashed(task: FileTask) -> tuple[str, list[Run] | TranscriptError, bool]:
    """The file's runs (or why it does not import), the hash of the bytes they came from, and
    whether the file held still (False: it kept changing; the next build tries it again).

    The build hashed the file before this job; it is hashed again after loading. When the two
    differ, something wrote the file in between, and the runs may be of either content: it is
    loaded again, once, and kept under its new hash if that holds; if it changed again, the
    file is a problem saying so (import it when nothing writes it)."""
    digest = task.content_hash
    for _ in range(2):
        try:
            with import_clock(STORE_CLOCK):
                loaded: list[Run] | TranscriptError = load(
                    task.path, strict=task.strict, tool_loop=task.tool_loop
                )
        except TranscriptError as exc:
            loaded = exc
        try:
            after = content_hash(Path(task.path))
        except TranscriptError as exc:  # gone or unreadable since: the import stands on nothing
            return digest, exc, True
        if after == digest:
            return digest, loaded, True
        digest = after
    unsettled = TranscriptError(
        "corpus",
        None,
        "file",
        "the file changed while it was being imported, twice over (hashed, read, hashed "
        "again): import it when nothing is writing it",
        path=task.name,
    )
    return digest, unsettled, False


def import_file(task: FileTask) -> FileOutcome:
    """Import one file into the store (in a worker, or inline): its runs' checkpoints (one
    pack), then one part per family with rows; the caller files the manifest entry last."""
    store = Store(task.store)
    digest, loaded, settled = _load_as_hashed(task)
    if isinstance(loaded, TranscriptError):
        failure = _failure(loaded)
        sealed: dict[str, Seal] = {}
        if not task.strict:
            rows = error_problems(task.name, digest, failure, "error")
            sealed["problems"] = store.write_part("problems", digest, problems_table(rows))
        return FileOutcome(
            task.name,
            digest,
            None,
            families=[] if task.strict else ["problems"],
            problems=0 if task.strict else 1,
            failure=failure,
            parts=sealed,
            unsettled=not settled,
        )
    captured: dict[str, list[dict[str, Any]]] = {name: [] for name in CAPTURED}
    run_rows: list[dict[str, Any]] = []
    problem_rows: list[dict[str, Any]] = []
    run_ids = [run_id_of(digest, index) for index in range(len(loaded))]
    formats: set[str] = set()
    parts: dict[str, Seal] = {}
    checkpoint: Seal | None = None
    sizes: list[int] = []
    if loaded:
        texts = [run_file_text(run) for run in loaded]
        checkpoint, sizes = store.write_checkpoints(run_ids, texts)
    for index, run in enumerate(loaded):
        run_id = run_ids[index]
        formats.add(format_of_run(run))
        run_columns = capture_columns(run, CAPTURED)
        for name in CAPTURED:
            captured[name].append(run_columns[name])
        run_rows.append(_runs_row(run, run_id, task, digest, index, sizes[index]))
        problem_rows.extend(_problem_row(p, task.name, digest, run_id) for p in run.import_problems)
    families: list[str] = []
    if run_rows:
        columns = {c: [row[c] for row in run_rows] for c in family_columns("runs")}
        parts["runs"] = store.write_part("runs", digest, from_columns("runs", [columns], {}))
        families.append("runs")
    for name, pieces in captured.items():
        table = _keyed_table(name, pieces, run_ids, task.name)
        if table.num_rows:
            parts[name] = store.write_part(name, digest, table)
            families.append(name)
    if problem_rows:
        parts["problems"] = store.write_part("problems", digest, problems_table(problem_rows))
        families.append("problems")
    return FileOutcome(
        task.name,
        digest,
        formats.pop() if len(formats) == 1 else None,
        runs=run_ids,
        families=families,
        problems=len(problem_rows),
        checkpoint_bytes=0 if checkpoint is None else checkpoint.size,
        parts=parts,
        checkpoint=checkpoint,
    )
