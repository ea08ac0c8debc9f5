"""The frame schema: one column spec per column (dtype and meaning), and the records frame
following the record model."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import Observations, Run, WindowRecord
from footprint_lab.lab import Frames, capture
from footprint_lab.lab._schema_base import BOOL, INT, TEXT
from footprint_lab.lab.frames import RECORD_FIELD_COLUMNS
from footprint_lab.lab.schema import (
    FRAME_NAMES,
    FRAME_SPECS,
    SCHEMAS,
    column,
    describe,
    record_columns,
    record_field_dtype,
)
from tests.budget import examples


def test_schemas_are_the_dtypes_of_the_column_specs() -> None:
    assert tuple(SCHEMAS) == FRAME_NAMES == tuple(FRAME_SPECS)
    for name, spec in FRAME_SPECS.items():
        assert SCHEMAS[name] == {col: c.dtype for col, c in spec.columns.items()}, name
        assert spec.doc.strip(), name
        for col, c in spec.columns.items():
            assert c.doc.strip() and "\n" not in c.doc, (name, col)
    assert {"finish_reason", "truncated"} <= set(SCHEMAS["calls"])


def test_describe_lists_every_column_with_dtype_and_meaning() -> None:
    for name in FRAME_NAMES:
        table = Frames.describe(name)
        assert list(table.columns) == ["column", "dtype", "meaning"]
        assert table["column"].tolist() == list(SCHEMAS[name]), name
        empty = Frames.empty()[name]
        for col, dtype in zip(table["column"], table["dtype"], strict=True):
            assert dtype == ("category" if col == "state" else str(empty[col].dtype)), (name, col)
        assert table["meaning"].str.len().gt(0).all(), name
        assert describe(name).equals(table)
    with pytest.raises(KeyError, match="no frame"):
        Frames.describe("nope")


def test_the_frames_docstring_is_generated_from_the_schema() -> None:
    doc = Frames.__doc__
    if doc is None:  # pragma: no cover - python -OO
        pytest.skip("docstrings stripped")
    for name, spec in FRAME_SPECS.items():
        assert f"``{name}``" in doc
        for col, c in spec.columns.items():
            assert f"``{col}``" in doc and c.doc in doc, (name, col)


def test_record_field_dtypes_follow_the_annotations() -> None:
    assert record_field_dtype(int) == "Int64"
    assert record_field_dtype(int | None) == "Int64"
    assert record_field_dtype(bool) == "boolean"
    assert record_field_dtype(float | None) == "float64"
    assert record_field_dtype(str | None) == "string"
    assert record_field_dtype(Literal["named", "plain"] | None) == "string"
    assert record_field_dtype(list[str]) is None
    assert record_field_dtype(Observations | None) is None
    for name, info in WindowRecord.model_fields.items():
        dtype = record_field_dtype(info.annotation)
        if dtype is None:
            assert name in RECORD_FIELD_COLUMNS, name
        else:  # every scalar field is a column of its own name and of its dtype
            assert SCHEMAS["records"][name] == dtype, name


def test_scalar_columns_hold_the_record_fields(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    for key in (("deploy-audit", "summarize-oldest"), ("screen-driver", "token-budget")):
        run = scenario_runs[key]
        records = capture(run).records
        for name, info in WindowRecord.model_fields.items():
            if record_field_dtype(info.annotation) is None:
                continue
            got = [None if pd.isna(v) else v for v in records[name].tolist()]
            assert got == [getattr(r, name) for r in run.records], (key, name)


class _Extended(WindowRecord):
    """A record model with two fields more (as if WindowRecord grew them)."""

    confidence: float | None = None
    phase: Literal["early", "late"] | None = None


def test_a_scalar_field_added_to_the_model_becomes_a_column(
    scenario_runs: dict[tuple[str, str], Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    columns = record_columns(_Extended)
    assert list(columns)[: len(SCHEMAS["records"])] == list(SCHEMAS["records"])
    assert columns["confidence"].dtype == "float64" and columns["phase"].dtype == "string"
    monkeypatch.setitem(SCHEMAS, "records", {col: c.dtype for col, c in columns.items()})
    run = scenario_runs[("deploy-audit", "sliding-window")]
    grown = dataclasses.replace(
        run,
        records=[
            _Extended.model_validate({**r.model_dump(), "confidence": 0.5, "phase": "late"})
            for r in run.records
        ],
    )
    records = capture(grown).records
    assert records["confidence"].tolist() == [0.5] * len(run.records)
    assert records["phase"].tolist() == ["late"] * len(run.records)
    assert records["commit"].tolist() == [r.commit for r in run.records]


_CELL = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.integers(min_value=2**63, max_value=2**70),  # too big for Int64
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.just(pd.NA),
    st.sampled_from([np.int64(3), np.float64(2.0), np.bool_(True), np.str_("x")]),
)


def _converted(convert: Any, values: list[Any], dtype: str) -> Any:
    """``convert(values, dtype)``, or the type of the error it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # pandas casting a float it refuses
        try:
            return convert(values, dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            return type(exc)


@settings(max_examples=examples(500), deadline=None)
@given(values=st.lists(_CELL, max_size=12), dtype=st.sampled_from([INT, BOOL, TEXT]))
def test_a_list_column_is_what_pd_array_makes_of_it(values: list[Any], dtype: str) -> None:
    # column() converts a list through pyarrow when pyarrow takes every value as pandas
    # would (several times faster), else through pd.array: the same array, or the same error
    expected = _converted(lambda v, d: pd.array(v, dtype=d), values, dtype)
    got = _converted(column, values, dtype)
    if isinstance(expected, type) or isinstance(got, type):
        assert got is expected, (values, dtype)
        return
    assert got.dtype == expected.dtype
    assert pd.Series(got).equals(pd.Series(expected)), (values, dtype)
    assert pd.Series(got).isna().tolist() == pd.Series(expected).isna().tolist()


def test_an_array_of_the_dtype_is_kept_as_it_is() -> None:
    text = pd.array(["a", None], dtype=TEXT)
    assert column(text, TEXT) is text
    python_text = pd.array(["a", None], dtype=pd.StringDtype("python"))
    assert column(python_text, TEXT).dtype == pd.api.types.pandas_dtype(TEXT)
