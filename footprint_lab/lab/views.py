"""Views: the pure data the widgets and the report both show.

Layer: lab. Functions of a run (and its capture) that return plain values or DataFrames —
the window sent at a boundary and what left there, a record as labelled pairs, one line of
text or a sentence in words (:func:`record_sentence`: what left, the rule that fired, what
refused and why), refusals by reason, a message's preview, the counterfactual banner's facts,
and :func:`boundary_views`, the report's offline Boundary view as plain (JSON-ready) data. No
ipywidgets and no HTML here: the widgets arrange these views, the templates of
:mod:`footprint_lab.lab.render` turn them into HTML, and the CLI prints :func:`record_text`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.counterfactual import COUNTERFACTUAL_NOTE
from footprint_lab.lab.frames import Frames
from footprint_lab.messages import Message, ToolCall
from footprint_lab.window.records import REFUSAL_REASONS, Refusal, WindowRecord

__all__ = [
    "BOUNDARY_COLUMNS",
    "BOUNDARY_OTHER_ITERATIONS",
    "BOUNDARY_RECORD_ITERATIONS",
    "BOUNDARY_TEXT_CHARS",
    "IMPORT_PROBLEMS_SHOWN",
    "LEFT_COLUMNS",
    "PREVIEW_CHARS",
    "RECORD_TABLE_COLUMNS",
    "REFUSAL_MEANINGS",
    "STATE_MEANINGS",
    "Banner",
    "BoundarySample",
    "Truncation",
    "boundary_caption",
    "boundary_frame",
    "boundary_iterations",
    "boundary_sample",
    "boundary_views",
    "call_of_iteration",
    "counterfactual_banner",
    "describe",
    "import_problem_items",
    "left_frame",
    "message_view",
    "part_badges",
    "preview",
    "record_pairs",
    "record_sentence",
    "record_text",
    "record_trigger",
    "records_view",
    "refusal_counts",
    "state_words",
    "strategy_facts",
    "tool_call_text",
    "truncated_calls",
    "truncation",
    "who",
    "window_at",
]

PREVIEW_CHARS = 100
"""Characters of content shown per message in the boundary table."""

IMPORT_PROBLEMS_SHOWN = 20
"""Import problems listed per run before the rest are counted."""

BOUNDARY_COLUMNS: tuple[str, ...] = (
    "index",
    "position",
    "stage_id",
    "who",
    "chars",
    "state",
    "preview",
)
"""Columns of :func:`boundary_frame`: the window sent at one iteration."""

LEFT_COLUMNS: tuple[str, ...] = (
    "position",
    "stage_id",
    "who",
    "chars",
    "how",
    "born_iteration",
    "preview",
)
"""Columns of :func:`left_frame`: the messages that left at one iteration."""

RECORD_TABLE_COLUMNS: tuple[str, ...] = (
    "iteration",
    "removed_message_count",
    "removed_stage_ids",
    "window_chars_before",
    "window_chars_after",
    "refusal_reasons",
    "pinned_tools",
    "yielded",
    "stand_down",
    "measured_tokens",
    "threshold_tokens",
    "notice",
    "summary_chars",
    "forced",
)
"""The ``records`` columns shown in a records table (the widgets' and the report's)."""


# -- messages ---------------------------------------------------------------------------------


def part_badges(message: Message) -> str:
    """A message's typed parts as plain-text badges: ``[image 1,234 chars]`` ... (empty when it
    has none)."""
    return " ".join(f"[{part.kind} {part.chars:,} chars]" for part in message.parts)


def who(message: Message) -> str:
    """Who a message is from: its role, ``tool <name>``, or ``<role> (<authored kind>)``."""
    if message.authored is not None:
        return f"{message.role} ({message.authored})"
    if message.role == "tool":
        return f"tool {message.name}"
    return message.role


def tool_call_text(call: ToolCall) -> str:
    """A tool call as text: ``name(key='value', n=3)``."""
    return f"{call.name}({', '.join(f'{k}={v!r}' for k, v in call.arguments.items())})"


def preview(message: Message, limit: int = PREVIEW_CHARS) -> str:
    """A message in one line of at most ``limit`` characters: its text (line breaks as ⏎), its
    tool calls, and its typed parts' badges (kept visible however long the text)."""
    text = " ⏎ ".join(line.strip() for line in message.content.splitlines() if line.strip())
    if message.tool_calls:
        calls = ", ".join(tool_call_text(c) for c in message.tool_calls)
        text = f"{text} → {calls}" if text else f"→ {calls}"
    badges = part_badges(message)
    if badges:
        room = max(limit - len(badges) - 1, 0)
        if len(text) > room:
            text = text[: room - 1] + "…" if room > 1 else ""
        return f"{text} {badges}" if text else badges
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- records ----------------------------------------------------------------------------------

_SHOWN_FIRST = {
    "strategy",
    "iteration",
    "removed_stage_ids",
    "removed_message_count",
    "window_chars_before",
    "window_chars_after",
    "turns_before",
    "turns_after",
    "refusals",
    "dropped_observations",
    "observations",
    "violations",
}


def record_pairs(record: WindowRecord) -> list[tuple[str, Any]]:
    """A record as ``(label, value)`` pairs, every fact it holds: what ``record.html.j2``
    shows wherever a record is rendered."""
    pairs: list[tuple[str, Any]] = [
        ("strategy", record.strategy),
        ("iteration", record.iteration),
        ("removed", f"{record.removed_message_count} message(s)"),
        ("removed stage ids", ", ".join(record.removed_stage_ids) or "–"),
        ("chars", f"{record.window_chars_before} → {record.window_chars_after}"),
    ]
    if record.turns_before is not None:
        pairs.append(("turns", f"{record.turns_before} → {record.turns_after}"))
    refusals = [
        f"{r.reason} (turn {r.turn_index}, message {r.message_index})" for r in record.refusals
    ]
    pairs.append(("refusals", "; ".join(refusals) or "–"))
    if record.dropped_observations is not None:
        pairs.append(("dropped observations", ", ".join(record.dropped_observations) or "–"))
    obs = record.observations
    if obs is not None:
        pinned = [f"{p.tool_name} (turn {p.turn_index}, {p.chars} chars)" for p in obs.pinned]
        pairs.append(("pinned", "; ".join(pinned) or "–"))
        pairs.append(("pins", f"limit {obs.limit}, yielded {obs.yielded}"))
        if obs.stand_down:
            pairs.append(("stand-down", "yes: no pin offered on this visit"))
    for name, value in record.model_dump(exclude_none=True).items():
        if name not in _SHOWN_FIRST and value not in ([], False):
            pairs.append((name.replace("_", " "), value))
    if record.violations:
        pairs.append(
            (
                "violations",
                "; ".join(
                    f"{v.kind} (message {v.message_index}) {v.detail}".strip()
                    for v in record.violations
                ),
            )
        )
    return pairs


def _refusal_turns(record: WindowRecord) -> dict[str, list[Refusal]]:
    """The record's refusals grouped by reason, reasons in order of first appearance."""
    by_reason: dict[str, list[Refusal]] = {}
    for refusal in record.refusals:
        by_reason.setdefault(refusal.reason, []).append(refusal)
    return by_reason


def record_text(record: WindowRecord) -> str:
    """A record in one line of text (the CLI's form): iteration, removed count and ids,
    chars before and after, refusals by reason with the turns (indexes in the window the
    strategy was given) that refused, and the tokens measured against the threshold."""
    refusals = (
        ", ".join(
            f"{reason} (turn{'s' if len(found) > 1 else ''} "
            f"{', '.join(str(r.turn_index) for r in found)})"
            for reason, found in _refusal_turns(record).items()
        )
        or "-"
    )
    removed = ", ".join(record.removed_stage_ids) or "-"
    extra = ""
    if record.measured_tokens is not None:
        extra = f"  tokens {record.measured_tokens}/{record.threshold_tokens}"
    return (
        f"  iter {record.iteration:>3}  removed {record.removed_message_count:>3} [{removed}]  "
        f"chars {record.window_chars_before} -> {record.window_chars_after}  "
        f"refusals: {refusals}{extra}"
    )


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def record_trigger(record: WindowRecord) -> str:
    """The rule that made the strategy act at this boundary, in words: a too-long rejection,
    the measured tokens against the threshold, or the turns against the keep window."""
    if record.forced:
        return "the provider rejected the last request as too long, which forces a visit"
    if record.observed:
        return "the recorded run's own policy changed the window here (observed, not replayed)"
    if record.measured_tokens is not None and record.threshold_tokens is not None:
        over = record.over_budget or record.measured_tokens > record.threshold_tokens
        return (
            f"the last call's {record.measured_tokens:,} input tokens were "
            f"{'over' if over else 'within'} the threshold of {record.threshold_tokens:,}"
        )
    if record.turns_before is not None and record.keep_recent_turns is not None:
        more = record.turns_before > record.keep_recent_turns
        return (
            f"the window held {_plural(record.turns_before, 'turn')}, "
            f"{'more than' if more else 'within'} the {record.keep_recent_turns:,} it keeps"
        )
    return f"{record.strategy} visited this boundary"


def record_sentence(record: WindowRecord, *, with_iteration: bool = True) -> str:
    """A record in words, for people: what left (by stage id) and how many characters that
    saved, the rule that fired (:func:`record_trigger`), and each refusal by reason — the
    refusing turns (the stage id of each turn's first message) and what the reason means
    (:data:`REFUSAL_MEANINGS`) — then the pins, a summarizer's error and any violations.

    ``iteration 5: sliding-window removed call-llm#2, tool-calls#3 (2 messages, 5,448 → 4,759
    chars) because the window held 5 turns, more than the 3 it keeps; refused: seed#0 —
    current-request: the turn holds the request ...``
    """
    before, after = record.window_chars_before, record.window_chars_after
    n = record.removed_message_count
    if n:
        ids = ", ".join(record.removed_stage_ids) or "messages without a stage id"
        text = (
            f"{record.strategy} removed {ids} ({_plural(n, 'message')}, "
            f"{before:,} → {after:,} chars)"
        )
        if record.summary_chars:
            text += f" into a {record.summary_chars:,}-character summary"
        text += f" because {record_trigger(record)}"
    else:
        text = f"{record.strategy} removed nothing ({before:,} chars)"
        if after != before:
            text = f"{record.strategy} removed nothing ({before:,} → {after:,} chars)"
        text += f" although {record_trigger(record)}"
    refused = [
        f"{', '.join(r.stage_id or f'turn {r.turn_index}' for r in found)} — {reason}: "
        f"{REFUSAL_MEANINGS.get(reason, 'a reason of this strategy')}"
        for reason, found in _refusal_turns(record).items()
    ]
    if refused:
        text += "; refused: " + "; ".join(refused)
    obs = record.observations
    if obs is not None and obs.pinned:
        text += "; pinned: " + ", ".join(
            f"{p.tool_name}'s latest result ({p.stage_id or f'turn {p.turn_index}'})"
            for p in obs.pinned
        )
    if obs is not None and obs.stand_down:
        text += "; pins stood down on this visit"
    if record.error:
        text += f"; the summarizer failed: {record.error}"
    if record.violations:
        text += "; broke: " + ", ".join(v.kind for v in record.violations)
    head = f"iteration {record.iteration}: " if with_iteration else ""
    return f"{head}{text}."


def records_view(frames: Frames) -> pd.DataFrame:
    """The records frame cut to :data:`RECORD_TABLE_COLUMNS` (those it has)."""
    columns = [c for c in RECORD_TABLE_COLUMNS if c in frames.records.columns]
    return frames.records.loc[:, columns]


def refusal_counts(frames: Frames) -> dict[str, int]:
    """Refusals by reason, in the order of the refusal engine (reasons that never occurred are
    left out)."""
    counts = Counter(frames.refusals["reason"].astype(str).tolist())
    known = [r for r in REFUSAL_REASONS if r in counts]
    others = sorted(set(counts) - set(REFUSAL_REASONS))
    return {reason: int(counts[reason]) for reason in [*known, *others]}


# -- the boundary -----------------------------------------------------------------------------


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
    return pd.DataFrame(rows, columns=list(BOUNDARY_COLUMNS))


Departure = tuple[int, str | None, int, str, int | None]
"""A message that left the window: (ledger position, stage id, chars, how, born iteration)."""


def _departures(frames: Frames, iterations: Iterable[int]) -> dict[int, list[Departure]]:
    """Iteration -> the messages that left the window at its boundary, in ``evictions``
    order, for ``iterations`` (one pass over the ``evictions`` frame)."""
    ev = frames.evictions
    here = ev[ev["iteration"].isin(list(iterations))]
    out: dict[int, list[Departure]] = {}
    for iteration, position, stage_id, chars, how, born in zip(
        here["iteration"],
        here["position"],
        here["stage_id"],
        here["chars"],
        here["how"],
        here["born_iteration"],
        strict=True,
    ):
        out.setdefault(int(iteration), []).append(
            (
                int(position),
                None if pd.isna(stage_id) else str(stage_id),
                int(chars),
                str(how),
                None if pd.isna(born) else int(born),
            )
        )
    return out


def left_frame(run: Run, frames: Frames, iteration: int) -> pd.DataFrame:
    """The messages that left the window at the boundary before ``iteration``:
    :data:`LEFT_COLUMNS` — ``how`` is 'dropped' or 'summarized'. They are still in the
    ledger: ``run.ledger.message(stage_id)`` returns each."""
    messages = run.ledger.messages
    rows: list[dict[str, Any]] = []
    for position, stage_id, chars, how, born in _departures(frames, [iteration]).get(iteration, []):
        message = messages[position]
        rows.append(
            {
                "position": position,
                "stage_id": stage_id,
                "who": who(message),
                "chars": chars,
                "how": how,
                "born_iteration": born,
                "preview": preview(message),
            }
        )
    return pd.DataFrame(rows, columns=list(LEFT_COLUMNS))


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


def state_words(state: str) -> str:
    """A membership state in words, from the glossary (:data:`STATE_MEANINGS`, and
    :data:`REFUSAL_MEANINGS` for ``refused-<reason>``); empty for a plain ``in-window``."""
    if state == "in-window":
        return ""
    if state.startswith("refused-"):
        reason = state.removeprefix("refused-")
        return f"refused, {reason}: {REFUSAL_MEANINGS.get(reason, 'a reason of this strategy')}"
    meaning = STATE_MEANINGS.get(state)
    return f"{state}: {meaning}" if meaning else state


def _capped(text: str, limit: int) -> tuple[str, int]:
    return (text, 0) if len(text) <= limit else (text[:limit], len(text) - limit)


def message_view(
    message: Message, position: int | None, limit: int = BOUNDARY_TEXT_CHARS
) -> dict[str, Any]:
    """One message as plain data for a page: ``position`` in the ledger, ``stage_id``,
    ``role``, ``who``, exact ``chars``, its ``text`` (the first ``limit`` characters of its
    content) and ``more`` (how many were left out), its tool ``calls`` as text (each capped
    alike) and its typed parts' ``badges``."""
    text, more = _capped(message.content, limit)
    calls = []
    for call in message.tool_calls:
        shown, left = _capped(tool_call_text(call), limit)
        calls.append(shown + (f" … {left:,} more characters" if left else ""))
    return {
        "position": position,
        "stage_id": message.stage_id,
        "role": message.role,
        "who": who(message),
        "chars": message.chars,
        "text": text,
        "more": more,
        "calls": calls,
        "badges": part_badges(message),
    }


def _input_tokens(frames: Frames) -> dict[int, Any]:
    """Call index -> the input tokens its provider reported (<NA> when none)."""
    calls = frames.calls
    return dict(zip(calls["call"].astype(int), calls["input_tokens"], strict=True))


def _caption(
    iteration: int, call: int | None, window: Sequence[Message], sent: bool, tokens: Any
) -> str:
    chars = sum(m.chars for m in window)
    if sent and call is not None:
        reported = f", {int(tokens)} input tokens reported" if not pd.isna(tokens) else ""
        return (
            f"Iteration {iteration} · call {call}: {len(window)} message(s), "
            f"{chars} chars sent{reported}."
        )
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
    tokens = _input_tokens(frames).get(call, pd.NA) if call is not None else pd.NA
    return _caption(iteration, call, window, sent, tokens)


def _pair_value(value: Any) -> Any:
    if value is None:
        return "–"
    return value if isinstance(value, str | int | float) else str(value)


def boundary_views(
    run: Run,
    frames: Frames,
    iterations: Sequence[int] | None = None,
    *,
    text_chars: int = BOUNDARY_TEXT_CHARS,
) -> dict[str, Any]:
    """The Boundary view of a run as plain, JSON-ready data — what the Inspector's Boundary
    tab shows, for a page with no kernel: for each of ``iterations`` (default
    :func:`boundary_sample`) the exact messages sent by its last call
    (``run.ledger.window_at(call.sent_commit)``, via :func:`window_at`) with their
    membership state, the messages that left there (:func:`left_frame`) and the records filed
    there (:func:`record_sentence` and :func:`record_pairs`).

    Returns ``{"iterations": [...], "messages": [...], "states": [...], "marks": {state:
    words}, "initial", "total", "note", "no_record"}``. Each message is stored once in
    ``messages`` (:func:`message_view`, text capped at ``text_chars``) and named by its index
    there (``ref``), each membership state once in ``states`` (:func:`state_words` in
    ``marks``); an iteration is ``{"iteration", "call", "sent", "caption", "window": [[ref,
    state index], ...], "left": [[ref, how, born_iteration], ...], "records": [{"sentence",
    "removed", "pairs"}]}`` (the rows are pairs and triples: a long run repeats them
    thousands of times). ``initial`` is the index of the first iteration that removed
    something (else the last); ``no_record`` says why an iteration has no record.
    """
    call_of = call_of_iteration(frames)
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
    messages: list[dict[str, Any]] = []

    def ref(message: Message, position: int | None) -> int:
        key = id(message)
        if key not in refs:
            refs[key] = len(messages)
            messages.append(message_view(message, position, text_chars))
        return refs[key]

    shown: list[dict[str, Any]] = []
    codes: dict[str, int] = {}
    for iteration in sample.iterations:
        window, sent = window_at(run, frames, iteration, call_of)
        here = states.get(iteration, {})
        rows = []
        for message in window:
            position = ledger.position(message)
            state = "in-window" if position is None else here.get(position, "in-window")
            rows.append([ref(message, position), codes.setdefault(state, len(codes))])
        gone = [
            [ref(stored[position], position), how, born]
            for position, _, _, how, born in departures.get(iteration, [])
        ]
        records = [
            {
                "sentence": record_sentence(record),
                "removed": list(record.removed_stage_ids),
                "pairs": [[key, _pair_value(value)] for key, value in record_pairs(record)],
            }
            for record in by_iteration.get(iteration, [])
        ]
        shown.append(
            {
                "iteration": iteration,
                "call": call_of.get(iteration),
                "sent": sent,
                "caption": _caption(
                    iteration,
                    call_of.get(iteration),
                    window,
                    sent,
                    tokens.get(call_of.get(iteration, -1), pd.NA),
                ),
                "window": rows,
                "left": gone,
                "records": records,
            }
        )
    removing = [
        i
        for i, view in enumerate(shown)
        if view["left"] or any(record["removed"] for record in view["records"])
    ]
    initial = removing[0] if removing else max(len(shown) - 1, 0)
    no_record = (
        "the run has no window strategy"
        if not run.records and run.strategy is None
        else "the strategy did not engage"
    )
    return {
        "iterations": shown,
        "messages": messages,
        "states": list(codes),
        "marks": {state: state_words(state) for state in codes},
        "initial": initial,
        "total": sample.total,
        "note": sample.note,
        "no_record": no_record,
    }


# -- facts about a run ------------------------------------------------------------------------


def describe(run: Run, frames: Frames) -> str:
    """A run in a few words: scenario · label (or strategy) · status."""
    parts = [
        str(run.meta.get("scenario") or ""),
        str(frames.info.get("label") or run.strategy or "no strategy"),
        f"status {run.status}",
    ]
    return " · ".join(p for p in parts if p)


@dataclass(frozen=True)
class Banner:
    """What labels a counterfactual replay: the run it replays and the note."""

    source: str | None
    note: str


def counterfactual_banner(facts: Mapping[str, Any]) -> Banner | None:
    """The banner of a counterfactual run from ``run.meta`` or ``frames.info`` (None for a run
    that happened)."""
    if not facts.get("counterfactual"):
        return None
    source = facts.get("replay_of")
    note = str(facts.get("note") or COUNTERFACTUAL_NOTE).removeprefix("counterfactual: ")
    return Banner(source=None if source is None else str(source), note=note)


def import_problem_items(
    problems: Sequence[ImportProblem], limit: int = IMPORT_PROBLEMS_SHOWN
) -> tuple[list[tuple[str, str, str]], int]:
    """The first ``limit`` import problems as ``(where, field, problem)`` and how many more."""
    items = [
        ("transcript" if p.index is None else f"message {p.index}", p.field, p.problem)
        for p in problems[:limit]
    ]
    return items, max(len(problems) - limit, 0)


def truncated_calls(frames: Frames) -> list[int]:
    """Indexes (in ``run.calls``) of the calls whose reply was cut short."""
    calls = frames.calls
    if "truncated" not in calls.columns or not len(calls):
        return []
    return [int(c) for c in calls.loc[calls["truncated"].fillna(False).astype(bool), "call"]]


@dataclass(frozen=True)
class Truncation:
    """Replies cut short by the output cap: ``(call, iteration, finish reason)`` for the first
    ones listed, how many more, and how many in all."""

    listed: list[tuple[int, Any, str]]
    more: int
    total: int


def truncation(frames: Frames, limit: int = 10) -> Truncation | None:
    """The replies cut short (None when none was)."""
    cut = truncated_calls(frames)
    if not cut:
        return None
    calls = frames.calls.set_index("call")
    iterations = calls["iteration"].to_dict()
    reasons = calls["finish_reason"].to_dict()
    listed = [(c, iterations[c], str(reasons[c])) for c in cut[:limit]]
    return Truncation(listed=listed, more=max(len(cut) - limit, 0), total=len(cut))


REFUSAL_MEANINGS: dict[str, str] = {
    "current-request": "the turn holds the request the run is executing: it never leaves",
    "system-envelope": "a system message in the window: it never leaves",
    "paused-tool": "the turn holds the call a paused run waits on for a person's answer",
    "pending-check-in": "the turn holds a call waiting for a person's consent to run",
    "unresolved-tool-call": "a call whose result has not arrived: its answer may still come",
    "last-tool-result": "a tool's latest result, pinned while the agent still uses that tool",
    "inside-keep-window": "one of the last keep_recent_turns turns the model reasons over",
    "only-existing-summary": "only a notice or summary the library already wrote: stepped over",
    "summarizer-failed": "the summarizer failed or returned no text: the window stays as it was",
    "replacement-not-smaller": "no notice or summary would be smaller than what it replaces",
    "within-slack": (
        "old enough to go, but within the strategy's slack_turns: it leaves later, in one "
        "larger drop, so the prompt's prefix stays the same meanwhile"
    ),
    "below-clear-at-least": (
        "removing it would save fewer than clear_at_least_chars characters: not worth "
        "rewriting the prompt's prefix"
    ),
    "excluded-tool": "a result of a tool the strategy was told never to clear",
    "among-newest-results": "one of the keep_results newest tool results, which are never cleared",
}
"""What each refusal reason means, in a sentence (the report's glossary)."""

STATE_MEANINGS: dict[str, str] = {
    "in-window": "sent with this call",
    "pinned": "sent, and held by a pin (the tool's latest result)",
    "refused-<reason>": "sent, because its turn refused to leave for that reason",
    "notice": "a drop notice the library wrote in place of what left",
    "frame": "a compaction frame: a summary standing for folded turns",
    "placeholder": "a cleared-result placeholder sent in place of an old tool result",
    "dropped": "not sent: it left the window (still in the ledger)",
    "folded": "not sent: it left into a summary (still in the ledger)",
    "cleared": "not sent: a placeholder stood in its place (still in the ledger)",
}
"""What each window-map state means (the report's glossary)."""


def strategy_facts(frames: Frames, source: Any = None) -> list[tuple[str, Any]]:
    """The strategy a run used and every knob it was configured with, as (name, value) pairs:
    read from the live strategy when the run still has its agent, else from the first record
    (saved and imported runs keep the knobs there), plus the agent's pin limit."""
    name = frames.info.get("strategy") or "none"
    pairs: list[tuple[str, Any]] = [("strategy", name)]
    agent = getattr(source, "agent", None)
    strategy = getattr(agent, "strategy", None)
    knobs = getattr(strategy, "knobs", None)
    if callable(knobs):
        pairs.extend((key, value) for key, value in knobs().items() if value is not None)
    elif len(frames.records):
        first = frames.records.iloc[0]
        found = {
            key: first.get(key)
            for key in ("threshold_tokens", "threshold_fraction", "reserve_tokens")
            if first.get(key) is not None and not pd.isna(first.get(key))
        }
        if "threshold_fraction" in found:  # the absolute figure is derived from the fraction
            found.pop("threshold_tokens", None)
        pairs.extend(found.items())
        keep = first.get("keep_recent_turns")
        if keep is not None and not pd.isna(keep):
            pairs.append(("keep_recent_turns", keep))
    limit = getattr(source, "keep_last_tool_results", None)
    if limit is None and len(frames.records) and "pin_limit" in frames.records:
        value = frames.records["pin_limit"].iloc[0]
        limit = None if pd.isna(value) else int(value)
    if limit is not None:
        pairs.append(("keep_last_tool_results", limit))
    return pairs
