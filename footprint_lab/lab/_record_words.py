"""A window record in words, the lab's face of it: the record as labelled pairs (what
``record.html.j2`` shows) and the glossary of window-map states the report shows; the sentence,
the CLI's line, the rule that fired and the refusal glossary are worded once, in the window
core (:mod:`footprint_lab.window.words`, so that ``WindowRecord.explain()`` says the same
sentence), and re-exported from here.

Layer: lab. Pure functions of a :class:`~footprint_lab.window.records.WindowRecord` (the rule
also of its row in the ``records`` frame, and a state of its name), re-exported by
:mod:`footprint_lab.lab.views`. No HTML here.
"""

from __future__ import annotations

from typing import Any

from footprint_lab.window.records import WindowRecord
from footprint_lab.window.words import (
    REFUSAL_MEANINGS,
    RULE_FACTS,
    RuleFired,
    departure_words,
    record_rule,
    record_sentence,
    record_text,
    record_trigger,
    refusal_meaning,
    rule_fired,
)

__all__ = [
    "REFUSAL_MEANINGS",
    "RULE_FACTS",
    "STATE_MEANINGS",
    "RuleFired",
    "departure_words",
    "record_pairs",
    "record_rule",
    "record_sentence",
    "record_text",
    "record_trigger",
    "rule_fired",
    "state_words",
]

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


def state_words(state: str) -> str:
    """A membership state in words, from the glossary (:data:`STATE_MEANINGS`, and
    :data:`REFUSAL_MEANINGS` for ``refused-<reason>``); empty for a plain ``in-window``."""
    if state == "in-window":
        return ""
    if state.startswith("refused-"):
        reason = state.removeprefix("refused-")
        return f"refused, {reason}: {refusal_meaning(reason)}"
    meaning = STATE_MEANINGS.get(state)
    return f"{state}: {meaning}" if meaning else state
