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

__all__ = ["LEDGER_COLUMNS", "RECORD_FIELD_COLUMNS", "build", "explanation", "scalar_fields"]

Cell = Callable[[WindowRecord, RecordFacts], Any]
"""One column's value for one record."""

_SEP = ", "
"""How list fields are joined (as :func:`footprint_lab.lab.schema.join`; these hold strings)."""


def _obs(default: Any, value: Callable[[Any], Any]) -> Cell:
    """A cell from ``record.observations`` (``default`` when pins are off)."""

    def cell(rec: WindowRecord, _: RecordFacts) -> Any:
        obs = rec.observations
        return default if obs is None else value(obs)

    return cell


def _violations(value: Callable[[list[Any]], Any]) -> Cell:
    """A cell from ``record.violations`` (<NA> unless the strategy was audited)."""

    def cell(rec: WindowRecord, _: RecordFacts) -> Any:
        return None if rec.violations is None else value(rec.violations)

    return cell


def _reported_sum(record: WindowRecord, field: str) -> int | None:
    """The sum of one count over a record's server edits; None when no edit reported it."""
    values = [getattr(e, field) for e in record.server_edits if getattr(e, field) is not None]
    return sum(values) if values else None


_FLATTENED: dict[str, dict[str, Cell]] = {
    "removed_stage_ids": {
        "removed_stage_ids": lambda r, _: _SEP.join(r.removed_stage_ids),
        "removed_stage_count": lambda r, _: len(r.removed_stage_ids),
    },
    "cleared_stage_ids": {
        "cleared_stage_ids": lambda r, _: _SEP.join(r.cleared_stage_ids),
    },
    "refusals": {
        "refusal_count": lambda r, _: len(r.refusals),
        "refusal_reasons": lambda r, _: _SEP.join([ref.reason for ref in r.refusals]),
    },
    "dropped_observations": {
        "dropped_observations": lambda r, _: (
            None if r.dropped_observations is None else _SEP.join(r.dropped_observations)
        ),
    },
    "observations": {
        "pins": _obs(0, lambda o: len(o.pinned)),
        "pinned_tools": _obs("", lambda o: _SEP.join([p.tool_name for p in o.pinned])),
        "yielded": _obs(None, lambda o: o.yielded),
        "pin_limit": _obs(None, lambda o: o.limit),
        "stand_down": _obs(None, lambda o: o.stand_down),
    },
    "violations": {
        "violation_count": _violations(len),
        "violation_kinds": _violations(lambda vs: _SEP.join([v.kind for v in vs])),
    },
    "server_edits": {
        "server_edits": lambda r, _: _SEP.join([e.type for e in r.server_edits]) or None,
        "server_cleared_input_tokens": lambda r, _: _reported_sum(r, "cleared_input_tokens"),
        # a compaction's own sampling step, billed beside the call
        "server_input_tokens": lambda r, _: _reported_sum(r, "input_tokens"),
        "server_output_tokens": lambda r, _: _reported_sum(r, "output_tokens"),
    },
    # a scalar field, but its column holds the commit capture resolved: the one the record
    # names, or for a record saved before records named it, the one it was paired with
    "commit": {"commit": lambda _, f: f.commit},
}
"""Fields whose columns are not simply the field's value, and how each column is filled."""

RECORD_FIELD_COLUMNS: dict[str, tuple[str, ...]] = {
    name: tuple(cells) for name, cells in _FLATTENED.items()
}
"""Where each list/model field of a WindowRecord lands in ``records`` (scalar fields keep their
own name)."""

LEDGER_COLUMNS: dict[str, Cell] = {
    "removed_anything": lambda r, _: r.removed_message_count > 0,
    "chars_removed": lambda r, _: r.window_chars_before - r.window_chars_after,
    "messages_before": lambda _, f: f.given_len,
    "messages_after": lambda _, f: f.after_len,
}
"""Columns derived from several fields or from the ledger (plus ``record``, the row's index,
and ``explanation``, the record in words: :func:`explanation`)."""


def explanation(ctx: CaptureContext, rec: WindowRecord, facts: RecordFacts) -> str:
    """The record in words (``WindowRecord.explain()``, the sentence the report prints), its
    refusals and pins named by stage id even for a record saved before records named them:
    those are read from the ledger, as the ``refusals`` and ``pins`` frames read them."""
    obs = rec.observations
    pinned = [] if obs is None else obs.pinned
    if all(r.stage_id is not None for r in rec.refusals) and all(
        p.stage_id is not None for p in pinned
    ):
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
    """The ``records`` frame of the run in ``ctx``.

    A column with a cell in :data:`RECORD_FIELD_COLUMNS`'s table or :data:`LEDGER_COLUMNS` is
    filled by it; every other column is a scalar field of the record, read by name.
    """
    records = ctx.records
    facts = ctx.facts
    cells: dict[str, Cell] = dict(LEDGER_COLUMNS)
    for flattened in _FLATTENED.values():
        cells.update(flattened)
    cols: dict[str, Any] = {}
    for name in SCHEMAS["records"]:
        if name == "record":
            cols[name] = list(range(len(records)))
        elif name in cells:
            cell = cells[name]
            cols[name] = [cell(r, f) for r, f in zip(records, facts, strict=True)]
        elif name == "explanation":
            cols[name] = [explanation(ctx, r, f) for r, f in zip(records, facts, strict=True)]
        else:
            cols[name] = list(map(attrgetter(name), records))
    return build_frame("records", cols)
