"""Grids over a corpus without shipping it: the frames equal the lab's on the runs themselves,
each job carries the store's path and a few run ids (whatever the corpus's size), results are
written back into the store, and a Dask cluster runs the same jobs."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import cloudpickle
import pandas as pd
import pytest

from footprint_lab import sliding_window, sweep
from footprint_lab.agent.run import Run
from footprint_lab.corpus import Corpus
from footprint_lab.corpus.grids import EvidenceJob
from footprint_lab.lab import evidence_frame, evidence_grid, no_policy
from footprint_lab.lab.costs import Pricing, cost_frame
from tests.corpus.helpers import TRANSCRIPTS

CONFIGS = [
    no_policy(),
    *evidence_grid(sliding_window, {"keep_recent_turns": [2, 6], "keep_last_tool_results": [0, 2]}),
]
PRICE = Pricing(
    input_per_mtok=2.5, cached_input_per_mtok=1.25, cache_write_per_mtok=2.5, output_per_mtok=10
)


class Recording(Executor):
    """Runs each job here, at once, and keeps the payload it was submitted."""

    def __init__(self) -> None:
        self.payloads: list[bytes] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        (payload,) = args
        self.payloads.append(payload)
        future: Future[Any] = Future()
        future.set_result(fn(payload))
        return future


def _theirs(real_runs: dict[str, Run], corpus: Corpus, **where: Any) -> dict[str, Run]:
    return {run_id: real_runs[run_id] for run_id in corpus.run_ids(where or None)}


def test_the_evidence_frame_of_a_corpus_is_the_labs_on_its_runs(
    real_corpus: Corpus, real_runs: dict[str, Run]
) -> None:
    mine = real_corpus.evidence_frame(CONFIGS, progress=False)
    theirs = evidence_frame(_theirs(real_runs, real_corpus), CONFIGS, progress=False)
    assert len(mine) == len(real_runs) * len(CONFIGS)
    pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
    assert mine.attrs == theirs.attrs
    # Written back: a frame of the corpus and a view for SQL.
    back = real_corpus.frame("evidence")
    pd.testing.assert_frame_equal(back, mine, check_exact=True)
    lost = real_corpus.sql(
        "select config, sum(lost_calls) as lost from evidence group by config order by config"
    )
    expected = mine.groupby("config")["lost_calls"].sum().sort_index()
    assert lost["lost"].tolist() == expected.tolist()


def test_the_cost_frame_of_a_corpus_is_the_labs_on_its_runs(
    real_corpus: Corpus, real_runs: dict[str, Run]
) -> None:
    for cache in (None, "prefix", "none"):
        mine = real_corpus.cost_frame(PRICE, cache=cache)
        theirs = cost_frame(_theirs(real_runs, real_corpus), PRICE, cache=cache)
        assert len(mine) == sum(len(r.calls) for r in real_runs.values())
        pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
        assert mine.attrs == theirs.attrs
    only = real_corpus.cost_frame(PRICE, where={"format": "swe-agent"}, name="swe_cost")
    assert set(only["label"]) == set(real_corpus.run_ids({"format": "swe-agent"}))
    assert real_corpus.sql("select count(*) as n from swe_cost")["n"].iloc[0] == len(only)


def test_a_corpus_sweep_is_the_labs_sweep_of_each_run(
    real_corpus: Corpus, real_runs: dict[str, Run]
) -> None:
    grid = {"keep_recent_turns": [2, 5]}
    where = {"format": ["claude-code", "openhands"]}
    mine = real_corpus.sweep(sliding_window, grid, where=where, progress=False)
    ids = real_corpus.run_ids(where)
    with ThreadPoolExecutor(max_workers=1) as pool:
        each = {i: sweep(real_runs[i], sliding_window, grid, executor=pool) for i in ids}
    rows = [
        each[run_id].iloc[[k]].assign(run=run_id)
        for k in range(len(grid["keep_recent_turns"]))
        for run_id in ids
    ]
    theirs = pd.concat(rows, ignore_index=True)
    theirs = theirs[["run", *[c for c in theirs.columns if c != "run"]]]
    theirs["run"] = theirs["run"].astype("string")
    pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
    assert real_corpus.frame("sweep")["run"].tolist() == mine["run"].tolist()


def _evidence_payloads(corpus: Corpus, chunk: int) -> list[bytes]:
    recording = Recording()
    corpus.evidence_frame(CONFIGS, executor=recording, chunk=chunk, progress=False)
    return recording.payloads


def test_each_job_carries_the_store_path_and_run_ids_never_a_run(
    real_corpus: Corpus, tmp_path: Path
) -> None:
    payloads = _evidence_payloads(real_corpus, chunk=4)
    ids = real_corpus.run_ids()
    assert len(payloads) == -(-len(ids) // 4)
    seen: list[str] = []
    for payload in payloads:
        _, job = cloudpickle.loads(payload)
        assert isinstance(job, EvidenceJob)
        assert job.store == real_corpus.path and 1 <= len(job.run_ids) <= 4
        assert all(isinstance(i, str) for i in job.run_ids)
        seen.extend(job.run_ids)
    assert seen == ids
    # The same grid over a corpus of a tenth the runs: the same payload per job, give or take
    # the store's name. Shipping the runs (the lab's evidence_frame on an executor) grows.
    small = Corpus.build(TRANSCRIPTS / "claude-code", tmp_path / "small", executor="inline")
    small_payloads = _evidence_payloads(small, chunk=4)
    assert len(small) * 10 < len(real_corpus)
    assert abs(max(map(len, payloads)) - max(map(len, small_payloads))) < 100
    shipping = Recording()
    evidence_frame(list(real_corpus.runs()), CONFIGS, executor=shipping, progress=False)
    assert min(map(len, shipping.payloads)) > 100 * max(map(len, payloads))


def test_a_filter_that_keeps_no_run_gives_empty_frames_of_their_specs(real_corpus: Corpus) -> None:
    none = {"format": "no such format"}
    assert real_corpus.run_ids(none) == [] and real_corpus.run_ids({"run_id": []}) == []
    costs = real_corpus.cost_frame(PRICE, where=none, name="no_cost")
    evidence = real_corpus.evidence_frame(CONFIGS, where=none, name="no_evidence")
    swept = real_corpus.sweep(sliding_window, {"keep_recent_turns": [2]}, where=none)
    assert len(costs) == len(evidence) == len(swept) == 0
    assert list(costs.columns) == list(cost_frame([], PRICE).columns)
    assert list(evidence.columns) == list(evidence_frame([], CONFIGS).columns)


def test_a_bad_chunk_or_result_name_is_a_clear_error(real_corpus: Corpus) -> None:
    with pytest.raises(ValueError, match="chunk must be at least 1"):
        real_corpus.evidence_frame(CONFIGS, chunk=0)
    with pytest.raises(ValueError, match="use letters, digits"):
        real_corpus.cost_frame(PRICE, name="../escape")


def test_build_and_grid_on_a_dask_local_cluster(
    real_corpus: Corpus, real_runs: dict[str, Run], tmp_path: Path
) -> None:
    import distributed  # the dask extra is part of dev: a missing install must fail here

    where = {"format": ["claude-code", "openhands"]}
    inline = real_corpus.evidence_frame(CONFIGS, where=where, name="inline", progress=False)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        executor = client.get_executor()
        built = Corpus.build(
            [TRANSCRIPTS / "claude-code", TRANSCRIPTS / "openhands"],
            tmp_path / "store",
            executor=executor,
        )
        on_dask = real_corpus.evidence_frame(
            CONFIGS, executor=executor, where=where, name="dask", chunk=2, progress=False
        )
    assert built.last_build is not None and built.last_build.imported == 9
    assert sorted(built.run_ids()) == sorted(real_corpus.run_ids(where))
    pd.testing.assert_frame_equal(on_dask, inline, check_exact=True)
