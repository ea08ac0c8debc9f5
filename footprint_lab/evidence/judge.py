"""Judge a stack's own policy: every compaction a transcript records, checked against the law
and the bill.

Layer: evidence (pure analyses of a finished run: no pandas, no provider call). An imported run
files each compaction its source performed as an *observed* :class:`WindowRecord` (what left,
by stage id; the stand-in the stack wrote; the law's violations). :func:`judge` reads every
observed record of a run and returns :class:`Finding` s — facts, not failures — one rule each
from a closed set (:data:`FINDING_RULES`), each motivated by a case people reported in public:

* ``context-grew`` — the billed input context of the first call after the compaction (input,
  cache reads and cache writes: a :class:`~footprint_lab.usage.Usage`'s ``input_tokens``
  counts them all) is larger than that of the last call before it; where no call reported
  usage, the characters each call sent are compared instead, and said as characters. (A
  Claude Code user counted 133 of 5,180 compactions that grew the billed context, the worst
  by 167,519 tokens, in 47,019 transcripts.)
* ``request-lost`` — the current request is neither in the window after the compaction nor
  quoted in its stand-in: the law's ``lost-current-request``, worded for a foreign policy (a
  truncation that deleted the user's request with no signal).
* ``split-tool-pair``, ``non-contiguous-removal``, ``window-opens-on-non-user``,
  ``system-dropped``, ``rewritten-without-frame`` — the other law violations the observed
  record carries, as findings.
* ``refetched`` — after the compaction the agent called the same tool with the same arguments
  as a call whose result the compaction removed, and got the same result back: the evidence
  the policy lost, measured from the run itself (a command run again whose result differs
  fetched something new, and is not counted); the figure is the size of the result fetched
  again (tokens at the run's own reported tokens per character, estimated; else characters).
* ``late-trigger`` / ``early-trigger`` — where the file records the tokens at which the stack
  compacted (``meta["compactions"]``: Claude Code ``preTokens``, ``tokens_before``) and the
  threshold it compacts at (``threshold``, a Responses ``compact_threshold``), a compaction
  more than :data:`TRIGGER_SLACK` past the threshold is late and an automatic one more than
  that short of it is early; with no threshold recorded, one that fired at or above
  :data:`LATE_SHARE` of the model's known context window (the file's, else the providers'
  table: :func:`context_window_of`) is late. The file's compactions are paired with the
  observed records in order, and only when there are as many of each.
* ``empty-summary`` — a stand-in with no content, or a compaction that forgot nothing (an
  OpenHands ``Condensation`` with no ``forgotten_event_ids``): a call paid for, nothing changed.
* ``cache-cost`` — the tokens written to the prompt cache again after the compaction (the
  prefix it broke), priced with the model's :class:`~footprint_lab.pricing.Pricing`, beside
  what it saved over the rest of the run (the removed tokens no later call sent again, at the
  cached-input price they would have been read at): named when it cost more than it saved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from footprint_lab.agent.run import CallRecord, Run
from footprint_lab.messages import Message, arguments_json, is_stand_in
from footprint_lab.pricing import Pricing, PricingError, pricing_for, run_tokens_per_char
from footprint_lab.providers import ANTHROPIC_CONTEXT_WINDOWS, OPENAI_CONTEXT_WINDOWS
from footprint_lab.window.records import WindowRecord

__all__ = [
    "FINDING_RULES",
    "LATE_SHARE",
    "TRIGGER_SLACK",
    "Finding",
    "FindingRule",
    "context_window_of",
    "judge",
]

FindingRule = Literal[
    "context-grew",
    "request-lost",
    "split-tool-pair",
    "non-contiguous-removal",
    "window-opens-on-non-user",
    "system-dropped",
    "rewritten-without-frame",
    "refetched",
    "late-trigger",
    "early-trigger",
    "empty-summary",
    "cache-cost",
]
"""The closed set of rules a finding names (kebab-case)."""
FINDING_RULES: tuple[FindingRule, ...] = FindingRule.__args__  # type: ignore[attr-defined]
"""Every rule, in the order :func:`judge` checks them."""

TRIGGER_SLACK = 0.10
"""How far (a share of the threshold) a compaction may fire from its recorded threshold before
it is named late or early."""
LATE_SHARE = 0.95
"""With no threshold recorded: the share of the model's context window at or above which a
compaction fired late (the next call was close to overflowing)."""

_VIOLATION_RULES: dict[str, FindingRule] = {
    "lost-current-request": "request-lost",
    "split-tool-pair": "split-tool-pair",
    "non-contiguous-removal": "non-contiguous-removal",
    "window-opens-on-non-user": "window-opens-on-non-user",
    "system-dropped": "system-dropped",
    "rewritten-without-frame": "rewritten-without-frame",
}


class Finding(BaseModel):
    """One fact about one compaction a stack performed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: FindingRule
    """Which rule (see the module docstring)."""
    iteration: int
    """The iteration of the observed record (the call the compaction's window was sent to)."""
    record_index: int
    """The record's index in ``run.records``."""
    stage_ids: list[str]
    """What the finding concerns: the messages that left, the stand-in, the call made again."""
    tokens_before: int | None = None
    """The billed input tokens of the last call before the compaction (None where unknown)."""
    tokens_after: int | None = None
    """The billed input tokens of the first call after it (None where unknown)."""
    figure: float | None = None
    """The finding's own measure, in ``unit`` (characters grown, tokens refetched, dollars)."""
    unit: str | None = None
    """What ``figure`` counts: 'tokens (reported)', 'tokens (estimated)', 'characters',
    'share of the threshold', 'share of the context window', 'USD'."""
    detail: str
    """One sentence a person reads."""


def _calls_around(calls: Sequence[CallRecord], iteration: int) -> tuple[CallRecord | None, ...]:
    before = next((c for c in reversed(calls) if c.iteration < iteration and not c.retry), None)
    after = next((c for c in calls if c.iteration >= iteration and not c.retry), None)
    return before, after


def _billed(call: CallRecord | None) -> int | None:
    usage = call.usage if call is not None else None
    if usage is None or not usage.reported or call is None or call.tokens_from is not None:
        return None
    return usage.input_tokens


def _grew(record: WindowRecord, k: int, calls: Sequence[CallRecord]) -> list[Finding]:
    before, after = _calls_around(calls, record.iteration)
    if before is None or after is None:
        return []
    # What the compaction itself did at its boundary, beside what was added between the calls.
    own = (
        f" (the compaction itself took the window from {record.window_chars_before:,} to "
        f"{record.window_chars_after:,} characters; the rest was added since the last call)"
    )
    tokens_before, tokens_after = _billed(before), _billed(after)
    if tokens_before is not None and tokens_after is not None:
        if tokens_after <= tokens_before:
            return []
        grown = tokens_after - tokens_before
        return [
            Finding(
                rule="context-grew",
                iteration=record.iteration,
                record_index=k,
                stage_ids=[before.stage_id, after.stage_id],
                tokens_before=tokens_before,
                tokens_after=tokens_after,
                figure=float(grown),
                unit="tokens (reported)",
                detail=f"the first call after the compaction was billed {tokens_after:,} input "
                f"tokens, {grown:,} more than the {tokens_before:,} of the last call before it"
                + own,
            )
        ]
    if after.chars <= before.chars:
        return []
    grown = after.chars - before.chars
    return [
        Finding(
            rule="context-grew",
            iteration=record.iteration,
            record_index=k,
            stage_ids=[before.stage_id, after.stage_id],
            figure=float(grown),
            unit="characters",
            detail=f"the first call after the compaction sent {after.chars:,} characters, "
            f"{grown:,} more than the {before.chars:,} of the last call before it; no token "
            "usage was reported, so this is said in characters" + own,
        )
    ]


def _stand_ins(run: Run, record: WindowRecord) -> list[Message]:
    if record.commit is None:
        return []
    stage = run.ledger.commits[record.commit].stage_id
    try:
        committed = run.ledger.messages_of(stage)
    except KeyError:
        return []
    return [m for m in committed if is_stand_in(m) or m.authored is not None]


def _opaque(message: Message) -> bool:
    return not message.content.strip() and any(p.text is None for p in message.parts)


def _violations(run: Run, record: WindowRecord, k: int) -> list[Finding]:
    out: list[Finding] = []
    stand_ins = _stand_ins(run, record)
    for violation in record.violations or ():
        rule = _VIOLATION_RULES.get(violation.kind)
        if rule is None:
            continue
        if rule == "request-lost":
            quoted = [
                s for s in stand_ins if _opaque(s) or (run.request and run.request in s.content)
            ]
            if quoted:
                continue  # the stand-in quotes the request (or may: its content is encrypted)
        out.append(
            Finding(
                rule=rule,
                iteration=record.iteration,
                record_index=k,
                stage_ids=list(record.removed_stage_ids),
                detail=f"{rule.replace('-', ' ')}: {violation.detail}"
                if violation.detail
                else rule.replace("-", " "),
            )
        )
    return out


def _call_keys(message: Message) -> dict[str, tuple[str, str]]:
    return {c.id: (c.name, arguments_json(c.arguments)) for c in message.tool_calls}


def _refetched(run: Run, record: WindowRecord, k: int, ratio: float | None) -> list[Finding]:
    """Calls after the compaction that asked again for a result it removed: the same tool,
    the same arguments and the same result (a command run again after the world changed,
    whose result differs, fetched something new and is not counted)."""
    messages = run.ledger.messages
    calls: dict[str, tuple[str, str]] = {}
    for message in messages:
        if message.role == "assistant":
            calls.update(_call_keys(message))
    removed: dict[tuple[str, str], Message] = {}
    for stage_id in record.removed_stage_ids:
        try:
            left = run.ledger.messages_of(stage_id)
        except KeyError:
            continue
        for message in left:
            if message.role == "tool" and message.tool_call_id in calls:
                removed.setdefault(calls[message.tool_call_id], message)
    if not removed:
        return []
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    out: list[Finding] = []
    for message in messages:
        if message.role != "assistant" or not message.stage_id:
            continue
        iteration = _iteration_of(run, message.stage_id)
        if iteration is None or iteration < record.iteration:
            continue
        for call in message.tool_calls:
            key = (call.name, arguments_json(call.arguments))
            gone = removed.get(key)
            result = results.get(call.id)
            if gone is None or result is None or result.content != gone.content:
                continue
            chars = result.chars
            figure, unit = (
                (float(round(chars * ratio)), "tokens (estimated)")
                if ratio is not None
                else (float(chars), "characters")
            )
            out.append(
                Finding(
                    rule="refetched",
                    iteration=record.iteration,
                    record_index=k,
                    stage_ids=[gone.stage_id or "", message.stage_id],
                    figure=figure,
                    unit=unit,
                    detail=f"after the compaction the agent called {call.name} again with the "
                    f"same arguments as a call whose result it removed ({gone.stage_id}) and got "
                    f"the same result back: {figure:,.0f} {unit} fetched again",
                )
            )
            removed.pop(key)
    return out


def _iteration_of(run: Run, stage_id: str) -> int | None:
    for call in run.calls:
        if call.stage_id == stage_id:
            return call.iteration
    return None


def _empty(run: Run, record: WindowRecord, k: int) -> list[Finding]:
    stand_ins = [s for s in _stand_ins(run, record) if s.authored != "cleared-result"]
    if record.removed_message_count == 0 and not record.cleared_stage_ids:
        return [
            Finding(
                rule="empty-summary",
                iteration=record.iteration,
                record_index=k,
                stage_ids=[s.stage_id for s in stand_ins if s.stage_id],
                detail="the compaction removed nothing: it cost a call and changed nothing",
            )
        ]
    empty = [s for s in stand_ins if not s.content.strip() and not s.parts]
    if stand_ins and len(empty) == len(stand_ins):
        return [
            Finding(
                rule="empty-summary",
                iteration=record.iteration,
                record_index=k,
                stage_ids=[s.stage_id for s in empty if s.stage_id],
                detail=f"the compaction removed {record.removed_message_count} message(s) and "
                "left a stand-in with no content",
            )
        ]
    return []


def _trigger(
    run: Run, record: WindowRecord, k: int, compaction: Mapping[str, Any] | None
) -> list[Finding]:
    if compaction is None:
        return []
    tokens = _int(compaction.get("tokens_before", compaction.get("preTokens")))
    threshold = _int(compaction.get("threshold", compaction.get("compact_threshold")))
    automatic = compaction.get("trigger") in (None, "auto", "automatic")
    if tokens is None:
        return []
    if threshold is not None and threshold > 0:
        share = tokens / threshold
        if share > 1 + TRIGGER_SLACK:
            rule: FindingRule = "late-trigger"
        elif share < 1 - TRIGGER_SLACK and automatic:
            rule = "early-trigger"
        else:
            return []
        of = f"the {threshold:,}-token threshold the file records"
        return [_fired(rule, record, k, tokens, share, "share of the threshold", of)]
    window = context_window_of(run)
    if window is None or window <= 0 or tokens / window < LATE_SHARE:
        return []
    of = f"the model's {window:,}-token context window"
    share = tokens / window
    return [_fired("late-trigger", record, k, tokens, share, "share of the context window", of)]


def _fired(
    rule: FindingRule,
    record: WindowRecord,
    k: int,
    tokens: int,
    share: float,
    unit: str,
    of: str,
) -> Finding:
    """A trigger finding: the compaction fired at ``tokens``, ``share`` of ``of``."""
    return Finding(
        rule=rule,
        iteration=record.iteration,
        record_index=k,
        stage_ids=list(record.removed_stage_ids),
        tokens_before=tokens,
        figure=share,
        unit=unit,
        detail=f"the compaction fired at {tokens:,} tokens, {share:.0%} of {of}",
    )


_WINDOW_KEYS = ("context_window", "model_context_window")
"""Keys under which an importer keeps the context window the file itself records."""


def context_window_of(run: Run) -> int | None:
    """The model's context window in tokens: the one the file records (``meta``), else the
    providers' table entry for the run's model; None for a model neither knows (never a
    fallback guess: a late trigger is only named against a window that is known)."""
    for key in _WINDOW_KEYS:
        recorded = _int(run.meta.get(key))
        if recorded is not None and recorded > 0:
            return recorded
    name = (run.model or "").strip().lower().rsplit("/", 1)[-1]
    best: tuple[str, int] | None = None
    for table in (OPENAI_CONTEXT_WINDOWS, ANTHROPIC_CONTEXT_WINDOWS):
        for prefix, size in table.items():
            if name.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
                best = (prefix, size)
    return best[1] if best is not None else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cache_cost(
    run: Run, record: WindowRecord, k: int, price: Pricing | None, ratio: float | None
) -> list[Finding]:
    if price is None or ratio is None:
        return []
    _, after = _calls_around(run.calls, record.iteration)
    if after is None or _billed(after) is None or after.usage is None:
        return []
    written = after.usage.cache_write_tokens
    if not written:
        return []
    later = sum(1 for c in run.calls if c.iteration > record.iteration and not c.retry)
    removed_tokens = max(0, record.window_chars_before - record.window_chars_after) * ratio
    cost = written * (price.cache_write_per_mtok - price.cached_input_per_mtok) * 1e-6
    saved = removed_tokens * (later + 1) * price.cached_input_per_mtok * 1e-6
    if cost <= saved:
        return []
    return [
        Finding(
            rule="cache-cost",
            iteration=record.iteration,
            record_index=k,
            stage_ids=[after.stage_id],
            tokens_after=_billed(after),
            figure=cost - saved,
            unit="USD",
            detail=f"the compaction broke the cached prefix: {written:,} tokens written to the "
            f"cache again cost ${cost:.6f} over cached reads, more than the ${saved:.6f} its "
            f"removal saved over the {later + 1} call(s) from it on (estimated tokens)",
        )
    ]


def _compactions(run: Run) -> list[Mapping[str, Any]]:
    found = run.meta.get("compactions")
    return [c for c in found if isinstance(c, Mapping)] if isinstance(found, list) else []


def _foreign(record: WindowRecord) -> bool:
    """Whether a record is a foreign policy's: observed (a stack's own, from its file) or filed
    by :func:`footprint_lab.audit` (its ``violations`` a list, empty when it broke nothing)."""
    return record.observed or record.violations is not None


def judge(run: Run, *, pricing: Pricing | None = None) -> list[Finding]:
    """Every finding about the compactions of a foreign policy ``run`` records — a stack's own
    (observed records) or one wrapped in :func:`footprint_lab.audit` — in record order and,
    within a record, in :data:`FINDING_RULES` order. A run of the shipped strategies, or a file
    whose stack never compacted, has none.

    Args:
        run: Any run; only its observed records are judged.
        pricing: The prices ``cache-cost`` uses (default: the model's list price, when the
            built-in table knows the model; no ``cache-cost`` finding otherwise).
    """
    observed = [(k, r) for k, r in enumerate(run.records) if _foreign(r)]
    if not observed:
        return []
    ratio = run_tokens_per_char(run)
    price = pricing
    if price is None:
        try:
            price = pricing_for(run.model)
        except PricingError:
            price = None
    compactions = _compactions(run)
    if len(compactions) != sum(1 for _, r in observed if r.observed):
        # The file's list of compactions and the observed records pair one to one only when
        # every compaction it lists was followed by a call; otherwise no pairing is claimed
        # and the trigger rules say nothing.
        compactions = []
    paired = iter(compactions)  # the file's compactions, one per observed record in order
    order = {rule: i for i, rule in enumerate(FINDING_RULES)}
    findings: list[Finding] = []
    for k, record in observed:
        compaction = next(paired, None) if record.observed else None
        found = [
            *_grew(record, k, run.calls),
            *_violations(run, record, k),
            *_refetched(run, record, k, ratio),
            *_trigger(run, record, k, compaction),
            *_empty(run, record, k),
            *_cache_cost(run, record, k, price, ratio),
        ]
        findings.extend(sorted(found, key=lambda f: order[f.rule]))
    return findings
