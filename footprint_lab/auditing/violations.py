"""Diff a window before and after a policy ran, and name the rules the policy broke.

Layer: audit (pure: messages in, facts out; no pandas). The rules are the window core's (see
the law in ``footprint_lab.window``), checked from outside on a policy that never went
through the refusal engine. Violations are recorded, never repaired.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from footprint_lab.messages import Message, is_notice_or_frame
from footprint_lab.window.records import Violation

VIOLATION_KINDS: tuple[str, ...] = (
    "split-tool-pair",
    "lost-current-request",
    "window-opens-on-non-user",
    "system-dropped",
    "non-contiguous-removal",
    "rewritten-without-frame",
)

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
        """Whether the policy changed anything."""
        return bool(self.removed or self.inserted or self.rewritten)


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
    """Every rule the change from ``before`` to ``diff.output`` broke — and only what the
    policy did: a break already in the window it was given (an orphan result, a head that was
    not a user message) is not the policy's, so it is not reported.

    Tool pairs are matched by position, not by id alone (real transcripts reuse ids): a result
    answers the latest earlier call with its id.
    """
    out: list[Violation] = []
    after = diff.output
    out_index = {id(m): i for i, m in enumerate(after)}
    rewritten_to = dict(diff.rewritten)
    rewritten_originals = set(rewritten_to)
    # A rewritten message still stands on the wire (its rewrite is reported on its own).
    present = [id(m) in out_index or i in rewritten_originals for i, m in enumerate(before)]

    def where(i: int) -> int:
        """Index in the output of input message ``i`` (kept or rewritten)."""
        return out_index.get(id(before[i]), rewritten_to.get(i, -1))

    call_at: dict[str, int] = {}
    split_calls: set[tuple[int, str]] = set()
    for i, message in enumerate(before):
        for call in message.tool_calls:
            call_at[call.id] = i
        if message.role != "tool" or message.tool_call_id is None:
            continue
        j = call_at.get(message.tool_call_id)
        if j is None:
            continue  # an orphan the policy was given: not its doing
        if present[i] and not present[j]:
            out.append(
                Violation(
                    kind="split-tool-pair",
                    message_index=where(i),
                    detail=f"tool result {message.tool_call_id!r} kept but its call left",
                )
            )
        elif present[j] and not present[i]:
            split_calls.add((j, message.tool_call_id))
    for j, call_id in sorted(split_calls):
        out.append(
            Violation(
                kind="split-tool-pair",
                message_index=where(j),
                detail=f"call {call_id!r} kept but its result left",
            )
        )
    if request_index is not None and not present[request_index]:
        out.append(
            Violation(
                kind="lost-current-request",
                message_index=request_index,
                detail="the message the run is executing is no longer in the window",
            )
        )
    head_before = next((m for m in before if m.role != "system"), None)
    head = next((m for m in after if m.role != "system"), None)
    if (
        head is not None
        and head.role != "user"
        and (head_before is None or head_before.role == "user")
    ):
        out.append(
            Violation(
                kind="window-opens-on-non-user",
                message_index=out_index.get(id(head), after.index(head)),
                detail=f"the window opens on a {head.role} message",
            )
        )
    for i, m in enumerate(before):
        if m.role == "system" and not present[i]:
            out.append(
                Violation(kind="system-dropped", message_index=i, detail="a system message left")
            )
    removed = [i for i in diff.removed if i not in rewritten_originals]
    if removed and removed != list(range(removed[0], removed[-1] + 1)):
        out.append(
            Violation(
                kind="non-contiguous-removal",
                message_index=removed[0],
                detail=f"removed indices {removed[:8]}{'…' if len(removed) > 8 else ''}",
            )
        )
    for original, _ in diff.rewritten:
        out.append(
            Violation(
                kind="rewritten-without-frame",
                message_index=original,
                detail=f"content of {before[original].stage_id} changed in place",
            )
        )
    for index in diff.inserted:
        if not says_what_it_is(after[index], markers):
            out.append(
                Violation(
                    kind="rewritten-without-frame",
                    message_index=index,
                    detail="an inserted message does not say it stands for earlier turns",
                )
            )
    return out
