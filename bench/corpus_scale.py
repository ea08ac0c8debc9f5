"""Corpus at scale: thousands of varied real-format runs built, queried and swept.

Run with ``python -m bench.corpus_scale [--sizes 1000 10000]``; prints a markdown section.

The corpus is written by :func:`bench._scale_corpus.write_corpus` (real transcripts and
tau-bench trajectories resampled and relabelled: see that module), once per size, seeded.
Timed, each executor started and warmed first (its start not counted):

* a build of every size on a 2-process spawn pool, each in a fresh process, which reports the
  build's seconds and the peak resident memory of itself (``VmHWM``: ``ru_maxrss`` would be
  its parent's, carried across fork and exec) and of its pool's workers (``RUSAGE_CHILDREN``:
  the largest child, once the pool is shut down);
* a build of every size inline and on a Dask ``LocalCluster`` of 2 worker processes;
* the store's size against the raw files; one ``corpus.sql`` aggregate over every call;
* a 16-configuration evidence frontier (``sliding_window``, keep_recent_turns 1-8 x
  keep_last_tool_results 0, 2) over the largest corpus on the pool, and inline and on the pool
  over an even sample of its runs (the per-job overhead the projection takes: the pool's
  workers' time beyond the same work inline), then the projected cluster time of a sweep ten
  times the configurations, as section 10 projects it (:func:`bench.grids.project`).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from contextlib import ExitStack
from pathlib import Path

from bench._common import Section, _fmt, verdict
from bench._scale_corpus import write_corpus
from bench.corpus import Recording, _dask, _pool, _size_mb, _warm
from bench.grids import SCALE_UP, project
from footprint_lab import bulk_work, sliding_window
from footprint_lab.corpus import Corpus
from footprint_lab.corpus.grids import DEFAULT_CHUNK, chunks
from footprint_lab.lab.evidence import EvidenceConfig, evidence_grid

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1_000, 10_000)
SEED = 27
RSS_RATIO = 1.5
"""Target: peak RSS building the largest corpus within this factor of the smallest's."""

_POOL_BUILD = """
import resource, sys, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from bench.corpus import _warm
from footprint_lab.corpus import Corpus
from footprint_lab.corpus.grids import DEFAULT_CHUNK, chunks
with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
    _warm(pool)
    start = time.perf_counter()
    corpus = Corpus.build(sys.argv[1], sys.argv[2], executor=pool, progress=False)
    seconds = time.perf_counter() - start
# VmHWM, not RUSAGE_SELF: Linux keeps ru_maxrss across fork and exec, so a child of the large
# bench process would report its parent's peak as its own.
with open("/proc/self/status") as status:
    own = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(len(corpus), seconds, own, workers)
"""


def configurations() -> list[EvidenceConfig]:
    """Sixteen: ``sliding_window`` over keep_recent_turns 1-8 x keep_last_tool_results 0, 2."""
    grid = {"keep_recent_turns": list(range(1, 9)), "keep_last_tool_results": [0, 2]}
    return evidence_grid(sliding_window, grid)


def pool_build(sources: Path, store: Path) -> tuple[int, float, float, float]:
    """Build ``sources`` into ``store`` on a 2-process pool in a fresh process: runs, seconds,
    and the peak RSS (MB) of that process and of its largest worker."""
    done = subprocess.run(
        [sys.executable, "-c", _POOL_BUILD, str(sources), str(store)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])},
    )
    runs, seconds, own, workers = done.stdout.split()
    return int(runs), float(seconds), int(own) / 1024, int(workers) / 1024


def _rate(runs: int, mb: float, seconds: float) -> str:
    return f"{runs / seconds:.1f} runs/s, {mb / seconds:.2f} MB/s ({_fmt(seconds)} s)"


def run(sizes: Sequence[int] = SIZES, sample: int = 200) -> Section:
    """Write, build, query and sweep corpora of ``sizes`` runs (the frontier inline over
    ``sample`` of the largest corpus's runs); one section."""
    small, large = min(sizes), max(sizes)
    configs = configurations()
    section = Section(
        "12. Corpus at scale",
        f"Corpora of {', '.join(f'{n:,}' for n in sorted(sizes))} runs written from the "
        "repository's real transcripts and tau-bench trajectories, resampled and relabelled "
        "(tau-bench files of 1-4 resampled entries with new task ids and trials, conversations "
        "cut at a turn; Claude Code and OpenHands streams cut to a prefix; every identifier "
        "renamed; see `bench/_scale_corpus.py`), seeded, every file distinct. Built on a "
        "2-process spawn pool in a fresh process per size (its peak RSS and its largest "
        "worker's); then inline and on a Dask LocalCluster of 2 workers, every size. Then one "
        "SQL aggregate "
        f"over every call, and a {len(configs)}-configuration evidence frontier "
        "(`sliding_window` keep_recent_turns 1-8 x keep_last_tool_results 0, 2) over the "
        f"{large:,}-run corpus on the pool. Executors are started and warmed first.",
        ["measure", "value"],
    )
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        base = Path(tmp)
        folders: dict[int, Path] = {}
        for n in sorted(sizes):
            start = time.perf_counter()
            files = write_corpus(base / f"sources-{n}", n, SEED)
            folders[n] = base / f"sources-{n}"
            raw = _size_mb(folders[n])
            sizes_kb = sorted(f.stat().st_size / 1e3 for f in files)
            section.rows.append(
                [
                    f"corpus of {n:,} runs",
                    f"{len(files):,} files, {raw:.1f} MB raw (file sizes {sizes_kb[0]:.1f}-"
                    f"{sizes_kb[-1]:.0f} kB, median {sizes_kb[len(sizes_kb) // 2]:.1f} kB); "
                    f"written in {_fmt(time.perf_counter() - start)} s",
                ]
            )
        peaks: dict[int, float] = {}
        for n in sorted(sizes):
            runs, seconds, own, workers = pool_build(folders[n], base / f"store-{n}")
            peaks[n] = max(own, workers)
            section.rows.append(
                [f"build {runs:,} runs, pool of 2", _rate(runs, _size_mb(folders[n]), seconds)]
            )
            section.rows.append(
                [
                    f"peak RSS building {runs:,} runs",
                    f"{own:.0f} MB (building process), {workers:.0f} MB (largest worker)",
                ]
            )
        executors: dict[str, Executor | None] = {"inline": None}
        dask = stack.enter_context(_dask())
        _warm(dask)
        executors["Dask LocalCluster, 2 workers"] = dask
        for n in sorted(sizes):
            for label, executor in executors.items():
                start = time.perf_counter()
                built = Corpus.build(
                    folders[n],
                    base / f"store-{n}-{label[:4]}",
                    executor="inline" if executor is None else executor,
                    progress=False,
                )
                seconds = time.perf_counter() - start
                section.rows.append(
                    [
                        f"build {len(built):,} runs, {label}",
                        _rate(len(built), _size_mb(folders[n]), seconds),
                    ]
                )
        corpus = Corpus.open(base / f"store-{large}")
        raw = _size_mb(folders[large])
        store_mb = _size_mb(Path(corpus.path))
        section.rows.append(
            [
                f"store size, {large:,} runs",
                f"{store_mb:.1f} MB ({store_mb / raw:.2f}x the raw files)",
            ]
        )
        start = time.perf_counter()
        tokens = corpus.sql(
            "select r.format, count(*) as calls, sum(c.chars) as chars, "
            "sum(coalesce(c.input_tokens, 0)) as input_tokens "
            "from calls c join runs r using (run_id) group by r.format order by calls desc"
        )
        seconds = time.perf_counter() - start
        calls = int(tokens["calls"].sum())
        section.rows.append(
            [
                "sql: calls, chars and input tokens per source format (every call)",
                f"{calls:,} calls in {len(tokens)} formats, {_fmt(seconds)} s",
            ]
        )
        pool = stack.enter_context(_pool())
        _warm(pool)
        recording = Recording()
        corpus.evidence_frame(configs[:1], executor=recording, progress=False)
        jobs = len(recording.sizes)
        start = time.perf_counter()
        with bulk_work():
            frame = corpus.evidence_frame(configs, executor=pool, progress=False)
        pool_seconds = time.perf_counter() - start
        tasks = len(corpus) * len(configs)
        section.rows.append(
            [
                f"evidence frontier, {len(configs)} configurations x {len(corpus):,} runs, pool",
                f"{tasks / pool_seconds:.0f} run x configurations/s ({_fmt(pool_seconds)} s, "
                f"{len(frame):,} rows, {jobs:,} jobs of at most {max(recording.sizes):,} bytes)",
            ]
        )
        ids = corpus.run_ids()
        step = max(1, len(ids) // sample)
        picked = ids[::step][:sample]
        # The same sample inline and on the pool: the pool's two workers' time beyond the
        # inline work, per job, is what a job costs a worker (its store reads, its rows back).
        sample_jobs = len(chunks(picked, DEFAULT_CHUNK))  # the split the corpus's grids make
        timed: dict[str, float] = {}
        runs_on: tuple[tuple[Executor | str, str], ...] = (("inline", "inline"), (pool, "pool"))
        for runner, label in runs_on:
            start = time.perf_counter()
            with bulk_work():
                corpus.evidence_frame(
                    configs,
                    executor=runner,
                    where={"run_id": picked},
                    name=f"sample_{label}",
                    progress=False,
                )
            timed[label] = time.perf_counter() - start
        inline_seconds = timed["inline"]
        per_task = inline_seconds / (len(picked) * len(configs))
        section.rows.append(
            [
                f"evidence frontier, {len(picked)} runs (an even sample): inline; pool",
                f"{1 / per_task:.0f} run x configurations/s ({_fmt(inline_seconds)} s); "
                f"{len(picked) * len(configs) / timed['pool']:.0f} run x configurations/s "
                f"({_fmt(timed['pool'])} s, {sample_jobs} jobs)",
            ]
        )
    ratio = peaks[large] / peaks[small]
    section.notes.append(
        f"Peak RSS (the larger of the building process and its largest worker): "
        f"{peaks[large]:.0f} MB at {large:,} runs, {peaks[small]:.0f} MB at {small:,}: "
        f"{ratio:.2f}x (target within {RSS_RATIO}x: {verdict(ratio <= RSS_RATIO)})."
    )
    section.notes.append(
        "Calls per format: "
        + "; ".join(
            f"{row.format} {int(row.calls):,} calls, {int(row.chars) / 1e6:.1f} M chars"
            for row in tokens.itertuples()
        )
        + f"; {int(tokens['input_tokens'].sum()):,} input tokens where a file recorded usage."
    )
    # As section 10: the work per task inline, and what a job costs a worker beyond it (the
    # pool's two workers' time on the sample less the same work inline, per job).
    overhead = (timed["pool"] * 2 - inline_seconds) / sample_jobs
    per_job = max(0.0, overhead)
    runs_per_job = math.ceil(len(corpus) / jobs)
    # The work of one corpus job, from the corpus's own pool run: its workers' time per job
    # less the overhead (the sample's mix of runs is not the corpus's).
    work_per_job = max(0.0, pool_seconds * 2 / jobs - per_job)
    job_seconds = per_job + work_per_job * SCALE_UP
    projected = project(jobs, job_seconds)
    resolved = (
        f"{per_job:.3f} s per job"
        if overhead > 0
        else f"a per-job overhead below what this measurement resolves ({overhead:.3f} s: "
        "the pool's run was no slower than the inline one on the same sample), taken as 0"
    )
    section.notes.append(
        f"Measured on the sample: {per_task * 1e3:.2f} ms per run x configuration inline, plus "
        f"{resolved} on the pool ({sample_jobs} jobs of the sample, {jobs:,} of the corpus, at "
        f"most {runs_per_job} runs each, carrying the store's path and run ids, every "
        f"configuration); a corpus job's work: {work_per_job:.3f} s (the pool's run over the "
        f"corpus, two workers, less the overhead). Projected: a sweep {SCALE_UP}x the "
        f"configurations ({len(configs) * SCALE_UP} x {len(corpus):,} runs = "
        f"{tasks * SCALE_UP:,} pairs, {jobs:,} jobs, each {SCALE_UP}x the work and the same "
        "overhead) on a cluster of N workers: "
        + "; ".join(f"N = {n}: {_fmt(s)} s" for n, s in projected.items())
        + ". Assumes, as section 10 does, a linear split of whole jobs, a scheduler that keeps "
        "up, and a store every worker reads as fast as a local disk."
    )
    section.notes.append(f"Load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.")
    return section


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.corpus_scale", description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--sample", type=int, default=200)
    args = parser.parse_args(argv)
    print(run(args.sizes, args.sample).markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
