"""The ``records`` frame: one row per window record, every field flattened.

Layer: lab. The columns follow the record model: every scalar field of
:class:`~footprint_lab.WindowRecord` becomes the column of the same name, read straight off the
record, so a scalar field added to the model is captured with no edit here. The list and model
fields are flattened through one table, :data:`RECORD_FIELD_COLUMNS`; a few columns come from
the ledger rather than from one field (:data:`LEDGER_COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import pandas as pd

from footprint_lab.lab._frames.context import CaptureContext, RecordFacts
from footprint_lab.lab._frames.pins import pin_position
from footprint_lab.lab.schema import SCHEMAS, build_frame, record_field_dtype
from footprint_lab.window.records import WindowRecord

__all__ = [
    "LEDGER_COLUMNS",
    "RECORD_FIELD_COLUMNS",
    "build",
    "columns",
    "explanation",
    "scalar_fields",
]

Cells = Callable[[WindowRecord, RecordFacts], tuple[Any, ...]]
"""The values of a group of columns for one record, in the group's column order (one call per
record fills every column the group names: a long run has 10,000 records)."""

_stage_id = attrgetter("stage_id")
_reason = attrgetter("reason")

_SEP = ", "
"""How list fields are joined (as :func:`footprint_lab.lab.schema.join`; these hold strings)."""

_NO_PINS = (0, "", None, None, None)
_NO_VIOLATIONS = (None, None)
_NO_SERVER_EDITS = (None, None, None, None)


def _observations(rec: WindowRecord, _: RecordFacts) -> tuple[Any, ...]:
    """The pins columns (0, '' and <NA> when pins are off)."""
    obs = rec.observations
    if obs is None:
        return _NO_PINS
    tools = _SEP.join([p.tool_name for p in obs.pinned])
    return (len(obs.pinned), tools, obs.yielded, obs.limit, obs.stand_down)


def _violations(rec: WindowRecord, _: RecordFacts) -> tuple[Any, ...]:
    """The violations columns (<NA> unless the strategy was audited)."""
    found = rec.violations
    if found is None:
        return _NO_VIOLATIONS
    return (len(found), _SEP.join([v.kind for v in found]))


def _server_edits(rec: WindowRecord, _: RecordFacts) -> tuple[Any, ...]:
    """The edits' types, then the sums of the counts they reported (<NA>: none reported)."""
    edits = rec.server_edits
    if not edits:  # most records: no edit, so no count
        return _NO_SERVER_EDITS
    return (
        _SEP.join([e.type for e in edits]) or None,
        _reported_sum(rec, "cleared_input_tokens"),
        # a compaction's own sampling step, billed beside the call
        _reported_sum(rec, "input_tokens"),
        _reported_sum(rec, "output_tokens"),
    )


def _reported_sum(record: WindowRecord, field: str) -> int | None:
    """The sum of one count over a record's server edits; None when no edit reported it."""
    values = [getattr(e, field) for e in record.server_edits if getattr(e, field) is not None]
    return sum(values) if values else None


_FLATTENED: dict[str, tuple[tuple[str, ...], Cells]] = {
    "removed_stage_ids": (
        ("removed_stage_ids", "removed_stage_count"),
        lambda r, _: (_SEP.join(r.removed_stage_ids), len(r.removed_stage_ids)),
    ),
    "cleared_stage_ids": (
        ("cleared_stage_ids",),
        lambda r, _: (_SEP.join(r.cleared_stage_ids),),
    ),
    "refusals": (
        ("refusal_count", "refusal_reasons"),
        lambda r, _: (len(r.refusals), _SEP.join(map(_reason, r.refusals))),
    ),
    "dropped_observations": (
        ("dropped_observations",),
        lambda r, _: (
            None if r.dropped_observations is None else _SEP.join(r.dropped_observations),
        ),
    ),
    "observations": (("pins", "pinned_tools", "yielded", "pin_limit", "stand_down"), _observations),
    "violations": (("violation_count", "violation_kinds"), _violations),
    "server_edits": (
        (
            "server_edits",
            "server_cleared_input_tokens",
            "server_input_tokens",
            "server_output_tokens",
        ),
        _server_edits,
    ),
    # a scalar field, but its column holds the commit capture resolved: the one the record
    # names, or for a record saved before records named it, the one it was paired with
    "commit": (("commit",), lambda _, f: (f.commit,)),
}
"""Fields whose columns are not simply the field's value: their columns, and how a record
fills them."""

RECORD_FIELD_COLUMNS: dict[str, tuple[str, ...]] = {
    name: columns for name, (columns, _) in _FLATTENED.items()
}
"""Where each list/model field of a WindowRecord lands in ``records`` (scalar fields keep their
own name)."""

LEDGER_COLUMNS: tuple[tuple[str, ...], Cells] = (
    ("removed_anything", "chars_removed", "messages_before", "messages_after"),
    lambda r, f: (
        r.removed_message_count > 0,
        r.window_chars_before - r.window_chars_after,
        f.given_len,
        f.after_len,
    ),
)
"""Columns derived from several fields or from the ledger (plus ``record``, the row's index,
and ``explanation``, the record in words: :func:`explanation`), and how a record fills them."""


def explanation(ctx: CaptureContext, rec: WindowRecord, facts: RecordFacts) -> str:
    """The record in words (``WindowRecord.explain()``, the sentence the report prints), its
    refusals and pins named by stage id even for a record saved before records named them:
    those are read from the ledger, as the ``refusals`` and ``pins`` frames read them."""
    obs = rec.observations
    pinned = [] if obs is None else obs.pinned
    # scanned in C (map over an attrgetter): every record of a long run passes here
    if None not in map(_stage_id, rec.refusals) and None not in map(_stage_id, pinned):
        return rec.explain()
    given = facts.given
    refusals = [
        r.model_copy(update={"stage_id": ctx.stage_ids[given[r.message_index]]})
        if r.stage_id is None and given is not None and 0 <= r.message_index < len(given)
        else r
        for r in rec.refusals
    ]
    named_pins = []
    for pin in pinned:
        pos = pin_position(ctx, facts, pin) if pin.stage_id is None else None
        named_pins.append(
            pin if pos is None else pin.model_copy(update={"stage_id": ctx.stage_ids[pos]})
        )
    update: dict[str, Any] = {"refusals": refusals}
    if obs is not None:
        update["observations"] = obs.model_copy(update={"pinned": named_pins})
    return rec.model_copy(update=update).explain()


def scalar_fields(model: type[WindowRecord] = WindowRecord) -> list[str]:
    """The scalar fields of ``model``, in model order: each is a column of the same name."""
    return [
        name
        for name, info in model.model_fields.items()
        if name not in _FLATTENED and record_field_dtype(info.annotation) is not None
    ]


def build(ctx: CaptureContext) -> pd.DataFrame:
    """The ``records`` frame of the run in ``ctx`` (see :func:`columns`)."""
    return build_frame("records", columns(ctx))


def columns(ctx: CaptureContext) -> dict[str, Any]:
    """The ``records`` frame's column values (lists, untyped): what :func:`build` types into a
    frame and a corpus store writes as Arrow.

    A column named in :data:`RECORD_FIELD_COLUMNS`'s table or :data:`LEDGER_COLUMNS` is
    filled by its group's cells; every other column is a scalar field of the record, read by
    name.
    """
    records = ctx.records
    facts = ctx.facts
    groups = [LEDGER_COLUMNS, *_FLATTENED.values()]
    grouped = {name for columns, _ in groups for name in columns}
    cols: dict[str, Any] = {}
    for columns, cells in groups:
        rows = [cells(r, f) for r, f in zip(records, facts, strict=True)]
        picked = zip(*rows, strict=True) if rows else ([] for _ in columns)
        for name, values in zip(columns, picked, strict=True):
            cols[name] = list(values)
    cols["record"] = list(range(len(records)))
    cols["explanation"] = [explanation(ctx, r, f) for r, f in zip(records, facts, strict=True)]
    scalars = [name for name in SCHEMAS["records"] if name not in grouped and name not in cols]
    if len(scalars) > 1 and records:
        # every scalar field of a record in one C call, the rows turned into columns by zip:
        # no Python loop per column (a long run has 10,000 records and 30 scalar fields)
        fields = map(attrgetter(*scalars), records)
        for name, values in zip(scalars, zip(*fields, strict=True), strict=True):
            cols[name] = list(values)
    else:
        for name in scalars:
            cols[name] = list(map(attrgetter(name), records))
    return cols
