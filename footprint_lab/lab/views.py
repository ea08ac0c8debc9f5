"""Views: the pure data the widgets and the report both show.

Layer: lab. Functions of a run (and its capture) that return plain values or DataFrames —
the window sent at a boundary and what left there, a record as labelled pairs or one line of
text, refusals by reason, a message's preview, the counterfactual banner's facts. No
ipywidgets and no HTML here: the widgets arrange these views, the templates of
:mod:`footprint_lab.lab.render` turn them into HTML, and the CLI prints :func:`record_text`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.counterfactual import COUNTERFACTUAL_NOTE
from footprint_lab.lab.frames import Frames
from footprint_lab.messages import Message
from footprint_lab.window.records import REFUSAL_REASONS, WindowRecord

__all__ = [
    "BOUNDARY_COLUMNS",
    "IMPORT_PROBLEMS_SHOWN",
    "LEFT_COLUMNS",
    "PREVIEW_CHARS",
    "RECORD_TABLE_COLUMNS",
    "Banner",
    "Truncation",
    "boundary_frame",
    "call_of_iteration",
    "counterfactual_banner",
    "describe",
    "import_problem_items",
    "left_frame",
    "part_badges",
    "preview",
    "record_pairs",
    "record_text",
    "records_view",
    "refusal_counts",
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


def preview(message: Message, limit: int = PREVIEW_CHARS) -> str:
    """A message in one line of at most ``limit`` characters: its text (line breaks as ⏎), its
    tool calls, and its typed parts' badges (kept visible however long the text)."""
    text = " ⏎ ".join(line.strip() for line in message.content.splitlines() if line.strip())
    if message.tool_calls:
        calls = ", ".join(
            f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})"
            for c in message.tool_calls
        )
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


def record_text(record: WindowRecord) -> str:
    """A record in one line of text (the CLI's form): iteration, removed count and ids,
    chars before and after, refusals, and the tokens measured against the threshold."""
    refusals = ", ".join(f"{r.reason}@t{r.turn_index}" for r in record.refusals) or "-"
    removed = ", ".join(record.removed_stage_ids) or "-"
    extra = ""
    if record.measured_tokens is not None:
        extra = f"  tokens {record.measured_tokens}/{record.threshold_tokens}"
    return (
        f"  iter {record.iteration:>3}  removed {record.removed_message_count:>3} [{removed}]  "
        f"chars {record.window_chars_before} -> {record.window_chars_after}  "
        f"refusals: {refusals}{extra}"
    )


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


def boundary_frame(
    run: Run, frames: Frames, iteration: int, call_of: Mapping[int, int] | None = None
) -> pd.DataFrame:
    """The window at ``iteration`` (see :func:`window_at`), one row per message:
    :data:`BOUNDARY_COLUMNS` — ``index`` in the window, ledger ``position``, ``stage_id``,
    ``who``, exact ``chars``, membership ``state`` (pinned, refused-<reason>, notice, frame or
    in-window) and a ``preview``."""
    window, _ = window_at(run, frames, iteration, call_of)
    membership = frames.membership
    here = membership[membership["iteration"] == iteration]
    states = dict(zip(here["position"].astype(int), here["state"].astype(str), strict=True))
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


def left_frame(run: Run, frames: Frames, iteration: int) -> pd.DataFrame:
    """The messages that left the window at the boundary before ``iteration``:
    :data:`LEFT_COLUMNS` — ``how`` is 'dropped' or 'summarized'. They are still in the
    ledger: ``run.ledger.message(stage_id)`` returns each."""
    ev = frames.evictions
    here = ev[ev["iteration"] == iteration]
    messages = run.ledger.messages
    rows: list[dict[str, Any]] = []
    for position, stage_id, chars, how, born in zip(
        here["position"],
        here["stage_id"],
        here["chars"],
        here["how"],
        here["born_iteration"],
        strict=True,
    ):
        message = messages[int(position)]
        rows.append(
            {
                "position": int(position),
                "stage_id": None if pd.isna(stage_id) else str(stage_id),
                "who": who(message),
                "chars": int(chars),
                "how": str(how),
                "born_iteration": None if pd.isna(born) else int(born),
                "preview": preview(message),
            }
        )
    return pd.DataFrame(rows, columns=list(LEFT_COLUMNS))


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
}
"""What each refusal reason means, in a sentence (the report's glossary)."""

STATE_MEANINGS: dict[str, str] = {
    "in-window": "sent with this call",
    "pinned": "sent, and held by a pin (the tool's latest result)",
    "refused-<reason>": "sent, because its turn refused to leave for that reason",
    "notice": "a drop notice the library wrote in place of what left",
    "frame": "a compaction frame: a summary standing for folded turns",
    "dropped": "not sent: it left the window (still in the ledger)",
    "folded": "not sent: it left into a summary (still in the ledger)",
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
