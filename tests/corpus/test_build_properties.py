"""The store is a function of the files it holds: built in one go, or file by file in any order
and any split into builds (a file changed and changed back on the way), it ends the same, byte
for byte."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab.corpus import Corpus
from tests.corpus.helpers import TRANSCRIPTS, assert_same_store

SMALL = [
    TRANSCRIPTS / "claude-code" / "edge_cases.jsonl",
    TRANSCRIPTS / "claude-code" / "representative_messages.jsonl",
    TRANSCRIPTS / "openhands" / "runtime-basic_interactions.json",
    TRANSCRIPTS / "openhands" / "runtime-wrong_initial_state.json",
    TRANSCRIPTS / "swe-agent" / "function_calling_simple.traj",
]


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("small")
    for path in SMALL:
        shutil.copy(path, root / path.name)
    (root / "broken.json").write_text('{"history": [')
    return root


@pytest.fixture(scope="module")
def whole(sources: Path, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return Corpus.build(sources, tmp_path_factory.mktemp("whole") / "store", executor="inline")


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    order=st.permutations(range(len(SMALL) + 1)),
    cuts=st.sets(st.integers(1, len(SMALL)), max_size=3),
    flip=st.booleans(),
)
def test_any_order_and_split_of_builds_ends_as_one_build(
    sources: Path, whole: Corpus, order: list[int], cuts: set[int], flip: bool
) -> None:
    files = sorted(sources.iterdir())
    picked = [files[i] for i in order]
    bounds = [0, *sorted(cuts), len(picked)]
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        if flip:  # the first file changed and built, then changed back before the rest
            original = picked[0].read_bytes()
            try:
                picked[0].write_bytes(original + b"\n")
                Corpus.build(picked[:1], store, executor="inline")
            finally:
                picked[0].write_bytes(original)
        for a, b in itertools.pairwise(bounds):
            if a < b:
                Corpus.build(picked[a:b], store, executor="inline")
        assert_same_store(Corpus.open(store), whole)
