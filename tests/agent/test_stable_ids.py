"""Stage ids are stable across a resume (#24 item 8): a run that faulted or was interrupted and
then resumed numbers every stage — message by message, call by call, record by record — as the
same run uninterrupted. A failed or interrupted model call and its re-run share one stage id."""

from __future__ import annotations

from typing import Any

import pytest

from footprint_lab import Agent, ProviderError, Reply, ScriptedProvider, sliding_window, tool
from footprint_lab.agent import Checkpoint, Run
from footprint_lab.providers import ProviderRequest, ProviderResponse
from tests.builders import Delegating

TRIP: dict[str, Any] = {}


@tool
async def step(n: int) -> str:
    """One step of the work (async: the batch finishes in call order)."""
    if TRIP.get("tool") == n:
        del TRIP["tool"]
        raise KeyboardInterrupt
    return f"step {n} " + "x" * 150


def _script() -> list[Reply]:
    batches = [Reply.tool_calls([("step", {"n": i}), ("step", {"n": 10 + i})]) for i in range(5)]
    return [*batches, Reply.text("all done")]


class Tripping(Delegating):
    """A scripted provider whose ``at``-th call raises ``TRIP['provider']`` once, consuming no
    reply (a 503, a Ctrl-C while waiting on the API)."""

    def __init__(self, at: int) -> None:
        super().__init__(ScriptedProvider(_script()))
        self.at = at
        self.calls = 0

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        self.calls += 1
        if self.calls == self.at and "provider" in TRIP:
            raise TRIP.pop("provider")
        return await self.inner.complete(request)


def _agent(at: int = 0) -> Agent:
    agent: Agent = (
        Agent.create(provider=Tripping(at), max_iterations=10)
        .tool(step)
        .window(sliding_window(2))
        .build()
    )
    return agent


def _ids(run: Run) -> dict[str, Any]:
    return {
        "messages": [(m.role, m.stage_id) for m in run.ledger.messages],
        "answered calls": [c.stage_id for c in run.calls if c.usage is not None],
        "sent": [
            [(m.stage_id, m.content) for m in run.window_sent(i)]
            for i, c in enumerate(run.calls)
            if c.usage is not None
        ],
        # Without ``commit``, a position in the commit log, not an id: a batch interrupted
        # after a later call finished first commits its results in another order (and one
        # window commit more to keep the window in call order).
        "records": [r.model_dump(exclude={"commit"}) for r in run.records],
        "stages": run.ledger.stage_count,
    }


def _reloaded(run: Run) -> Checkpoint:
    return Checkpoint.model_validate_json(run.checkpoint().model_dump_json())


@pytest.mark.parametrize("at", [1, 3, 6])
def test_a_provider_fault_and_resume_on_error_number_stages_as_the_whole_run(at: int) -> None:
    whole = _agent().run("work")
    assert whole.status == "done"
    TRIP["provider"] = ProviderError("503 overloaded", status=503)
    agent = _agent(at)
    failed = agent.run("work")
    assert failed.status == "error"
    resumed = agent.resume_on_error(_reloaded(failed))
    assert resumed.status == "done" and resumed.output == whole.output
    assert _ids(resumed) == _ids(whole)
    # The failed call got no reply; its re-run, under the same id, took its place in the calls
    # (the calls are the whole run's), and the events still tell of the attempt.
    (failed_call,) = [c for c in failed.calls if c.iteration == at]
    (rerun,) = [c for c in resumed.calls if c.iteration == at]
    assert failed_call.usage is None and rerun.usage is not None
    assert failed_call.stage_id == rerun.stage_id
    assert [c.model_dump() for c in resumed.calls] == [c.model_dump() for c in whole.calls]
    starts = [e for e in resumed.events if e.type == "llm.start" and e.stage_id == rerun.stage_id]
    assert len(starts) == 2


@pytest.mark.parametrize("at", [2, 5])
def test_an_interrupt_during_the_model_call_and_resume_number_stages_as_the_whole_run(
    at: int,
) -> None:
    whole = _agent().run("work")
    TRIP["provider"] = KeyboardInterrupt()
    agent = _agent(at)
    with pytest.raises(KeyboardInterrupt) as info:
        agent.run("work")
    cancelled: Run = info.value.run  # type: ignore[attr-defined]
    assert cancelled.status == "cancelled"
    resumed = agent.resume(_reloaded(cancelled))
    assert resumed.status == "done"
    assert _ids(resumed) == _ids(whole)


@pytest.mark.parametrize("n", [1, 12])  # the first call of a batch; the second, after a result
def test_an_interrupt_in_a_tool_and_resume_number_stages_as_the_whole_run(n: int) -> None:
    whole = _agent().run("work")
    TRIP["tool"] = n
    agent = _agent()
    with pytest.raises(KeyboardInterrupt) as info:
        agent.run("work")
    cancelled: Run = info.value.run  # type: ignore[attr-defined]
    resumed = agent.resume(_reloaded(cancelled))
    assert resumed.status == "done"
    assert _ids(resumed) == _ids(whole)


def test_a_fault_then_an_interrupt_still_number_stages_as_the_whole_run() -> None:
    whole = _agent().run("work")
    TRIP["provider"] = ProviderError("503 overloaded", status=503)
    agent = _agent(2)
    failed = agent.run("work")
    TRIP["tool"] = 13
    with pytest.raises(KeyboardInterrupt) as info:
        agent.resume_on_error(_reloaded(failed))
    resumed = agent.resume(_reloaded(info.value.run))  # type: ignore[attr-defined]
    assert _ids(resumed) == _ids(whole)
