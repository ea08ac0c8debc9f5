"""The ledger: append-only commits, stage ids, value_at, resolution, structural sharing."""

from __future__ import annotations

import pytest

from footprint_lab import Ledger, Message


def _clock() -> object:
    ticks = iter(range(0, 10_000, 10))
    return lambda: next(ticks)


def test_stage_ids_and_history_value_at() -> None:
    ledger = Ledger(clock=_clock())  # type: ignore[arg-type]
    seed = ledger.begin_stage("seed")
    call = ledger.begin_stage("call-llm")
    assert (seed, call) == ("seed#0", "call-llm#1")
    (req,) = ledger.append(seed, [Message.user("hi")])
    assert req.stage_id == "seed#0"
    ledger.put(call, "usage", {"input": 3})
    (reply,) = ledger.append(call, [Message.assistant("yo")])
    assert [c.key for c in ledger.commits] == ["history", "usage", "history"]
    assert [c.at_ms for c in ledger.commits] == [0, 10, 20]
    assert ledger.value_at(0, "history") == [req]
    assert ledger.value_at(2, "history") == [req, reply]
    assert ledger.value_at(-1, "usage") == {"input": 3}
    with pytest.raises(KeyError, match="usage"):
        ledger.value_at(0, "usage")
    with pytest.raises(IndexError):
        ledger.value_at(3, "history")


def test_window_is_last_window_commit_plus_appended_since() -> None:
    ledger = Ledger()
    a, b, c = ledger.append("seed#0", [Message.user("a"), Message.user("b"), Message.user("c")])
    assert ledger.window_at(0) == [a, b, c]
    ledger.set_window("window#1", [a, c])
    (d,) = ledger.append("call-llm#2", [Message.assistant("d")])
    assert ledger.window_at(1) == [a, c]
    assert ledger.window_at(2) == [a, c, d]
    assert ledger.value_at(2, "window") == [a, c, d]
    assert ledger.value_at(2, "history") == [a, b, c, d]
    assert ledger.commits[1].stored == ((0, 1), (2, 3))


def test_window_may_only_hold_committed_messages() -> None:
    ledger = Ledger()
    ledger.append("seed#0", [Message.user("a")])
    with pytest.raises(ValueError, match="never committed"):
        ledger.set_window("window#1", [Message.user("stranger")])


def test_messages_are_stored_once() -> None:
    ledger = Ledger()
    (m,) = ledger.append("seed#0", [Message.user("a")])
    with pytest.raises(ValueError, match="once"):
        ledger.append("seed#0", [m])


def test_message_resolution_by_stage_id() -> None:
    ledger = Ledger()
    ledger.append("tool-calls#4", [Message.tool("c1", "x", "one"), Message.tool("c2", "y", "two")])
    assert [m.content for m in ledger.messages_of("tool-calls#4")] == ["one", "two"]
    assert ledger.message("tool-calls#4").content == "one"
    with pytest.raises(KeyError, match="window#9"):
        ledger.messages_of("window#9")


def test_reserved_keys_need_their_own_writers() -> None:
    with pytest.raises(ValueError):
        Ledger().put("x#0", "history", [])


def test_window_commits_share_structure_not_copies() -> None:
    """A sliding window over a long run stores a constant handful of position runs per commit."""
    from footprint_lab import Agent, Reply, ScriptedProvider, sliding_window, tool

    @tool
    def fetch(i: int) -> str:
        return "payload " * 50

    replies = [Reply.tool_call("fetch", i=i) for i in range(300)] + [Reply.text("done")]
    run = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=400)
        .tool(fetch)
        .window(sliding_window(3))
        .build()
        .run("go")
    )
    assert run.status == "done"
    window_commits = [c for c in run.ledger.commits if c.key == "window"]
    assert len(window_commits) > 250
    # request, notice, recent turns: a constant handful of runs, however long the run.
    assert max(len(c.stored) for c in window_commits) <= 6
    # Every message object is stored once: history is exactly the distinct messages.
    assert len({id(m) for m in run.ledger.messages}) == len(run.ledger.messages)
