"""A fork's two cuts: its parent's run up to the boundary it forks at, and the splice that puts
the window a strategy would have sent there in place of the parent's.

Layer: agent (private; used by :mod:`footprint_lab.agent.fork`). :func:`parent_prefix` copies
the parent's ledger up to the boundary — every commit before that iteration's window stage,
injections and call, the same messages and commits — with the records, calls, events and
folded spans they hold, as a :class:`~footprint_lab.agent.run.Run` the agent loop goes on
writing. :func:`counterfactual_window` reads the window the strategy would have sent there out
of a replay and names each of its messages by the prefix's own objects (a stand-in the replay
wrote is a fresh copy, for the fork's window stage to commit). :func:`splice_record` is the
record of that splice: exact sizes and names against the window the fork was given, marked
``forked`` (it stands for replayed visits, each of which was held to the law when it ran).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from footprint_lab.agent._runfile_state import request_positions, stage_kind
from footprint_lab.agent.run import Run
from footprint_lab.agent.transcript import transcript
from footprint_lab.ledger import Ledger
from footprint_lab.messages import Message, window_chars
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.turns import segment_turns

__all__ = ["boundaries", "counterfactual_window", "parent_prefix", "splice_record"]

_BOUNDARY_STAGES = frozenset({"window", "inject"})
"""Stage kinds an iteration commits between its boundary and its model call."""

_STRATEGY_FACTS = (
    "keep_recent_turns",
    "measured_tokens",
    "tokens_from",
    "threshold_tokens",
    "over_budget",
    "threshold_fraction",
    "reserve_tokens",
    "context_window",
    "keep_results",
    "slack_turns",
    "clear_at_least_chars",
)
"""What a replayed record at the boundary says about its strategy and carries to the splice
record. Its refusals and pins are left behind: their indices are of the replay's window."""


def boundaries(run: Run) -> list[Message]:
    """The run's model replies in order: reply ``k`` (from 1) ends iteration ``k``, and its
    boundary is where a fork at ``k`` asks the model again."""
    return [m for m in transcript(run) if m.role == "assistant"]


def _cut(run: Run, reply: Message) -> int:
    """How many of the run's commits come before the boundary ``reply`` answered: the commits
    of its call stage and of the window and injection stages just before it are not."""
    ledger = run.ledger
    position = ledger.position(reply)
    assert position is not None, "a transcript's reply is the run's own message"
    commits = ledger.commits
    cut = ledger.commit_of_message(position)
    stage = commits[cut].stage_id
    while cut and commits[cut - 1].stage_id == stage:  # the call's usage, filed before its reply
        cut -= 1
    while cut and stage_kind(commits[cut - 1].stage_id) in _BOUNDARY_STAGES:
        cut -= 1
    return cut


def parent_prefix(source: Run, at: int, replies: Sequence[Message]) -> Run:
    """``source`` up to the boundary of iteration ``at``: a run whose ledger holds the same
    first commits (and messages) as the source's, standing at that iteration's window stage.

    The source is not touched: the ledger is rebuilt from copies of its lists (messages and
    records are immutable and shared), calls are copied.
    """
    ledger = source.ledger
    cut = _cut(source, replies[at - 1])
    messages, message_commit, commits, _ = ledger.export()
    kept = bisect.bisect_left(message_commit, cut)
    head = commits[:cut]
    # The fork numbers its own stages after every id the parent allocated, as a replay does:
    # an id names one message in the parent and the fork (#37 item 1).
    prefix = Ledger.restore(messages[:kept], message_commit[:kept], head, ledger.stage_count)
    stages: set[str | None] = {c.stage_id for c in head}
    stages.add(None)  # a span that names no frame stage is kept with its iteration
    texts = [prefix.messages[p].content for p in request_positions(prefix.messages)]
    calls = [c.model_copy() for c in source.calls if c.iteration < at and c.sent_commit < cut]
    usage = next((c.usage for c in reversed(calls) if c.usage is not None), None)
    return Run(
        request=texts[-1] if texts else "",
        requests=texts,
        ledger=prefix,
        status="max-iterations",
        window=prefix.window_at(cut - 1) if cut else [],
        records=[c.stored for c in head if c.key == "record"],
        events=[e for e in source.events if e.iteration < at],
        calls=calls,
        folded=[
            span for span in source.folded if span.iteration < at and span.frame_stage_id in stages
        ],
        iterations=at,
        loop_start=at - 1,
        system=source.system,
        phase="visit",
        last_usage=usage,
        import_problems=list(source.import_problems),
    )


def counterfactual_window(source: Run, replayed: Run, at: int, prefix: Ledger) -> list[Message]:
    """The window ``replayed`` (a replay of ``source``) sent at iteration ``at``, each message
    the prefix's own object where the source committed it, and a fresh copy of each stand-in
    the replay wrote (a drop notice, a frame, a placeholder), for the fork to commit.

    Raises:
        RuntimeError: the replay does not line up with its source (a bug, not bad input).
    """
    # The replay commits its source's transcript in order, and only its window stages add to
    # it: so its transcript, message by message, is the source's.
    theirs = transcript(replayed)
    ours = transcript(source)
    if len(theirs) != len(ours):
        raise RuntimeError(
            f"fork: the replay holds {len(theirs)} recorded messages, its source {len(ours)}"
        )
    origin = dict(zip(map(id, theirs), ours, strict=True))
    sent = replayed.window_sent(at - 1)  # a replay files one call per recorded reply
    window: list[Message] = []
    for message in sent:
        mine = origin.get(id(message))
        if mine is None:
            window.append(message.model_copy(update={"stage_id": None}))
        elif prefix.position(mine) is None:
            raise RuntimeError(
                f"fork: the replay sent {mine.stage_id} at iteration {at}, which the parent "
                "committed after that boundary"
            )
        else:
            window.append(mine)
    return window


def splice_record(
    given: Sequence[Message],
    after: Sequence[Message],
    *,
    strategy: str,
    iteration: int,
    replayed: WindowRecord | None,
) -> WindowRecord:
    """The record of a fork's splice: what left the window the fork was given and the sizes,
    exact; the turns before and after; and what the replayed record at the boundary (when the
    strategy engaged there) says about the strategy's configuration and measurement."""
    kept = set(map(id, after))
    left = [m for m in given if id(m) not in kept]
    placeholders = {m.tool_call_id for m in after if m.authored == "cleared-result"}
    tools = list(dict.fromkeys(m.name for m in left if m.role == "tool" and m.name))
    facts: dict[str, Any] = {}
    if replayed is not None:
        facts = {name: getattr(replayed, name) for name in _STRATEGY_FACTS}
    return WindowRecord(
        strategy=strategy,
        iteration=iteration,
        removed_stage_ids=list(dict.fromkeys(m.stage_id for m in left if m.stage_id)),
        removed_message_count=len(left),
        window_chars_before=window_chars(given),
        window_chars_after=window_chars(after),
        dropped_observations=tools if left else None,
        turns_before=len(segment_turns(given)),
        turns_after=len(segment_turns(after)),
        cleared_stage_ids=list(
            dict.fromkeys(
                m.stage_id
                for m in left
                if m.role == "tool" and m.stage_id and m.tool_call_id in placeholders
            )
        ),
        forked=True,
        **facts,
    )
