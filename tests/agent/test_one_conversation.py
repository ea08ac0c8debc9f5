"""One agent, one conversation at a time (#24 item 7): a second caller — another thread, or
a tool calling its own agent — gets a clear error, and no turn is lost."""

from __future__ import annotations

import threading

import pytest

from footprint_lab import Agent, Reply, ScriptedProvider, tool
from footprint_lab.agent import AgentBusyError


def test_a_second_thread_gets_a_clear_error_and_no_turn_is_lost() -> None:
    entered, release = threading.Event(), threading.Event()

    @tool
    def slow(x: str) -> str:
        """Wait until released."""
        entered.set()
        assert release.wait(10)
        return f"done {x}"

    provider = ScriptedProvider(
        [Reply.tool_call("slow", x="a"), Reply.text("first done"), Reply.text("second done")]
    )
    agent = Agent.create(provider=provider, max_iterations=4).tool(slow).build()
    runs = {}
    first = threading.Thread(target=lambda: runs.setdefault("first", agent.run("one")))
    first.start()
    assert entered.wait(10)
    with pytest.raises(AgentBusyError, match="already running a conversation"):
        agent.run("two")
    release.set()
    first.join(10)
    assert runs["first"].status == "done" and runs["first"].output == "first done"
    # The agent is free again, and the conversation holds both requests, in order.
    second = agent.run("two")
    assert second.output == "second done"
    assert second.requests == ["one", "two"]


def test_a_tool_calling_its_own_agent_gets_an_error_result() -> None:
    holder: dict[str, Agent] = {}

    @tool
    def recurse(x: str) -> str:
        """Call the agent itself."""
        return holder["agent"].run(x).output or ""

    provider = ScriptedProvider([Reply.tool_call("recurse", x="again"), Reply.text("ok")])
    agent = holder["agent"] = (
        Agent.create(provider=provider, max_iterations=3).tool(recurse).build()
    )
    run = agent.run("go")
    assert run.status == "done"
    result = next(m for m in run.ledger.messages if m.role == "tool")
    assert "already running a conversation" in result.content
