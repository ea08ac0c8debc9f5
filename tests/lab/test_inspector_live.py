"""``Inspector.live``: the Inspector follows a run as it happens, without blocking the loop,
and ends as the ordinary Inspector of the finished run (#39 item 1)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from ipywidgets.widgets.widget import _instances as _open_widgets

from footprint_lab import Agent, Reply, ScriptedProvider, sliding_window, tool
from footprint_lab.lab import Inspector
from footprint_lab.lab.summary import key_numbers
from footprint_lab.providers import ProviderRequest, ProviderResponse


@tool
def read_log(part: int) -> str:
    """Read a part of the log."""
    return f"part {part}: " + "line\n" * 60


class SlowProvider:
    """The scripted provider, each reply a little late (as a real one is)."""

    def __init__(self, replies: list[Reply], delay: float = 0.02) -> None:
        self.inner = ScriptedProvider(replies)
        self.name = self.inner.name
        self.delay = delay

    def context_window(self, model: str) -> int | None:
        return None

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        await asyncio.sleep(self.delay)
        return await self.inner.complete(request)


def _agent(provider: object) -> Agent:
    built: Agent = (
        Agent.create(provider=provider)  # type: ignore[arg-type]
        .tools(read_log)
        .window(sliding_window(keep_recent_turns=2))
        .build()
    )
    return built


def _traces(chart: Any) -> list[dict[str, Any]]:
    """A chart's traces as plotly's JSON, without the ids a widget gives them."""
    data: list[dict[str, Any]] = json.loads(chart.to_json())["data"]
    return [{k: v for k, v in trace.items() if k != "uid"} for trace in data]


def _replies() -> list[Reply]:
    return [Reply.tool_call("read_log", part=k) for k in range(6)] + [Reply.text("all read")]


async def test_the_live_inspector_updates_at_every_boundary_and_ends_finished() -> None:
    opened = len(_open_widgets)
    inspector = Inspector.live(_agent(SlowProvider(_replies())), "read the whole log")
    assert inspector.task is not None and not inspector.task.done()  # the loop is free
    assert inspector.numbers["calls"] == 0
    charts = dict(inspector.figures)
    seen: list[tuple[int, int, int]] = []
    original = inspector.refresh

    def watching(run: object) -> None:
        original(run)  # type: ignore[arg-type]
        seen.append((inspector.numbers["calls"], len(inspector.run.records), inspector.slider.max))

    inspector.refresh = watching  # type: ignore[method-assign]
    ticks = 0
    while not inspector.task.done():  # the test's own work goes on while the agent runs
        ticks += 1
        await asyncio.sleep(0.005)
    run = await inspector.task
    assert ticks > len(run.calls)  # the kernel was never held for the whole run
    # every call and every record was shown while the run went on, in order
    calls = [c for c, _, _ in seen]
    assert calls == sorted(calls) and set(range(1, len(run.calls) + 1)) <= set(calls)
    records = [r for _, r, _ in seen]
    assert set(range(1, len(run.records) + 1)) <= set(records)
    # the slider followed the latest boundary
    assert [m for _, _, m in seen] == sorted(m for _, _, m in seen)
    # and it ends as the Inspector of the finished run
    assert inspector.run is run and run.status == "done"
    assert inspector.numbers == key_numbers(run)
    assert inspector.following is not None and inspector.following.redraws >= len(run.records)
    plain = Inspector(run)
    assert inspector.overview_html.value == plain.overview_html.value
    assert inspector.records_html.value == plain.records_html.value
    assert inspector.slider.max == plain.slider.max
    # each chart was redrawn in place, never made anew (._figures.show_figure), and shows the
    # finished run's chart
    assert all(inspector.figures[name] is chart for name, chart in charts.items())
    for name, chart in inspector.figures.items():
        assert _traces(chart) == _traces(plain.figures[name]), name
    inspector.close()
    plain.close()
    # every widget a redraw made was closed with the one it replaced, or with the Inspector
    assert len(_open_widgets) == opened


def test_without_a_running_loop_it_shows_the_finished_run() -> None:
    inspector = Inspector.live(_agent(ScriptedProvider(_replies())), "read the whole log")
    assert inspector.task is None
    assert inspector.run.status == "done" and inspector.numbers["calls"] == 7
    assert inspector.following is not None and inspector.following.redraws >= 1
    inspector.close()


async def test_a_failed_run_ends_shown_as_it_failed() -> None:
    replies = [Reply.tool_call("read_log", part=0), Reply.fail("the provider fell over")]
    inspector = Inspector.live(_agent(SlowProvider(replies)), "read the log")
    assert inspector.task is not None
    # the run's own error goes on; the Inspector shows the run that raised it
    with contextlib.suppress(Exception):
        await inspector.task
    assert inspector.run.status in ("failed", "error")
    assert inspector.numbers["calls"] >= 1
    inspector.close()
