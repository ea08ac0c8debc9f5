"""Every frame the lab builds: its name, its columns, their dtypes, meaning and headers.

Layer: lab. This is the one place that states each frame's columns — name, dtype, a one-line
meaning and the header a person reads over it, side by side (:class:`Column`), with a sentence
on what one row of the frame is (:class:`FrameSpec`). Every frame is built against its spec
(:func:`build_frame`), so an empty frame (a run with no strategy, no calls, or a fault before
the first call) has exactly the columns and dtypes of a full one, and ``capture_many`` can
stack runs without dtype drift.

* :data:`FRAME_SPECS` — the capture frames (:func:`footprint_lab.lab.capture`), ``{frame:
  FrameSpec}``; :data:`RESULT_SPECS` — the others: ``evidence`` and ``evidence_summary``
  (:mod:`footprint_lab.lab.evidence`), ``cost`` (:func:`footprint_lab.costs.cost_frame`),
  ``run_summary``, ``key_numbers`` and ``report_summary`` (:mod:`footprint_lab.lab.summary`),
  ``sweep`` (:func:`footprint_lab.sweep`), ``boundary`` and ``left`` (the boundary views);
  :data:`CORPUS_SPECS` — a corpus store's tables of its own (``corpus_runs``,
  ``corpus_problems``; its capture frames are these frames with :data:`CORPUS_KEYS` in front);
  :data:`SPECS` — all of them, :func:`spec` one of them.
* :data:`SCHEMAS` — ``{frame: {column: dtype}}`` of the capture frames, derived from them.
* :func:`describe` — one frame's columns as a DataFrame (``Frames.describe`` calls it).
* :data:`COLUMN_HEADERS` — the header a person reads over a column in a rendered table
  ("Messages removed" over ``removed_message_count``), from the specs of the frames rendered
  with human headers; :func:`header` for any column.
* Knob columns (the evidence frame's, a sweep's grid keys) sit where the spec says
  (:attr:`FrameSpec.knobs_after`) and are named in ``frame.attrs["knobs"]``
  (:func:`knobs_of` reads them).

Dtypes are pandas' nullable ones: ``Int64`` (integers, ``<NA>`` where a fact does not apply),
``string``, ``boolean``, ``float64``; membership ``state`` is a categorical over the closed set
:data:`MEMBERSHIP_STATES`.

The ``records`` frame follows the record model: every scalar field of
:class:`~footprint_lab.WindowRecord` is a column of the same name, and a scalar field added to the
model gets its column here (dtype from its annotation) with no other edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from footprint_lab.lab._schema_base import (
    KNOBS_ATTR,
    TEXT,
    Column,
    FrameSpec,
    column,
    join,
    knob_column,
    words,
)
from footprint_lab.lab._schema_capture import (
    CAPTURE_SPECS,
    record_columns,
    record_field_dtype,
)
from footprint_lab.lab._schema_corpus import CORPUS_FRAMES, CORPUS_KEYS, CORPUS_SPECS
from footprint_lab.lab._schema_results import RESULT_SPECS
from footprint_lab.lab._vocabulary import (
    EVICTION_HOWS,
    IN_WINDOW_STATES,
    LEFT_STATES,
    MEMBERSHIP_STATES,
    MESSAGE_FATES,
    OUT_OF_WINDOW_STATES,
    PAUSE_KINDS,
    PAUSE_OUTCOMES,
    PIN_KINDS,
    STATE_DTYPE,
    VIOLATION_WINDOWS,
)

__all__ = [
    "COLUMN_HEADERS",
    "CORPUS_FRAMES",
    "CORPUS_KEYS",
    "CORPUS_SPECS",
    "EVICTION_HOWS",
    "FRAME_NAMES",
    "FRAME_SPECS",
    "IN_WINDOW_STATES",
    "KNOBS_ATTR",
    "LEFT_STATES",
    "MEMBERSHIP_STATES",
    "MESSAGE_FATES",
    "OUT_OF_WINDOW_STATES",
    "PAUSE_KINDS",
    "PAUSE_OUTCOMES",
    "PIN_KINDS",
    "RESULT_SPECS",
    "RUN_COLUMN",
    "SCHEMAS",
    "SPECS",
    "STATE_DTYPE",
    "VIOLATION_WINDOWS",
    "Column",
    "FrameSpec",
    "build_frame",
    "column",
    "describe",
    "empty_frame",
    "frames_doc",
    "header",
    "join",
    "knob_column",
    "knobs_of",
    "record_columns",
    "record_field_dtype",
    "spec",
    "with_run_column",
]

FRAME_SPECS: dict[str, FrameSpec] = CAPTURE_SPECS
"""Every capture frame: what a row is, and its columns in order with dtype and meaning."""

SPECS: dict[str, FrameSpec] = {**CAPTURE_SPECS, **RESULT_SPECS, **CORPUS_SPECS}
"""Every frame the lab builds, by name: the capture frames, then :data:`RESULT_SPECS`, then a
corpus store's own tables (:data:`CORPUS_SPECS`)."""

SCHEMAS: dict[str, dict[str, Any]] = {name: frame.dtypes() for name, frame in FRAME_SPECS.items()}
"""Every capture frame's columns, in order, with their dtypes (derived from
:data:`FRAME_SPECS`)."""

FRAME_NAMES: tuple[str, ...] = tuple(FRAME_SPECS)
"""The frames of a capture, in the order they are documented."""

RUN_COLUMN = Column(TEXT, "The run's label (frames of several runs stacked).", "Run")
"""The ``run`` column :func:`with_run_column` puts first."""

COLUMN_HEADERS: dict[str, str] = {
    **SPECS["call_costs"].headers(),
    **SPECS["window_diff"].headers(),
    **SPECS["search"].headers(),
    **SPECS["boundary"].headers(),
    **SPECS["left"].headers(),
    **FRAME_SPECS["records"].headers(),
    "run": RUN_COLUMN.header or "Run",
}
"""The one mapping from a column to its human header ("Iteration", "Strategy", "Messages
removed", ...), from the specs of the tables rendered with human headers: every ``records``
column (one added with a record field gets its name in words), and the columns of the boundary
and left views and of the Inspector's search, window diff and calls tables. Tables rendered by
:mod:`footprint_lab.lab.render` show these; the column's name stays in the header's tooltip."""


def spec(name: str) -> FrameSpec:
    """Frame ``name``'s spec (any frame of :data:`SPECS`).

    Raises:
        KeyError: there is no frame of that name (the message lists them).
    """
    found = SPECS.get(name)
    if found is None:
        raise KeyError(f"no frame {name!r}; frames are {', '.join(SPECS)}")
    return found


def header(column: str) -> str:
    """The header a person reads over ``column``: :data:`COLUMN_HEADERS`'s, else the name
    with spaces for underscores and a capital first letter (``"span_key"`` -> ``"Span key"``)."""
    found = COLUMN_HEADERS.get(column)
    return found if found is not None else words(column)


def describe(name: str) -> pd.DataFrame:
    """Frame ``name``'s columns: one row each with ``column``, ``dtype`` and ``meaning``.

    Raises:
        KeyError: there is no frame of that name.
    """
    cols = spec(name).columns
    return pd.DataFrame(
        {
            "column": column(list(cols), TEXT),
            "dtype": column([_dtype_name(c.dtype) for c in cols.values()], TEXT),
            "meaning": column([c.doc for c in cols.values()], TEXT),
        }
    )


def _dtype_name(dtype: Any) -> str:
    return "category" if isinstance(dtype, pd.CategoricalDtype) else str(dtype)


def frames_doc(indent: str = "    ") -> str:
    """Every capture frame and its columns as reST text (appended to ``Frames.__doc__``)."""
    lines: list[str] = []
    for name, frame in FRAME_SPECS.items():
        lines.append(f"{indent}``{name}`` — {frame.doc}")
        lines.append("")
        for col, c in frame.columns.items():
            lines.append(f"{indent}    * ``{col}`` ({_dtype_name(c.dtype)}): {c.doc}")
        lines.append("")
    return "\n".join(lines)


# -- building frames ---------------------------------------------------------------------------


def build_frame(
    name: str,
    columns: Mapping[str, Any],
    *,
    knobs: Mapping[str, Any] | None = None,
    dtypes: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """A frame of spec ``name`` from column values (lists, arrays or Series, all one length).

    Args:
        name: The frame (any of :data:`SPECS`).
        columns: Every column of the spec, by name.
        knobs: Knob columns (a frame whose spec has them), in order: placed where the spec
            says, typed by :func:`knob_column` (values in a list) or as given (an array), and
            named in ``frame.attrs["knobs"]``.
        dtypes: A dtype other than the spec's for some columns (one the spec's meaning
            allows, such as a text ``task_id``).

    Raises:
        ValueError: a column of the spec is missing, or one it does not name is given.
    """
    frame_spec = spec(name)
    schema = SCHEMAS.get(name) or frame_spec.dtypes()
    missing = set(schema) - set(columns)
    extra = set(columns) - set(schema)
    if missing or extra:
        raise ValueError(
            f"frame {name!r} (lab.schema): missing columns {sorted(missing)}, unexpected "
            f"{sorted(extra)}; build it with exactly the columns of its spec"
        )
    given = dtypes or {}
    typed = {col: column(columns[col], given.get(col, dtype)) for col, dtype in schema.items()}
    knob_cols = dict(knobs or {})
    clash = sorted(set(knob_cols) & set(schema))
    if clash:
        raise ValueError(
            f"frame {name!r} (lab.schema): the knobs {clash} are named like columns of the "
            "frame; rename them"
        )
    for key, values in knob_cols.items():
        typed[key] = knob_column(values) if isinstance(values, list) else values
    frame = pd.DataFrame(typed, columns=frame_spec.order(knob_cols) if knob_cols else list(schema))
    if frame_spec.knobs_after is not None:
        frame.attrs[KNOBS_ATTR] = list(knob_cols)
    return frame


def empty_frame(name: str) -> pd.DataFrame:
    """An empty frame of spec ``name`` with the right dtypes."""
    return build_frame(name, {col: [] for col in SCHEMAS.get(name) or spec(name).columns})


def knobs_of(frame: pd.DataFrame, name: str) -> list[str]:
    """The knob columns of ``frame``, a frame of spec ``name``: ``frame.attrs["knobs"]``, or,
    when a step lost the attrs (a file read back), the columns the spec does not name."""
    named = frame.attrs.get(KNOBS_ATTR)
    if isinstance(named, list) and all(k in frame.columns for k in named):
        return [str(k) for k in named]
    known = set(spec(name).columns)
    return [str(c) for c in frame.columns if c not in known]


def with_run_column(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    """``frame`` with a ``run`` column (string) first."""
    out = frame.copy()
    out.insert(0, "run", column([label] * len(out), RUN_COLUMN.dtype))
    return out
