"""Runs shared by the lab tests: every scenario under every strategy, and one big run."""

from __future__ import annotations

import os

import pytest

from footprint_lab import Agent, Reply, Run, ScriptedProvider, sliding_window, tool
from footprint_lab.providers.base import ProviderRequest
from footprint_lab.scenarios import SCENARIOS

os.environ.setdefault("FOOTPRINT_LAB_QUIET", "1")

BIG_ITERATIONS = 6000


@pytest.fixture(scope="session")
def scenario_runs() -> dict[tuple[str, str], Run]:
    """``{(scenario, strategy label or 'none'): run}`` for every scenario."""
    runs: dict[tuple[str, str], Run] = {}
    for name, make in SCENARIOS.items():
        scenario = make()
        runs[(name, "none")] = scenario.run(None)
        for label, strategy in scenario.strategies().items():
            runs[(name, label)] = scenario.run(strategy)
    return runs


@tool
def probe(n: int) -> str:
    """A cheap tool for long loops."""
    return f"probe {n}: " + "x" * 40


def tool_loop(iterations: int, keep_recent_turns: int = 3) -> Run:
    """A scripted agent calling ``probe`` every iteration, then answering."""
    state = {"calls": 0}

    def reply(request: ProviderRequest) -> Reply:
        state["calls"] += 1
        if state["calls"] >= iterations:
            return Reply.text("done")
        return Reply.tool_call("probe", n=state["calls"])

    agent = (
        Agent.create(provider=ScriptedProvider(reply), max_iterations=iterations)
        .tool(probe)
        .window(sliding_window(keep_recent_turns=keep_recent_turns))
        .build()
    )
    return agent.run("loop until done")


@pytest.fixture(scope="session")
def big_run() -> Run:
    """A 6,000-iteration tool loop under sliding_window(keep_recent_turns=3)."""
    run = tool_loop(BIG_ITERATIONS)
    assert run.status == "done" and run.iterations == BIG_ITERATIONS
    return run
