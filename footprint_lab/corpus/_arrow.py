"""Frames to Arrow and back, typed by the lab's specs: one schema, not a second.

Layer: corpus (private). Every table a corpus store writes has the Arrow schema derived from
its frame's spec (:mod:`footprint_lab.lab.schema`): ``Int64`` -> ``int64``, ``string`` ->
``string``, ``boolean`` -> ``bool``, ``float64`` -> ``double``, each nullable. So every part of a
dataset has the same schema (a part whose column is all ``<NA>`` is still ``int64``, not
``null``), and a table read back converts to the spec's pandas dtypes (:func:`to_pandas`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from footprint_lab.lab.schema import CORPUS_FRAMES, CORPUS_KEYS, FRAME_SPECS, Column, column, spec

__all__ = [
    "FAMILIES",
    "arrow_column",
    "arrow_schema",
    "arrow_type",
    "family_columns",
    "from_columns",
    "to_pandas",
]

FAMILIES: tuple[str, ...] = ("runs", *CORPUS_FRAMES, "problems")
"""The frame families a store holds, one Parquet dataset each."""

_OWN = {"runs": "corpus_runs", "problems": "corpus_problems"}
"""The families with a spec of their own; the others are capture frames with the keys."""

_TO_ARROW: dict[str, pa.DataType] = {
    "Int64": pa.int64(),
    "string": pa.string(),
    "boolean": pa.bool_(),
    "float64": pa.float64(),
}

_TO_PANDAS: dict[pa.DataType, Any] = {
    pa.int64(): pd.Int64Dtype(),
    pa.string(): pd.api.types.pandas_dtype("string"),
    pa.large_string(): pd.api.types.pandas_dtype("string"),
    pa.bool_(): pd.BooleanDtype(),
}


def family_columns(family: str) -> Mapping[str, Column]:
    """The columns of a family's table, in order: ``runs`` and ``problems`` by their own specs,
    a capture frame's with :data:`~footprint_lab.lab.schema.CORPUS_KEYS` in front.

    Raises:
        KeyError: there is no such family (the message lists them).
    """
    if family in _OWN:
        return spec(_OWN[family]).columns
    if family not in FAMILIES:
        raise KeyError(f"no corpus frame {family!r}; frames are {', '.join(FAMILIES)}")
    return {**CORPUS_KEYS, **FRAME_SPECS[family].columns}


def arrow_type(dtype: Any) -> pa.DataType:
    """The Arrow type of a spec dtype (a corpus table has no categorical column)."""
    found = _TO_ARROW.get(str(dtype))
    if found is None:
        raise TypeError(f"no Arrow type for the frame dtype {dtype!r}")
    return found


def arrow_schema(columns: Mapping[str, Column]) -> pa.Schema:
    """The Arrow schema of a table with these columns, in order."""
    return pa.schema([pa.field(name, arrow_type(c.dtype)) for name, c in columns.items()])


_WIDENED: frozenset[tuple[pa.DataType, pa.DataType]] = frozenset(
    {(pa.int64(), pa.float64()), (pa.large_string(), pa.string())}
)
"""(inferred, wanted) pairs a list is taken as by a cast: integers in a float column (the frame
makes them floats too), long text."""


def arrow_column(values: Any, field: pa.Field, dtype: Any) -> pa.Array:
    """One column's values (a list, a numpy, pandas or Arrow array) as an Arrow array of ``field``,
    holding what the frame's column of ``dtype`` holds (:func:`~footprint_lab.lab.schema.
    column`, then converted by Arrow from pandas).

    A list is read by Arrow as the type Arrow infers and taken only when that is the field's
    type (or all missing, or integers for floats): Arrow given the type outright would cut 0.5
    to 0 in an integer column, where the frame refuses it. Anything else goes the frame's way:
    typed by ``column`` first, then converted."""
    if isinstance(values, pa.Array):
        return values if values.type == field.type else values.cast(field.type)
    try:
        if isinstance(values, list):
            inferred = pa.array(values, from_pandas=True)
            if inferred.type == field.type:
                return inferred
            if inferred.type == pa.null():
                return pa.nulls(len(values), field.type)
            if (inferred.type, field.type) in _WIDENED:
                return inferred.cast(field.type)
        else:
            return pa.array(values, type=field.type, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        pass  # the frame's way, which raises what the frame would
    return pa.array(column(values, dtype), type=field.type, from_pandas=True)


def _joined(parts: Sequence[Any]) -> Any:
    """The runs' values of one column as one value when they are all of one kind (lists,
    numpy arrays of one dtype, Arrow arrays of one type, pandas arrays of one type), else None."""
    if not parts:
        return None
    first = parts[0]
    kind = type(first)
    if not all(type(part) is kind for part in parts):
        return None
    if kind is list:
        return list(chain.from_iterable(parts))
    if kind is np.ndarray and all(part.dtype == first.dtype for part in parts):
        return np.concatenate(parts)
    if isinstance(first, pa.Array) and all(part.type == first.type for part in parts):
        return pa.concat_arrays(parts)
    if isinstance(first, pd.api.extensions.ExtensionArray) and all(
        part.dtype == first.dtype for part in parts
    ):
        return kind._concat_same_type(parts)
    return None


def from_columns(
    family: str, pieces: Sequence[Mapping[str, Any]], keys: Mapping[str, pa.Array]
) -> pa.Table:
    """The table of ``family`` from several runs' column values (:func:`~footprint_lab.lab.
    frames.capture_columns`, one mapping per run, stacked in order), the key columns given as
    Arrow arrays of the stacked length. Equal to the frames of the runs concatenated and
    converted by Arrow from pandas, column by column."""
    columns = family_columns(family)
    schema = arrow_schema(columns)
    arrays: list[pa.Array] = []
    for field in schema:
        name = field.name
        if name in keys:
            arrays.append(keys[name])
            continue
        dtype = columns[name].dtype
        parts = [piece[name] for piece in pieces]
        # one conversion for the file where the runs' values join as they are: per run,
        # Arrow's per-call cost dominates
        joined = _joined(parts)
        if joined is not None:
            arrays.append(arrow_column(joined, field, dtype))
        else:
            chunks = [arrow_column(part, field, dtype) for part in parts]
            arrays.append(pa.concat_arrays(chunks) if chunks else pa.array([], field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """An Arrow table as pandas with the specs' nullable dtypes (``Int64``, ``string``,
    ``boolean``; ``float64`` stays numpy's)."""
    frame: pd.DataFrame = table.to_pandas(types_mapper=_TO_PANDAS.get, ignore_metadata=True)
    return frame
