"""What a recorded run's own policy sent: the observed window of each call, matched to history.

Layer: importers. Some sources record the exact input of each model call (SWE-agent steps with
``messages``, Inspect ``model`` events) or their own compaction (Claude Code boundaries,
OpenHands condensations). :func:`observe_window` matches such an input against the history
committed so far and the stand-ins already in the window:

* a message equal to a history message (role, text, call id, tool calls) *is* that message —
  matched in order, so a repeated text matches the next occurrence;
* a message equal to a stand-in already in the window is that stand-in (a policy that masks an
  old observation masks it again at every later call);
* anything else was written by the source's policy. Between two matched messages, stand-ins
  that line up one for one with skipped history messages of the same role and call id replace
  them *in place* (``authored="cleared-result"``, the move of SWE-agent's observation masking);
  any other stand-in is an inserted summary or notice (``authored="compaction-frame"``).

The caller (:func:`footprint_lab.importers._build.build_run`) commits the stand-ins in a
``window#`` stage — so replay and evidence never take them for history — and files a
:class:`~footprint_lab.window.records.WindowRecord` with ``observed=True`` whose violations are
the audit's (:func:`footprint_lab.auditing.violations.find_violations`): what the source's policy
broke is recorded, never repaired.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from footprint_lab.auditing.violations import WindowDiff, find_violations
from footprint_lab.messages import Message, arguments_json
from footprint_lab.window.records import Violation
from footprint_lab.window.request import current_request_index

__all__ = ["HistoryIndex", "ObservedWindow", "observe_window", "wire_key"]

WireKey = tuple[object, ...]


def wire_key(message: Message) -> WireKey:
    """What makes two messages the same on the wire: role, text, call id, tool calls and the
    parts that carry data rather than text (two opaque compactions, or two image-only messages,
    differ by them). Parts with text (thinking) are left out: providers drop earlier turns'
    thinking from what they send, so a recorded input may lack what the history holds."""
    return (
        message.role,
        message.content,
        message.tool_call_id,
        tuple((c.id, c.name, arguments_json(c.arguments)) for c in message.tool_calls),
        tuple((p.kind, p.data_chars) for p in message.parts if p.text is None),
    )


class HistoryIndex:
    """The history committed so far, searchable by wire key in position order."""

    def __init__(self) -> None:
        """Start empty; :meth:`add` each message as it is committed."""
        self.messages: list[Message] = []
        self._at: dict[WireKey, list[int]] = {}

    def add(self, messages: Sequence[Message]) -> None:
        """Index messages just committed to the history."""
        for message in messages:
            self._at.setdefault(wire_key(message), []).append(len(self.messages))
            self.messages.append(message)

    def next_match(self, key: WireKey, start: int) -> int | None:
        """Position of the first history message at or after ``start`` with ``key``."""
        positions = self._at.get(key)
        if not positions:
            return None
        k = bisect.bisect_left(positions, start)
        return positions[k] if k < len(positions) else None


@dataclass(frozen=True, slots=True)
class ObservedWindow:
    """One call's recorded input, in the run's own messages."""

    window: list[Message]
    """The input, each item a history message, a stand-in already committed, or a new
    stand-in (not yet committed; its ``authored`` kind set)."""
    fresh: list[Message]
    """The new stand-ins, in window order (to be committed by the window stage)."""
    removed: list[Message]
    """Messages of the running window the call did not receive, in window order."""
    cleared: list[Message]
    """Those of them a stand-in replaced in place (named ``cleared`` like
    ``clear_tool_results``' own move)."""
    violations: list[Violation]
    """The rules the source's policy broke in going from the running window to this one."""


def _same_place(stand_in: Message, original: Message) -> bool:
    return (
        stand_in.role == original.role
        and stand_in.tool_call_id == original.tool_call_id
        and (stand_in.role != "tool" or stand_in.name in (original.name, None, "unknown"))
    )


def observe_window(
    inputs: Sequence[Message],
    history: HistoryIndex,
    running: Sequence[Message],
    *,
    system: str | None,
    request: str | None,
) -> ObservedWindow:
    """Match one call's recorded ``inputs`` to the ``history`` and the ``running`` window.

    Args:
        inputs: What the call received, in wire order (a leading system message equal to
            ``system`` is the system prompt and is skipped).
        history: The history committed before the call.
        running: The window the call would have sent had the source's policy done nothing
            since the last call (the previous observed window plus what was appended since).
        system: The run's system prompt.
        request: The run's current request text (anchors the lost-request check).
    """
    items = list(inputs)
    if items and items[0].role == "system" and system is not None and items[0].content == system:
        items = items[1:]
    stand_ins: dict[WireKey, list[Message]] = {}
    for message in running:
        if message.authored is not None:
            stand_ins.setdefault(wire_key(message), []).append(message)
    matched: list[int | None] = []  # history position per item, None for a stand-in
    resolved: list[Message | None] = []
    cursor = 0
    for message in items:
        key = wire_key(message)
        # A stand-in the importer declared (a placeholder a provider's clearing wrote) is never
        # history, even where its wire text equals the message it stands for.
        at = None if message.authored == "cleared-result" else history.next_match(key, cursor)
        if at is not None:
            matched.append(at)
            resolved.append(history.messages[at])
            cursor = at + 1
            continue
        reused = stand_ins.get(key)
        matched.append(None)
        resolved.append(reused.pop(0) if reused else None)
    # Classify each run of new stand-ins between two anchors: in place, or inserted.
    window: list[Message] = []
    fresh: list[Message] = []
    replaces: dict[int, Message] = {}  # window index of an in-place stand-in -> its original
    previous = -1
    i = 0
    while i <= len(items):
        if i < len(items) and matched[i] is None:
            i += 1
            continue
        # items[start:i] are stand-ins between history positions previous and anchor.
        start = i - 1
        while start >= 0 and matched[start] is None:
            start -= 1
        start += 1
        anchor = matched[i] if i < len(items) else len(history.messages)
        assert anchor is not None
        skipped = history.messages[previous + 1 : anchor]
        gap = items[start:i]
        in_place = len(gap) == len(skipped) and all(
            _same_place(s, o) for s, o in zip(gap, skipped, strict=True)
        )
        for k in range(start, i):
            old = resolved[k]
            if old is None:
                kind = "cleared-result" if in_place else "compaction-frame"
                old = items[k].model_copy(update={"authored": kind, "stage_id": None})
                fresh.append(old)
            if in_place:
                replaces[len(window)] = skipped[k - start]
            window.append(old)
        if i < len(items):
            window.append(resolved[i])  # type: ignore[arg-type]
            previous = anchor
        i += 1
    kept = {id(m) for m in window}
    removed = [m for m in running if id(m) not in kept]
    replaced = {id(m) for m in replaces.values()}
    cleared = [m for m in removed if id(m) in replaced]
    return ObservedWindow(
        window, fresh, removed, cleared, _violations(running, window, replaces, request)
    )


def _violations(
    before: Sequence[Message],
    after: Sequence[Message],
    replaces: dict[int, Message],
    request: str | None,
) -> list[Violation]:
    """The audit's rules (the law's, :func:`find_violations`), with one lawful move: a stand-in
    in place of a message, keeping its role and call id, is a rewrite that splits no pair and
    needs no frame (the law asks a cleared result for the library's own placeholder text; a
    source's policy words its own)."""
    at = {id(m): i for i, m in enumerate(before)}
    diff = WindowDiff(output=list(after))
    used: set[int] = set()
    in_place: set[int] = set()
    for out_index, message in enumerate(after):
        i = at.get(id(message))
        original = replaces.get(out_index)
        j = at.get(id(original)) if original is not None else None
        if i is not None:
            used.add(i)
            diff.kept.append(i)
        elif j is not None and j not in used:
            used.add(j)
            in_place.add(j)
            diff.rewritten.append((j, out_index))
        else:
            diff.inserted.append(out_index)
    diff.removed = [i for i in range(len(before)) if i not in used or i in in_place]
    found = find_violations(before, diff, current_request_index(before, request))
    return [
        v
        for v in found
        if not (
            v.kind == "rewritten-without-frame"
            and not v.detail.startswith("an inserted message")
            and v.message_index in in_place
        )
    ]
