"""Which tool calls depend on evidence only an earlier tool result carried.

Layer: evidence (pure: messages in, facts out; no pandas). A call *depends on tool evidence*
when one of its argument leaves — a string or integer whose text has at least ``min_chars``
characters — occurs as a substring in the content of an earlier ``tool`` message and in no
earlier ``user`` or ``system`` message (the system prompt included).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from footprint_lab.agent.run import Run

# transcript and in_call_order live in the agent layer (replay reads them); this was their home.
from footprint_lab.agent.transcript import in_call_order as in_call_order
from footprint_lab.agent.transcript import transcript as transcript
from footprint_lab.evidence.facts import TranscriptFacts
from footprint_lab.evidence.facts import argument_leaves as argument_leaves
from footprint_lab.messages import Message, construct_trusted

DEFAULT_MIN_CHARS = 5


class Dependency(BaseModel):
    """One value a tool call took from earlier tool evidence."""

    call_id: str
    """The dependent call."""
    tool_name: str
    """The tool it calls."""
    value: str
    """The argument value, as text."""
    source_stage_ids: list[str]
    """Stage ids of the earlier tool messages that carried it, oldest first."""
    message_index: int
    """Index, in the run's transcript, of the assistant message that made the call."""


def dependencies_in(
    messages: Sequence[Message], system: str | None = None, min_chars: int = DEFAULT_MIN_CHARS
) -> list[Dependency]:
    """Dependencies in a message list (see the module docstring).

    Linear in the text of ``messages`` plus the size of the answer: each message is read once
    (:class:`~footprint_lab.evidence.facts.TranscriptFacts`), and the tool texts and the
    user/system texts are each indexed once, so a value is checked only against texts that
    can contain it instead of against every earlier one.
    """
    return named(TranscriptFacts(messages, system), min_chars)


def named(
    facts: TranscriptFacts,
    min_chars: int = DEFAULT_MIN_CHARS,
    stage_ids: Sequence[str | None] | None = None,
) -> list[Dependency]:
    """The dependencies of ``facts``' links, their carriers named by ``stage_ids`` (default
    the transcript's own; a replay's, for the replay of the transcript)."""
    ids = facts.stage_ids if stage_ids is None else stage_ids
    # Trusted: every value was read from validated messages (a long run has one per call).
    return [
        construct_trusted(
            Dependency,
            call_id=link.call_id,
            tool_name=link.tool_name,
            value=link.value,
            source_stage_ids=list(dict.fromkeys([ids[j] or "" for j in link.carriers])),
            message_index=link.message_index,
        )
        for link in facts.links(min_chars)
    ]


def transcript_facts(
    run: Run, source: TranscriptFacts | None = None
) -> tuple[TranscriptFacts, Sequence[str | None]]:
    """``run``'s transcript read once, and the stage ids of its messages.

    Args:
        run: The run (recorded, imported or replayed).
        source: When ``run`` is a replay, its source's facts: a replay's transcript is its
            source's committed again, so the source's facts stand for it (its links found
            once for every replay) with the replay's stage ids. Checked
            (:meth:`~footprint_lab.evidence.facts.TranscriptFacts.aligned_stage_ids`): a
            transcript that is not the source's is read afresh.
    """
    messages = transcript(run)
    if source is not None:
        stage_ids = source.aligned_stage_ids(messages, run.system)
        if stage_ids is not None:
            return source, stage_ids
    facts = TranscriptFacts(messages, run.system)
    return facts, facts.stage_ids


def dependencies(
    run: Run, min_chars: int = DEFAULT_MIN_CHARS, *, source: TranscriptFacts | None = None
) -> list[Dependency]:
    """Every (call, value) by which a tool call of ``run`` depends on earlier tool evidence
    (``source``: the facts of the run ``run`` replays, see :func:`transcript_facts`)."""
    facts, stage_ids = transcript_facts(run, source)
    return named(facts, min_chars, stage_ids)


def tool_calls_in(run: Run) -> int:
    """How many tool calls the run's transcript holds."""
    return sum(len(m.tool_calls) for m in transcript(run))
