"""The scale bench's corpus generator: real-format files, all distinct, varied, seeded."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench._scale_corpus import TAU_BENCH, TRANSCRIPTS, write_corpus
from footprint_lab.corpus import source_files
from footprint_lab.importers import detect_format, load

RUNS = 150


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_corpus(tmp_path_factory.mktemp("scale") / "a", RUNS, seed=5)


def test_every_file_loads_and_together_they_hold_exactly_the_runs_asked(
    written: list[Path],
) -> None:
    # load raises TranscriptError on a malformed file: none may.
    runs = [run for path in written for run in load(path)]
    assert len(runs) == RUNS
    formats = Counter(detect_format(path) for path in written)
    assert {"tau-bench", "swe-agent"} <= set(formats)
    assert len(formats) >= 4, formats


def test_files_are_distinct_and_none_is_a_copy_of_a_real_file(written: list[Path]) -> None:
    digests = [_digest(path) for path in written]
    assert len(set(digests)) == len(digests)
    # A folder read whole (an OpenHands V1 conversation) is no file's copy.
    real = {_digest(path) for path in [TAU_BENCH, *source_files(TRANSCRIPTS)] if path.is_file()}
    assert not real & set(digests)


def _tool_call_ids(entries: list[dict[str, Any]]) -> set[str]:
    return {m["tool_call_id"] for e in entries for m in e["traj"] if m.get("role") == "tool"}


def test_tau_bench_runs_are_relabelled_and_resampled(written: list[Path]) -> None:
    tau = [run for path in written if detect_format(path) == "tau-bench" for run in load(path)]
    labels = [run.meta["label"] for run in tau]
    assert len(set(labels)) == len(labels)  # new task ids: no label repeats across the corpus
    real = json.loads(TAU_BENCH.read_text(encoding="utf-8"))
    entries = [
        e for p in written if p.parent.name == "tau-bench" for e in json.loads(p.read_text())
    ]
    assert len(entries) == len(tau)
    # Tool call ids renamed: none of the real ones is left, and each still pairs with its call.
    ids = _tool_call_ids(entries)
    assert ids and ids.isdisjoint(_tool_call_ids(real))
    for entry in entries:
        calls = {c["id"] for m in entry["traj"] if m.get("tool_calls") for c in m["tool_calls"]}
        assert _tool_call_ids([entry]) <= calls
    # Some conversations were cut: lengths the real trajectories never had.
    real_lengths = {len(e["traj"]) for e in real}
    assert {len(e["traj"]) for e in entries} - real_lengths


def test_file_sizes_vary(written: list[Path]) -> None:
    sizes = [path.stat().st_size for path in written]
    assert len(set(sizes)) > len(sizes) // 2
    assert max(sizes) > 5 * min(sizes)


def test_the_same_seed_writes_the_same_bytes_and_another_seed_others(
    written: list[Path], tmp_path: Path
) -> None:
    again = write_corpus(tmp_path / "b", RUNS, seed=5)
    assert [p.name for p in again] == [p.name for p in written]
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in written]
    other = write_corpus(tmp_path / "c", RUNS, seed=6)
    assert {_digest(p) for p in other}.isdisjoint({_digest(p) for p in written})


def test_a_corpus_of_no_runs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        write_corpus(tmp_path, 0)
