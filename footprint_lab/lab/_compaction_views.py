"""The compactions a run's own stack performed, as the Inspector's Compactions pane and the
report show them: each observed record with what left, the stand-in the stack wrote, and what
:func:`footprint_lab.judge` finds about it.

Layer: lab (a view: plain values, no HTML and no widgets; ``compactions.html.j2`` renders it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from footprint_lab.agent.origin import imported_source
from footprint_lab.agent.run import Run
from footprint_lab.evidence.judge import Finding, judge

__all__ = ["STAND_IN_PREVIEW", "CompactionView", "CompactionsView", "compactions_view"]

STAND_IN_PREVIEW = 400
"""How many characters of a stand-in the view quotes."""


@dataclass(frozen=True)
class CompactionView:
    """One compaction (an observed record) in words."""

    record: int
    """Index in ``run.records``."""
    iteration: int
    """The iteration its window was sent to."""
    policy: str
    """The stack's policy the record names."""
    left: int
    """Messages that left the window."""
    cleared: int
    """Of them, results a placeholder replaced in place."""
    stage_ids: list[str]
    """The stage ids of what left."""
    chars_before: int
    """The window's characters before it."""
    chars_after: int
    """And after it."""
    stand_in: str | None
    """The start of the stand-in the stack wrote (None: it wrote none)."""
    opaque: bool
    """The stand-in's content is encrypted (an OpenAI ``compaction`` item): no readable text."""
    findings: list[Finding] = field(default_factory=list)
    """What the judge finds about it."""


@dataclass(frozen=True)
class CompactionsView:
    """Every compaction of a run."""

    items: list[CompactionView]
    """In record order."""
    findings: int
    """Findings in all."""
    note: str
    """A sentence saying what the pane holds (and why it is empty, when it is)."""


def _stand_in(run: Run, commit: int | None) -> tuple[str | None, bool]:
    if commit is None:
        return None, False
    stage = run.ledger.commits[commit].stage_id
    try:
        committed = run.ledger.messages_of(stage)
    except KeyError:
        return None, False
    # A summary or notice stands for what left; placeholders (in place) when there is none.
    written = [m for m in committed if m.authored != "cleared-result"] or committed
    if not written:
        return None, False
    text = "\n\n".join(m.content for m in written if m.content)
    opaque = not text and any(p.text is None for m in written for p in m.parts)
    if len(text) > STAND_IN_PREVIEW:
        text = text[:STAND_IN_PREVIEW] + "…"
    return text, opaque


def compactions_view(run: Run) -> CompactionsView:
    """The compactions ``run``'s own stack performed, with the judge's findings."""
    findings = judge(run)
    items: list[CompactionView] = []
    for k, record in enumerate(run.records):
        if not record.observed:
            continue
        text, opaque = _stand_in(run, record.commit)
        items.append(
            CompactionView(
                record=k,
                iteration=record.iteration,
                policy=record.strategy,
                left=record.removed_message_count,
                cleared=len(record.cleared_stage_ids or ()),
                stage_ids=list(record.removed_stage_ids),
                chars_before=record.window_chars_before,
                chars_after=record.window_chars_after,
                stand_in=text,
                opaque=opaque,
                findings=[f for f in findings if f.record_index == k],
            )
        )
    if items:
        note = (
            f"{len(items)} compaction(s) the run's own stack performed, each with what left the "
            f"window, the stand-in it wrote and {len(findings)} finding(s) of the judge in all."
        )
    elif imported_source(run.origin) is not None:
        note = "The file records no compaction: its stack's own policy removed nothing."
    else:
        note = (
            "No compaction of another stack: this run's own window records are under Window "
            "records and in the Boundary view."
        )
    return CompactionsView(items, len(findings), note)
