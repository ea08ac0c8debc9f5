"""Diff a window before and after a policy ran, and name the rules the policy broke.

Layer: audit (pure: messages in, facts out; no pandas). An adapter, not a second rule engine:
:func:`diff_windows` matches a foreign policy's output to its input (by object, by value, by
provenance), :func:`find_violations` hands that match to the law
(:func:`footprint_lab.window.law.breaches`, as an :class:`~footprint_lab.window.law.Edit`) and
words its breaches in the audit's vocabulary (:data:`VIOLATION_KINDS`, :data:`RULE_KINDS`).
Violations are recorded, never repaired.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from footprint_lab.messages import Message, is_notice_or_frame
from footprint_lab.window.law import Breach, Edit, breaches
from footprint_lab.window.records import Violation

VIOLATION_KINDS: tuple[str, ...] = (
    "split-tool-pair",
    "lost-current-request",
    "window-opens-on-non-user",
    "system-dropped",
    "non-contiguous-removal",
    "rewritten-without-frame",
)

RULE_KINDS: dict[str, str | None] = {
    "lost-current-request": "lost-current-request",
    "system-dropped": "system-dropped",
    "paused-call-left": None,
    "unresolved-call-left": None,
    "split-tool-pair": "split-tool-pair",
    "non-contiguous-removal": "non-contiguous-removal",
    "partial-turn": None,
    "window-opens-on-non-user": "window-opens-on-non-user",
    "rewritten-without-frame": "rewritten-without-frame",
    "unnamed-removal": None,
    "named-but-kept": None,
}
"""The violation kind each of the law's rules (``LAW_RULES``) is filed under; None: not filed.
A call with no result yet (or the one a paused run waits on) that left breaks the engine's own
guard, not the wire (its result, if it comes, is reported as a split pair then); a removal
that cuts into a turn is filed as the pair it splits (a stray result has no pair); the auditor
writes the record of a foreign policy itself, so its names are right by construction."""

FRAME_MARKERS: tuple[str, ...] = (
    "<summary",
    "[compacted history",
    "[dropped history",
    "prior conversation summary",
    "summary of earlier conversation",
    "summary of the conversation",
)
"""Openings by which an inserted message says what it is (case-insensitive)."""


@dataclass
class WindowDiff:
    """How a policy's output relates to its input, by message identity."""

    output: list[Message]
    """The output, with value-equal copies replaced by the original objects."""
    kept: list[int] = field(default_factory=list)
    """Input indices still present."""
    removed: list[int] = field(default_factory=list)
    """Input indices gone (including the originals of rewritten messages)."""
    rewritten: list[tuple[int, int]] = field(default_factory=list)
    """(input index, output index) pairs: same message, different content."""
    inserted: list[int] = field(default_factory=list)
    """Output indices of messages that stand for nothing in the input."""

    @property
    def changed(self) -> bool:
        """Whether the policy changed anything (moving a message is a change too)."""
        kept = self.kept
        return bool(
            self.removed
            or self.inserted
            or self.rewritten
            or any(a > b for a, b in itertools.pairwise(kept))
        )


def _key(message: Message) -> tuple[object, ...]:
    return (message.stage_id, message.role, message.tool_call_id, message.name)


def diff_windows(before: Sequence[Message], after: Sequence[Message]) -> WindowDiff:
    """Match ``after`` to ``before``: by object, then by value (a copy is the same message),
    then by provenance (same stage, role and call id, other content = rewritten)."""
    by_id = {id(m): i for i, m in enumerate(before)}
    used: set[int] = set()
    by_value: dict[tuple[object, ...], list[int]] = {}
    by_key: dict[tuple[object, ...], list[int]] = {}
    for i, m in enumerate(before):
        by_value.setdefault(
            (*_key(m), m.content, tuple((c.id, c.name) for c in m.tool_calls)), []
        ).append(i)
        if m.stage_id is not None:
            by_key.setdefault(_key(m), []).append(i)
    diff = WindowDiff(output=[])
    for out_index, message in enumerate(after):
        match = by_id.get(id(message))
        if match is None or match in used:
            candidates = by_value.get(
                (
                    *_key(message),
                    message.content,
                    tuple((c.id, c.name) for c in message.tool_calls),
                ),
                [],
            )
            match = next((i for i in candidates if i not in used), None)
        if match is not None:
            used.add(match)
            diff.kept.append(match)
            diff.output.append(before[match])
            continue
        rewritten = next((i for i in by_key.get(_key(message), []) if i not in used), None)
        diff.output.append(message)
        if rewritten is not None:
            used.add(rewritten)
            diff.rewritten.append((rewritten, out_index))
        else:
            diff.inserted.append(out_index)
    originals = {i for i, _ in diff.rewritten}
    diff.removed = [i for i in range(len(before)) if i not in used or i in originals]
    return diff


def says_what_it_is(message: Message, markers: Sequence[str] = FRAME_MARKERS) -> bool:
    """Whether an inserted message declares itself a summary or notice."""
    if is_notice_or_frame(message):
        return True
    head = message.content.lstrip().lower()
    return any(head.startswith(marker) for marker in markers)


def find_violations(
    before: Sequence[Message],
    diff: WindowDiff,
    request_index: int | None,
    markers: Sequence[str] = FRAME_MARKERS,
) -> list[Violation]:
    """Every rule the change from ``before`` to ``diff.output`` broke — the law's breaches
    (:func:`~footprint_lab.window.law.breaches`) filed under :data:`RULE_KINDS` — and only what
    the policy did: a break already in the window it was given (an orphan result, a head that
    was not a user message) is not the policy's, so it is not reported.

    An inserted message that says what it is (:func:`says_what_it_is`) is read as a compaction
    frame; tool pairs are matched by position, not by id alone (real transcripts reuse ids): a
    result answers the latest earlier call with its id. A split pair is named by the half that
    stays, at its index in the output; the new head and an inserted message by their index in
    the output too; everything else by its index in ``before``.
    """
    edit = edit_of_diff(diff)
    after = [
        m.model_copy(update={"authored": "compaction-frame"})
        if edit.origin[j] is None and m.authored is None and says_what_it_is(m, markers)
        else m
        for j, m in enumerate(diff.output)
    ]
    found = breaches(before, after, None, request_index=request_index, change=edit)
    where = {i: j for j, i in enumerate(edit.origin) if i is not None}
    return [
        Violation(kind=kind, message_index=_index_of(breach, where), detail=breach.detail)
        for breach in found
        if (kind := RULE_KINDS.get(breach.rule)) is not None
    ]


def edit_of_diff(diff: WindowDiff) -> Edit:
    """The law's :class:`~footprint_lab.window.law.Edit` of ``diff``: for each output message,
    the input message it keeps or rewrites (None: inserted)."""
    rewritten = {out_index: original for original, out_index in diff.rewritten}
    inserted = set(diff.inserted)
    kept = iter(diff.kept)
    origin: list[int | None] = []
    for out_index in range(len(diff.output)):
        if out_index in rewritten:
            origin.append(rewritten[out_index])
        elif out_index in inserted:
            origin.append(None)
        else:
            origin.append(next(kept))
    return Edit(tuple(origin), frozenset(rewritten))


def _index_of(breach: Breach, where: dict[int, int]) -> int:
    """A violation's ``message_index``: the kept half of a split pair where it stands in the
    output, else the breach's own index."""
    if breach.rule == "split-tool-pair" and breach.kept_half is not None:
        return where.get(breach.kept_half, breach.message_index)
    return breach.message_index
