"""Views: the pure data the widgets and the report both show.

Layer: lab. Functions of a run (and its capture) that return plain values or DataFrames —
the window sent at a boundary and what left there, a record as labelled pairs, one line of
text or a sentence in words (:func:`record_sentence`: what left, the rule that fired, what
refused and why), refusals by reason, a message's preview, the counterfactual banner's facts,
and :func:`boundary_view`, the typed Boundary view (:class:`BoundaryView`) that the report and
the Inspector's Boundary pane both render with one script (``render/boundary.js``). No
ipywidgets and no HTML here: the widgets arrange these views, the templates of
:mod:`footprint_lab.lab.render` turn them into HTML, and the CLI prints :func:`record_text`.

The views live in private modules, one concept each — the message text
(:mod:`~footprint_lab.lab._message_text`), a record in words and the glossary
(:mod:`~footprint_lab.lab._record_words`), the boundary
(:mod:`~footprint_lab.lab._boundary_views`, its typed model in
:mod:`~footprint_lab.lab._boundary_model`) and the Inspector's search, window diff and calls
(:mod:`~footprint_lab.lab._inspect_views`) — and this module is their public face: import them
from here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from footprint_lab.agent.origin import Import
from footprint_lab.agent.replay import COUNTERFACTUAL_NOTE
from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.applicability import reasons_of
from footprint_lab.importers.recorded import recorded_of, unrecorded_notes
from footprint_lab.lab._boundary_model import (
    BoundaryIteration,
    BoundaryMessage,
    BoundaryRecord,
    BoundaryView,
)
from footprint_lab.lab._boundary_views import (
    BOUNDARY_COLUMNS,
    BOUNDARY_OTHER_ITERATIONS,
    BOUNDARY_RECORD_ITERATIONS,
    BOUNDARY_TEXT_CHARS,
    LEFT_COLUMNS,
    NO_CALLS,
    BoundarySample,
    boundary_caption,
    boundary_frame,
    boundary_iterations,
    boundary_sample,
    boundary_view,
    boundary_views,
    call_of_iteration,
    left_frame,
    message_view,
    window_at,
)
from footprint_lab.lab._compact import compact_records
from footprint_lab.lab._compaction_views import (
    CompactionsView,
    CompactionView,
    compactions_view,
)
from footprint_lab.lab._inspect_views import (
    LATENCY_NOTE,
    SEARCH_LIMIT,
    call_costs,
    previous_iteration,
    search_frame,
    window_diff,
)
from footprint_lab.lab._message_text import (
    PREVIEW_CHARS,
    part_badges,
    preview,
    tool_call_text,
    who,
)
from footprint_lab.lab._record_words import (
    REFUSAL_MEANINGS,
    RULE_FACTS,
    STATE_MEANINGS,
    RuleFired,
    record_pairs,
    record_rule,
    record_sentence,
    record_text,
    record_trigger,
    rule_fired,
    state_words,
)
from footprint_lab.lab.frames import Frames, run_facts
from footprint_lab.window.records import REFUSAL_REASONS

__all__ = [
    "BOUNDARY_COLUMNS",
    "BOUNDARY_OTHER_ITERATIONS",
    "BOUNDARY_RECORD_ITERATIONS",
    "BOUNDARY_TEXT_CHARS",
    "IMPORT_PROBLEMS_SHOWN",
    "LATENCY_NOTE",
    "LEFT_COLUMNS",
    "NO_CALLS",
    "PREVIEW_CHARS",
    "RECORD_TABLE_COLUMNS",
    "REFUSAL_MEANINGS",
    "RULE_FACTS",
    "SEARCH_LIMIT",
    "STATE_MEANINGS",
    "Banner",
    "BoundaryIteration",
    "BoundaryMessage",
    "BoundaryRecord",
    "BoundarySample",
    "BoundaryView",
    "CompactionView",
    "CompactionsView",
    "RuleFired",
    "RunNote",
    "Truncation",
    "boundary_caption",
    "boundary_frame",
    "boundary_iterations",
    "boundary_sample",
    "boundary_view",
    "boundary_views",
    "call_costs",
    "call_of_iteration",
    "compactions_view",
    "counterfactual_banner",
    "describe",
    "import_problem_items",
    "left_frame",
    "message_view",
    "part_badges",
    "preview",
    "previous_iteration",
    "record_pairs",
    "record_rule",
    "record_sentence",
    "record_text",
    "record_trigger",
    "records_view",
    "refusal_counts",
    "rule_fired",
    "run_notes",
    "search_frame",
    "state_words",
    "strategy_facts",
    "tool_call_text",
    "truncated_calls",
    "truncation",
    "who",
    "window_at",
    "window_diff",
]

IMPORT_PROBLEMS_SHOWN = 20
"""Import problems listed per run before the rest are counted."""

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
    "explanation",
)
"""The ``records`` columns shown in a records table (the widgets' and the report's)."""


# -- records ----------------------------------------------------------------------------------


def records_view(frames: Frames, *, compact: bool = True) -> pd.DataFrame:
    """The records frame cut to :data:`RECORD_TABLE_COLUMNS` (those it has): what a records
    table shows, the widgets' and the report's. With ``compact`` (the default) its list cells
    are said briefly — a repeated reason once with its count and turns as ranges, a long id
    list as its first ids and how many more (:func:`~footprint_lab.lab._compact.
    compact_records`; each shortened cell keeps the whole list as its tooltip); without, the
    cells are the frame's own (what a table's CSV download holds)."""
    if compact:
        return compact_records(frames.records, frames.refusals, RECORD_TABLE_COLUMNS)
    columns = [c for c in RECORD_TABLE_COLUMNS if c in frames.records.columns]
    return frames.records.loc[:, columns]


def refusal_counts(frames: Frames) -> dict[str, int]:
    """Refusals by reason, in the order of the refusal engine (reasons that never occurred are
    left out)."""
    counts = Counter(frames.refusals["reason"].astype(str).tolist())
    known = [r for r in REFUSAL_REASONS if r in counts]
    others = sorted(set(counts) - set(REFUSAL_REASONS))
    return {reason: int(counts[reason]) for reason in [*known, *others]}


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


def counterfactual_banner(facts: Mapping[str, Any] | Run) -> Banner | None:
    """The banner of a counterfactual run, from the run or its ``frames.info`` (None for a run
    that happened)."""
    if isinstance(facts, Run):
        facts = run_facts(facts)
    if not facts.get("counterfactual"):
        return None
    source = facts.get("replay_of")
    note = str(facts.get("note") or COUNTERFACTUAL_NOTE).removeprefix("counterfactual: ")
    return Banner(source=None if source is None else str(source), note=note)


@dataclass(frozen=True)
class RunNote:
    """One thing a reader must know before trusting a run's figures, in words."""

    kind: str
    """'not recorded' (the source's file lacks it), 'cannot apply' (the policy could not
    engage on this run), 'abandoned branch' (a rewind or an edit the file keeps, in no window)
    or 'estimated' (token figures from characters)."""
    text: str
    """The sentence."""


def run_notes(facts: Mapping[str, Any] | Run) -> list[RunNote]:
    """What the views say above a run's figures, from the run or its ``frames.info``: what
    its imported file does not record, why its policy cannot apply, which figures are
    estimated — each once, in a fixed order."""
    if isinstance(facts, Run):
        facts = run_facts(facts)
    origin = facts.get("origin")
    notes = [
        RunNote("not recorded", text)
        for text in (unrecorded_notes(origin) if origin is not None else [])
    ]
    notes += [RunNote("cannot apply", reason.detail) for reason in reasons_of(facts)]
    abandoned = _abandoned(facts)
    if abandoned is not None:
        notes.append(RunNote("abandoned branch", abandoned))
    estimated = facts.get("estimated_calls")
    if isinstance(estimated, int) and estimated > 0:
        ratio = facts.get("estimated_tokens_per_char")
        at = f" at {ratio:g} tokens per character" if isinstance(ratio, int | float) else ""
        notes.append(
            RunNote(
                "estimated",
                f"the tokens of {estimated} {'call' if estimated == 1 else 'calls'} are "
                f"estimated from characters{at}: nobody reported them",
            )
        )
    return notes


ABANDONED = "abandoned branch (rewind or edit)"
"""What the views call the part of a conversation its person left behind (a rewind or an
edited message in Claude Code, pi or OpenHands V1): in the file, in no window sent."""


def _abandoned(facts: Mapping[str, Any]) -> str | None:
    """The sentence about a run's abandoned branches (None when its file has none)."""
    branches = facts.get("abandoned_branches")
    listed = branches if isinstance(branches, list) else []
    messages = 0
    for branch in listed:
        if isinstance(branch, Mapping):
            count = branch.get("message_count", branch.get("messages"))
            messages += count if isinstance(count, int) else 0
    off = facts.get("off_branch_events")
    events = off if isinstance(off, int) and off > 0 else 0
    if not listed and not events:
        return None
    what = (
        f"{len(listed)} {ABANDONED if len(listed) == 1 else 'abandoned branches (rewind or edit)'}"
        f" holding {messages} message(s)"
        if listed
        else f"{events} event(s) on an {ABANDONED}"
    )
    return (
        f"{what}: in the file, but in no window this run sent (the conversation is the path "
        "from its root to its latest message)"
    )


def import_problem_items(
    problems: Sequence[ImportProblem], limit: int = IMPORT_PROBLEMS_SHOWN
) -> tuple[list[tuple[str, str, str]], int]:
    """The first ``limit`` import problems as ``(where, field, problem)`` and how many more."""
    items = [
        ("transcript" if p.index is None else f"{p.unit} {p.index}", p.field, p.problem)
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


def strategy_facts(frames: Frames, source: Any = None) -> list[tuple[str, Any]]:
    """The strategy a run used and every knob it was configured with, as (name, value) pairs:
    read from the live strategy when the run still has its agent, else from the first record
    (saved and imported runs keep the knobs there), plus the agent's pin limit."""
    info = frames.info
    origin = info.get("origin")
    imported = isinstance(origin, Import)
    recorded = recorded_of(origin) if isinstance(origin, Import) else None
    name = info.get("strategy") or (
        "not recorded" if recorded is not None and not recorded.inputs else "none"
    )
    pairs: list[tuple[str, Any]] = [("strategy", name)]
    if imported:
        # The source's own policy (observed records name it); no library default — the pin
        # limit above all — was ever the source's setting.
        return pairs
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
