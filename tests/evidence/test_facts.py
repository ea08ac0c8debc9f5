"""A transcript read once into flat facts (``footprint_lab.evidence.facts``) gives what the
message-by-message definitions give: dependencies against the definition read literally, and
a replay's dependencies and losses from its source's facts against the replay read afresh."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Message,
    audit,
    clear_tool_results,
    replay,
    sliding_window,
    summarize_oldest,
)
from footprint_lab.auditing import keep_last_messages
from footprint_lab.evidence import (
    TranscriptFacts,
    dependencies,
    dependencies_in,
    losses,
    transcript,
    transcript_facts,
)
from footprint_lab.importers import from_openai
from footprint_lab.lab._evidence_rows import baseline_input_cost, baseline_window_chars
from tests.budget import examples
from tests.evidence.test_linear import _brute_dependencies, _random_transcript


def _verbatim(messages: Any) -> str:
    return " ".join(m.content[:60] for m in messages if m.role == "tool")


STRATEGIES: list[Any] = [
    None,
    sliding_window(1),
    sliding_window(2),
    clear_tool_results(keep_recent_turns=1, keep_results=1),
    summarize_oldest(1, _verbatim, keep_recent_turns=1),
    audit(keep_last_messages(3)),
]


def _deps(items: Any) -> list[tuple[str, str, str, list[str], int]]:
    return [(d.call_id, d.tool_name, d.value, d.source_stage_ids, d.message_index) for d in items]


def _losses(items: Any) -> list[dict[str, Any]]:
    return [x.model_dump() for x in items]


@settings(max_examples=examples(1000), deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from([0, 3, 5]))
def test_dependencies_from_facts_equal_the_definition(rng: random.Random, min_chars: int) -> None:
    run = from_openai(_random_transcript(rng))
    messages = transcript(run)
    got = [
        (d.call_id, d.value, d.source_stage_ids, d.message_index)
        for d in dependencies_in(messages, run.system, min_chars)
    ]
    assert got == _brute_dependencies(messages, run.system, min_chars)


@settings(max_examples=examples(1000), deadline=None)
@given(
    st.randoms(use_true_random=False),
    st.sampled_from(range(len(STRATEGIES))),
    st.sampled_from([0, 2]),
    st.sampled_from([0, 3, 5]),
    st.booleans(),
)
def test_a_replay_s_evidence_from_its_source_s_facts_is_the_replay_read_afresh(
    rng: random.Random, which: int, pins: int, min_chars: int, foreign: bool
) -> None:
    run = from_openai(_random_transcript(rng))
    replayed = replay(run, STRATEGIES[which], keep_last_tool_results=pins)
    # The replay evidence_frame measures records no events, and is otherwise the same run.
    quiet = replay(run, STRATEGIES[which], keep_last_tool_results=pins, events=False)
    assert quiet.events == [] and (replayed.events or not replayed.calls)
    assert _same_run(quiet, replayed)
    # The fast path is handed its source's facts, or (foreign) another run's: those must be
    # refused as not the replay's transcript, and the replay read afresh.
    source = from_openai(_random_transcript(rng)) if foreign else run
    facts, _ = transcript_facts(source)
    fast = dependencies(replayed, min_chars, source=facts)
    general = dependencies(replayed, min_chars)
    assert _deps(fast) == _deps(general)
    own, _ = transcript_facts(replayed, facts)
    assert (own is facts) == (not foreign or _same_transcript(source, replayed))
    assert _losses(losses(replayed, fast, min_chars, facts=own)) == _losses(
        losses(replayed, general, min_chars)
    )
    # The per-run columns read from the facts are the message-by-message sums.
    sends = [c.chars for c in replay(run, None).calls]
    assert baseline_window_chars(run, facts if not foreign else None) == sum(sends)
    assert baseline_input_cost(run, facts=facts if not foreign else None) == (
        baseline_input_cost(run)
    )


def _same_run(a: Any, b: Any) -> bool:
    def facts(run: Any) -> Any:
        return (
            [m.model_dump() for m in run.ledger.messages],
            [r.model_dump() for r in run.records],
            [c.model_dump() for c in run.calls],
            [m.model_dump() for m in run.window],
            [[m.model_dump() for m in run.window_sent(i)] for i in range(len(run.calls))],
            run.meta,
            [f.model_dump() for f in run.folded],
        )

    return bool(facts(a) == facts(b))


def _same_transcript(a: Any, b: Any) -> bool:
    left, right = transcript(a), transcript(b)
    return a.system == b.system and [(m.role, m.content, m.tool_calls) for m in left] == [
        (m.role, m.content, m.tool_calls) for m in right
    ]


def test_a_transcript_that_differs_in_one_text_is_not_aligned() -> None:
    run = from_openai(_random_transcript(random.Random(7)))
    facts, _ = transcript_facts(run)
    messages = transcript(replay(run, sliding_window(1)))
    assert facts.aligned_stage_ids(messages, run.system) is not None
    changed = [*messages]
    k = next(i for i, m in enumerate(changed) if m.role == "tool")
    changed[k] = changed[k].model_copy(update={"content": changed[k].content + "!"})
    assert facts.aligned_stage_ids(changed, run.system) is None
    assert facts.aligned_stage_ids(messages, (run.system or "") + "?") is None
    assert facts.aligned_stage_ids(messages[:-1], run.system) is None


def test_facts_read_each_message_once() -> None:
    messages = [Message.user("RES12345 please"), Message.assistant("ok")]
    reads: list[int] = []

    def counted() -> Any:
        for m in messages:
            reads.append(1)
            yield m

    facts = TranscriptFacts(counted(), "system")
    assert len(reads) == 2 and len(facts) == 2
    assert facts.links(5) == () and facts.replies == [1] and facts.tool_calls == 0
