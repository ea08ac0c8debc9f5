"""A corpus store: build rate, store size, per-job transport, and a grid on a pool and on Dask.

Run with ``python -m bench.corpus [--copies N] [--rounds R]``; prints a markdown section.

The corpus is the repository's real transcripts and tau-bench trajectories, ``copies`` times:
each copy of a JSON file is its bytes with ``k`` trailing newlines, so it is a different file
(a content hash of its own, runs of their own) that imports to the same runs (JSON lines and
Inspect ``.eval`` zips are copied once: a blank line or trailing bytes would change them).
Timed: a build inline, on a 2-process spawn pool and on a Dask ``LocalCluster`` of 2 worker
processes (each executor started first, its start not counted); the evidence grid of the
corpus on the pool and on the cluster, alternately, best of ``rounds``. Transport: the bytes of
each job the grid submits (cloudpickle of the job, as the grid runner sends it), for the corpus
and for a corpus of one copy, beside what shipping the runs (``lab.evidence_frame`` on an
executor) submits per job.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import Any

from bench._common import Section, _fmt
from bench.grids import _dask as grids_dask
from bench.grids import _pool as grids_pool
from footprint_lab import bulk_work, clear_tool_results, sliding_window
from footprint_lab.corpus import Corpus, source_files
from footprint_lab.lab.evidence import EvidenceConfig, evidence_frame, evidence_grid

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "data" / "transcripts", ROOT / "data" / "tau-bench"]
POOL = "process pool, 2 (spawn)"
DASK = "Dask LocalCluster, 2 workers"


def make_sources(folder: Path, copies: int) -> Path:
    """The real files ``copies`` times under ``folder`` (see the module docstring)."""
    for k in range(copies):
        for path in source_files(SOURCES):
            if k and path.suffix in (".jsonl", ".eval"):
                continue
            target = folder / f"copy{k}" / path.parent.name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            if k:
                target.write_bytes(path.read_bytes() + b"\n" * k)
            else:
                shutil.copy(path, target)
    return folder


def configurations() -> list[EvidenceConfig]:
    """Eight configurations: two policies x keep_recent_turns 2, 6 x pins 0, 2."""
    grid = {"keep_recent_turns": [2, 6], "keep_last_tool_results": [0, 2]}
    return [*evidence_grid(sliding_window, grid), *evidence_grid(clear_tool_results, grid)]


class Recording(Executor):
    """Runs each job here and keeps the size of what was submitted."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        (payload,) = args
        self.sizes.append(len(payload))
        future: Future[Any] = Future()
        future.set_result(fn(payload))
        return future


def _pool() -> AbstractContextManager[Executor]:
    """The 2-process spawn pool section 10 measures on."""
    return grids_pool(2)


def _dask() -> AbstractContextManager[Executor]:
    """The Dask LocalCluster of 2 worker processes section 10 measures on."""
    return grids_dask(2)()


def _warm(executor: Executor) -> None:
    """Make every worker import the library, so its start-up is not timed (``exec`` travels by
    reference: nothing of this module need be importable in a worker)."""
    code = "import footprint_lab.corpus._rows, footprint_lab.corpus.grids"
    for future in [executor.submit(exec, code) for _ in range(4)]:
        future.result()


_PEAK = """
import resource, sys
from footprint_lab.corpus import Corpus
corpus = Corpus.build(sys.argv[1], sys.argv[2], executor="inline", progress=False)
print(len(corpus), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss(sources: Path, store: Path) -> tuple[int, float]:
    """Runs built and the peak resident memory (MB) of a fresh process building ``sources``
    inline into ``store``."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(sources), str(store)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    runs, kilobytes = done.stdout.split()
    return int(runs), int(kilobytes) / 1024


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def run(copies: int = 4, rounds: int = 2) -> Section:
    """Build, measure transport, time the grid on the pool and on Dask; one section."""
    section = Section(
        "Corpus store",
        "The real transcripts and tau-bench runs, several times over (each copy a file of its "
        "own), built into a corpus store; then the evidence grid over the store, each job the "
        "store's path and at most 8 run ids.",
        ["measure", "value"],
    )
    configs = configurations()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        base = Path(tmp)
        sources = make_sources(base / "sources", copies)
        raw_mb = _size_mb(sources)
        files = len(source_files(sources))
        executors: dict[str, Executor | None] = {"inline": None}
        started: dict[str, float] = {}
        for label, opened in ((POOL, _pool), (DASK, _dask)):
            start = time.perf_counter()
            executor = stack.enter_context(opened())
            _warm(executor)
            started[label] = time.perf_counter() - start
            executors[label] = executor
        corpus: Corpus | None = None
        for label, executor in executors.items():
            start = time.perf_counter()
            built = Corpus.build(
                sources,
                base / f"store-{len(started)}-{label[:4]}",
                executor="inline" if executor is None else executor,
                progress=False,
            )
            seconds = time.perf_counter() - start
            runs = len(built)
            section.rows.append(
                [f"build, {label}", f"{runs / seconds:.1f} runs/s, {raw_mb / seconds:.2f} MB/s"]
            )
            corpus = corpus or built
        assert corpus is not None
        runs = len(corpus)
        store_mb = _size_mb(Path(corpus.path))
        section.rows.insert(0, ["corpus", f"{files} files, {runs} runs, {raw_mb:.1f} MB raw"])
        section.rows.append(["store size", f"{store_mb:.1f} MB ({store_mb / raw_mb:.2f}x raw)"])
        start = time.perf_counter()
        total = corpus.sql("select count(*) as calls, sum(chars) as chars from calls")
        section.rows.append(
            [
                "sql: an aggregate over every call",
                f"{int(total['calls'].iloc[0]):,} calls in {_fmt(time.perf_counter() - start)} s",
            ]
        )
        # Memory: a fresh process building one copy, and every copy, inline.
        small_sources = make_sources(base / "rss-one", 1)
        for label, folder in (("one copy", small_sources), (f"{copies} copies", sources)):
            n, mb = peak_rss(folder, base / f"rss-store-{label[:3]}")
            section.rows.append([f"peak RSS, inline build of {label}", f"{mb:.0f} MB ({n} runs)"])
        # Transport: what each job carries, for this corpus and for one copy of the files.
        one = Corpus.build(
            make_sources(base / "one", 1), base / "store-one", executor="inline", progress=False
        )
        for label, target in ((f"{runs} runs", corpus), (f"{len(one)} runs", one)):
            recording = Recording()
            target.evidence_frame(configs[:1], executor=recording, progress=False)
            section.rows.append(
                [
                    f"bytes per job, corpus of {label}",
                    f"{max(recording.sizes):,} (max), {len(recording.sizes)} jobs",
                ]
            )
        shipping = Recording()
        evidence_frame(list(one.runs()), configs[:1], executor=shipping, progress=False)
        section.rows.append(
            [
                f"bytes per job shipping the runs ({len(one)} runs)",
                f"{max(shipping.sizes):,} (one job per configuration, every run in it)",
            ]
        )
        # The grid on the pool and on the cluster, alternately, best of `rounds`.
        best: dict[str, float] = {}
        for _ in range(rounds):
            for label in (POOL, DASK):
                start = time.perf_counter()
                with bulk_work():
                    corpus.evidence_frame(configs, executor=executors[label], progress=False)
                seconds = time.perf_counter() - start
                best[label] = min(best.get(label, seconds), seconds)
        tasks = runs * len(configs)
        for label in (POOL, DASK):
            section.rows.append(
                [
                    f"evidence grid, {label}",
                    f"{tasks / best[label]:.0f} run x configurations/s "
                    f"({_fmt(best[label])} s; started in {_fmt(started[label])} s)",
                ]
            )
        ratio = best[DASK] / best[POOL]
        section.notes.append(
            f"Dask 2 workers take {ratio:.2f}x the pool's time on the grid "
            f"({'within' if ratio <= 1.2 else 'outside'} the 20% target); load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores."
        )
    return section


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.corpus", description=__doc__)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    print(run(args.copies, args.rounds).markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
