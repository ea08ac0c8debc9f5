"""Building a corpus: every file of some paths imported, in parallel, into a store.

Layer: corpus. :func:`build_store` finds the files (:func:`source_files`: a folder is read as
:func:`footprint_lab.importers.load` reads one, less documentation and hidden entries; a glob;
a list), hashes each one, and plans: a file whose content the manifest already holds under
its path is **unchanged** and not imported again; a file whose content another file of the
corpus holds is a **duplicate** (a ``problems`` row names the other; its runs are counted once);
every other file is imported (**new**, or **changed**: its old runs are replaced). Imports run
through the lab's one grid runner (:func:`footprint_lab.lab.experiments.run_jobs`): inline, on
a local process pool, or on any ``concurrent.futures.Executor`` (a Dask client's
``get_executor()``), one job per file carrying the store's path and the file's — a worker
writes the file's parts itself and hands back a few numbers. Each file's manifest entry is
filed here as its job comes back, after its parts, so an interrupted build resumes where it
stopped and ends as an uninterrupted one does.

A file that does not import never stops the build: its ``TranscriptError`` is a row of
``problems`` (a FIFO, a device, a truncated or foreign file alike), and so is every problem an
importer listed for a run. ``strict=True`` imports strictly and stops at the first.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from footprint_lab.corpus._lock import StoreLock, Wait
from footprint_lab.corpus._rows import (
    FileOutcome,
    FileTask,
    error_problems,
    import_file,
    problems_table,
)
from footprint_lab.corpus.manifest import Damage, Entry, EntryStatus, content_hash, path_key
from footprint_lab.corpus.store import CorpusError, Store, drop_parts
from footprint_lab.importers import (
    TranscriptError,
    folder_entries,
    is_whole_folder,
)
from footprint_lab.lab.experiments import WorkerDied, run_jobs
from footprint_lab.reading.paths import path_text

__all__ = ["BuildReport", "Paths", "build_store", "content_hash", "source_files"]

Paths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
"""What a build reads: a folder, a file, a glob, or a list of them."""

_GLOB_CHARS = frozenset("*?[")


class BuildReport(BaseModel):
    """What one build did: how many files it saw, imported, skipped, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    store: str
    """The store's folder."""
    files: int
    """Source files the paths named: ``imported + failed + unchanged + duplicates``, each
    file counted once."""
    imported: int
    """Files this build imported (new or changed), each into its runs."""
    changed: int
    """Of them, files whose content changed since the store last held them."""
    unchanged: int
    """Files the store already held with this content: not imported again (one that did not
    import last time is counted here, not again as failed)."""
    failed: int
    """Files this build tried and could not import, unreadable ones included (their error is
    a row of ``problems``)."""
    duplicates: int
    """Files whose content another file of the corpus holds (counted once)."""
    runs_added: int
    """Runs this build wrote."""
    runs: int
    """Runs in the store after the build."""
    problems: int
    """Rows of ``problems`` after the build."""
    repaired: int = 0
    """Files whose stored parts or checkpoints were damaged (missing, or other bytes than their
    seal) and were imported again from their source (counted in ``imported`` or ``failed``)."""
    lost: int = 0
    """Files whose stored parts were damaged and whose source this build did not read: each is
    now a row of ``problems`` saying so, its runs gone from the store until a build reads it."""
    took_over: str | None = None
    """The build that held the store's lock and was killed mid-way (its process, host and
    start), whose half-written files this build removed unread; None when the last build
    ended cleanly."""

    def __str__(self) -> str:
        """The build in one sentence (the CLI prints it)."""
        changed = f" ({self.changed} changed)" if self.changed else ""
        parts = [
            f"{self.imported} imported{changed}",
            f"{self.unchanged} unchanged (not imported again)",
        ]
        if self.failed:
            parts.append(f"{self.failed} did not import (see the problems frame)")
        if self.duplicates:
            parts.append(f"{self.duplicates} duplicate content (counted once)")
        if self.repaired:
            parts.append(f"{self.repaired} damaged in the store, rebuilt from their source")
        if self.lost:
            parts.append(f"{self.lost} damaged in the store with no source read: now problems")
        after = f" (after a killed build: {self.took_over})" if self.took_over else ""
        return (
            f"corpus {self.store}: {self.files} file(s) — {', '.join(parts)}; "
            f"{self.runs_added} run(s) added, {self.runs} in the store, "
            f"{self.problems} problem row(s){after}"
        )


def _walk(folder: Path, out: list[Path], seen: set[Path]) -> None:
    real = folder.resolve()
    if real in seen:  # a symlink back up the tree: read once
        return
    seen.add(real)
    try:
        entries = folder_entries(folder)
    except TranscriptError as exc:
        raise CorpusError(str(exc)) from None
    for entry in entries:
        if entry.is_dir() and not is_whole_folder(entry):
            _walk(entry, out, seen)
        else:
            out.append(entry)


def source_files(paths: Paths) -> list[Path]:
    """Every file ``paths`` names, absolute, sorted, each once: a file as it is (a FIFO too:
    the build lists it as a problem), a folder's files recursively as ``load`` reads a folder
    (documentation and hidden entries left out), a glob's matches (``**`` recursive).

    Raises:
        CorpusError: no path is given, or one does not exist and matches nothing (naming it).
    """
    items = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    if not items:
        raise CorpusError("no paths given: name a folder, a file or a glob of transcripts")
    found: list[Path] = []
    seen: set[Path] = set()
    for item in items:
        text = os.fspath(item)
        path = Path(text)
        if is_whole_folder(path):
            found.append(path)
        elif path.is_dir():
            _walk(path, found, seen)
        elif os.path.lexists(path):
            found.append(path)
        elif _GLOB_CHARS & set(text):
            matches = sorted(Path(m) for m in glob.glob(text, recursive=True))
            if not matches:
                raise CorpusError(f"{text}: the pattern matches no file")
            for match in matches:
                if match.is_dir() and not is_whole_folder(match):
                    _walk(match, found, seen)
                else:
                    found.append(match)
        else:
            raise CorpusError(f"{text}: no such file or folder")
    return sorted({p.absolute() for p in found})


def _named(found: Sequence[Path]) -> dict[str, str]:
    """Each file by the name the store records it under (:func:`path_text`). A name that is
    not UTF-8 is written with escapes, and a UTF-8 name may spell the same escapes: the second
    of two such files is named with `` [2]`` (then `` [3]`` ...) after it, never dropped."""
    named: dict[str, str] = {}
    for path in found:
        name = base = path_text(path)
        copy = 1
        while name in named:
            copy += 1
            name = f"{base} [{copy}]"
        named[name] = str(path)
    return named


def _problem_entry(
    store: Store,
    path: str,
    digest: str | None,
    error: TranscriptError,
    status: EntryStatus,
    part: str,
    duplicate_of: str | None = None,
) -> Entry:
    """File a file that yields no runs of its own: its one problem row (of kind ``status``),
    then its entry."""
    seal = store.write_part(
        "problems", part, problems_table(error_problems(path, digest, error, status))
    )
    entry = Entry(
        path=path,
        content_hash=digest,
        status=status,
        part=part,
        families=["problems"],
        runs=[],
        problems=1,
        duplicate_of=duplicate_of,
        parts={"problems": seal},
    )
    store.write_entry(entry)
    return entry


def _unreadable(store: Store, path: str, error: TranscriptError) -> Entry:
    """File the entry of a file that could not be read (no content hash: it is tried again
    by every build)."""
    return _problem_entry(store, path, None, error, "error", f"path-{path_key(path)}")


def _duplicate(store: Store, path: str, digest: str, owner: str) -> Entry:
    error = TranscriptError(
        "corpus",
        None,
        "file",
        f"the same content as {owner}: its runs stand for this file's (counted once)",
        path=path,
    )
    return _problem_entry(store, path, digest, error, "duplicate", f"dup-{path_key(path)}", owner)


def _damaged(store: Store, entries: dict[str, Entry]) -> dict[str, list[Damage]]:
    """The entries whose files are damaged (every byte hashed against its seal), with how."""
    found: dict[str, list[Damage]] = {}
    for damage in store.damage(entries, deep=True):
        found.setdefault(damage.source, []).append(damage)
    return found


def _unrecoverable(
    store: Store,
    entries: dict[str, Entry],
    damaged: dict[str, list[Damage]],
    hashes: dict[str, str],
) -> list[str]:
    """File each damaged entry whose source this build does not read as a problem (its runs
    and parts dropped); return their paths."""
    lost = [path for path in damaged if path not in hashes]
    for path in lost:
        old = entries[path]
        shown = ", ".join(str(d) for d in damaged[path][:3])
        more = f" and {len(damaged[path]) - 3} more" if len(damaged[path]) > 3 else ""
        error = TranscriptError(
            "corpus",
            None,
            "store",
            f"its stored files are damaged ({shown}{more}) and this build did not read its "
            "source: build again with the file to restore its runs",
            path=path,
        )
        # no content hash: the next build that reads the file imports it again
        entries[path] = _problem_entry(store, path, None, error, "error", f"path-{path_key(path)}")
        drop_parts(store, old, entries.values())
    return lost


def _entry_of(outcome: FileOutcome) -> Entry:
    return Entry(
        path=outcome.path,
        # a file that kept changing has no settled content: the next build tries it again
        content_hash=None if outcome.unsettled else outcome.content_hash,
        status="error" if outcome.failure is not None else "imported",
        part=outcome.content_hash,
        families=outcome.families,
        runs=outcome.runs,
        problems=outcome.problems,
        format=outcome.format,
        parts=outcome.parts,
        checkpoint=outcome.checkpoint,
    )


def build_store(
    paths: Paths,
    store: str | os.PathLike[str],
    *,
    executor: Executor | Literal["inline", "processes"] | None = None,
    strict: bool = False,
    tool_loop: bool = True,
    progress: bool = True,
    wait: Wait = True,
) -> BuildReport:
    """Import every file of ``paths`` into the store at ``store`` (made if missing); see the
    module docstring. ``executor`` None imports on a local process pool when more than one
    file is to be imported, else inline. The store's lock is held for the whole build
    (:mod:`footprint_lab.corpus._lock`): ``wait`` True waits for another build as long as it
    takes, a number of seconds at most, False not at all.

    Raises:
        CorpusError: a path names nothing, ``store`` is not a store's folder, or another build
            holds the store's lock and ``wait`` ran out (naming it).
        TranscriptError: ``strict`` and a file did not import (the files before it are in
            the store).
    """
    # Every file by the name the store records it under (a name that is not UTF-8 escaped):
    # the manifest, the frames and the problems speak names; only opening a file needs its path.
    files = _named(source_files(paths))
    folder = Store.prepare(store)
    with StoreLock(folder.root, wait=wait) as lock:
        # made under the lock: a second build never finds the first one's marker half written
        target = Store.create(store)
        report = _build_locked(files, target, executor, strict, tool_loop, progress)
    return report.model_copy(update={"took_over": lock.took_over})


def _build_locked(
    files: dict[str, str],
    target: Store,
    executor: Executor | Literal["inline", "processes"] | None,
    strict: bool,
    tool_loop: bool,
    progress: bool,
) -> BuildReport:
    """The build, the store's lock held (see :func:`build_store`)."""
    entries = target.entries()
    target.remove_unnamed(entries)  # what a killed build left: never read, now gone
    hashes: dict[str, str] = {}
    unreadable: dict[str, TranscriptError] = {}
    for path, real in files.items():
        try:
            hashes[path] = content_hash(Path(real))
        except TranscriptError as exc:
            if strict:
                raise
            unreadable[path] = exc
    # A file whose stored parts are damaged is imported again from its source when this build
    # reads it; one whose source it does not read becomes a problem, its runs gone.
    damaged = _damaged(target, entries)
    lost = _unrecoverable(target, entries, damaged, hashes)
    # Who holds each content: a file the store holds unchanged keeps it; else the first path.
    owners: dict[str, str] = {}
    for path, entry in entries.items():
        held = path not in hashes or hashes[path] == entry.content_hash
        if entry.content_hash and entry.status != "duplicate" and held:
            owners.setdefault(entry.content_hash, path)
    for path, digest in hashes.items():
        owners.setdefault(digest, path)
    tasks: list[FileTask] = []
    unchanged = changed = duplicates = 0
    for path, digest in hashes.items():
        old = entries.get(path)
        owner = owners[digest]
        if owner != path:
            duplicates += 1
            if (
                old is None
                or old.status != "duplicate"
                or old.duplicate_of != owner
                or path in damaged
            ):
                entries[path] = _duplicate(target, path, digest, owner)
                if old is not None:
                    drop_parts(target, old, entries.values())
            continue
        held = old is not None and old.content_hash == digest and old.status != "duplicate"
        if held and path not in damaged:
            unchanged += 1
            continue
        changed += old is not None and old.content_hash not in (None, digest)
        tasks.append(FileTask(str(target.root), files[path], path, digest, strict, tool_loop))
    for path, error in unreadable.items():
        entries[path] = _unreadable(target, path, error)
    added: list[int] = []
    failed = len(unreadable)

    def file_it(_: int, outcome: FileOutcome) -> None:
        nonlocal failed
        if outcome.failure is not None and strict:
            raise outcome.failure.error(outcome.path)
        failed += outcome.failure is not None
        old = entries.get(outcome.path)
        entries[outcome.path] = entry = _entry_of(outcome)
        target.write_entry(entry)  # last: the file's parts are written
        if old is not None:
            drop_parts(target, old, entries.values())
        added.append(len(outcome.runs))

    # A pool costs seconds to start: worth it for two files or more.
    where = ("processes" if len(tasks) > 1 else "inline") if executor is None else executor
    try:
        run_jobs(
            import_file, tasks, executor=where, progress=progress, desc="corpus", on_result=file_it
        )
    except WorkerDied as exc:
        unfinished = [tasks[i].name for i in exc.unfinished]
        named = ", ".join(unfinished[:3]) + (
            f" and {len(unfinished) - 3} more" if len(unfinished) > 3 else ""
        )
        raise CorpusError(
            f"{target.root}: a worker process died while importing (killed, out of memory, or "
            f"crashed); {len(unfinished)} file(s) did not finish: {named}. Every file imported "
            "before is in the store: build again to resume (those are not imported again)"
        ) from exc
    final = target.entries()
    return BuildReport(
        store=str(target.root),
        files=len(files),
        imported=len(tasks) - (failed - len(unreadable)),
        changed=changed,
        unchanged=unchanged,
        failed=failed,
        repaired=len(damaged) - len(lost),
        lost=len(lost),
        duplicates=duplicates,
        runs_added=sum(added),
        runs=sum(len(e.runs) for e in final.values()),
        problems=sum(e.problems for e in final.values()),
    )
