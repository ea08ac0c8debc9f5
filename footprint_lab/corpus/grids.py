"""Grids over a corpus without shipping it: evidence, cost and sweeps, read where they run.

Layer: corpus. A grid over a store sends each job the store's path and a few run ids (at most
``chunk``) with the configurations — never a run or a checkpoint — so a job's payload does not
grow with the corpus. The worker reads the runs it was named from the store
(:meth:`~footprint_lab.corpus.store.Store.read_run`), measures them with the lab's own
functions (:func:`~footprint_lab.lab.evidence.measure` and ``run_facts`` for evidence,
:func:`~footprint_lab.lab.sweeps.configuration_row` for a sweep) and hands back plain rows,
which the lab's frame builders turn into the very frames :func:`footprint_lab.lab.evidence_frame`
and :func:`footprint_lab.sweep` give on the runs themselves. The cost frame needs no worker at
all: the store's ``calls`` table holds every call's usage and cache lens, so it is priced by
:func:`footprint_lab.lab.costs.cost_frame` from the stored frames, no run loaded.

Jobs go through the lab's one grid runner (:func:`footprint_lab.lab.experiments.run_jobs`):
inline, a local process pool, or any ``concurrent.futures.Executor`` (a Dask client's
``get_executor()``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from footprint_lab._gc import bulk_work, in_bulk_work
from footprint_lab.agent.replay import ReplaySource
from footprint_lab.corpus.manifest import Entry
from footprint_lab.corpus.store import Store
from footprint_lab.evidence import transcript_facts
from footprint_lab.lab.costs import cost_frame
from footprint_lab.lab.evidence import EvidenceConfig, evidence_frame_of, measure, run_facts
from footprint_lab.lab.experiments import run_jobs
from footprint_lab.lab.frames import Frames
from footprint_lab.lab.schema import FRAME_NAMES, build_frame, column, empty_frame, spec
from footprint_lab.lab.sweeps import baseline_cost, configuration_row, grid_configurations
from footprint_lab.pricing import CacheRule, Pricing

__all__ = [
    "DEFAULT_CHUNK",
    "EvidenceJob",
    "SweepJob",
    "chunks",
    "corpus_cost_frame",
    "corpus_evidence_frame",
    "corpus_sweep",
    "evidence_job",
    "sweep_job",
]

DEFAULT_CHUNK = 8
"""Runs per job: enough to amortise a job's start, few enough to share the work out."""

Where = Executor | Literal["inline", "processes"]


@dataclass(frozen=True)
class EvidenceJob:
    """One evidence job: the store, the runs to read from it, and every configuration."""

    store: str
    """The store's folder."""
    run_ids: tuple[str, ...]
    """The runs this job measures (at most the grid's ``chunk``)."""
    configs: tuple[EvidenceConfig, ...]
    """Every configuration of the grid."""
    min_chars: int
    """The shortest argument value that counts as evidence."""
    pricing: Pricing
    """The price of ``input_cost``."""
    cache: CacheRule
    """The cache rule."""
    bulk: bool = False
    """The caller was inside :func:`~footprint_lab.bulk_work`: the worker is too."""


@dataclass(frozen=True)
class SweepJob:
    """One sweep job: the store, the runs to read from it, the factory and every configuration."""

    store: str
    """The store's folder."""
    run_ids: tuple[str, ...]
    """The runs this job replays."""
    factory: Callable[..., Any]
    """The strategy factory (shipped with cloudpickle: a lambda works)."""
    configs: tuple[Mapping[str, Any], ...]
    """Every configuration of the grid."""


def chunks(run_ids: Sequence[str], size: int) -> list[tuple[str, ...]]:
    """``run_ids`` in consecutive groups of at most ``size``."""
    if size < 1:
        raise ValueError(f"chunk must be at least 1 run per job, got {size}")
    return [tuple(run_ids[i : i + size]) for i in range(0, len(run_ids), size)]


def _per_run(
    work: Callable[[Any], list[Any]],
    job_of: Callable[[tuple[str, ...]], Any],
    run_ids: Sequence[str],
    configurations: int,
    *,
    executor: Where,
    chunk: int,
    progress: bool,
    desc: str,
) -> tuple[list[str], list[Any]]:
    """Run ``work`` over ``run_ids`` in jobs of at most ``chunk`` ids (``job_of(ids)``: what a
    worker is sent, the store's path and the ids, never the runs); the ids in job order and
    one result per run, in the same order."""
    groups = chunks(list(run_ids), chunk)
    done = run_jobs(
        work,
        [job_of(ids) for ids in groups],
        executor=executor,
        progress=progress,
        desc=desc,
        weights=[len(ids) * configurations for ids in groups],
    )
    return [i for ids in groups for i in ids], [item for part in done for item in part]


def evidence_job(job: EvidenceJob) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """In a worker: for each run named, its facts and one measure per configuration."""
    store = Store(job.store)
    strategies = [config.build() for config in job.configs]
    out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    with bulk_work() if job.bulk else nullcontext():
        for run_id in job.run_ids:
            run = store.read_run(run_id)
            # The run read once for every configuration: its transcript's facts (its links
            # found once) and what its replays share.
            read = transcript_facts(run)[0]
            source = ReplaySource(run)
            facts = run_facts(run_id, run, job.pricing, job.cache, read)
            measures = [
                measure(
                    source,
                    strategy,
                    config.keep_last_tool_results,
                    job.min_chars,
                    job.pricing,
                    job.cache,
                    read,
                )
                for config, strategy in zip(job.configs, strategies, strict=True)
            ]
            out.append((facts, measures))
    return out


def corpus_evidence_frame(
    store: Store,
    run_ids: Sequence[str],
    cfgs: Sequence[EvidenceConfig],
    *,
    executor: Where,
    min_chars: int,
    pricing: Pricing,
    cache: CacheRule,
    chunk: int = DEFAULT_CHUNK,
    progress: bool = True,
) -> pd.DataFrame:
    """The evidence frame of ``run_ids`` under ``cfgs`` (checked by ``evidence_setup``), the
    runs read by the workers from ``store``; rows in configuration order, then run order."""
    bulk = in_bulk_work()
    _, pairs = _per_run(
        evidence_job,
        lambda ids: EvidenceJob(str(store.root), ids, tuple(cfgs), min_chars, pricing, cache, bulk),
        run_ids,
        len(cfgs),
        executor=executor,
        chunk=chunk,
        progress=progress,
        desc="evidence",
    )
    facts = [f for f, _ in pairs]
    results = [[measures[k] for _, measures in pairs] for k in range(len(cfgs))]
    return evidence_frame_of(cfgs, facts, results, cache)


def sweep_job(job: SweepJob) -> list[list[dict[str, Any]]]:
    """In a worker: for each run named, one sweep row per configuration."""
    store = Store(job.store)
    out: list[list[dict[str, Any]]] = []
    for run_id in job.run_ids:
        run = store.read_run(run_id)
        baseline = baseline_cost(run)
        out.append([configuration_row(run, job.factory, c, baseline) for c in job.configs])
    return out


def corpus_sweep(
    store: Store,
    run_ids: Sequence[str],
    strategy_factory: Callable[..., Any],
    grid: Mapping[str, Sequence[Any]] | None,
    *,
    executor: Where,
    chunk: int = DEFAULT_CHUNK,
    progress: bool = True,
) -> pd.DataFrame:
    """:func:`footprint_lab.sweep` of every run: one row per configuration × run (in that
    order), the ``sweep`` frame with a ``run`` column (the run id) in front."""
    configs = grid_configurations(grid or {})
    ids, per_run = _per_run(
        sweep_job,
        lambda group: SweepJob(str(store.root), group, strategy_factory, tuple(configs)),
        run_ids,
        len(configs),
        executor=executor,
        chunk=chunk,
        progress=progress,
        desc="sweep",
    )
    rows = [per_run[r][k] for k in range(len(configs)) for r in range(len(ids))]
    columns = spec("sweep").columns
    frame = build_frame(
        "sweep",
        {c: [row[c] for row in rows] for c in columns},
        knobs={key: [c[key] for c in configs for _ in ids] for key in (grid or {})},
    )
    frame.insert(0, "run", column([run_id for _ in configs for run_id in ids], "string"))
    return frame


def _info(row: Mapping[str, Any]) -> dict[str, Any]:
    """``Frames.info`` of a stored run, as far as pricing reads it."""
    ratio = row["tokens_per_char"]
    return {
        "label": row["run_id"],
        "model": row["model"],
        "provider": row["provider"],
        "counterfactual": bool(row["counterfactual"]),
        "tokens_per_char": None if ratio is None or math.isnan(ratio) else float(ratio),
    }


def corpus_cost_frame(
    store: Store,
    runs: pd.DataFrame,
    pricing: Pricing | Mapping[str, Pricing] | None,
    cache: CacheRule | None,
    entries: Mapping[str, Entry] | None = None,
) -> pd.DataFrame:
    """:func:`footprint_lab.lab.costs.cost_frame` of the stored runs in ``runs`` (rows of the
    ``runs`` frame), priced from the stored ``calls`` table: no run is loaded."""
    ids = runs["run_id"].tolist()
    calls = store.frame("calls", where={"run_id": ids}, entries=entries)
    by_run = dict(tuple(calls.groupby("run_id", sort=False, observed=True)))
    keys = ["run_id", "source_path"]
    empty = calls.iloc[0:0].drop(columns=keys)
    # Pricing reads a run's calls and info only: the other frames are one shared empty set
    # (building ten empty frames per run would cost more than pricing it).
    blank = {name: empty_frame(name) for name in FRAME_NAMES}
    frames: dict[str, Frames] = {}
    rows: list[dict[str, Any]] = runs.to_dict("records")  # type: ignore[assignment]
    for row in rows:
        found = by_run.get(row["run_id"])
        part = empty if found is None else found.drop(columns=keys).reset_index(drop=True)
        frames[str(row["run_id"])] = Frames.of({**blank, "calls": part}, info=_info(row))
    return cost_frame(frames, pricing, cache=cache)
