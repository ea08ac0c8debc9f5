"""Runs shared by the lab tests: every scenario under every strategy, and one big run; and the
Inspector's Boundary pane as a page (:func:`pane_html`) for the browser tests."""

from __future__ import annotations

import json
import os

import pytest

from footprint_lab import Agent, Reply, Run, ScriptedProvider, Tool, sliding_window, tool
from footprint_lab.lab.render import boundary_css, boundary_script
from footprint_lab.lab.views import BoundaryView
from footprint_lab.providers.base import ProviderRequest
from footprint_lab.scenarios import SCENARIOS

os.environ.setdefault("FOOTPRINT_LAB_QUIET", "1")

BIG_ITERATIONS = 6000


def pane_html(view: BoundaryView, element_id: str = "pane") -> str:
    """HTML showing ``view`` as the Inspector's Boundary pane does in JupyterLab: the pane's
    stylesheet, and ``boundary.js``'s anywidget ``render`` over a model holding the view's JSON
    (``model_dump(mode="json")``, as the widget syncs it) in ``<div id=element_id>``."""
    data = json.dumps(view.model_dump(mode="json")).replace("<", "\\u003c")
    model = "{get: () => VIEW, on() {}, off() {}}"
    return (
        f"<style>{boundary_css('jupyterlab')}</style><div id='{element_id}'></div>"
        f"<script type='module'>{boundary_script()}\nconst VIEW = {data};\n"
        f"render({{model: {model}, el: document.getElementById('{element_id}')}});</script>"
    )


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


def tool_loop(iterations: int, keep_recent_turns: int = 3, probe_tool: Tool | None = None) -> Run:
    """A scripted agent calling ``probe`` every iteration, then answering (``probe_tool``: a
    ``probe`` of its own, e.g. one whose results grow)."""
    state = {"calls": 0}

    def reply(request: ProviderRequest) -> Reply:
        state["calls"] += 1
        if state["calls"] >= iterations:
            return Reply.text("done")
        return Reply.tool_call("probe", n=state["calls"])

    agent = (
        Agent.create(provider=ScriptedProvider(reply), max_iterations=iterations)
        .tool(probe if probe_tool is None else probe_tool)
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
