"""Audit: foreign policies run at each boundary; their records name what they broke."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from footprint_lab import Message, apply_window, audit, replay, sliding_window
from footprint_lab.auditing import default_keep_recent_10, keep_last_messages, langchain_trim
from footprint_lab.scenarios import SCENARIOS, long_session
from tests.builders import call, result, user


def _window() -> list[Message]:
    return [
        user("req", stage="seed#0"),
        call("a", "x", stage="call-llm#1"),
        result("a", "x", "r" * 300, stage="tool-calls#2"),
        call("b", "y", stage="call-llm#3"),
        result("b", "y", "s" * 300, stage="tool-calls#4"),
        Message.assistant("thinking", stage_id="call-llm#5"),
    ]


def _kinds(policy: object) -> list[str]:
    out = apply_window(audit(policy), _window(), iteration=4, request="req", on_breach="record")
    assert out.record is not None
    return [v.kind for v in out.record.violations or []]


def test_a_policy_that_splits_a_pair_reports_exactly_that() -> None:
    def drop_first_call(messages: list[Message]) -> list[Message]:
        return [m for m in messages if m.stage_id != "call-llm#1"]

    assert _kinds(drop_first_call) == ["split-tool-pair"]


def test_a_policy_that_drops_the_request_reports_exactly_that() -> None:
    def drop_request(messages: list[Message]) -> list[Message]:
        notice = Message.user("[dropped history — 1 earlier message]")
        return [notice, *messages[1:]]

    assert _kinds(drop_request) == ["lost-current-request"]


def test_a_policy_that_rewrites_text_reports_exactly_that() -> None:
    def shorten(messages: list[Message]) -> list[Message]:
        return [
            m.model_copy(update={"content": m.content[:20]}) if m.role == "tool" else m
            for m in messages
        ]

    kinds = _kinds(shorten)
    assert set(kinds) == {"rewritten-without-frame"} and len(kinds) == 2


def test_other_rules_each_detected() -> None:
    def open_on_assistant(messages: list[Message]) -> list[Message]:
        return messages[1:]  # the request leaves too

    assert _kinds(open_on_assistant) == ["lost-current-request", "window-opens-on-non-user"]

    def whole_pair(messages: list[Message]) -> list[Message]:
        return [messages[0], *messages[3:]]

    assert _kinds(whole_pair) == []  # call-llm#1 + tool-calls#2: contiguous, pair kept whole
    window = [Message.system("rules", stage_id="seed#0"), *_window()]

    def drop_system_and_gap(messages: list[Message]) -> list[Message]:
        return [messages[1], messages[4], messages[5], messages[6]]

    out = apply_window(
        audit(drop_system_and_gap), window, iteration=2, request="req", on_breach="record"
    )
    assert out.record is not None
    assert Counter(v.kind for v in out.record.violations or []) == Counter(
        {"system-dropped": 1, "non-contiguous-removal": 1}
    )


def test_record_names_removed_stage_ids_and_copies_are_not_removals() -> None:
    def copy_all(messages: list[Message]) -> list[Message]:
        return [m.model_copy() for m in [messages[0], *messages[3:]]]

    window = _window()
    out = apply_window(
        audit(copy_all, name="copier"), window, iteration=3, request="req", on_breach="record"
    )
    record = out.record
    assert record is not None and record.strategy == "copier"
    assert record.removed_stage_ids == ["call-llm#1", "tool-calls#2"]
    assert record.violations == []
    assert out.window[0] is window[0]  # a value-equal copy is the same message


def test_inserted_summary_that_says_so_is_a_frame_and_never_anchors() -> None:
    def summarize(messages: list[Message]) -> list[Message]:
        return [Message.user("<summary of earlier conversation>\n\nstuff"), *messages[3:]]

    out = apply_window(audit(summarize), _window(), iteration=3, request="req", on_breach="record")
    assert out.record is not None
    assert [v.kind for v in out.record.violations or []] == ["lost-current-request"]
    assert out.window[0].authored == "compaction-frame"

    def silent(messages: list[Message]) -> list[Message]:
        return [messages[0], Message.user("stuff happened"), *messages[3:]]

    assert _kinds(silent) == ["rewritten-without-frame"]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_our_strategies_audited_report_no_violation(name: str) -> None:
    scenario = SCENARIOS[name]()
    for strategy in scenario.strategies().values():
        run = scenario.run(audit(strategy))
        assert run.status == "done"
        assert run.records
        assert all(r.violations == [] for r in run.records)


def test_compact_style_default_keep_recent_10_and_peers_on_a_long_session() -> None:
    source = long_session().run(None)
    seen: dict[str, Counter[str]] = {}
    for policy in (
        default_keep_recent_10(),
        keep_last_messages(11),
        langchain_trim(max_tokens=11, token_counter=len),
    ):
        run = replay(source, audit(policy))
        name = run.records[0].strategy
        seen[name] = Counter(v.kind for r in run.records for v in r.violations or [])
    assert set(seen) == {
        "default-keep-recent-10",
        "keep-last-11",
        "langchain-trim(max_tokens=11,strategy=last,token_counter=len)",
    }
    # default-keep-recent-10 summarizes the request away at the first compaction of each loop.
    assert seen["default-keep-recent-10"]["lost-current-request"] == 4
    assert seen["default-keep-recent-10"]["split-tool-pair"] == 0
    # Naive trimmers with an odd budget cut tool pairs: a request the API rejects.
    assert seen["keep-last-11"]["split-tool-pair"] > 0
    assert (
        seen["langchain-trim(max_tokens=11,strategy=last,token_counter=len)"]["split-tool-pair"] > 0
    )
    ours = replay(source, audit(sliding_window(4)))
    assert all(r.violations == [] for r in ours.records)


def test_an_agent_refusing_an_audited_policy_says_what_the_user_can_do() -> None:
    """#37 item 4: spec 001's default folds the request into its summary, so an agent cannot
    send its windows; the error points to replay(run, audit(policy)) and summarize_oldest, not
    to the strategy-author methods a user of someone else's policy cannot call, and the
    replay it suggests works on the same conversation."""
    from footprint_lab import Agent, Reply, ScriptedProvider, tool

    @tool
    def look(n: int) -> str:
        """Look."""
        return f"r{n} " + "x" * 50

    def agent(strategy: Any) -> Any:
        replies = [Reply.tool_calls([("look", {"n": i})]) for i in range(14)]
        builder = Agent.create(
            provider=ScriptedProvider([*replies, Reply.text("done")]), max_iterations=20
        ).tool(look)
        return (builder if strategy is None else builder.window(strategy)).build()

    refused = agent(audit(default_keep_recent_10())).run("go")
    assert refused.status == "error"
    said = str(refused.error)
    assert "audited policy 'default-keep-recent-10'" in said
    assert "lost-current-request" in said
    assert "replay(run, audit(policy))" in said and "summarize_oldest" in said
    assert "plan_removal" not in said
    audited = replay(agent(None).run("go"), audit(default_keep_recent_10()))
    assert any(r.violations for r in audited.records)
