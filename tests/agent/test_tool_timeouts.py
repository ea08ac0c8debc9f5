"""``tool_timeout`` ends every tool at its bound (#24 item 16): an async tool that blocks the
event loop or swallows its cancellation gets an error result and the run goes on, and calls that
outlived their timeout cannot pile up threads without bound."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from footprint_lab import Agent, Reply, ScriptedProvider, tool
from footprint_lab.agent._workers import STRANDED_LIMIT, WORKERS
from footprint_lab.agent.tools import Tool

HANG_GUARD_S = 10.0
BOUND_S = 0.3


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set when the test ends, so every tool still hanging returns and frees its thread."""
    event = threading.Event()
    yield event
    event.set()


def _run(tools: list[Tool], calls: list[tuple[str, dict[str, object]]]) -> list[str]:
    replies = [Reply.tool_calls(calls), Reply.text("went on")]
    agent = Agent.create(provider=ScriptedProvider(replies), tool_timeout=BOUND_S)
    run = agent.tools(*tools).build().run("go")
    assert run.status == "done" and run.output == "went on"
    return [m.content for m in run.window_sent(1) if m.role == "tool"]


def _timed_out(name: str) -> str:
    return f"error: TimeoutError: tool '{name}' did not finish within {BOUND_S} s"


def test_an_async_tool_that_blocks_the_event_loop_ends_at_the_bound(
    release: threading.Event,
) -> None:
    ended = threading.Event()

    @tool
    async def hog() -> str:
        """Blocks whatever loop runs it (a sync wait inside an async tool)."""
        release.wait(HANG_GUARD_S)
        ended.set()
        return "late"

    @tool
    async def quick() -> str:
        """Answers at once."""
        return "quick"

    assert _run([hog, quick], [("hog", {}), ("quick", {})]) == [_timed_out("hog"), "quick"]
    assert not ended.is_set()  # the run went on while the tool still blocked


def test_an_async_tool_that_swallows_its_cancellation_ends_at_the_bound(
    release: threading.Event,
) -> None:
    ended = threading.Event()
    swallowed: list[int] = []

    @tool
    async def stubborn() -> str:
        """Refuses to be cancelled until released (or the hang guard passed)."""
        give_up = time.monotonic() + HANG_GUARD_S
        while not release.is_set() and time.monotonic() < give_up:
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                swallowed.append(1)
        ended.set()
        return "late"

    assert _run([stubborn], [("stubborn", {})]) == [_timed_out("stubborn")]
    assert not ended.is_set()
    deadline = time.monotonic() + HANG_GUARD_S
    while not swallowed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert swallowed  # it was asked to stop, in its own loop, and refused
    release.set()
    assert ended.wait(HANG_GUARD_S)
    while WORKERS.stranded(stubborn) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert WORKERS.stranded(stubborn) == 0  # once it returned, its thread is free again


def test_a_polite_async_tool_is_cancelled_at_the_bound() -> None:
    cleaned = threading.Event()

    @tool
    async def slow() -> str:
        """Sleeps long, cleaning up when cancelled."""
        try:
            await asyncio.sleep(HANG_GUARD_S)
        finally:
            cleaned.set()
        return "late"

    assert _run([slow], [("slow", {})]) == [_timed_out("slow")]
    assert cleaned.wait(HANG_GUARD_S)


def test_calls_that_outlive_their_timeout_cannot_pile_up_threads(
    release: threading.Event,
) -> None:
    running = {"now": 0, "most": 0}
    lock = threading.Lock()

    @tool
    def hangs(n: int) -> str:
        """Hangs its thread until released."""
        with lock:
            running["now"] += 1
            running["most"] = max(running["most"], running["now"])
        release.wait(HANG_GUARD_S)
        with lock:
            running["now"] -= 1
        return "late"

    calls = STRANDED_LIMIT + 4
    replies = [Reply.tool_call("hangs", n=i) for i in range(calls)] + [Reply.text("went on")]
    agent = Agent.create(
        provider=ScriptedProvider(replies), max_iterations=calls + 1, tool_timeout=0.05
    )
    run = agent.tool(hangs).build().run("go")
    assert run.status == "done"
    results = [m.content for m in run.ledger.messages if m.role == "tool"]
    timed_out = "error: TimeoutError: tool 'hangs' did not finish within 0.05 s"
    refused = (
        f"error: tool 'hangs' was not run: {STRANDED_LIMIT} of its calls that outlived their "
        f"timeout still hold their threads (at most {STRANDED_LIMIT} may); a call runs again "
        "once one of them returns"
    )
    assert results == [timed_out] * STRANDED_LIMIT + [refused] * 4
    assert running["most"] == STRANDED_LIMIT  # never more threads held than the bound
    release.set()
    deadline = time.monotonic() + HANG_GUARD_S
    while WORKERS.stranded(hangs) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert WORKERS.stranded(hangs) == 0 and running["now"] == 0
