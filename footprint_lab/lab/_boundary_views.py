"""The boundary: the window sent at one iteration and what left there, as DataFrames
(:func:`boundary_frame`, :func:`left_frame`) and as the typed Boundary view both its renderers
read — the report and the Inspector's pane (:func:`boundary_view`, a
:class:`~footprint_lab.lab._boundary_model.BoundaryView` over the iterations
:func:`boundary_sample` picks, each message once).

Layer: lab. Functions of a run and its capture; re-exported by :mod:`footprint_lab.lab.views`.
No ipywidgets and no HTML here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.lab._boundary_model import (
    BoundaryIteration,
    BoundaryMessage,
    BoundaryRecord,
    BoundaryView,
    PairValue,
)
from footprint_lab.lab._message_text import part_badges, preview, tool_call_text, who
from footprint_lab.lab._record_words import (
    departure_words,
    record_pairs,
    record_sentence,
    state_words,
)
from footprint_lab.lab.frames import Frames
from footprint_lab.lab.schema import build_frame, spec
from footprint_lab.messages import Message
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.words import call_label

BOUNDARY_COLUMNS: tuple[str, ...] = tuple(spec("boundary").columns)
"""Columns of :func:`boundary_frame`: the window sent at one iteration (the ``boundary``
spec)."""

LEFT_COLUMNS: tuple[str, ...] = tuple(spec("left").columns)
"""Columns of :func:`left_frame`: the messages that left at one iteration (the ``left``
spec)."""


def _rows_frame(name: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Frame ``name`` from its rows, built against its spec."""
    return build_frame(name, {c: [row[c] for row in rows] for c in spec(name).columns})


def call_of_iteration(frames: Frames) -> dict[int, int]:
    """Iteration -> index of its last call (a context-length rejection makes two)."""
    last = frames.calls.drop_duplicates("iteration", keep="last")
    return {int(it): int(c) for it, c in zip(last["iteration"], last["call"], strict=True)}


def window_at(
    run: Run, frames: Frames, iteration: int, call_of: Mapping[int, int] | None = None
) -> tuple[list[Message], bool]:
    """The window sent by the last call of ``iteration`` and True; at an iteration whose
    record was filed but whose call never happened, the window as that record left it and
    False; else ``([], False)``."""
    call = (call_of if call_of is not None else call_of_iteration(frames)).get(iteration)
    if call is not None:
        return run.window_sent(call), True
    rows = frames.records[frames.records["iteration"] == iteration]
    commits = rows["commit"].dropna()
    if len(commits):
        return run.ledger.window_at(int(commits.iloc[-1])), False
    return [], False


def _states_by_iteration(frames: Frames, iterations: Iterable[int]) -> dict[int, dict[int, str]]:
    """Iteration -> {ledger position: membership state} at that iteration's call, for
    ``iterations`` (one pass over the ``membership`` frame)."""
    membership = frames.membership
    here = membership[membership["iteration"].isin(list(iterations))]
    out: dict[int, dict[int, str]] = {}
    for iteration, position, state in zip(
        here["iteration"].astype(int),
        here["position"].astype(int),
        here["state"].astype(str),
        strict=True,
    ):
        out.setdefault(int(iteration), {})[int(position)] = state
    return out


def boundary_frame(
    run: Run, frames: Frames, iteration: int, call_of: Mapping[int, int] | None = None
) -> pd.DataFrame:
    """The window at ``iteration`` (see :func:`window_at`), one row per message:
    :data:`BOUNDARY_COLUMNS` — ``index`` in the window, ledger ``position``, ``stage_id``,
    ``who``, exact ``chars``, membership ``state`` (pinned, refused-<reason>, notice, frame or
    in-window) and a ``preview``."""
    window, _ = window_at(run, frames, iteration, call_of)
    states = _states_by_iteration(frames, [iteration]).get(iteration, {})
    ledger = run.ledger
    rows: list[dict[str, Any]] = []
    for index, message in enumerate(window):
        position = ledger.position(message)
        rows.append(
            {
                "index": index,
                "position": position,
                "stage_id": message.stage_id,
                "who": who(message),
                "chars": message.chars,
                "state": states.get(position, "in-window") if position is not None else "in-window",
                "preview": preview(message),
            }
        )
    return _rows_frame("boundary", rows)


Departure = tuple[int, str | None, int, str, int | None, int]
"""A message that left the window: (ledger position, stage id, chars, how, born iteration,
index in ``run.records`` of the record it left under)."""


def _departures(frames: Frames, iterations: Iterable[int]) -> dict[int, list[Departure]]:
    """Iteration -> the messages that left the window at its boundary, in ``evictions``
    order, for ``iterations`` (one pass over the ``evictions`` frame)."""
    ev = frames.evictions
    here = ev[ev["iteration"].isin(list(iterations))]
    out: dict[int, list[Departure]] = {}
    for iteration, position, stage_id, chars, how, born, record in zip(
        here["iteration"],
        here["position"],
        here["stage_id"],
        here["chars"],
        here["how"],
        here["born_iteration"],
        here["record"],
        strict=True,
    ):
        out.setdefault(int(iteration), []).append(
            (
                int(position),
                None if pd.isna(stage_id) else str(stage_id),
                int(chars),
                str(how),
                None if pd.isna(born) else int(born),
                int(record),
            )
        )
    return out


def _why(run: Run, departure: Departure) -> str:
    """Why a departed message left: how, by which strategy, at which iteration, by which rule
    (:func:`departure_words` of the record it left under)."""
    return departure_words(run.records[departure[5]], departure[1] or "")


def left_frame(run: Run, frames: Frames, iteration: int) -> pd.DataFrame:
    """The messages that left the window at the boundary before ``iteration``:
    :data:`LEFT_COLUMNS` — ``how`` is 'dropped' or 'summarized', ``why`` says by which
    strategy and rule (:func:`departure_words`). They are still in the ledger:
    ``run.ledger.message(stage_id)`` returns each."""
    messages = run.ledger.messages
    rows: list[dict[str, Any]] = []
    for departure in _departures(frames, [iteration]).get(iteration, []):
        position, stage_id, chars, how, born, _ = departure
        message = messages[position]
        rows.append(
            {
                "position": position,
                "stage_id": stage_id,
                "who": who(message),
                "chars": chars,
                "how": how,
                "why": _why(run, departure),
                "born_iteration": born,
                "preview": preview(message),
            }
        )
    return _rows_frame("left", rows)


# -- the boundary, as data for a page ---------------------------------------------------------

BOUNDARY_TEXT_CHARS = 2_000
"""Characters of a message's text (and of each tool call) the report's Boundary view holds;
the rest is counted ("… N more characters")."""

BOUNDARY_RECORD_ITERATIONS = 400
"""The report's Boundary view holds every iteration with a record, up to this many (above it,
this many spread evenly from the first to the last)."""

BOUNDARY_OTHER_ITERATIONS = 40
"""...and about this many of the other iterations (one in every k, and the last)."""


def boundary_iterations(frames: Frames, call_of: Mapping[int, int] | None = None) -> list[int]:
    """Iterations with a call or a record, in order: those a boundary view can show."""
    calls = call_of if call_of is not None else call_of_iteration(frames)
    return sorted(set(calls) | {int(i) for i in frames.records["iteration"]})


def _spread(values: Sequence[int], count: int) -> list[int]:
    """``count`` of ``values`` spread evenly, the first and the last included."""
    if len(values) <= count:
        return list(values)
    if count <= 1:
        return list(values[-1:])
    step = (len(values) - 1) / (count - 1)
    return sorted({values[round(i * step)] for i in range(count)})


@dataclass(frozen=True)
class BoundarySample:
    """The iterations a boundary view holds, out of ``total``, and a sentence saying which
    (None when it holds them all)."""

    iterations: list[int]
    total: int
    note: str | None = None


def boundary_sample(
    frames: Frames,
    call_of: Mapping[int, int] | None = None,
    *,
    max_records: int = BOUNDARY_RECORD_ITERATIONS,
    max_others: int = BOUNDARY_OTHER_ITERATIONS,
) -> BoundarySample:
    """Which iterations the report's Boundary view holds: every one with a record (up to
    ``max_records``, else that many spread evenly) and one in every k of the others so that
    about ``max_others`` are kept, the last one always included."""
    every = boundary_iterations(frames, call_of)
    recorded = sorted({int(i) for i in frames.records["iteration"]})
    kept_records = _spread(recorded, max_records)
    has_record = set(recorded)
    others = [i for i in every if i not in has_record]
    stride = max(-(-len(others) // max(max_others, 1)), 1)
    kept_others = others[::stride]
    if others and others[-1] not in kept_others:
        kept_others.append(others[-1])
    shown = sorted(set(kept_records) | set(kept_others))
    note = None
    if len(shown) < len(every):
        with_record = (
            f"every one of the {len(recorded):,} with a record"
            if len(kept_records) == len(recorded)
            else f"{len(kept_records):,} of the {len(recorded):,} with a record, spread evenly"
        )
        rest = (
            f"one in every {stride} of the {len(others):,} others (and the last)"
            if stride > 1
            else f"all {len(others):,} others"
        )
        note = f"The slider holds {len(shown):,} of {len(every):,} iterations: {with_record}, "
        note += f"{rest}."
    return BoundarySample(iterations=shown, total=len(every), note=note)


def _capped(text: str, limit: int) -> tuple[str, int]:
    return (text, 0) if len(text) <= limit else (text[:limit], len(text) - limit)


def _boundary_message(
    message: Message, position: int | None, limit: int = BOUNDARY_TEXT_CHARS
) -> BoundaryMessage:
    text, more = _capped(message.content, limit)
    calls = []
    for call in message.tool_calls:
        shown, left = _capped(tool_call_text(call), limit)
        calls.append(shown + (f" … {left:,} more characters" if left else ""))
    return BoundaryMessage(
        position=position,
        stage_id=message.stage_id,
        role=message.role,
        who=who(message),
        chars=message.chars,
        text=text,
        more=more,
        calls=tuple(calls),
        badges=part_badges(message),
    )


def message_view(
    message: Message, position: int | None, limit: int = BOUNDARY_TEXT_CHARS
) -> dict[str, Any]:
    """One message as plain data for a page (a
    :class:`~footprint_lab.lab._boundary_model.BoundaryMessage` as JSON): ``position`` in the
    ledger, ``stage_id``, ``role``, ``who``, exact ``chars``, its ``text`` (the first ``limit``
    characters of its content) and ``more`` (how many were left out), its tool ``calls`` as
    text (each capped alike) and its typed parts' ``badges``."""
    return _boundary_message(message, position, limit).model_dump(mode="json")


_NO_TOKENS = (pd.NA, pd.NA, pd.NA)
"""A call's input tokens, their source and what a scaled figure came from, when it has none."""


def _input_tokens(frames: Frames) -> dict[int, tuple[Any, Any, Any]]:
    """Call index -> its input tokens (<NA> when none) and where they came from (<NA>: the
    provider reported them; else 'counted', 'scaled' or 'estimated', in a replay)."""
    calls = frames.calls
    nothing = [pd.NA] * len(calls)
    sources = calls["tokens_from"] if "tokens_from" in calls.columns else nothing
    scaled_from = calls["scaled_from"] if "scaled_from" in calls.columns else nothing
    return dict(
        zip(
            calls["call"].astype(int),
            zip(calls["input_tokens"], sources, scaled_from, strict=True),
            strict=True,
        )
    )


def _caption(
    iteration: int, call: int | None, window: Sequence[Message], sent: bool, tokens: Any
) -> str:
    chars = sum(m.chars for m in window)
    if sent and call is not None:
        count, source, scaled_from = tokens
        how = "reported" if pd.isna(source) else str(source)  # never "reported" for a scaled one
        if how == "scaled" and not pd.isna(scaled_from):
            how = f"scaled from the {int(scaled_from):,} reported"
        reported = f", {int(count):,} input tokens {how}" if not pd.isna(count) else ""
        label = call_label(iteration, call)
        return f"{label}: {len(window)} message(s), {chars} chars sent{reported}."
    if window:
        return (
            f"Iteration {iteration}: no call was made; this is the window the record left "
            f"({len(window)} message(s), {chars} chars)."
        )
    return f"Iteration {iteration}: no call and no record."


def boundary_caption(
    frames: Frames,
    iteration: int,
    window: Sequence[Message],
    sent: bool,
    call_of: Mapping[int, int] | None = None,
) -> str:
    """The line above a boundary's messages: the iteration, its call, how many messages and
    characters were sent and the input tokens reported (or why no call was made)."""
    call = (call_of if call_of is not None else call_of_iteration(frames)).get(iteration)
    tokens = _input_tokens(frames).get(call, _NO_TOKENS) if call is not None else _NO_TOKENS
    return _caption(iteration, call, window, sent, tokens)


def _pair_value(value: Any) -> PairValue:
    if value is None:
        return "–"
    return value if isinstance(value, str | int | float) else str(value)


NO_CALLS = "This run made no LLM calls."
"""What a Boundary view of a run with no call and no record says."""


def boundary_view(
    run: Run,
    frames: Frames,
    iterations: Sequence[int] | None = None,
    *,
    text_chars: int = BOUNDARY_TEXT_CHARS,
    call_of: Mapping[int, int] | None = None,
) -> BoundaryView:
    """The Boundary view of a run — what the report's Boundary view and the Inspector's
    Boundary pane both show (one script, ``render/boundary.js``, renders it): for each of
    ``iterations`` (default :func:`boundary_sample`) the exact messages sent by its last call
    (``run.ledger.window_at(call.sent_commit)``, via :func:`window_at`) with their membership
    state, the messages that left there (the ``evictions`` frame) and the records filed there
    (:func:`record_sentence` and :func:`record_pairs`).

    Each message is stored once in ``messages`` (text capped at ``text_chars``) and named by
    its index there, each membership state once in ``states`` (:func:`state_words` in
    ``marks``): a long run repeats the rows thousands of times. ``call_of`` is
    :func:`call_of_iteration` when the caller has it already.
    """
    call_of = call_of if call_of is not None else call_of_iteration(frames)
    if iterations is None:
        sample = boundary_sample(frames, call_of)
    else:
        sample = BoundarySample(
            iterations=list(iterations), total=len(boundary_iterations(frames, call_of))
        )
    states = _states_by_iteration(frames, sample.iterations)
    departures = _departures(frames, sample.iterations)
    tokens = _input_tokens(frames)
    by_iteration: dict[int, list[WindowRecord]] = {}
    for record in run.records:
        by_iteration.setdefault(record.iteration, []).append(record)
    ledger = run.ledger
    stored = ledger.messages
    refs: dict[int, int] = {}
    messages: list[BoundaryMessage] = []

    def ref(message: Message, position: int | None) -> int:
        key = id(message)
        if key not in refs:
            refs[key] = len(messages)
            messages.append(_boundary_message(message, position, text_chars))
        return refs[key]

    shown: list[BoundaryIteration] = []
    codes: dict[str, int] = {}
    for iteration in sample.iterations:
        window, sent = window_at(run, frames, iteration, call_of)
        here = states.get(iteration, {})
        rows = []
        for message in window:
            position = ledger.position(message)
            state = "in-window" if position is None else here.get(position, "in-window")
            rows.append((ref(message, position), codes.setdefault(state, len(codes))))
        here_left = departures.get(iteration, [])
        gone = [(ref(stored[d[0]], d[0]), d[3], d[4]) for d in here_left]
        records = [
            BoundaryRecord(
                sentence=record_sentence(record),
                removed=tuple(record.removed_stage_ids),
                pairs=tuple((key, _pair_value(value)) for key, value in record_pairs(record)),
            )
            for record in by_iteration.get(iteration, [])
        ]
        call = call_of.get(iteration)
        counted = tokens.get(call_of.get(iteration, -1), _NO_TOKENS)
        shown.append(
            BoundaryIteration(
                iteration=iteration,
                call=call,
                sent=sent,
                caption=_caption(iteration, call, window, sent, counted),
                window=tuple(rows),
                left=tuple(gone),
                why=tuple(_why(run, d) for d in here_left),
                records=tuple(records),
            )
        )
    removing = [
        i
        for i, view in enumerate(shown)
        if view.left or any(record.removed for record in view.records)
    ]
    return BoundaryView(
        iterations=tuple(shown),
        messages=tuple(messages),
        states=tuple(codes),
        marks={state: state_words(state) for state in codes},
        initial=removing[0] if removing else max(len(shown) - 1, 0),
        total=sample.total,
        note=sample.note,
        no_record=(
            "the run has no window strategy"
            if not run.records and run.strategy is None
            else "the strategy did not engage"
        ),
        no_calls=NO_CALLS,
        text_chars=text_chars,
    )


def boundary_views(
    run: Run,
    frames: Frames,
    iterations: Sequence[int] | None = None,
    *,
    text_chars: int = BOUNDARY_TEXT_CHARS,
) -> dict[str, Any]:
    """:func:`boundary_view` as plain, JSON-ready data (``model_dump(mode="json")``): the JSON
    the report embeds and the Inspector's pane holds. Its schema is
    ``BoundaryView.model_json_schema()``: ``{"iterations": [{"iteration", "call", "sent",
    "caption", "window": [[ref, state index], ...], "left": [[ref, how, born_iteration], ...],
    "why": [sentence, ...], "records": [{"sentence", "removed", "pairs"}]}, ...], "messages",
    "states", "marks", "initial", "total", "note", "no_record", "no_calls", "text_chars"}``."""
    view = boundary_view(run, frames, iterations, text_chars=text_chars)
    return view.model_dump(mode="json")
