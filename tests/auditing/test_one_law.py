"""One law engine: the auditor files exactly the law's breaches, and the evidence layer's wire
check is the law's wire rule (#25 item 2).

For random windows (some already broken) and random foreign edits — messages dropped, copied,
rewritten in place, moved, summaries and silent messages inserted — the violations an audited
policy files are the law's breaches on the same change (built here from what the edit did,
not from the auditor's diff), filed under the audit's kinds. For random windows fed in random
pieces, :class:`WireCheck` finds exactly the law's wire breaches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import Message, apply_window, audit
from footprint_lab.auditing import RULE_KINDS, VIOLATION_KINDS
from footprint_lab.evidence import WireCheck, wire_problems
from footprint_lab.window.law import LAW_RULES, Edit, breaches, wire_breaches
from footprint_lab.window.request import current_request_index
from tests.auditing.test_audit_law import broken_windows
from tests.budget import examples


def _value(message: Message) -> tuple[object, ...]:
    return (
        message.stage_id,
        message.role,
        message.tool_call_id,
        message.name,
        message.content,
        tuple((c.id, c.name) for c in message.tool_calls),
    )


def _provenance(message: Message) -> tuple[object, ...]:
    return (message.stage_id, message.role, message.tool_call_id, message.name)


@dataclass
class ForeignEdit:
    """A foreign policy's output and what it did: for each output message, the input message
    it is or rewrites (None: inserted), and which output messages rewrite theirs."""

    given: list[Message]
    request: str
    output: list[Message]
    origin: list[int | None]
    rewritten: set[int]
    frames: set[int]
    """Output indices of inserted messages that say what they are."""


@st.composite
def foreign_edits(draw: st.DrawFn) -> ForeignEdit:
    messages, request = draw(broken_windows())
    if draw(st.booleans()):
        messages.insert(0, Message.system("the rules", stage_id="seed#800"))
    # One message per value and per provenance: then what the edit did is the only reading of
    # its output (the auditor matches copies by value and rewrites by provenance).
    seen: set[tuple[object, ...]] = set()
    given: list[Message] = []
    for message in messages:
        keys = {_value(message), _provenance(message)}
        if not keys & seen:
            seen |= keys
            given.append(message)
    output: list[Message] = []
    origin: list[int | None] = []
    rewritten: set[int] = set()
    frames: set[int] = set()

    def insert() -> None:
        kind = draw(st.sampled_from(["frame", "silent", "assistant-frame"]))
        if kind == "frame":
            frames.add(len(output))
            output.append(Message.user("<summary of earlier conversation>\n\nthings happened"))
        elif kind == "silent":
            output.append(Message.user("things happened"))
        else:
            frames.add(len(output))
            output.append(Message.assistant("[compacted history] things happened"))
        origin.append(None)

    for i, message in enumerate(given):
        if draw(st.integers(0, 9)) == 0:
            insert()
        move = draw(st.sampled_from(["keep", "keep", "keep", "drop", "drop", "copy", "rewrite"]))
        if move == "drop":
            continue
        if move == "rewrite":
            rewritten.add(len(output))
            output.append(message.model_copy(update={"content": message.content + " (edited)"}))
        else:
            output.append(message.model_copy() if move == "copy" else message)
        origin.append(i)
    if draw(st.integers(0, 4)) == 0:
        insert()
    if len(output) > 1 and draw(st.integers(0, 5)) == 0:
        a, b = sorted(draw(st.lists(st.integers(0, len(output) - 1), min_size=2, max_size=2)))
        output[a], output[b] = output[b], output[a]
        origin[a], origin[b] = origin[b], origin[a]
        frames = {b if j == a else a if j == b else j for j in frames}
        rewritten = {b if j == a else a if j == b else j for j in rewritten}
    return ForeignEdit(given, request, output, origin, rewritten, frames)


def _law_violations(case: ForeignEdit) -> list[tuple[str, int | None]]:
    """The law's breaches on what the edit did, filed under the audit's kinds: the change as
    the law reads it (an Edit), inserted messages that say what they are read as frames, a
    split pair named by its kept half in the output."""
    returned: list[Message] = []
    for j, (i, message) in enumerate(zip(case.origin, case.output, strict=True)):
        if i is not None and j not in case.rewritten:
            message = case.given[i]  # the law reads by identity: a copy is the message kept
        elif j in case.frames:
            message = message.model_copy(update={"authored": "compaction-frame"})
        returned.append(message)
    found = breaches(
        case.given,
        returned,
        None,
        request_index=current_request_index(case.given, case.request),
        change=Edit(tuple(case.origin), frozenset(case.rewritten)),
    )
    where = {i: j for j, i in enumerate(case.origin) if i is not None}
    out: list[tuple[str, int | None]] = []
    for breach in found:
        kind = RULE_KINDS[breach.rule]
        if kind is None:
            continue
        index = breach.message_index
        if breach.rule == "split-tool-pair" and breach.kept_half is not None:
            index = where[breach.kept_half]
        out.append((kind, index))
    return out


def _audited(case: ForeignEdit) -> list[tuple[str, int | None]]:
    def policy(messages: Sequence[Message]) -> list[Message]:
        assert list(messages) == case.given
        return list(case.output)

    result = apply_window(
        audit(policy, name="foreign"),
        case.given,
        iteration=3,
        request=case.request,
        on_breach="record",
    )
    if result.record is None:
        return []
    return [(v.kind, v.message_index) for v in result.record.violations or []]


def test_every_rule_of_the_law_has_a_kind_of_the_audit_or_none() -> None:
    assert set(RULE_KINDS) == set(LAW_RULES)
    assert {kind for kind in RULE_KINDS.values() if kind is not None} == set(VIOLATION_KINDS)


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=list(HealthCheck))
@given(case=foreign_edits())
def test_the_auditor_files_exactly_the_laws_breaches(case: ForeignEdit) -> None:
    assert _audited(case) == _law_violations(case)


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=list(HealthCheck))
@given(case=broken_windows(), data=st.data())
def test_wire_check_is_the_laws_wire_rule(
    case: tuple[list[Message], str], data: st.DataObject
) -> None:
    window = case[0]
    law = wire_breaches(window)
    check = WireCheck()
    at = 0
    while at < len(window):  # fed in random pieces, as a growing window is
        step = data.draw(st.integers(1, max(1, len(window) - at)))
        check.feed(window[at : at + step])
        at += step
    faults = check.scan.all()
    assert [(f.rule, f.message_index) for f in faults] == [(b.rule, b.message_index) for b in law]
    assert check.all == wire_problems(window) and len(check.all) == len(law)
    assert check.rejected == bool(law)
    assert [b.stage_id for b in law] == [window[f.message_index].stage_id for f in faults]
