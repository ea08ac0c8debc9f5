"""A store's tables written straight from the runs' columns equal the frames' tables.

``Corpus.build`` no longer builds a pandas frame per run and family: it asks
:func:`footprint_lab.lab.frames.capture_columns` for the column values and writes them as Arrow
(:func:`footprint_lab.corpus._arrow.from_columns`). The oracle is the way it went before — each
run captured into frames (:func:`footprint_lab.capture`), keyed, stacked and converted with
:func:`from_frame`, here — on every real run in ``data/`` (recorded and
replayed under two policies, so records, refusals, evictions and findings have rows), a file's
runs stacked as a store stacks them; and one column at a time on generated values of every
kind a builder could hand over.
"""

from __future__ import annotations

import math
from functools import cache
from itertools import chain, repeat
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import Run, clear_tool_results, replay, sliding_window
from footprint_lab.corpus._arrow import (
    arrow_column,
    arrow_schema,
    family_columns,
    from_columns,
)
from footprint_lab.corpus._rows import CAPTURED
from footprint_lab.importers import load
from footprint_lab.lab.frames import COLUMN_FAMILIES, capture, capture_columns
from footprint_lab.lab.schema import column
from tests.budget import examples
from tests.importers.test_load import IDS, REAL

SOURCE = "/data/some file.json"


@cache
def runs_of(index: int) -> tuple[Run, ...]:
    """The runs of one real source, then each replayed under two policies (at most three
    runs of a source are replayed: a tau-bench file holds fifty)."""
    path, _ = REAL[index]
    recorded = load(path)
    replayed = [
        replay(run, policy)
        for run in recorded[:3]
        for policy in (
            sliding_window(keep_recent_turns=2),
            clear_tool_results(keep_recent_turns=1, keep_results=1),
        )
    ]
    return (*recorded, *replayed)


def from_frame(frame: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """A frame as an Arrow table, as the store converted its frames before it wrote columns."""
    arrays = [pa.array(frame[field.name], type=field.type, from_pandas=True) for field in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def frame_table(family: str, runs: tuple[Run, ...], ids: list[str]) -> pa.Table:
    """The oracle: every run captured into frames, keyed, stacked, converted."""
    frames = []
    for run, run_id in zip(runs, ids, strict=True):
        frame = capture(run, membership="window")[family].copy()
        frame.insert(0, "source_path", column([SOURCE] * len(frame), "string"))
        frame.insert(0, "run_id", column([run_id] * len(frame), "string"))
        frames.append(frame)
    stacked = pd.concat(frames, ignore_index=True)
    return from_frame(stacked, arrow_schema(family_columns(family)))


def column_table(family: str, runs: tuple[Run, ...], ids: list[str]) -> pa.Table:
    """The way a store writes now: each run's columns, stacked into one table."""
    pieces = [capture_columns(run, (family,))[family] for run in runs]
    sizes = [len(next(iter(piece.values()))) for piece in pieces]
    keyed = list(chain.from_iterable(map(repeat, ids, sizes)))
    keys = {
        "run_id": pa.array(keyed, pa.string()),
        "source_path": pa.array([SOURCE] * len(keyed), pa.string()),
    }
    return from_columns(family, pieces, keys)


def test_the_store_keeps_the_families_capture_columns_gives() -> None:
    assert CAPTURED == COLUMN_FAMILIES
    with pytest.raises(ValueError, match="membership"):
        capture_columns(runs_of(0)[0], ("membership",))


@pytest.mark.parametrize("index", range(len(REAL)), ids=IDS)
def test_every_real_runs_tables_equal_its_frames_tables(index: int) -> None:
    runs = runs_of(index)
    ids = [f"{index:016x}-{k}" for k in range(len(runs))]
    rows = 0
    for family in COLUMN_FAMILIES:
        want = frame_table(family, runs, ids)
        got = column_table(family, runs, ids)
        assert got.schema == want.schema, family
        assert got.equals(want), (family, got.to_pandas().compare(want.to_pandas()))
        rows += got.num_rows
    assert rows  # something was compared


def frame_way(values: list[Any], field: pa.Field, dtype: str) -> pa.Array | str:
    """A column as a frame types it and the store converted it, or the error's type."""
    try:
        return pa.array(column(values, dtype), type=field.type, from_pandas=True)
    except Exception as exc:
        return type(exc).__name__


def column_way(values: Any, field: pa.Field, dtype: str) -> pa.Array | str:
    try:
        return arrow_column(values, field, dtype)
    except Exception as exc:
        return type(exc).__name__


_VALUE = st.one_of(
    st.none(),
    st.just(pd.NA),
    st.just(math.nan),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.sampled_from([np.int64(7), np.float64(0.5), np.bool_(True)]),
)
_DTYPES = {
    "Int64": pa.int64(),
    "string": pa.string(),
    "boolean": pa.bool_(),
    "float64": pa.float64(),
}


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
@settings(max_examples=examples(1000), deadline=None)
@given(
    values=st.lists(_VALUE, max_size=8),
    dtype=st.sampled_from(sorted(_DTYPES)),
    uniform=st.sampled_from([None, "int", "float", "bool", "text"]),
)
def test_a_column_holds_what_the_frame_holds_or_fails_as_it_fails(
    values: list[Any], dtype: str, uniform: str | None
) -> None:
    # most builders hand over lists of one kind: draw those often, besides mixed ones
    if uniform is not None:
        kinds = {"int": int, "float": float, "bool": bool, "text": str}
        keep = kinds[uniform]
        values = [
            v
            for v in values
            if v is None or (isinstance(v, keep) and (keep is not int or not isinstance(v, bool)))
        ]
    field = pa.field("x", _DTYPES[dtype])
    want = frame_way(values, field, dtype)
    got = column_way(values, field, dtype)
    if isinstance(want, str):
        assert isinstance(got, str), (values, dtype, got)
    else:
        assert not isinstance(got, str), (values, dtype, got)
        assert got.equals(want), (values, dtype, got, want)
