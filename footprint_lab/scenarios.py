"""Deterministic scripted stories to teach with, runnable under any strategy.

Layer: top (uses the agent and the scripted provider). Each scenario builds a fresh scripted
provider per run, so the same scenario runs identically under every strategy and every knob —
which is what ``Tuner``, ``Compare``, ``sweep`` and the CLI rely on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.agent import Agent, Run, Tool, tool
from footprint_lab.messages import storable_text
from footprint_lab.providers.scripted import Reply, ScriptedProvider
from footprint_lab.window.strategies import (
    WindowStrategy,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from footprint_lab.window.strategies.summarizers import extractive_summarizer


@dataclass(frozen=True)
class Scenario:
    """A scripted story: request, tools and the replies a model would give."""

    name: str
    """Short id, e.g. 'deploy-audit'."""
    description: str
    """One paragraph for people."""
    request: str
    """What the run is asked."""
    system: str
    """The system prompt."""
    tools: Sequence[Tool]
    """The tools the agent has."""
    replies: Callable[[], list[Reply]]
    """Builds the scripted replies for one run."""
    max_iterations: int
    """Iteration cap of the scripted agent."""
    strategies: Callable[[], dict[str, WindowStrategy]] = field(default=lambda: {})
    """The three shipped strategies, tuned so each engages on this story."""
    report_usage: bool = True
    """Whether the scripted provider reports usage."""
    follow_ups: tuple[str, ...] = ()
    """Further requests of the same conversation, sent after the first one finishes."""

    def provider(self, **kwargs: Any) -> ScriptedProvider:
        """A fresh scripted provider for one run."""
        return ScriptedProvider(
            self.replies(), report_usage=kwargs.pop("report_usage", self.report_usage), **kwargs
        )

    def agent(
        self,
        strategy: WindowStrategy | None = None,
        *,
        keep_last_tool_results: int | bool = 2,
        provider: Any = None,
        model: str = "scripted",
    ) -> Agent:
        """The scenario's agent under ``strategy`` (None = no window management)."""
        builder = (
            Agent.create(
                provider=provider or self.provider(),
                model=model,
                max_iterations=self.max_iterations,
                keep_last_tool_results=keep_last_tool_results,
            )
            .system(self.system)
            .tools(*self.tools)
        )
        if strategy is not None:
            builder = builder.window(strategy)
        built: Agent = builder.build()
        return built

    def run(
        self,
        strategy: WindowStrategy | None = None,
        *,
        keep_last_tool_results: int | bool = 2,
        **kwargs: Any,
    ) -> Run:
        """Run the scenario once (every request of its conversation, on one agent)."""
        agent = self.agent(strategy, keep_last_tool_results=keep_last_tool_results, **kwargs)
        run = agent.run(self.request)
        for follow_up in self.follow_ups:
            if run.status != "done":
                break
            run = agent.run(follow_up)
        run.meta["scenario"] = storable_text(self.name)
        return run


# -- deploy audit --------------------------------------------------------------------------

_DEPLOY_IDS = ("d1", "d2", "d3", "d4", "d5", "d6")


def _deploy_log(deployment: str) -> str:
    status = "FAILED" if deployment == "d4" else "OK"
    header = f"DEPLOY {deployment} status={status} region=eu-west-1 build=2024.{deployment}"
    lines = [header]
    for step in range(1, 23):
        lines.append(
            f"[{deployment}] step {step:02d}: rollout batch {step} healthy, 0 errors, p99 120ms"
        )
    if status == "FAILED":
        lines.append(f"[{deployment}] step 15: health check failed, rolled back")
    text = "\n".join(lines)
    return text[:1150] if deployment == "d1" else text


@tool
def read_log(deployment: str) -> str:
    """Read the full deployment log of one deployment id."""
    if deployment not in _DEPLOY_IDS:
        raise KeyError(f"no deployment {deployment!r}")
    return _deploy_log(deployment)


def deploy_audit() -> Scenario:
    """The spec's deploy-audit run: six bulky logs read one by one, then an answer."""
    return Scenario(
        name="deploy-audit",
        description=(
            "An auditor reads six bulky deployment logs one per iteration and reports which "
            "failed. Old logs are the obvious thing to drop; the request must stay."
        ),
        request="Audit deployments d1 to d6 and tell me which one failed.",
        system="You audit deployments. Read the logs before answering.",
        tools=(read_log,),
        replies=lambda: [
            *(Reply.tool_call("read_log", deployment=d) for d in _DEPLOY_IDS),
            Reply.text("d4 failed its health check and was rolled back; the others are OK."),
        ],
        max_iterations=8,
        strategies=lambda: {
            "sliding-window": sliding_window(keep_recent_turns=3),
            "token-budget": token_budget(threshold_tokens=1_500, keep_recent_turns=3),
            "summarize-oldest": summarize_oldest(
                threshold_tokens=1_500, summarizer=extractive_summarizer, keep_recent_turns=3
            ),
        },
    )


# -- screen driver -------------------------------------------------------------------------

_ELEMENTS = [
    f"el-{i:03d}-{kind}"
    for i, kind in enumerate(["button", "input", "link", "menu", "tab", "card", "list", "icon"] * 6)
]


@tool
def whats_here() -> str:
    """List the ids of every element on the current screen."""
    rows = [f"{eid}  label='{eid.split('-')[2]} {eid.split('-')[1]}'" for eid in _ELEMENTS]
    return "elements on screen:\n" + "\n".join(rows)


@tool
def focus(element_id: str) -> str:
    """Move focus to an element and describe it."""
    if element_id not in _ELEMENTS:
        raise KeyError(f"no element {element_id!r} on screen")
    return f"focused {element_id}: " + "visible, enabled, within viewport. " * 6


@tool
def pan_view(direction: str) -> str:
    """Scroll the view up/down/left/right."""
    return f"panned {direction}: viewport moved by one page. " * 6


@tool
def click(element_id: str) -> str:
    """Click an element by id (ids come only from whats_here)."""
    if element_id not in _ELEMENTS:
        raise KeyError(f"no element {element_id!r} on screen")
    return f"clicked {element_id}"


def screen_driver() -> Scenario:
    """The pin story: the ids only ``whats_here`` carries must stay while older results go."""
    steps: list[Reply] = [Reply.tool_call("whats_here")]
    for i in range(4):
        steps.append(Reply.tool_call("focus", element_id=_ELEMENTS[i * 5]))
        steps.append(Reply.tool_call("pan_view", direction="down" if i % 2 == 0 else "right"))
    steps.append(Reply.tool_call("click", element_id=_ELEMENTS[37]))
    steps.append(Reply.text(f"Clicked {_ELEMENTS[37]}, the save button."))
    return Scenario(
        name="screen-driver",
        description=(
            "An agent drives a screen. One whats_here result carries the only list of ids it "
            "can act on; focus and pan_view results pile up after it. With pins, the ids stay."
        ),
        request="Find the list card on this screen and click the element after it.",
        system="You drive a screen through tools. Only use ids that whats_here returned.",
        tools=(whats_here, focus, pan_view, click),
        replies=lambda: list(steps),
        max_iterations=12,
        strategies=lambda: {
            "sliding-window": sliding_window(keep_recent_turns=2),
            "token-budget": token_budget(threshold_tokens=700, keep_recent_turns=2),
            "summarize-oldest": summarize_oldest(
                threshold_tokens=700, summarizer=extractive_summarizer, keep_recent_turns=2
            ),
        },
    )


# -- parallel tools ------------------------------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"weather in {city}: 18C, light wind, humidity 60%. " + "Forecast stable. " * 8


@tool
def get_news(topic: str) -> str:
    """Top headlines for a topic."""
    return f"headlines for {topic}: " + "; ".join(f"story {i} about {topic}" for i in range(12))


@tool
async def get_quote(symbol: str) -> str:
    """Latest stock quote (async tool)."""
    return f"{symbol}: 101.25 (+0.4%) " + "volume steady. " * 8


def parallel_tools() -> Scenario:
    """Parallel batches (one turn, one pin slot) and a call to a tool that does not exist."""
    replies = [
        Reply.tool_calls([("get_weather", {"city": "Oslo"}), ("get_news", {"topic": "energy"})]),
        Reply.tool_calls([("get_quote", {"symbol": "NHY"}), ("get_weather", {"city": "Bergen"})]),
        Reply.tool_calls([("get_news", {"topic": "shipping"}), ("lookup_port", {"name": "Oslo"})]),
        Reply.tool_calls([("get_quote", {"symbol": "EQNR"}), ("get_news", {"topic": "oil"})]),
        Reply.tool_calls([("get_weather", {"city": "Tromsø"}), ("get_quote", {"symbol": "MOWI"})]),
        Reply.text("Energy stocks are up slightly; the weather is calm along the coast."),
    ]
    return Scenario(
        name="parallel-tools",
        description=(
            "Each iteration asks for two tools at once. A parallel batch plus its results is "
            "one turn and one pin slot; one call names a tool that does not exist."
        ),
        request="Brief me on Norwegian energy: weather, news and quotes.",
        system="You are a market briefing assistant. Call tools in parallel when you can.",
        tools=(get_weather, get_news, get_quote),
        replies=lambda: list(replies),
        max_iterations=8,
        strategies=lambda: {
            "sliding-window": sliding_window(keep_recent_turns=2),
            "token-budget": token_budget(threshold_tokens=400, keep_recent_turns=2),
            "summarize-oldest": summarize_oldest(
                threshold_tokens=400, summarizer=extractive_summarizer, keep_recent_turns=2
            ),
        },
    )


# -- long session --------------------------------------------------------------------------

_FILES = [f"src/module_{i:02d}.py" for i in range(24)]


@tool
def search_code(query: str) -> str:
    """Search the repository; returns matching paths."""
    hits = [f for i, f in enumerate(_FILES) if (i + len(query)) % 3 == 0]
    return f"matches for {query!r}: " + ", ".join(hits)


@tool
def read_file(path: str) -> str:
    """Read a source file."""
    body = "\n".join(f"def fn_{n}(x):  # in {path}\n    return x * {n}" for n in range(14))
    return f"# {path}\n{body}"


@tool
def run_tests(target: str) -> str:
    """Run the test suite for a target."""
    return f"tests for {target}: 48 passed, 0 failed in 3.1s\n" + "." * 120


_SESSION_TASKS = (
    "Find where the tax rounding bug lives and explain it.",
    "Now fix it and make sure the tests still pass.",
    "Add a regression test for the rounding edge case.",
    "Summarise everything we changed today for the changelog.",
)


def _session_replies() -> list[Reply]:
    replies: list[Reply] = []
    for task_no in range(len(_SESSION_TASKS)):
        for step in range(68):
            kind = step % 4
            if kind == 0:
                replies.append(Reply.tool_call("search_code", query=f"task{task_no} q{step}"))
            elif kind == 3:
                replies.append(Reply.tool_call("run_tests", target=f"pkg{step % 5}"))
            else:
                path = _FILES[(step * 7 + task_no) % len(_FILES)]
                replies.append(Reply.tool_call("read_file", path=path))
        replies.append(Reply.text(f"Task {task_no + 1} done: {_SESSION_TASKS[task_no]}"))
    return replies


def long_session() -> Scenario:
    """A four-request conversation of about 280 iterations: each new request becomes the
    anchor and releases the previous loop's pins."""
    return Scenario(
        name="long-session",
        description=(
            "A coding session: four requests in one conversation, each a long loop of "
            "search / read / test calls. Earlier requests become droppable history."
        ),
        request=_SESSION_TASKS[0],
        follow_ups=_SESSION_TASKS[1:],
        system="You are a careful coding agent. Read before you change anything.",
        tools=(search_code, read_file, run_tests),
        replies=_session_replies,
        max_iterations=80,
        strategies=lambda: {
            "sliding-window": sliding_window(keep_recent_turns=8),
            "token-budget": token_budget(threshold_tokens=4_000, keep_recent_turns=8),
            "summarize-oldest": summarize_oldest(
                threshold_tokens=4_000, summarizer=extractive_summarizer, keep_recent_turns=8
            ),
        },
    )


SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "deploy-audit": deploy_audit,
    "screen-driver": screen_driver,
    "parallel-tools": parallel_tools,
    "long-session": long_session,
}
"""Every scenario by name."""
