"""A window record in words, the one place it is worded: as labelled pairs, as one line of
text (the CLI's form), as a sentence for people (what left, the rule that fired, what refused
and why), the rule that fired as a chart's hover line, and the glossary of refusal reasons and
window-map states the report shows.

Layer: lab. Pure functions of a :class:`~footprint_lab.window.records.WindowRecord` (the rule
also of its row in the ``records`` frame, and a state of its name), re-exported by
:mod:`footprint_lab.lab.views`. No HTML here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from footprint_lab.window.records import Refusal, WindowRecord

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
        if record.tokens_from not in (None, "reported"):
            extra += f" ({record.tokens_from})"
    return (
        f"  iter {record.iteration:>3}  removed {record.removed_message_count:>3} [{removed}]  "
        f"chars {record.window_chars_before} -> {record.window_chars_after}  "
        f"refusals: {refusals}{extra}"
    )


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


_TOKENS_FROM: dict[str, str] = {
    "reported": "",
    "counted": " (counted for the replayed window)",
    "scaled": " (scaled from the original call's to the replayed window)",
    "estimated": " (estimated from characters: nobody reported them)",
}
"""How a record's measured tokens were obtained, as the words after them."""


_RULE_FACTS: tuple[str, ...] = (
    "strategy",
    "forced",
    "observed",
    "forked",
    "measured_tokens",
    "threshold_tokens",
    "over_budget",
    "tokens_from",
    "turns_before",
    "keep_recent_turns",
)
"""The facts of a record that say which rule fired (fields of a record, columns of its row)."""


@dataclass(frozen=True)
class RuleFired:
    """The rule that made a strategy act at a boundary: ``kind`` ('forced', 'observed',
    'forked', 'tokens', 'turns' or 'visited') and the numbers it compared."""

    kind: Literal["forced", "observed", "forked", "tokens", "turns", "visited"]
    strategy: str
    measured: int = 0
    threshold: int = 0
    tokens_from: str = "reported"
    turns: int = 0
    keep: int = 0
    over: bool = False


def _fact(facts: Mapping[str, Any], name: str) -> Any:
    """``facts[name]``, None when it is missing, None, NaN or <NA>."""
    value = facts.get(name)
    if value is None:
        return None
    try:
        return None if bool(pd.isna(value)) else value
    except (TypeError, ValueError):  # pragma: no cover - list-likes are facts
        return value


def rule_fired(facts: WindowRecord | Mapping[str, Any]) -> RuleFired:
    """Which rule fired at a record, from the record or its row of the ``records`` frame: a
    too-long rejection forced the visit, the recorded run's own policy acted (observed), a
    fork put its strategy's window in place of the parent's (forked), the measured tokens
    against the threshold, the turns against the keep window, or else the strategy just
    visited. The one decision behind :func:`record_trigger` and :func:`record_rule`."""
    if isinstance(facts, WindowRecord):
        facts = {name: getattr(facts, name) for name in _RULE_FACTS}
    strategy = str(_fact(facts, "strategy") or "the strategy")
    if bool(_fact(facts, "forced")):
        return RuleFired("forced", strategy)
    if bool(_fact(facts, "observed")):
        return RuleFired("observed", strategy)
    if bool(_fact(facts, "forked")):
        return RuleFired("forked", strategy)
    measured, threshold = _fact(facts, "measured_tokens"), _fact(facts, "threshold_tokens")
    if measured is not None and threshold is not None:
        return RuleFired(
            "tokens",
            strategy,
            measured=int(measured),
            threshold=int(threshold),
            tokens_from=str(_fact(facts, "tokens_from") or "reported"),
            over=bool(_fact(facts, "over_budget")) or int(measured) > int(threshold),
        )
    turns, keep = _fact(facts, "turns_before"), _fact(facts, "keep_recent_turns")
    if turns is not None and keep is not None:
        return RuleFired(
            "turns", strategy, turns=int(turns), keep=int(keep), over=int(turns) > int(keep)
        )
    return RuleFired("visited", strategy)


def record_trigger(record: WindowRecord | Mapping[str, Any]) -> str:
    """The rule that made the strategy act at this boundary, in words (:func:`rule_fired`): a
    too-long rejection, the measured tokens against the threshold, or the turns against the
    keep window."""
    rule = rule_fired(record)
    if rule.kind == "forced":
        return "the provider rejected the last request as too long, which forces a visit"
    if rule.kind == "observed":
        return "the recorded run's own policy changed the window here (observed, not replayed)"
    if rule.kind == "forked":
        return (
            f"the run was forked here: the window {rule.strategy} would have sent (replayed "
            "from the start) took the parent run's place"
        )
    if rule.kind == "tokens":
        return (
            f"the last call's {rule.measured:,} input tokens"
            f"{_TOKENS_FROM.get(rule.tokens_from, '')} were "
            f"{'over' if rule.over else 'within'} the threshold of {rule.threshold:,}"
        )
    if rule.kind == "turns":
        return (
            f"the window held {_plural(rule.turns, 'turn')}, "
            f"{'more than' if rule.over else 'within'} the {rule.keep:,} it keeps"
        )
    return f"{rule.strategy} visited this boundary"


def record_rule(record: WindowRecord | Mapping[str, Any]) -> str:
    """The rule that fired (:func:`rule_fired`) as one short line for a chart's hover, e.g.
    ``"rule: 5 turns > keep_recent_turns 3"``, from a record or its ``records`` row."""
    rule = rule_fired(record)
    if rule.kind == "forced":
        return "rule: forced: the provider rejected the request as too long"
    if rule.kind == "observed":
        return "rule: observed: the recorded run's own policy changed the window"
    if rule.kind == "forked":
        return f"rule: forked: the window {rule.strategy} would have sent here"
    if rule.kind == "tokens":
        sign = ">" if rule.over else "≤"
        return f"rule: {rule.measured:,} tokens {sign} threshold {rule.threshold:,}"
    if rule.kind == "turns":
        sign = ">" if rule.over else "≤"
        return f"rule: {rule.turns:,} turns {sign} keep_recent_turns {rule.keep:,}"
    return f"rule: {rule.strategy} engaged"


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
