"""What a frame's spec is made of, and how a column is built to its dtype.

Layer: lab (private; :mod:`footprint_lab.lab.schema` is the public face and re-exports every
name). A :class:`FrameSpec` names a frame, says what one of its rows is and lists its columns
in order, each a :class:`Column` — dtype, meaning and the header a person reads over it. A
frame whose columns depend on a configuration's knobs says where they go
(:attr:`FrameSpec.knobs_after`); the knob columns' names travel with the frame in
``frame.attrs["knobs"]`` (:data:`KNOBS_ATTR`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "BOOL",
    "FLOAT",
    "INT",
    "KNOBS_ATTR",
    "TEXT",
    "Column",
    "FrameSpec",
    "column",
    "columns_of",
    "join",
    "knob_column",
    "words",
]

INT = "Int64"
TEXT = "string"
BOOL = "boolean"
FLOAT = "float64"

KNOBS_ATTR = "knobs"
"""The ``frame.attrs`` key naming a frame's knob columns, in order (a list of column names)."""


def words(name: str) -> str:
    """A column's name in words: spaces for underscores, a capital first letter
    (``"span_key"`` -> ``"Span key"``)."""
    text = name.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a frame: its dtype, what it means and the header shown over it."""

    dtype: Any
    """A pandas dtype name ('Int64', 'string', 'boolean', 'float64') or a dtype object."""
    doc: str
    """One line: what the value is, and when it is <NA>."""
    header: str | None = None
    """What a person reads over the column in a rendered table; None: its name in words
    (:func:`words`)."""


@dataclass(frozen=True, slots=True)
class FrameSpec:
    """One frame: its name, what a row is, and its columns in order."""

    doc: str
    """What one row of the frame stands for (and anything true of every row)."""
    columns: Mapping[str, Column]
    """The columns, in order (knob columns, which depend on the configurations, not listed)."""
    name: str = ""
    """The frame's name (the key it is filed under in the schema)."""
    knobs_after: str | None = None
    """Where the knob columns go: after this column (``""``: first); None: the frame has no
    knob columns. Their names are in ``frame.attrs["knobs"]``."""

    def header(self, name: str) -> str:
        """The header a person reads over column ``name`` (its name in words if unnamed)."""
        found = self.columns.get(name)
        return found.header if found is not None and found.header else words(name)

    def headers(self) -> dict[str, str]:
        """``{column: header}`` for every column, in order."""
        return {name: self.header(name) for name in self.columns}

    def dtypes(self) -> dict[str, Any]:
        """``{column: dtype}`` for every column, in order."""
        return {name: c.dtype for name, c in self.columns.items()}

    def order(self, knobs: Iterable[str] = ()) -> list[str]:
        """The frame's columns in order, with ``knobs`` where the spec puts them."""
        names = list(self.columns)
        knob_names = list(knobs)
        if not knob_names:
            return names
        if self.knobs_after is None:
            raise ValueError(f"frame {self.name!r} has no knob columns, got {knob_names}")
        at = 0 if self.knobs_after == "" else names.index(self.knobs_after) + 1
        return [*names[:at], *knob_names, *names[at:]]

    def cut(self, name: str, doc: str, columns: Iterable[str], **headers: str) -> FrameSpec:
        """A frame of some of this frame's columns (in the order given), each with its dtype
        and meaning here and the header given for it in ``headers``, if any."""
        picked = {
            c: Column(self.columns[c].dtype, self.columns[c].doc, headers.get(c)) for c in columns
        }
        return FrameSpec(doc, picked, name)


def columns_of(**columns: tuple[Any, str] | tuple[Any, str, str]) -> dict[str, Column]:
    """Columns from ``name=(dtype, meaning)`` or ``name=(dtype, meaning, header)``."""
    return {name: Column(*spec) for name, spec in columns.items()}


def _floats(values: Any) -> np.ndarray[Any, np.dtype[np.float64]]:
    if isinstance(values, pd.Series | pd.api.extensions.ExtensionArray):
        return np.asarray(pd.Series(values).to_numpy(dtype=np.float64, na_value=np.nan))
    if isinstance(values, np.ndarray):
        return np.asarray(values, dtype=np.float64)
    return np.asarray([np.nan if v is None or v is pd.NA else v for v in values], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class _Arrow:
    """What a list needs to be converted through pyarrow."""

    array: Any
    """``pyarrow.array``."""
    error: type[Exception]
    """``pyarrow.ArrowException``: what pyarrow raises for a list it cannot type."""
    types: Mapping[str, tuple[frozenset[Any], Any]]
    """``{dtype name: (the arrow types taken as they are, pandas dtype)}``."""


@functools.cache
def _arrow() -> _Arrow | None:
    """pyarrow's pieces for :func:`_through_arrow`; None without pyarrow (an optional
    dependency)."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - environment
        return None
    # a list of None only is typed null: all missing, in any dtype
    types = {
        INT: (frozenset({pa.int64(), pa.null()}), pd.Int64Dtype()),
        BOOL: (frozenset({pa.bool_(), pa.null()}), pd.BooleanDtype()),
        TEXT: (frozenset({pa.string(), pa.large_string(), pa.null()}), pd.StringDtype()),
    }
    return _Arrow(pa.array, pa.ArrowException, types)


def _through_arrow(values: list[Any], dtype: str) -> Any:
    """``values`` as a pandas array of ``dtype`` built by pyarrow, or None when pyarrow is
    absent or types the list otherwise. pyarrow reads a list of Python values in C, several
    times faster than ``pd.array`` (which probes each value for every kind of missing). Only a
    list pyarrow types as the dtype itself is taken — integers (and None) for ``Int64``,
    booleans for ``boolean``, text for ``string`` — so no value is coerced (pyarrow would cut
    0.5 to 0 in an integer column); every other list (``pd.NA``, NaN, floats, a bool among
    integers, a number among text) takes ``pd.array``'s path. ``tests/lab/test_schema.py``
    checks both paths agree."""
    arrow = _arrow()
    if arrow is None:  # pragma: no cover - environment
        return None
    accepted, pandas_dtype = arrow.types[dtype]
    try:
        converted = arrow.array(values)  # the type pyarrow infers
    except (arrow.error, OverflowError, UnicodeError):
        return None
    if converted.type not in accepted:
        return None
    return pandas_dtype.__from_arrow__(converted)


def column(values: Any, dtype: Any) -> Any:
    """One column as a pandas extension array (or numpy array) of ``dtype``."""
    if isinstance(values, pd.Series) and values.dtype == dtype:
        return values.array  # already of the spec's dtype: no conversion
    if isinstance(
        values, pd.api.extensions.ExtensionArray
    ) and values.dtype == pd.api.types.pandas_dtype(dtype):
        return values  # likewise (the frame built of it copies what it keeps)
    if isinstance(dtype, pd.CategoricalDtype):
        if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
            return pd.Categorical.from_codes(values.astype(np.int8, copy=False), dtype=dtype)
        return pd.Categorical(list(values), dtype=dtype)
    if dtype == FLOAT:
        return _floats(values)
    if isinstance(values, list) and isinstance(dtype, str) and dtype in (INT, BOOL, TEXT):
        fast = _through_arrow(values, dtype)
        if fast is not None:
            return fast
    return pd.array(values, dtype=dtype)


def knob_column(values: list[Any]) -> Any:
    """A knob column: nullable integers, floats, booleans or text when every value is one."""
    present = [v for v in values if v is not None]
    if all(isinstance(v, bool) for v in present):
        return column(values, BOOL)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return column(values, INT)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return _floats([None if v is None else float(v) for v in values])
    return column([None if v is None else str(v) for v in values], TEXT)


def join(values: Iterable[Any], sep: str = ", ") -> str:
    """Values joined as text (an empty list joins to '')."""
    return sep.join(str(v) for v in values)
