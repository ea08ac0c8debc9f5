"""The capture frames' specs: every frame :func:`footprint_lab.lab.capture` produces.

Layer: lab (private; :mod:`footprint_lab.lab.schema` is the public face). The ``records``
frame follows the record model: every scalar field of :class:`~footprint_lab.WindowRecord` is a
column of the same name, and a scalar field added to the model gets its column here (dtype from
its annotation) with no other edit.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from footprint_lab.lab._schema_base import (
    BOOL,
    FLOAT,
    INT,
    TEXT,
    Column,
    FrameSpec,
    columns_of,
)
from footprint_lab.lab._vocabulary import STATE_DTYPE
from footprint_lab.window.records import WindowRecord

__all__ = ["CAPTURE_SPECS", "record_columns", "record_field_dtype"]

# -- records: the record model, flattened ------------------------------------------------------

_RECORD_COLUMNS = columns_of(
    record=(INT, "Index in ``run.records``."),
    iteration=(INT, "The ReAct iteration whose boundary the visit ran at."),
    strategy=(TEXT, "The strategy's name."),
    commit=(INT, "The ledger commit that filed the record (``WindowRecord.commit``)."),
    forced=(BOOL, "The visit ran because the provider rejected the request as too long."),
    removed_anything=(BOOL, "Any message left on this visit."),
    removed_message_count=(INT, "How many messages left.", "Messages removed"),
    removed_stage_count=(
        INT,
        "How many stage ids ``removed_stage_ids`` names.",
        "Stage ids removed",
    ),
    removed_stage_ids=(
        TEXT,
        "Stage ids of every message that left, joined with ', '.",
        "Removed (stage ids)",
    ),
    cleared_stage_ids=(
        TEXT,
        "Stage ids of the messages replaced in place by a cleared-result placeholder, joined "
        "('' when none).",
        "Cleared in place (stage ids)",
    ),
    window_chars_before=(INT, "Exact characters of the window before the visit.", "Chars before"),
    window_chars_after=(INT, "Exact characters of the window after the visit.", "Chars after"),
    chars_removed=(INT, "window_chars_before - window_chars_after."),
    messages_before=(INT, "Length of the window the strategy was given (from the ledger)."),
    messages_after=(INT, "Length of the window after the visit (from the ledger)."),
    refusal_count=(INT, "How many turns refused to leave.", "Refusals"),
    refusal_reasons=(TEXT, "Their reasons, in order, joined with ', '."),
    dropped_observations=(
        TEXT,
        "Tools whose results left, joined; <NA> when nothing left.",
        "Tool results dropped",
    ),
    pins=(INT, "How many pins were admitted (0 when pins are off)."),
    pinned_tools=(TEXT, "The pinned tools, newest first, joined ('' when none)."),
    yielded=(
        INT,
        "Tool names that wanted a pin but found no slot; <NA> when pins are off.",
        "Pins yielded",
    ),
    pin_limit=(INT, "The agent's keep_last_tool_results; <NA> when pins are off."),
    stand_down=(
        BOOL,
        "Pins were released for this visit; <NA> when pins are off.",
        "Pins stood down",
    ),
    keep_recent_turns=(INT, "The strategy's keep window, in turns."),
    turns_before=(INT, "Turns in the window before the visit."),
    turns_after=(INT, "Turns in the window after the visit."),
    measured_tokens=(
        INT,
        "Input tokens of the last call (token strategies); see tokens_from.",
        "Tokens measured",
    ),
    tokens_from=(
        TEXT,
        "How measured_tokens was obtained: 'reported' (live), 'counted', 'scaled' or "
        "'estimated' (a replay); <NA> when none was.",
    ),
    threshold_tokens=(
        INT,
        "The absolute threshold in force (token strategies).",
        "Token threshold",
    ),
    over_budget=(
        BOOL,
        "The measured tokens were over the threshold (token strategies).",
        "Over threshold",
    ),
    summary_chars=(INT, "Characters of the compaction frame written (summarize-oldest)."),
    summarizer_tokens=(INT, "Tokens the summarizer reported using."),
    summarizer_skipped=(BOOL, "The summarizer was skipped: the span was latched as not smaller."),
    threshold_fraction=(FLOAT, "The relative threshold, when configured with one."),
    reserve_tokens=(INT, "Output reserve added to the measured tokens (relative threshold)."),
    context_window=(INT, "The model's context window (relative threshold)."),
    notice=(TEXT, "Which drop notice was inserted: 'named', 'plain' or <NA>.", "Drop notice"),
    span_key=(TEXT, "Content hash of the span considered (latches replacement-not-smaller)."),
    error=(TEXT, "The summarizer's error, when it failed."),
    violation_count=(INT, "Rules an audited policy broke; <NA> unless audited.", "Violations"),
    violation_kinds=(TEXT, "Their kinds, joined; <NA> unless audited."),
    server_edits=(
        TEXT,
        "What the provider reported its own server-side policy did at this call (the edits' "
        "types, joined); <NA> when it reported nothing.",
        "Server edits",
    ),
    server_cleared_input_tokens=(
        INT,
        "Input tokens the provider reported its server-side edits cleared, summed; <NA> when "
        "it reported none.",
        "Server cleared tokens",
    ),
    server_input_tokens=(
        INT,
        "Input tokens the provider billed for its own policy's sampling step at this call (a "
        "compaction's summary: not in the call's usage), as reported; <NA> when none.",
    ),
    server_output_tokens=(
        INT,
        "Output tokens of that step (the summary it wrote), as reported; <NA> when none.",
    ),
    explanation=(
        TEXT,
        "The record in words (``WindowRecord.explain()``, the sentence the report prints): "
        "what left, the rule that fired, what refused and why.",
        "Why",
    ),
)

_SCALAR_DTYPES: dict[type, str] = {bool: BOOL, int: INT, float: FLOAT, str: TEXT}


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


_CAPTURE: dict[str, FrameSpec] = {
    "records": FrameSpec(
        "One row per :class:`~footprint_lab.WindowRecord`, every field flattened (scalar "
        "fields keep their name).",
        record_columns(),
    ),
    "refusals": FrameSpec(
        "One row per refusal of every record.",
        columns_of(
            record=(INT, "Index in ``run.records``."),
            iteration=(INT, "The record's iteration."),
            strategy=(TEXT, "The record's strategy."),
            reason=(TEXT, "Which rule refused (kebab-case, a closed set)."),
            turn_index=(INT, "The refusing turn's index in the window the strategy was given."),
            message_index=(INT, "Its first message's index in that window."),
            turn_messages=(INT, "Messages in that turn; <NA> when the window is unknown."),
            position=(INT, "Ledger position of the turn's first message."),
            stage_id=(TEXT, "Stage id of the turn's first message (``Refusal.stage_id``)."),
        ),
    ),
    "pins": FrameSpec(
        "One row per pin, plus one 'yielded' row and one 'stand-down' row per record where "
        "they apply.",
        columns_of(
            record=(INT, "Index in ``run.records``."),
            iteration=(INT, "The record's iteration."),
            strategy=(TEXT, "The record's strategy."),
            kind=(TEXT, "'pinned', 'yielded' or 'stand-down'."),
            tool_name=(TEXT, "The pinned tool ('pinned' rows)."),
            turn_index=(INT, "The turn holding the pinned result, in the window given."),
            chars=(INT, "Characters the pinned result costs."),
            count=(INT, "1, or for 'yielded' the tool names that found no slot."),
            position=(INT, "Ledger position of the pinned result."),
            stage_id=(TEXT, "Stage id of the pinned result (``Pin.stage_id``)."),
        ),
    ),
    "evictions": FrameSpec(
        "One row per message that left the window (one per ``context.evicted`` event).",
        columns_of(
            record=(INT, "Index in ``run.records`` of the record it left under."),
            iteration=(INT, "The record's iteration."),
            strategy=(TEXT, "The record's strategy."),
            position=(INT, "Ledger position of the message."),
            stage_id=(TEXT, "Its stage id."),
            role=(TEXT, "Its role."),
            tool_name=(TEXT, "Its tool name (tool messages)."),
            authored=(TEXT, "Its library-authored kind, if any."),
            chars=(INT, "Its characters."),
            born_iteration=(INT, "Iteration of the stage that committed it."),
            survival_iterations=(INT, "iteration - born_iteration."),
            survival_ms=(INT, "From the event when the run has one, else ledger timestamps."),
            how=(TEXT, "'dropped' or 'summarized'."),
            forced=(BOOL, "The record's visit was forced by a too-long rejection."),
        ),
    ),
    "commits": FrameSpec(
        "One row per ledger commit.",
        columns_of(
            index=(INT, "The commit's index."),
            stage_id=(TEXT, "The stage that committed."),
            stage=(TEXT, "The stage's kind: 'seed', 'window', 'call-llm', 'tool-calls', ..."),
            key=(TEXT, "What was committed: 'history', 'window', 'record', ..."),
            at_ms=(INT, "When (ledger clock, ms)."),
            iteration=(INT, "Iteration of the commit (0 for the seed)."),
        ),
    ),
    "calls": FrameSpec(
        "One row per LLM call (``run.calls``).",
        columns_of(
            call=(INT, "Index in ``run.calls``."),
            iteration=(INT, "The call's iteration."),
            stage_id=(TEXT, "The call's stage id."),
            sent_commit=(INT, "The commit whose window the call sent."),
            messages=(INT, "Messages sent."),
            chars=(INT, "Exact characters sent."),
            request_chars=(INT, "The whole request: the system prompt plus ``chars``."),
            prefix_chars=(
                INT,
                "Longest common prefix with the previous call's request, in characters: what a "
                "provider's prefix cache could reuse (0 for the first call).",
            ),
            prefix_share=(FLOAT, "``prefix_chars / request_chars`` (0 when the request is empty)."),
            existing=(INT, "Ledger messages committed by then."),
            input_tokens=(INT, "As reported; <NA> when the call failed."),
            output_tokens=(INT, "As reported; <NA> when the call failed."),
            cache_read_tokens=(INT, "As reported; <NA> when the call failed."),
            cache_write_tokens=(INT, "As reported; <NA> when the call failed."),
            reported=(BOOL, "The provider reported non-zero usage."),
            tokens_from=(
                TEXT,
                "<NA>: the usage a provider reported for this very call; in a replay, how the "
                "input tokens of the window it sent were obtained ('counted', 'scaled', "
                "'estimated').",
            ),
            scaled_from=(
                INT,
                "For a 'scaled' figure, the input tokens the source's call reported (it was "
                "scaled from them); <NA> otherwise.",
            ),
            failed=(
                BOOL,
                "The call failed (no usage; an imported call whose source recorded none did not).",
            ),
            reply_chars=(INT, "Characters of the reply the call's stage committed."),
            retry=(BOOL, "The one retry after a context-length rejection."),
            finish_reason=(TEXT, "Why the reply ended, as the provider said; <NA> if unsaid."),
            truncated=(BOOL, "The reply was cut short by the output cap."),
        ),
    ),
    "messages": FrameSpec(
        "One row per ledger message.",
        columns_of(
            position=(INT, "Ledger position (commit order)."),
            stage_id=(TEXT, "The stage that committed it."),
            stage=(TEXT, "That stage's kind."),
            commit=(INT, "The commit that appended it."),
            iteration=(INT, "Iteration of the committing stage."),
            role=(TEXT, "'system', 'user', 'assistant' or 'tool'."),
            tool_name=(TEXT, "Tool name (tool messages)."),
            tool_call_id=(TEXT, "The call it answers (tool messages)."),
            authored=(TEXT, "Library-authored kind ('drop-notice', 'compaction-frame', ...)."),
            chars=(INT, "Exact characters."),
            label=(TEXT, "'stage_id role-or-tool'."),
            preview=(TEXT, "The first 80 characters of the content."),
            first_sent=(INT, "Iteration of the first call whose window held it."),
            last_sent=(INT, "Iteration of the last call whose window held it."),
            times_sent=(INT, "Calls whose window held it, retries included."),
            left=(TEXT, "'dropped', 'summarized', 'still-in' or 'never-sent'."),
            left_iteration=(INT, "Iteration it first left at; <NA> if it never left."),
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
        columns_of(
            iteration=(INT, "The iteration."),
            call=(INT, "Its last call (a retried iteration shows its retry)."),
            position=(INT, "Ledger position of the message."),
            stage_id=(TEXT, "Its stage id."),
            state=(STATE_DTYPE, "Categorical over MEMBERSHIP_STATES (see above)."),
            in_window=(BOOL, "The message was in the window sent."),
        ),
    ),
    "violations": FrameSpec(
        "One row per rule an audited policy broke (``WindowRecord.violations``); recorded, "
        "never repaired.",
        columns_of(
            record=(INT, "Index in ``run.records``."),
            iteration=(INT, "The record's iteration."),
            strategy=(TEXT, "The record's strategy."),
            kind=(TEXT, "Which rule: 'split-tool-pair', 'lost-current-request', ..."),
            message_index=(INT, "Where, in the window named by ``window``."),
            window=(TEXT, "'given' (the policy's input) or 'sent' (its output)."),
            position=(INT, "Ledger position of that message, when it resolves."),
            stage_id=(TEXT, "Its stage id, when it resolves."),
            detail=(TEXT, "A human sentence about what happened."),
        ),
    ),
    "findings": FrameSpec(
        "One row per finding :func:`footprint_lab.judge` makes about a compaction the run's own "
        "stack performed (its observed records): facts, not failures. Empty for a run with no "
        "observed record (one of ours, or a file whose stack never compacted).",
        columns_of(
            record=(INT, "Index in ``run.records`` of the observed record."),
            iteration=(INT, "The record's iteration."),
            policy=(TEXT, "The stack's policy the record names (``claude-code``, ``codex``, ...)."),
            rule=(TEXT, "Which rule: 'context-grew', 'request-lost', 'refetched', ..."),
            stage_ids=(TEXT, "What it concerns: stage ids, separated by spaces."),
            tokens_before=(INT, "Billed input tokens of the last call before; <NA>: unknown."),
            tokens_after=(INT, "Billed input tokens of the first call after; <NA>: unknown."),
            figure=(FLOAT, "The finding's own measure, in ``unit``; <NA> when it has none."),
            unit=(TEXT, "What ``figure`` counts ('tokens (reported)', 'characters', 'USD', ...)."),
            detail=(TEXT, "One sentence a person reads."),
        ),
    ),
    "pauses": FrameSpec(
        "One row per ``run.paused`` event.",
        columns_of(
            iteration=(INT, "The iteration whose tool calls paused."),
            call_id=(TEXT, "The paused tool call."),
            tool_name=(TEXT, "Its tool."),
            kind=(TEXT, "'ask-human' or 'check-in'."),
            outcome=(TEXT, "'answered', 'approved', 'denied'; <NA> while the run waits."),
            resumed_iteration=(INT, "Iteration of the matching ``run.resumed`` event."),
            position=(INT, "Ledger position of the assistant message that made the call."),
            stage_id=(TEXT, "Its stage id."),
        ),
    ),
    "losses": FrameSpec(
        "Only with ``capture(run, evidence=True)``: one row per dependent value that was not "
        "in the window its call was produced from (:func:`footprint_lab.evidence.losses`).",
        columns_of(
            iteration=(INT, "Iteration of the dependent call."),
            call_id=(TEXT, "The dependent call."),
            tool_name=(TEXT, "Its tool."),
            value=(TEXT, "The value it depends on."),
            source_stage_id=(TEXT, "Stage of the latest tool result that carried the value."),
            source_position=(INT, "Ledger position of that result."),
            call_position=(INT, "Ledger position of the assistant message that made the call."),
            removed_by=(INT, "Iteration of the record that removed the source; <NA> if unsent."),
            removed_by_strategy=(TEXT, "That record's strategy."),
            kept_by_summary=(BOOL, "A compaction frame in that window still states the value."),
        ),
    ),
}
"""Every capture frame: what a row is, and its columns in order with dtype and meaning."""

CAPTURE_SPECS: dict[str, FrameSpec] = {
    name: FrameSpec(spec.doc, spec.columns, name) for name, spec in _CAPTURE.items()
}
"""The capture frames, each named."""
