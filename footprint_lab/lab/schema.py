"""Every frame :func:`footprint_lab.lab.capture` produces: its columns, their dtypes and meaning.

Layer: lab. This is the one place that states each frame's columns — name, dtype and a one-line
meaning side by side (:class:`Column`), with a sentence on what one row of the frame is
(:class:`FrameSpec`). Because the columns are fixed, an empty frame (a run with no strategy, no
calls, or a fault before the first call) has exactly the columns and dtypes of a full one, and
``capture_many`` can stack runs without dtype drift.

* :data:`FRAME_SPECS` — ``{frame: FrameSpec}``, the schema itself.
* :data:`SCHEMAS` — ``{frame: {column: dtype}}``, derived from it (what most callers need).
* :func:`describe` — one frame's columns as a DataFrame (``Frames.describe`` calls it).
* :data:`COLUMN_HEADERS` — the header a person reads over a column in a rendered table
  ("Messages removed" over ``removed_message_count``); :func:`header` for any column.

Dtypes are pandas' nullable ones: ``Int64`` (integers, ``<NA>`` where a fact does not apply),
``string``, ``boolean``, ``float64``; membership ``state`` is a categorical over the closed set
:data:`MEMBERSHIP_STATES`.

The ``records`` frame follows the record model: every scalar field of
:class:`~footprint_lab.WindowRecord` is a column of the same name, and a scalar field added to the
model gets its column here (dtype from its annotation) with no other edit.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

import numpy as np
import pandas as pd
from pydantic import BaseModel

from footprint_lab.lab._headers import HEADERS as _HEADERS
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
from footprint_lab.window.records import WindowRecord

__all__ = [
    "COLUMN_HEADERS",
    "EVICTION_HOWS",
    "FRAME_NAMES",
    "FRAME_SPECS",
    "IN_WINDOW_STATES",
    "LEFT_STATES",
    "MEMBERSHIP_STATES",
    "MESSAGE_FATES",
    "OUT_OF_WINDOW_STATES",
    "PAUSE_KINDS",
    "PAUSE_OUTCOMES",
    "PIN_KINDS",
    "SCHEMAS",
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
    "record_columns",
    "record_field_dtype",
    "with_run_column",
]

_I = "Int64"
_S = "string"
_B = "boolean"
_F = "float64"


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a frame: its dtype and what it means."""

    dtype: Any
    """A pandas dtype name ('Int64', 'string', 'boolean', 'float64') or a dtype object."""
    doc: str
    """One line: what the value is, and when it is <NA>."""


@dataclass(frozen=True, slots=True)
class FrameSpec:
    """One frame: what a row is, and its columns in order."""

    doc: str
    """What one row of the frame stands for (and anything true of every row)."""
    columns: Mapping[str, Column]
    """The columns, in order."""


def _cols(**columns: tuple[Any, str]) -> dict[str, Column]:
    return {name: Column(dtype, doc) for name, (dtype, doc) in columns.items()}


# -- records: the record model, flattened ------------------------------------------------------

_RECORD_COLUMNS = _cols(
    record=(_I, "Index in ``run.records``."),
    iteration=(_I, "The ReAct iteration whose boundary the visit ran at."),
    strategy=(_S, "The strategy's name."),
    commit=(_I, "The ledger commit that filed the record (``WindowRecord.commit``)."),
    forced=(_B, "The visit ran because the provider rejected the request as too long."),
    removed_anything=(_B, "Any message left on this visit."),
    removed_message_count=(_I, "How many messages left."),
    removed_stage_count=(_I, "How many stage ids ``removed_stage_ids`` names."),
    removed_stage_ids=(_S, "Stage ids of every message that left, joined with ', '."),
    cleared_stage_ids=(
        _S,
        "Stage ids of the messages replaced in place by a cleared-result placeholder, joined "
        "('' when none).",
    ),
    window_chars_before=(_I, "Exact characters of the window before the visit."),
    window_chars_after=(_I, "Exact characters of the window after the visit."),
    chars_removed=(_I, "window_chars_before - window_chars_after."),
    messages_before=(_I, "Length of the window the strategy was given (from the ledger)."),
    messages_after=(_I, "Length of the window after the visit (from the ledger)."),
    refusal_count=(_I, "How many turns refused to leave."),
    refusal_reasons=(_S, "Their reasons, in order, joined with ', '."),
    dropped_observations=(_S, "Tools whose results left, joined; <NA> when nothing left."),
    pins=(_I, "How many pins were admitted (0 when pins are off)."),
    pinned_tools=(_S, "The pinned tools, newest first, joined ('' when none)."),
    yielded=(_I, "Tool names that wanted a pin but found no slot; <NA> when pins are off."),
    pin_limit=(_I, "The agent's keep_last_tool_results; <NA> when pins are off."),
    stand_down=(_B, "Pins were released for this visit; <NA> when pins are off."),
    keep_recent_turns=(_I, "The strategy's keep window, in turns."),
    turns_before=(_I, "Turns in the window before the visit."),
    turns_after=(_I, "Turns in the window after the visit."),
    measured_tokens=(_I, "Input tokens of the last call (token strategies); see tokens_from."),
    tokens_from=(
        _S,
        "How measured_tokens was obtained: 'reported' (live), 'counted', 'scaled' or "
        "'estimated' (a replay); <NA> when none was.",
    ),
    threshold_tokens=(_I, "The absolute threshold in force (token strategies)."),
    over_budget=(_B, "The measured tokens were over the threshold (token strategies)."),
    summary_chars=(_I, "Characters of the compaction frame written (summarize-oldest)."),
    summarizer_tokens=(_I, "Tokens the summarizer reported using."),
    summarizer_skipped=(_B, "The summarizer was skipped: the span was latched as not smaller."),
    threshold_fraction=(_F, "The relative threshold, when configured with one."),
    reserve_tokens=(_I, "Output reserve added to the measured tokens (relative threshold)."),
    context_window=(_I, "The model's context window (relative threshold)."),
    notice=(_S, "Which drop notice was inserted: 'named', 'plain' or <NA>."),
    span_key=(_S, "Content hash of the span considered (latches replacement-not-smaller)."),
    error=(_S, "The summarizer's error, when it failed."),
    violation_count=(_I, "Rules an audited policy broke; <NA> unless audited."),
    violation_kinds=(_S, "Their kinds, joined; <NA> unless audited."),
)

_SCALAR_DTYPES: dict[type, str] = {bool: _B, int: _I, float: _F, str: _S}


def record_field_dtype(annotation: Any) -> str | None:
    """The column dtype of a scalar record field (``int``, ``float``, ``bool``, ``str``, a
    ``Literal`` of one of them, each optionally ``| None``); None for list and model fields."""
    args: tuple[Any, ...]
    if get_origin(annotation) in (Union, types.UnionType):
        args = tuple(a for a in get_args(annotation) if a is not type(None))
        if len(args) != 1:
            return None
        annotation = args[0]
    if get_origin(annotation) is Literal:
        kinds = {type(v) for v in get_args(annotation)}
        return _SCALAR_DTYPES.get(kinds.pop()) if len(kinds) == 1 else None
    return _SCALAR_DTYPES.get(annotation) if isinstance(annotation, type) else None


def record_columns(model: type[BaseModel] = WindowRecord) -> dict[str, Column]:
    """The ``records`` columns: today's, then one for every scalar field of ``model`` (a
    :class:`~footprint_lab.WindowRecord` or a subclass) that they lack, its dtype from the
    field's annotation."""
    columns = dict(_RECORD_COLUMNS)
    for name, info in model.model_fields.items():
        dtype = record_field_dtype(info.annotation)
        if dtype is not None and name not in columns:
            columns[name] = Column(dtype, info.description or f"``WindowRecord.{name}``.")
    return columns


# -- headers: what a person reads over a column -----------------------------------------------


def header(column: str) -> str:
    """The header a person reads over ``column``: :data:`COLUMN_HEADERS`'s, else the name
    with spaces for underscores and a capital first letter (``"span_key"`` -> ``"Span key"``)."""
    found = COLUMN_HEADERS.get(column)
    if found is not None:
        return found
    words = column.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


# -- the schema --------------------------------------------------------------------------------

FRAME_SPECS: dict[str, FrameSpec] = {
    "records": FrameSpec(
        "One row per :class:`~footprint_lab.WindowRecord`, every field flattened (scalar "
        "fields keep their name).",
        record_columns(),
    ),
    "refusals": FrameSpec(
        "One row per refusal of every record.",
        _cols(
            record=(_I, "Index in ``run.records``."),
            iteration=(_I, "The record's iteration."),
            strategy=(_S, "The record's strategy."),
            reason=(_S, "Which rule refused (kebab-case, a closed set)."),
            turn_index=(_I, "The refusing turn's index in the window the strategy was given."),
            message_index=(_I, "Its first message's index in that window."),
            turn_messages=(_I, "Messages in that turn; <NA> when the window is unknown."),
            position=(_I, "Ledger position of the turn's first message."),
            stage_id=(_S, "Stage id of the turn's first message (``Refusal.stage_id``)."),
        ),
    ),
    "pins": FrameSpec(
        "One row per pin, plus one 'yielded' row and one 'stand-down' row per record where "
        "they apply.",
        _cols(
            record=(_I, "Index in ``run.records``."),
            iteration=(_I, "The record's iteration."),
            strategy=(_S, "The record's strategy."),
            kind=(_S, "'pinned', 'yielded' or 'stand-down'."),
            tool_name=(_S, "The pinned tool ('pinned' rows)."),
            turn_index=(_I, "The turn holding the pinned result, in the window given."),
            chars=(_I, "Characters the pinned result costs."),
            count=(_I, "1, or for 'yielded' the tool names that found no slot."),
            position=(_I, "Ledger position of the pinned result."),
            stage_id=(_S, "Stage id of the pinned result (``Pin.stage_id``)."),
        ),
    ),
    "evictions": FrameSpec(
        "One row per message that left the window (one per ``context.evicted`` event).",
        _cols(
            record=(_I, "Index in ``run.records`` of the record it left under."),
            iteration=(_I, "The record's iteration."),
            strategy=(_S, "The record's strategy."),
            position=(_I, "Ledger position of the message."),
            stage_id=(_S, "Its stage id."),
            role=(_S, "Its role."),
            tool_name=(_S, "Its tool name (tool messages)."),
            authored=(_S, "Its library-authored kind, if any."),
            chars=(_I, "Its characters."),
            born_iteration=(_I, "Iteration of the stage that committed it."),
            survival_iterations=(_I, "iteration - born_iteration."),
            survival_ms=(_I, "From the event when the run has one, else ledger timestamps."),
            how=(_S, "'dropped' or 'summarized'."),
            forced=(_B, "The record's visit was forced by a too-long rejection."),
        ),
    ),
    "commits": FrameSpec(
        "One row per ledger commit.",
        _cols(
            index=(_I, "The commit's index."),
            stage_id=(_S, "The stage that committed."),
            stage=(_S, "The stage's kind: 'seed', 'window', 'call-llm', 'tool-calls', ..."),
            key=(_S, "What was committed: 'history', 'window', 'record', ..."),
            at_ms=(_I, "When (ledger clock, ms)."),
            iteration=(_I, "Iteration of the commit (0 for the seed)."),
        ),
    ),
    "calls": FrameSpec(
        "One row per LLM call (``run.calls``).",
        _cols(
            call=(_I, "Index in ``run.calls``."),
            iteration=(_I, "The call's iteration."),
            stage_id=(_S, "The call's stage id."),
            sent_commit=(_I, "The commit whose window the call sent."),
            messages=(_I, "Messages sent."),
            chars=(_I, "Exact characters sent."),
            request_chars=(_I, "The whole request: the system prompt plus ``chars``."),
            prefix_chars=(
                _I,
                "Longest common prefix with the previous call's request, in characters: what a "
                "provider's prefix cache could reuse (0 for the first call).",
            ),
            prefix_share=(_F, "``prefix_chars / request_chars`` (0 when the request is empty)."),
            existing=(_I, "Ledger messages committed by then."),
            input_tokens=(_I, "As reported; <NA> when the call failed."),
            output_tokens=(_I, "As reported; <NA> when the call failed."),
            cache_read_tokens=(_I, "As reported; <NA> when the call failed."),
            cache_write_tokens=(_I, "As reported; <NA> when the call failed."),
            reported=(_B, "The provider reported non-zero usage."),
            tokens_from=(
                _S,
                "<NA>: the usage a provider reported for this very call; in a replay, how the "
                "input tokens of the window it sent were obtained ('counted', 'scaled', "
                "'estimated').",
            ),
            failed=(
                _B,
                "The call failed (no usage; an imported call whose source recorded none did not).",
            ),
            reply_chars=(_I, "Characters of the reply the call's stage committed."),
            retry=(_B, "The one retry after a context-length rejection."),
            finish_reason=(_S, "Why the reply ended, as the provider said; <NA> if unsaid."),
            truncated=(_B, "The reply was cut short by the output cap."),
        ),
    ),
    "messages": FrameSpec(
        "One row per ledger message.",
        _cols(
            position=(_I, "Ledger position (commit order)."),
            stage_id=(_S, "The stage that committed it."),
            stage=(_S, "That stage's kind."),
            commit=(_I, "The commit that appended it."),
            iteration=(_I, "Iteration of the committing stage."),
            role=(_S, "'system', 'user', 'assistant' or 'tool'."),
            tool_name=(_S, "Tool name (tool messages)."),
            tool_call_id=(_S, "The call it answers (tool messages)."),
            authored=(_S, "Library-authored kind ('drop-notice', 'compaction-frame', ...)."),
            chars=(_I, "Exact characters."),
            label=(_S, "'stage_id role-or-tool'."),
            preview=(_S, "The first 80 characters of the content."),
            first_sent=(_I, "Iteration of the first call whose window held it."),
            last_sent=(_I, "Iteration of the last call whose window held it."),
            times_sent=(_I, "Calls whose window held it, retries included."),
            left=(_S, "'dropped', 'summarized', 'still-in' or 'never-sent'."),
            left_iteration=(_I, "Iteration it first left at; <NA> if it never left."),
        ),
    ),
    "membership": FrameSpec(
        "The window in long form, sorted by iteration then position. States of a message in "
        "the window sent at iteration k (first match wins): 'pinned' (the record of k pinned "
        "it), 'refused-<reason>' (a refusal of that record names its turn), 'notice', "
        "'frame', else 'in-window'; when k filed two records the last decides. A message not "
        "in the window is 'folded' (it left into a summary) or 'dropped'. Mode 'full': a row "
        "per (iteration, message existing by then); 'window': the in-window rows plus one "
        "row at the iteration a message left. Both agree on the rows they share.",
        _cols(
            iteration=(_I, "The iteration."),
            call=(_I, "Its last call (a retried iteration shows its retry)."),
            position=(_I, "Ledger position of the message."),
            stage_id=(_S, "Its stage id."),
            state=(STATE_DTYPE, "Categorical over MEMBERSHIP_STATES (see above)."),
            in_window=(_B, "The message was in the window sent."),
        ),
    ),
    "violations": FrameSpec(
        "One row per rule an audited policy broke (``WindowRecord.violations``); recorded, "
        "never repaired.",
        _cols(
            record=(_I, "Index in ``run.records``."),
            iteration=(_I, "The record's iteration."),
            strategy=(_S, "The record's strategy."),
            kind=(_S, "Which rule: 'split-tool-pair', 'lost-current-request', ..."),
            message_index=(_I, "Where, in the window named by ``window``."),
            window=(_S, "'given' (the policy's input) or 'sent' (its output)."),
            position=(_I, "Ledger position of that message, when it resolves."),
            stage_id=(_S, "Its stage id, when it resolves."),
            detail=(_S, "A human sentence about what happened."),
        ),
    ),
    "pauses": FrameSpec(
        "One row per ``run.paused`` event.",
        _cols(
            iteration=(_I, "The iteration whose tool calls paused."),
            call_id=(_S, "The paused tool call."),
            tool_name=(_S, "Its tool."),
            kind=(_S, "'ask-human' or 'check-in'."),
            outcome=(_S, "'answered', 'approved', 'denied'; <NA> while the run waits."),
            resumed_iteration=(_I, "Iteration of the matching ``run.resumed`` event."),
            position=(_I, "Ledger position of the assistant message that made the call."),
            stage_id=(_S, "Its stage id."),
        ),
    ),
    "losses": FrameSpec(
        "Only with ``capture(run, evidence=True)``: one row per dependent value that was not "
        "in the window its call was produced from (:func:`footprint_lab.evidence.losses`).",
        _cols(
            iteration=(_I, "Iteration of the dependent call."),
            call_id=(_S, "The dependent call."),
            tool_name=(_S, "Its tool."),
            value=(_S, "The value it depends on."),
            source_stage_id=(_S, "Stage of the latest tool result that carried the value."),
            source_position=(_I, "Ledger position of that result."),
            call_position=(_I, "Ledger position of the assistant message that made the call."),
            removed_by=(_I, "Iteration of the record that removed the source; <NA> if unsent."),
            removed_by_strategy=(_S, "That record's strategy."),
            kept_by_summary=(_B, "A compaction frame in that window still states the value."),
        ),
    ),
}
"""Every frame: what a row is, and its columns in order with dtype and meaning."""

SCHEMAS: dict[str, dict[str, Any]] = {
    name: {col: spec.dtype for col, spec in frame.columns.items()}
    for name, frame in FRAME_SPECS.items()
}
"""Every frame's columns, in order, with their dtypes (derived from :data:`FRAME_SPECS`)."""

FRAME_NAMES: tuple[str, ...] = tuple(FRAME_SPECS)
"""The frames of a capture, in the order they are documented."""

COLUMN_HEADERS: dict[str, str] = {
    **_HEADERS,
    **{
        name: _HEADERS.get(name) or name.replace("_", " ").capitalize()
        for name in FRAME_SPECS["records"].columns
    },
}
"""The one mapping from a column to its human header ("Iteration", "Strategy", "Messages
removed", ...): every ``records`` column (one added with a record field gets its name in
words), and the columns of the boundary and left views. Tables rendered by
:mod:`footprint_lab.lab.render` show these; the column's name stays in the header's tooltip."""


def describe(name: str) -> pd.DataFrame:
    """Frame ``name``'s columns: one row each with ``column``, ``dtype`` and ``meaning``.

    Raises:
        KeyError: there is no frame of that name.
    """
    if name not in FRAME_SPECS:
        raise KeyError(f"no frame {name!r}; frames are {', '.join(FRAME_NAMES)}")
    cols = FRAME_SPECS[name].columns
    return pd.DataFrame(
        {
            "column": column(list(cols), _S),
            "dtype": column([_dtype_name(c.dtype) for c in cols.values()], _S),
            "meaning": column([c.doc for c in cols.values()], _S),
        }
    )


def _dtype_name(dtype: Any) -> str:
    return "category" if isinstance(dtype, pd.CategoricalDtype) else str(dtype)


def frames_doc(indent: str = "    ") -> str:
    """Every frame and its columns as reST text (appended to ``Frames.__doc__``)."""
    lines: list[str] = []
    for name, frame in FRAME_SPECS.items():
        lines.append(f"{indent}``{name}`` — {frame.doc}")
        lines.append("")
        for col, spec in frame.columns.items():
            lines.append(f"{indent}    * ``{col}`` ({_dtype_name(spec.dtype)}): {spec.doc}")
        lines.append("")
    return "\n".join(lines)


# -- building frames ---------------------------------------------------------------------------


def column(values: Any, dtype: Any) -> Any:
    """One column as a pandas extension array (or numpy array) of ``dtype``."""
    if isinstance(dtype, pd.CategoricalDtype):
        if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
            return pd.Categorical.from_codes(values.astype(np.int8, copy=False), dtype=dtype)
        return pd.Categorical(list(values), dtype=dtype)
    if dtype == _F:
        return np.asarray(
            [np.nan if v is None else v for v in values]
            if not isinstance(values, np.ndarray)
            else values,
            dtype=np.float64,
        )
    return pd.array(values, dtype=dtype)


def build_frame(name: str, columns: Mapping[str, Any]) -> pd.DataFrame:
    """A frame of schema ``name`` from column values (lists or arrays, all the same length)."""
    schema = SCHEMAS[name]
    missing = set(schema) - set(columns)
    extra = set(columns) - set(schema)
    if missing or extra:  # pragma: no cover - a programming error in this package
        raise ValueError(f"{name}: missing columns {sorted(missing)}, unexpected {sorted(extra)}")
    data = {col: column(columns[col], dtype) for col, dtype in schema.items()}
    return pd.DataFrame(data, columns=list(schema))


def empty_frame(name: str) -> pd.DataFrame:
    """An empty frame of schema ``name`` with the right dtypes."""
    return build_frame(name, {col: [] for col in SCHEMAS[name]})


def with_run_column(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    """``frame`` with a ``run`` column (string) first."""
    out = frame.copy()
    out.insert(0, "run", column([label] * len(out), _S))
    return out


def join(values: Iterable[Any], sep: str = ", ") -> str:
    """Values joined as text (an empty list joins to '')."""
    return sep.join(str(v) for v in values)
