"""What the Inspector finds, compares and prices: a search across a run's messages
(:func:`search_frame`), the window of one iteration against the one before it
(:func:`window_diff`) and each LLM call with its tokens, cost and latency (:func:`call_costs`).

Layer: lab. Pure functions of a run and its capture returning DataFrames against their specs
(``search``, ``window_diff``, ``call_costs``); re-exported by :mod:`footprint_lab.lab.views`.
Why a message left or stayed is :func:`footprint_lab.explain`'s sentence; how it left, the
window core's :func:`~footprint_lab.window.words.departure_words`. No ipywidgets, no HTML.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from footprint_lab.agent.explain import Explainer
from footprint_lab.agent.origin import Replay, imported_source
from footprint_lab.agent.run import Run
from footprint_lab.lab._boundary_views import boundary_iterations, call_of_iteration, window_at
from footprint_lab.lab._message_text import preview, tool_call_text, who
from footprint_lab.lab.costs import cost_frame
from footprint_lab.lab.frames import Frames
from footprint_lab.lab.schema import build_frame, spec
from footprint_lab.messages import Message
from footprint_lab.pricing import Pricing, PricingError
from footprint_lab.window.words import call_label, departure_words

__all__ = [
    "SEARCH_LIMIT",
    "SNIPPET_CHARS",
    "call_costs",
    "previous_iteration",
    "search_frame",
    "window_diff",
]

SEARCH_LIMIT = 200
"""At most this many messages a search returns (the first ones, in ledger order)."""

SNIPPET_CHARS = 40
"""Characters of text a search snippet shows on each side of the match."""


def _frame(name: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Frame ``name`` from its rows, built against its spec."""
    return build_frame(name, {c: [row[c] for row in rows] for c in spec(name).columns})


def _na(value: Any) -> Any:
    """None for a frame's missing value, else the value as a plain int."""
    return None if pd.isna(value) else int(value)


# -- search -----------------------------------------------------------------------------------


def _snippet(text: str, at: int, size: int) -> str:
    """The text around ``text[at:at + size]``, on one line, with ellipses where it is cut."""
    start, end = max(at - SNIPPET_CHARS, 0), min(at + size + SNIPPET_CHARS, len(text))
    body = " ".join(text[start:end].split())
    return ("…" if start else "") + body + ("…" if end < len(text) else "")


def _match(message: Message, needle: str) -> tuple[str, str] | None:
    """Where ``needle`` (lower case) occurs in ``message`` — its stage id, its text, or one of
    its tool calls — and the snippet to show; None when it does not."""
    if message.stage_id is not None and needle in message.stage_id.lower():
        return "stage id", preview(message)
    at = message.content.lower().find(needle)
    if at >= 0:
        return "text", _snippet(message.content, at, len(needle))
    for call in message.tool_calls:
        text = tool_call_text(call)
        at = text.lower().find(needle)
        if at >= 0:
            return "tool call", _snippet(text, at, len(needle))
    return None


def search_frame(
    run: Run, frames: Frames, query: str, *, limit: int = SEARCH_LIMIT
) -> pd.DataFrame:
    """The ledger messages whose stage id, text or tool calls hold ``query`` (case-insensitive),
    in ledger order, the first ``limit`` of them: where it was found, the iteration that wrote
    each, the iterations it was sent at, whether and how it left, a snippet around the match
    and why it left or stayed (:func:`footprint_lab.explain`). An empty query finds nothing;
    ``frame.attrs["more"]`` counts the matches beyond ``limit``."""
    needle = query.strip().lower()
    rows: list[dict[str, Any]] = []
    more = 0
    if needle:
        facts = frames.messages.set_index("position")
        said: dict[str, str] = {}
        explainer = Explainer(run)
        for position, message in enumerate(run.ledger.messages):
            found = _match(message, needle)
            if found is None:
                continue
            if len(rows) >= limit:
                more += 1
                continue
            row = facts.loc[position] if position in facts.index else None
            stage = message.stage_id
            if stage is not None and stage not in said:
                said[stage] = explainer.explain(stage)
            rows.append(
                {
                    "position": position,
                    "stage_id": stage,
                    "who": who(message),
                    "matched": found[0],
                    "written_at": None if row is None else _na(row["iteration"]),
                    "first_sent": None if row is None else _na(row["first_sent"]),
                    "last_sent": None if row is None else _na(row["last_sent"]),
                    "left": None if row is None else row["left"],
                    "snippet": found[1],
                    "explanation": said.get(stage, "") if stage is not None else "",
                }
            )
    frame = _frame("search", rows)
    frame.attrs["more"] = more
    return frame


# -- window N against window N-1 --------------------------------------------------------------


def previous_iteration(
    frames: Frames, iteration: int, call_of: Mapping[int, int] | None = None
) -> int | None:
    """The iteration before ``iteration`` that a Boundary view can show (with a call or a
    record), or None for the first."""
    earlier = [i for i in boundary_iterations(frames, call_of) if i < iteration]
    return earlier[-1] if earlier else None


def _diff_row(run: Run, change: str, message: Message, reason: str) -> dict[str, Any]:
    return {
        "change": change,
        "position": run.ledger.position(message),
        "stage_id": message.stage_id,
        "who": who(message),
        "chars": message.chars,
        "reason": reason,
        "preview": preview(message),
    }


def window_diff(
    run: Run, frames: Frames, iteration: int, call_of: Mapping[int, int] | None = None
) -> pd.DataFrame:
    """What changed between the window sent at the iteration before ``iteration`` (its
    ``frame.attrs["previous"]``; None at the first, when every message 'came') and the one
    sent at ``iteration`` (:func:`~footprint_lab.lab.views.window_at` for both): the messages
    that 'left' (with how, and by which rule, from the record that removed them), those that
    'came' (written since, or written by the visit: a notice, a summary) and those 'changed'
    in place (a cleared-result placeholder now stands for a tool result: one row, the
    placeholder, naming the result it replaced). Rows: left, then changed, then came, each in
    window order."""
    call_of = call_of if call_of is not None else call_of_iteration(frames)
    before_it = previous_iteration(frames, iteration, call_of)
    now, _ = window_at(run, frames, iteration, call_of)
    before = window_at(run, frames, before_it, call_of)[0] if before_it is not None else []
    ledger = run.ledger
    now_at = {ledger.position(m) for m in now}
    before_at = {ledger.position(m) for m in before}
    records = [r for r in run.records if r.iteration == iteration]
    gone = [m for m in before if ledger.position(m) not in now_at]
    new = [m for m in now if ledger.position(m) not in before_at]
    replaced: dict[str, Message] = {
        m.tool_call_id: m for m in gone if m.role == "tool" and m.tool_call_id is not None
    }
    rows: list[dict[str, Any]] = []
    changed: list[dict[str, Any]] = []
    in_place: set[int] = set()
    for message in new:
        old = replaced.get(message.tool_call_id or "") if message.authored else None
        if old is not None and message.role == "tool":
            in_place.add(id(old))
            changed.append(
                _diff_row(
                    run,
                    "changed",
                    message,
                    f"a {message.authored} now stands in place of {old.stage_id} (same call "
                    f"{message.tool_call_id}); the original is still in the ledger",
                )
            )
    for message in gone:
        if id(message) in in_place:
            continue
        stage = message.stage_id or ""
        by = next((r for r in records if stage and stage in r.removed_stage_ids), None)
        reason = (
            departure_words(by, stage)
            if by is not None
            else "not in this window (no record at this iteration names it)"
        )
        rows.append(_diff_row(run, "left", message, reason))
    rows.extend(changed)
    changed_ids = {row["position"] for row in changed}
    for message in new:
        if ledger.position(message) in changed_ids:
            continue
        if message.authored is not None:
            reason = f"written by the visit at iteration {iteration} ({message.authored})"
        elif before_it is None:
            reason = "in the first window a call sent"
        else:
            reason = f"new since iteration {before_it}: written by {message.stage_id or 'a stage'}"
        rows.append(_diff_row(run, "came", message, reason))
    frame = _frame("window_diff", rows)
    frame.attrs["previous"] = before_it
    frame.attrs["iteration"] = iteration
    return frame


# -- each call: tokens, cost, latency ---------------------------------------------------------

LATENCY_NOTE = (
    "latency: milliseconds from the last ledger commit before the call to the commit of its "
    "reply, by the ledger's clock — the provider's time plus the agent's own few ms"
)
"""How :func:`call_costs` measures latency, as its notes say."""


def _happened_here(run: Run) -> bool:
    """Whether the run's ledger clock timed its calls: not an import (its commits carry the
    time of the import) nor a replay (the time of the replay)."""
    origin = run.origin
    return imported_source(origin) is None and not isinstance(origin, Replay)


def _latencies(run: Run) -> list[int | None]:
    """Each call's latency in ms (see :data:`LATENCY_NOTE`); None when it cannot be told."""
    commits = run.ledger.commits
    first_of: dict[str, int] = {}
    for commit in commits:
        first_of.setdefault(commit.stage_id, commit.index)
    out: list[int | None] = []
    for call in run.calls:
        reply = first_of.get(call.stage_id)
        if reply is None or not 0 <= call.sent_commit < reply:
            out.append(None)
            continue
        took = commits[reply].at_ms - commits[call.sent_commit].at_ms
        out.append(took if took >= 0 else None)
    return out


def call_costs(
    run: Run, frames: Frames, pricing: Pricing | Mapping[str, Pricing] | None = None
) -> pd.DataFrame:
    """Each LLM call of the run with its tokens (as reported), cost and latency: one row per
    call of ``run.calls``, named as everywhere (:func:`~footprint_lab.window.words.call_label`).

    Cost is :func:`~footprint_lab.lab.costs.cost_frame`'s ``total_cost`` under ``pricing``
    (default: the built-in list prices); when the model has no price, the cost is <NA> and the
    notes say how to pass one. Latency is measured from the ledger's clock
    (:data:`LATENCY_NOTE`); for a run that did not happen here — an import or a replay — it is
    <NA>, and the notes say so. ``frame.attrs["notes"]`` holds those sentences.
    """
    notes: list[str] = []
    costs: dict[int, tuple[float, bool]] = {}
    try:
        priced = cost_frame(frames, pricing)
        costs = {
            int(c): (float(t), bool(e))
            for c, t, e in zip(
                priced["call"], priced["total_cost"], priced["estimated"], strict=True
            )
        }
        notes.append(f"cost: USD, priced as {', '.join(sorted(set(priced['priced_as'])))}")
    except PricingError as error:
        notes.append(f"cost: not shown — {error}")
    if _happened_here(run):
        latencies = _latencies(run)
        notes.append(LATENCY_NOTE + "; – for a call without a reply")
    else:
        latencies = [None] * len(run.calls)
        notes.append(
            "latency: not recorded — this run was imported or replayed, so its ledger's clock "
            "timed the import, not the calls"
        )
    calls = frames.calls
    rows: list[dict[str, Any]] = []
    for k, call in enumerate(run.calls):
        row = calls.iloc[k]
        cost = costs.get(k)
        rows.append(
            {
                "call": k,
                "iteration": call.iteration,
                "label": call_label(call.iteration, k),
                "stage_id": call.stage_id,
                "messages": call.messages,
                "chars": call.chars,
                "input_tokens": _na(row["input_tokens"]),
                "output_tokens": _na(row["output_tokens"]),
                "cache_read_tokens": _na(row["cache_read_tokens"]),
                "cost_usd": None if cost is None else cost[0],
                "cost_estimated": None if cost is None else cost[1],
                "latency_ms": latencies[k],
            }
        )
    frame = _frame("call_costs", rows)
    frame.attrs["notes"] = notes
    return frame
