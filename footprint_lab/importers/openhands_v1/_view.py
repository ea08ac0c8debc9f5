"""The windows OpenHands V1's condensations left: each later call's input rebuilt as the SDK's
``View`` builds it (``Condensation.apply`` in event order, the summary inserted at its offset,
batches of parallel calls and tool call / result pairs kept whole).

Layer: importers (private to :mod:`footprint_lab.importers.openhands_v1`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Set
from dataclasses import dataclass

from footprint_lab.importers.openhands_v1._convert import Condensed, Conversation, Item
from footprint_lab.messages import Message


@dataclass(frozen=True)
class _Summary:
    """A condensation's summary in the view (the SDK's ``CondensationSummaryEvent``)."""

    event_id: str
    """``<condensation id>-summary``, the id the SDK gives it (since January 2026)."""
    message: Message


def windows(conversation: Conversation, known: Set[str]) -> list[list[Message] | None] | None:
    """Each assistant message's input, as the condensations before it left it: None for a
    call no condensation came before (it was sent the history as it is); None for all when
    the branch holds no condensation.

    A summary stays in the view until a later condensation forgets it by its id. SDKs before
    January 2026 gave the summary a fresh id at every view and kept only the latest one in
    force: a condensation that forgets an id no event of the conversation (``known``) and no
    summary has forgets the summaries then in the view, as those SDKs did.
    """
    if not conversation.condensations:
        return None
    timeline = conversation.timeline
    batches = Counter(e.message for e in timeline if isinstance(e, Item) and e.action)
    view: list[int | _Summary] = []
    summaries: set[str] = set()
    out: list[list[Message] | None] = []
    applied = False
    replies = iter(conversation.replies)
    upcoming = next(replies, None)
    for t, entry in enumerate(timeline):
        if upcoming == t:
            out.append(_render(view, conversation, batches) if applied else None)
            upcoming = next(replies, None)
        if isinstance(entry, Condensed):
            view = _apply(entry, view, timeline, known, summaries)
            applied = True
        else:
            view.append(t)
    return out


def _apply(
    condensation: Condensed,
    view: list[int | _Summary],
    timeline: list[Item | Condensed],
    known: Set[str],
    summaries: set[str],
) -> list[int | _Summary]:
    """The view after one condensation (``Condensation.apply``)."""
    forgotten = condensation.forgotten
    legacy = any(i not in known and i not in summaries for i in forgotten)

    def kept(item: int | _Summary) -> bool:
        """Whether ``item`` stays in the view."""
        if isinstance(item, _Summary):
            return not legacy and item.event_id not in forgotten
        return timeline[item].event_id not in forgotten

    out = [item for item in view if kept(item)]
    if condensation.summary is not None and condensation.offset is not None:
        summary_id = f"{condensation.event_id}-summary"
        summaries.add(summary_id)
        out.insert(condensation.offset, _Summary(summary_id, Message.user(condensation.summary)))
    return out


def _render(
    view: list[int | _Summary], conversation: Conversation, batches: Counter[int]
) -> list[Message]:
    """The messages of a view (the system prompt is the run's, not a window message): a batch
    of parallel calls is one message, and a batch missing any of its calls, a call without its
    result and a result without its call are left out, as the SDK's view properties leave
    them out (until nothing changes)."""
    timeline = conversation.timeline
    items = {
        t: e for t in view if not isinstance(t, _Summary) and isinstance(e := timeline[t], Item)
    }
    present = set(items)
    while True:
        actions = [items[t] for t in present if items[t].action]
        counts = Counter(e.message for e in actions)
        calls = {e.call_id for e in actions}
        answered = {items[t].call_id for t in present if items[t].result}
        drop = {
            t
            for t in present
            if (
                items[t].action
                and (
                    counts[items[t].message] != batches[items[t].message]
                    or items[t].call_id not in answered
                )
            )
            or (items[t].result and items[t].call_id not in calls)
        }
        if not drop:
            break
        present -= drop
    window: list[Message] = []
    sent: set[int] = set()
    for entry in view:
        if isinstance(entry, _Summary):
            window.append(entry.message)
            continue
        item = items.get(entry)
        if item is None or entry not in present or item.message < 0:
            continue
        if item.action:
            if item.message in sent:
                continue
            sent.add(item.message)
        window.append(conversation.messages[item.message])
    return window
