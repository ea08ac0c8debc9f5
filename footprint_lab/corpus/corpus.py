"""The corpus: many runs from every stack in one store, queried as frames, SQL or runs.

Layer: corpus. :meth:`Corpus.build` imports files into a store (:mod:`footprint_lab.corpus.build`);
:meth:`Corpus.open` opens one. A corpus reads its store through the manifest
(:mod:`footprint_lab.corpus.store`): :meth:`~Corpus.frame` a family as pandas with the column
choice and the row filter pushed down to the Parquet scan, :meth:`~Corpus.sql` DuckDB over
every dataset (a view per family and per result table), :meth:`~Corpus.runs` the runs one at
a time, and the grids of :mod:`footprint_lab.corpus.grids` with their results written back
into the store.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, Literal

import duckdb
import pandas as pd
import pyarrow as pa
from pydantic import BaseModel, ConfigDict

from footprint_lab.agent.run import Run
from footprint_lab.corpus._arrow import FAMILIES, to_pandas
from footprint_lab.corpus._lock import Wait
from footprint_lab.corpus.build import BuildReport, Paths, build_store
from footprint_lab.corpus.grids import (
    DEFAULT_CHUNK,
    corpus_cost_frame,
    corpus_evidence_frame,
    corpus_sweep,
)
from footprint_lab.corpus.manifest import Damage, Entry
from footprint_lab.corpus.store import CorpusError, Store, Where
from footprint_lab.evidence import DEFAULT_MIN_CHARS
from footprint_lab.lab.evidence import EvidenceConfig, evidence_setup
from footprint_lab.pricing import CacheRule, Pricing

__all__ = ["FRAMES", "Corpus", "Verification", "damage_words"]

FRAMES: tuple[str, ...] = FAMILIES
"""The frames of a corpus: ``runs``, ``calls``, ``messages``, ``records``, ``refusals``,
``evictions``, ``findings`` (what :func:`footprint_lab.judge` finds about each compaction a
stack performed), ``problems``."""

Executing = Executor | Literal["inline", "processes"] | None


class Verification(BaseModel):
    """What :meth:`Corpus.verify` found."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    store: str
    """The store's folder."""
    sources: int
    """Source files the manifest holds."""
    files: int
    """Parts and checkpoints checked, every byte hashed."""
    damage: list[Damage]
    """Each file that is missing or holds other bytes than it was sealed with."""

    @property
    def ok(self) -> bool:
        """Nothing is damaged."""
        return not self.damage

    def __str__(self) -> str:
        if self.ok:
            return (
                f"corpus {self.store}: {self.files:,} file(s) of {self.sources:,} source(s) "
                "checked, every byte as sealed"
            )
        return damage_words(Path(self.store), self.damage, checked=self.files)


def damage_words(root: Path, damage: Sequence[Damage], checked: int | None = None) -> str:
    """A store's damage in words, with the repair: the first few files, how many in all."""
    sources = sorted({d.source for d in damage})
    listed = "; ".join(str(d) for d in damage[:5])
    more = f"; and {len(damage) - 5} more" if len(damage) > 5 else ""
    of = f" of {checked:,} checked" if checked is not None else ""
    return (
        f"{root}: {len(damage)} damaged file(s){of}, from {len(sources)} source file(s): "
        f"{listed}{more}. Build again from the same paths to rebuild them from their sources "
        f"(footprint-lab corpus build PATHS -o {root}); footprint-lab corpus verify {root} "
        "lists them all"
    )


class Corpus:
    """A corpus store, opened: its frames, SQL over them, its runs, and grids over them."""

    def __init__(self, store: Store, report: BuildReport | None = None) -> None:
        """A corpus over an opened ``store`` (use :meth:`open` or :meth:`build`)."""
        self.store = store
        self.last_build = report
        """What the build that made this object did (None when opened)."""
        self._entries: dict[str, Entry] | None = None

    # -- making and opening -------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        paths: Paths,
        store: str | os.PathLike[str],
        executor: Executing = None,
        strict: bool = False,
        *,
        tool_loop: bool = True,
        progress: bool = True,
        wait: Wait = True,
    ) -> Corpus:
        """Import every file of ``paths`` into the store at ``store`` and open it.

        Files the store already holds with the same content are not imported again;
        ``corpus.last_build`` says what was imported, unchanged, changed, failed
        (:class:`~footprint_lab.corpus.build.BuildReport`).

        Args:
            paths: A folder (read recursively, documentation left out), a file, a glob, or a
                list of them; every file is read by :func:`footprint_lab.importers.load`.
            store: The store's folder (made if missing; a folder holding other things is
                refused).
            executor: Where imports run: None (a local process pool when more than one file
                is to be imported), ``"inline"``, ``"processes"``, or any
                ``concurrent.futures.Executor`` (a Dask client's ``get_executor()``).
            strict: Import strictly and stop at the first file that does not import.
            tool_loop: Passed to ``load`` (text-mode actions rebuilt as tool calls).
            progress: Show a progress bar (tqdm; quiet when stderr is not a terminal).
            wait: One build at a time writes a store (an OS lock on ``<store>/.lock``, held
                for the whole build): wait for another as long as it takes (True), at most
                this many seconds, or not at all (False).

        Raises:
            CorpusError: a path names nothing, ``store`` is not a store's folder, or another
                build holds the store and ``wait`` ran out (the message names it).
            TranscriptError: ``strict`` and a file did not import.
        """
        report = build_store(
            paths,
            store,
            executor=executor,
            strict=strict,
            tool_loop=tool_loop,
            progress=progress,
            wait=wait,
        )
        return cls(Store.open(store), report)

    @classmethod
    def open(cls, store: str | os.PathLike[str], *, check: bool = True) -> Corpus:
        """The corpus in the store at ``store``, its manifest read and checked: every entry
        names its parts and runs by name, never by path, and (``check``) every file it names
        is there with the size it was sealed with (:meth:`verify` hashes every byte).

        Raises:
            CorpusError: there is no store there (the message says how to build one), a
                manifest entry does not validate (naming its file and the rule), or ``check``
                and a file of the store is missing or changed (naming them, and the repair).
        """
        corpus = cls(Store.open(store))
        entries = corpus.entries()
        if check:
            damage = corpus.store.damage(entries)
            if damage:
                raise CorpusError(damage_words(corpus.store.root, damage))
        return corpus

    def verify(self) -> Verification:
        """Check every file the manifest names against its seal, every byte hashed: what
        ``footprint-lab corpus verify STORE`` prints. Building again from the same paths
        rebuilds each damaged file's parts from its source."""
        entries = self.entries()
        files = sum(len(e.families) + len(e.runs) for e in entries.values())
        damage = self.store.damage(entries, deep=True)
        return Verification(store=self.path, sources=len(entries), files=files, damage=damage)

    @property
    def path(self) -> str:
        """The store's folder."""
        return str(self.store.root)

    def entries(self) -> dict[str, Entry]:
        """The manifest: one entry per source file, by path (read once; :meth:`refresh`
        reads it again, after a build into the same store from elsewhere)."""
        if self._entries is None:
            self._entries = self.store.entries()
        return self._entries

    def refresh(self) -> Corpus:
        """Read the manifest again on the next query; returns this corpus."""
        self._entries = None
        return self

    # -- frames and SQL -----------------------------------------------------------------------

    def frame(
        self, name: str, columns: Sequence[str] | None = None, where: Where = None
    ) -> pd.DataFrame:
        """One frame of the corpus, every run's rows (``run_id`` and ``source_path`` first),
        in the dtypes of the lab's specs; or a result table a grid wrote back.

        Args:
            name: One of :data:`FRAMES`, or a result table's name (``"evidence"``, ...).
            columns: Only these columns (read from the files, nothing else is).
            where: Only these rows, filtered in the scan: a ``pyarrow.dataset`` expression,
                pyarrow filters (``[("model", "=", "gpt-4o")]``) or ``{column: value or
                [values]}``.

        Raises:
            KeyError: no such frame or column (the message lists them).
        """
        if name not in FAMILIES and name in self.store.results():
            frame = self.store.read_result(name)
            return frame if columns is None else frame[list(columns)]
        return self.store.frame(name, columns, where, self.entries())

    def results(self) -> list[str]:
        """The result tables the grids wrote back (each a :meth:`frame` and a SQL view)."""
        return self.store.results()

    def sql(self, query: str, *, allow_external: bool = False) -> pd.DataFrame:
        """Run a DuckDB query over the store: a view per frame (``runs``, ``calls``, ...) and
        per result table. Returns pandas in nullable dtypes.

        By default the query cannot touch a file: the frames are handed to DuckDB as Arrow
        datasets (read by pyarrow, through the manifest), then DuckDB's file system access is
        switched off and locked (``enable_external_access = false``, ``lock_configuration``)
        — no ``read_csv('/etc/passwd')``, no ``COPY ... TO`` over the store's parts, no
        ``ATTACH``, no extension install. The database is in memory: a ``CREATE TABLE`` lasts
        for the query and changes nothing on disk.

        Args:
            query: The SQL.
            allow_external: Let the query read and write files (your own joins with other
                Parquet or CSV files). DuckDB can then write anywhere this process can,
                the store's own files included: only for queries you wrote.

        Raises:
            duckdb.Error: the query does not run (DuckDB's message; a file access refused
                says ``Permission Error ... disabled by configuration``).
        """
        entries = self.entries()
        con = duckdb.connect(":memory:")
        try:
            for family in FAMILIES:
                con.register(family, self.store.dataset(family, entries))
            for name in self.store.results():
                if name not in FAMILIES:
                    con.register(name, self.store.result_dataset(name))
            if not allow_external:
                con.execute("set enable_external_access = false")
                con.execute("set lock_configuration = true")
            result = con.sql(query)
            if result is None:
                return pd.DataFrame()
            table = result.arrow()
            if isinstance(table, pa.RecordBatchReader):
                table = table.read_all()
            return to_pandas(table)
        finally:
            con.close()

    # -- runs ---------------------------------------------------------------------------------

    def run_ids(self, where: Where = None) -> list[str]:
        """The ids of the runs (``where``: a filter on the ``runs`` frame), in store order."""
        table = self.store.table("runs", ["run_id"], where, self.entries())
        return [str(v) for v in table["run_id"].to_pylist()]

    def run(self, run_id: str) -> Run:
        """One run, rebuilt from its checkpoint.

        Raises:
            CorpusError: no such run.
        """
        return self.store.read_run(run_id)

    def runs(self, where: Where = None) -> Iterator[Run]:
        """The runs (``where``: a filter on the ``runs`` frame), lazily: each is read from the
        store when the iteration reaches it, so one run is in memory at a time."""
        for run_id in self.run_ids(where):
            yield self.store.read_run(run_id)

    def __len__(self) -> int:
        """How many runs the corpus holds."""
        return sum(len(e.runs) for e in self.entries().values())

    def __repr__(self) -> str:
        """One line of what the store holds; after a build, a second saying what it did."""
        entries = self.entries()
        runs = sum(len(e.runs) for e in entries.values())
        problems = sum(e.problems for e in entries.values())
        line = f"<Corpus {self.path}: {len(entries)} files, {runs} runs, {problems} problems>"
        # Just built: say what the build did (what was imported, what was not again).
        return line if self.last_build is None else f"{line}\n{self.last_build}"

    # -- grids --------------------------------------------------------------------------------

    def evidence_frame(
        self,
        configs: Sequence[EvidenceConfig | Mapping[str, Any] | Any],
        executor: Executing = None,
        *,
        where: Where = None,
        name: str = "evidence",
        min_chars: int = DEFAULT_MIN_CHARS,
        pricing: Pricing | None = None,
        cache: CacheRule | None = None,
        chunk: int = DEFAULT_CHUNK,
        progress: bool = True,
    ) -> pd.DataFrame:
        """:func:`footprint_lab.lab.evidence_frame` over the corpus's runs (labelled by run
        id), each job sent the store's path and at most ``chunk`` run ids, never a run; the
        frame is written back as the result table ``name`` and returned.

        Args:
            configs: As :func:`~footprint_lab.lab.evidence_frame` takes them.
            executor: None or ``"inline"`` (here), ``"processes"`` (a local pool) or any
                ``concurrent.futures.Executor``.
            where: Only the runs this filter on the ``runs`` frame keeps.
            name: The result table to write (a view of that name in :meth:`sql`).
            min_chars: The shortest argument value that counts as evidence.
            pricing: As :func:`~footprint_lab.lab.evidence_frame`.
            cache: As :func:`~footprint_lab.lab.evidence_frame`.
            chunk: Runs per job.
            progress: Show a progress bar.
        """
        cfgs, price, rule = evidence_setup(configs, pricing, cache)
        self.store.result_path(name)
        frame = corpus_evidence_frame(
            self.store,
            self.run_ids(where),
            cfgs,
            executor="inline" if executor is None else executor,
            min_chars=min_chars,
            pricing=price,
            cache=rule,
            chunk=chunk,
            progress=progress,
        )
        self.store.write_result(name, frame)
        return frame

    def cost_frame(
        self,
        pricing: Pricing | Mapping[str, Pricing] | None = None,
        *,
        cache: CacheRule | None = None,
        where: Where = None,
        name: str = "cost",
    ) -> pd.DataFrame:
        """:func:`footprint_lab.lab.costs.cost_frame` of the corpus's runs (labelled by run id),
        priced from the stored ``calls`` table (no run is loaded); written back as the result
        table ``name`` and returned."""
        self.store.result_path(name)  # a bad name fails before the work, not after
        runs = self.store.frame(
            "runs",
            ["run_id", "model", "provider", "counterfactual", "tokens_per_char"],
            where,
            self.entries(),
        )
        frame = corpus_cost_frame(self.store, runs, pricing, cache, self.entries())
        self.store.write_result(name, frame)
        return frame

    def sweep(
        self,
        strategy_factory: Callable[..., Any],
        grid: Mapping[str, Sequence[Any]] | None = None,
        executor: Executing = None,
        *,
        where: Where = None,
        name: str = "sweep",
        chunk: int = DEFAULT_CHUNK,
        progress: bool = True,
    ) -> pd.DataFrame:
        """:func:`footprint_lab.sweep` of every run of the corpus: one row per configuration
        × run, a ``run`` column (the run id) in front; jobs carry the store's path and run ids;
        written back as the result table ``name`` and returned."""
        self.store.result_path(name)
        frame = corpus_sweep(
            self.store,
            self.run_ids(where),
            strategy_factory,
            grid,
            executor="inline" if executor is None else executor,
            chunk=chunk,
            progress=progress,
        )
        self.store.write_result(name, frame)
        return frame
