"""A window record in words, the one place a record is worded: the rule that fired (decided
once, :func:`rule_fired`), the sentence for people (:func:`record_sentence`, what
``WindowRecord.explain()``, the report, the Boundary view and ``footprint_lab.explain`` say),
the one line the CLI prints (:func:`record_text`), a chart's hover line (:func:`record_rule`),
what each refusal reason means (:data:`REFUSAL_MEANINGS`), who a message is from
(:func:`who`) and how a call is named (:func:`call_label`).

Layer: window core (pure Python: no pandas, no HTML). It reads a record through the small
protocols below rather than importing :mod:`footprint_lab.window.records`, so the record can
word itself (``WindowRecord.explain``) without an import cycle. The lab re-exports these
words from its views, never rewording them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Literal, Protocol

from footprint_lab.messages import Message

__all__ = [
    "REFUSAL_MEANINGS",
    "RULE_FACTS",
    "RecordFacts",
    "RuleFired",
    "call_label",
    "departure_words",
    "plural",
    "record_rule",
    "record_sentence",
    "record_text",
    "record_trigger",
    "refusal_meaning",
    "rule_fired",
    "who",
]

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


def refusal_meaning(reason: str) -> str:
    """What ``reason`` means (:data:`REFUSAL_MEANINGS`; a strategy's own reason is named as
    such)."""
    return REFUSAL_MEANINGS.get(reason, "a reason of this strategy")


def call_label(iteration: int, call: int) -> str:
    """An LLM call named where it is printed, one wording everywhere: ``"Iteration 5 · call 4
    (calls count from 0)"`` — ``call`` is the index in ``run.calls`` (0-based), ``iteration``
    the ReAct iteration that made it, as the records number them."""
    return f"Iteration {iteration} · call {call} (calls count from 0)"


def who(message: Message) -> str:
    """Who a message is from: its role, ``tool <name>``, or ``<role> (<authored kind>)``."""
    if message.authored is not None:
        return f"{message.role} ({message.authored})"
    if message.role == "tool":
        return f"tool {message.name}"
    return message.role


# -- what the words read of a record ---------------------------------------------------------


class _RefusalFacts(Protocol):
    """What the words read of a refusal."""

    @property
    def reason(self) -> str: ...
    @property
    def turn_index(self) -> int: ...
    @property
    def stage_id(self) -> str | None: ...


class _PinFacts(Protocol):
    """What the words read of a pin."""

    @property
    def tool_name(self) -> str: ...
    @property
    def turn_index(self) -> int: ...
    @property
    def stage_id(self) -> str | None: ...


class _ObservationFacts(Protocol):
    """What the words read of a visit's pins."""

    @property
    def pinned(self) -> Sequence[_PinFacts]: ...
    @property
    def stand_down(self) -> bool: ...


class _ViolationFacts(Protocol):
    """What the words read of a violation."""

    @property
    def kind(self) -> str: ...


class RecordFacts(Protocol):
    """What the words read of a record: a :class:`~footprint_lab.window.records.WindowRecord`
    is one (read as a protocol so this module need not import it)."""

    @property
    def strategy(self) -> str: ...
    @property
    def iteration(self) -> int: ...
    @property
    def removed_stage_ids(self) -> Sequence[str]: ...
    @property
    def removed_message_count(self) -> int: ...
    @property
    def cleared_stage_ids(self) -> Sequence[str]: ...
    @property
    def window_chars_before(self) -> int: ...
    @property
    def window_chars_after(self) -> int: ...
    @property
    def refusals(self) -> Sequence[_RefusalFacts]: ...
    @property
    def observations(self) -> _ObservationFacts | None: ...
    @property
    def violations(self) -> Sequence[_ViolationFacts] | None: ...
    @property
    def summary_chars(self) -> int | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def forced(self) -> bool: ...
    @property
    def observed(self) -> bool: ...
    @property
    def forked(self) -> bool: ...
    @property
    def measured_tokens(self) -> int | None: ...
    @property
    def threshold_tokens(self) -> int | None: ...
    @property
    def over_budget(self) -> bool | None: ...
    @property
    def tokens_from(self) -> str | None: ...
    @property
    def turns_before(self) -> int | None: ...
    @property
    def keep_recent_turns(self) -> int | None: ...
    @property
    def server_edits(self) -> Sequence[Any]: ...


# -- the rule that fired ---------------------------------------------------------------------


@dataclass(frozen=True)
class RuleFired:
    """The rule that made a strategy act at a boundary: ``kind`` ('forced', 'observed',
    'server', 'forked', 'tokens', 'turns', 'thinking' or 'visited') and the numbers it
    compared."""

    kind: Literal[
        "forced", "observed", "server", "forked", "tokens", "turns", "thinking", "visited"
    ]
    strategy: str
    measured: int = 0
    threshold: int = 0
    tokens_from: str = "reported"
    request: bool = False
    """True when ``measured`` are the tokens of the request the visit planned (a provider's
    own policy's twin), not the last call's."""
    turns: int = 0
    keep: int = 0
    over: bool = False


def _missing(value: Any) -> bool:
    """Whether a fact is absent: None, NaN, or a dataframe's missing value (``<NA>``, whose
    comparison is itself missing) — told apart without importing pandas."""
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN is the one value unequal to itself
    except (TypeError, ValueError):  # <NA> != <NA> is <NA>, which has no truth value
        return True


def _fact(facts: Mapping[str, Any], name: str) -> Any:
    """``facts[name]``, None when it is missing, None, NaN or <NA>."""
    value = facts.get(name)
    return None if _missing(value) else value


def rule_fired(facts: RecordFacts | Mapping[str, Any]) -> RuleFired:
    """Which rule fired at a record, from the record or its row of the ``records`` frame: a
    too-long rejection forced the visit, the recorded run's own policy acted (observed), the
    measured tokens against the threshold, the turns against the keep window, or else the
    strategy just visited. The one decision behind :func:`record_trigger` and
    :func:`record_rule`."""
    # A record's facts are None or values; only a frame's row has NaN and <NA> to read past
    # (a records frame explains every record: the typed path skips probing each fact).
    fact: Callable[[str], Any] = (
        functools.partial(_fact, facts)
        if isinstance(facts, Mapping)
        else functools.partial(getattr, facts)
    )
    strategy = str(fact("strategy") or "the strategy")
    if bool(fact("forced")):
        return RuleFired("forced", strategy)
    if bool(fact("observed")):
        edits = fact("server_edits")
        if not _missing(edits) and edits:
            return RuleFired("server", strategy)
        return RuleFired("observed", strategy)
    if bool(fact("forked")):
        return RuleFired("forked", strategy)
    measured, threshold = fact("measured_tokens"), fact("threshold_tokens")
    if measured is not None and threshold is not None:
        return RuleFired(
            "tokens",
            strategy,
            measured=int(measured),
            threshold=int(threshold),
            tokens_from=str(fact("tokens_from") or "reported"),
            request=not _missing(fact("measured_request")) and bool(fact("measured_request")),
            over=bool(fact("over_budget")) or int(measured) > int(threshold),
        )
    thinking = fact("keep_thinking_turns")
    if not _missing(thinking):
        return RuleFired("thinking", strategy, keep=int(thinking), over=True)
    turns, keep = fact("turns_before"), fact("keep_recent_turns")
    if turns is not None and keep is not None:
        return RuleFired(
            "turns", strategy, turns=int(turns), keep=int(keep), over=int(turns) > int(keep)
        )
    return RuleFired("visited", strategy)


def plural(n: int, word: str) -> str:
    """``n`` (with thousands separators) and ``word``, plural unless ``n`` is 1."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


_TOKENS_FROM: dict[str, str] = {
    "reported": "",
    "counted": " (counted for the replayed window)",
    "scaled": " (scaled from the original call's to the replayed window)",
    "estimated": " (estimated from characters: nobody reported them)",
}
"""How a record's measured tokens were obtained, as the words after them."""

_REQUEST_FROM: dict[str, str] = {
    "counted": " (counted by the provider, as its server measures them)",
    "estimated": " (estimated from characters: the provider cannot count them)",
}
"""How the tokens of the request a visit planned were obtained, as the words after them."""


RULE_FACTS: tuple[str, ...] = (
    "strategy",
    "forced",
    "observed",
    "forked",
    "measured_tokens",
    "threshold_tokens",
    "tokens_from",
    "measured_request",
    "over_budget",
    "keep_thinking_turns",
    "turns_before",
    "keep_recent_turns",
    "server_edits",
)
"""Every fact :func:`rule_fired` reads of a record (or of its ``records`` row): all a row
needs to say the rule, and the key a record's trigger is remembered by."""

# a key of every fact but the server edits (the rule reads only whether there are any)
_trigger_facts = attrgetter(*RULE_FACTS[:-1])


def record_trigger(record: RecordFacts | Mapping[str, Any]) -> str:
    """The rule that made the strategy act at this boundary, in words (:func:`rule_fired`): a
    too-long rejection, the measured tokens against the threshold, or the turns against the
    keep window.

    Remembered by the record's facts (:data:`RULE_FACTS`): a run's records mostly share them
    (every visit of a sliding window says "the window held 7 turns, more than the 6 it keeps")."""
    if isinstance(record, Mapping):
        return trigger_words(rule_fired(record))
    try:
        return _remembered_trigger((*_trigger_facts(record), bool(record.server_edits)))
    except TypeError:  # a fact that cannot be a key (unhashable): worded afresh
        return trigger_words(rule_fired(record))


@functools.lru_cache(maxsize=1024)
def _remembered_trigger(facts: tuple[Any, ...]) -> str:
    """:func:`record_trigger` of the record whose :data:`RULE_FACTS` are ``facts``."""
    return trigger_words(rule_fired(dict(zip(RULE_FACTS, facts, strict=True))))


def trigger_words(rule: RuleFired) -> str:
    """:func:`record_trigger`'s words for a rule that fired."""
    if rule.kind == "forced":
        return "the provider rejected the last request as too long, which forces a visit"
    if rule.kind == "observed":
        return "the recorded run's own policy changed the window here (observed, not replayed)"
    if rule.kind == "server":
        return (
            "the provider reported that its own server-side policy edited this request "
            "(observed: the counts as reported, the messages named by its documented rule)"
        )
    if rule.kind == "forked":
        return (
            f"the run was forked here: the window {rule.strategy} would have sent (replayed "
            "from the start) took the parent run's place"
        )
    if rule.kind == "tokens" and rule.request:
        return (
            f"the request's {rule.measured:,} input tokens"
            f"{_REQUEST_FROM.get(rule.tokens_from, '')} were "
            f"{'over' if rule.over else 'within'} the threshold of {rule.threshold:,}"
        )
    if rule.kind == "tokens":
        return (
            f"the last call's {rule.measured:,} input tokens"
            f"{_TOKENS_FROM.get(rule.tokens_from, '')} were "
            f"{'over' if rule.over else 'within'} the threshold of {rule.threshold:,}"
        )
    if rule.kind == "thinking":
        holders = "reply with thinking keeps" if rule.keep == 1 else "replies with thinking keep"
        return (
            f"only the newest {rule.keep:,} {holders} it: older replies are sent without their "
            "thinking"
        )
    if rule.kind == "turns":
        return (
            f"the window held {plural(rule.turns, 'turn')}, "
            f"{'more than' if rule.over else 'within'} the {rule.keep:,} it keeps"
        )
    return f"{rule.strategy} visited this boundary"


def record_rule(record: RecordFacts | Mapping[str, Any]) -> str:
    """The rule that fired (:func:`rule_fired`) as one short line for a chart's hover, e.g.
    ``"rule: 5 turns > keep_recent_turns 3"``, from a record or its ``records`` row."""
    rule = rule_fired(record)
    if rule.kind == "forced":
        return "rule: forced: the provider rejected the request as too long"
    if rule.kind == "observed":
        return "rule: observed: the recorded run's own policy changed the window"
    if rule.kind == "server":
        return "rule: observed: the provider's server-side policy edited the request"
    if rule.kind == "forked":
        return f"rule: forked: the window {rule.strategy} would have sent here"
    if rule.kind == "tokens":
        sign = ">" if rule.over else "≤"
        return f"rule: {rule.measured:,} tokens {sign} threshold {rule.threshold:,}"
    if rule.kind == "turns":
        sign = ">" if rule.over else "≤"
        return f"rule: {rule.turns:,} turns {sign} keep_recent_turns {rule.keep:,}"
    if rule.kind == "thinking":
        return f"rule: thinking kept by the newest {rule.keep:,} thinking replies"
    return f"rule: {rule.strategy} engaged"


# -- the record as a sentence and as a line --------------------------------------------------


def _refusal_turns(record: RecordFacts) -> dict[str, list[_RefusalFacts]]:
    """The record's refusals grouped by reason, reasons in order of first appearance."""
    by_reason: dict[str, list[_RefusalFacts]] = {}
    for refusal in record.refusals:
        by_reason.setdefault(refusal.reason, []).append(refusal)
    return by_reason


def record_sentence(record: RecordFacts, *, with_iteration: bool = True) -> str:
    """A record in words, for people: what left (by stage id) and how many characters that
    saved, the rule that fired (:func:`record_trigger`), and each refusal by reason — the
    refusing turns (the stage id of each turn's first message) and what the reason means
    (:data:`REFUSAL_MEANINGS`) — then the pins, a summarizer's error and any violations.

    ``iteration 5: sliding-window removed call-llm#2, tool-calls#3 (2 messages, 5,448 → 4,759
    chars) because the window held 5 turns, more than the 3 it keeps; refused: seed#0 —
    current-request: the turn holds the request ...``
    """
    # a records frame words every record of a run (10,000 for a long one): kept lean
    before, after = record.window_chars_before, record.window_chars_after
    n = record.removed_message_count
    strategy = record.strategy
    if n:
        ids = ", ".join(record.removed_stage_ids) or "messages without a stage id"
        text = f"{strategy} removed {ids} ({plural(n, 'message')}, {before:,} → {after:,} chars)"
        if record.summary_chars:
            text += f" into a {record.summary_chars:,}-character summary"
        text += " because " + record_trigger(record)
    elif after != before:
        text = f"{strategy} removed nothing ({before:,} → {after:,} chars)"
        text += " although " + record_trigger(record)
    else:
        text = f"{strategy} removed nothing ({before:,} chars) although " + record_trigger(record)
    if record.refusals:
        text += "; refused: " + _refused_words(record.refusals)
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
    return f"iteration {record.iteration}: {text}." if with_iteration else f"{text}."


def _refused_words(refusals: Sequence[_RefusalFacts]) -> str:
    """Each reason, in order of first appearance, after its refusing turns (stage id, else
    index) and before its meaning: ``"seed#0 — current-request: the turn holds ..."``."""
    by_reason: dict[str, list[str]] = {}
    for refusal in refusals:
        reason = refusal.reason
        named = by_reason.get(reason)
        if named is None:
            named = by_reason[reason] = []
        named.append(refusal.stage_id or f"turn {refusal.turn_index}")
    said = [f"{', '.join(ids)} — {why}: {refusal_meaning(why)}" for why, ids in by_reason.items()]
    return "; ".join(said)


def departure_words(record: RecordFacts, stage_id: str) -> str:
    """How one message named by ``record`` left, and why, in a clause: ``"dropped by
    sliding-window at iteration 5 because the window held 5 turns, more than the 3 it
    keeps"`` — folded into a summary or cleared in place when the record says so. What the
    Boundary view's "Left" table and :func:`footprint_lab.explain` say of a message."""
    if stage_id in record.cleared_stage_ids:
        how = "cleared in place (a placeholder stands for it)"
    elif record.summary_chars:
        how = f"folded into a {record.summary_chars:,}-character summary"
    else:
        how = "dropped"
    return (
        f"{how} by {record.strategy} at iteration {record.iteration} "
        f"because {record_trigger(record)}"
    )


def record_text(record: RecordFacts) -> str:
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
