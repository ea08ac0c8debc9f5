"""The cyclic collector is the caller's (#25 item 6d): no library function pauses it, and
``bulk_work`` is the one opt-in pause for bulk work."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import footprint_lab
from footprint_lab import Agent, Reply, Run, ScriptedProvider, bulk_work, replay, tool
from footprint_lab._gc import in_bulk_work
from footprint_lab.agent.origin import Import
from footprint_lab.export import to_otel
from footprint_lab.importers import (
    from_anthropic,
    from_langchain,
    from_openai,
    load,
    load_otel,
    load_tau_bench,
)
from footprint_lab.lab import capture
from footprint_lab.lab._evidence_rows import RELATIVE_PRICING, job
from footprint_lab.lab.evidence import EvidenceConfig, evidence_frame, no_policy
from footprint_lab.window import StrategyInput, StrategyResult

DATA = Path(__file__).resolve().parents[1] / "data"


@dataclass
class Watch:
    """A strategy that never removes anything and notes, at each visit, whether the collector
    is on (so a replay shows what the library did to it mid-work)."""

    name: str = "watch"
    seen: list[bool] = field(default_factory=list)

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        self.seen.append(gc.isenabled())
        return None


@pytest.fixture
def disables(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every ``gc.disable()`` call, by whom; the collector itself is left as it was."""
    assert gc.isenabled()
    calls: list[str] = []
    monkeypatch.setattr(gc, "disable", lambda: calls.append("gc.disable()"))
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("gc.freeze()"))
    yield calls
    assert gc.isenabled()


def _agent_run() -> Run:
    @tool
    def look(n: int) -> str:
        """Look something up."""
        return f"result {n} " * 20

    replies = [Reply.tool_calls([("look", {"n": i})]) for i in range(6)] + [Reply.text("done")]
    agent = Agent.create(provider=ScriptedProvider(replies)).tools(look).build()
    return agent.run("find it")


def _openai() -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{}"}}
    return [
        {"role": "user", "content": "find it"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "found"},
        {"role": "assistant", "content": "done"},
    ]


def test_no_library_entry_point_pauses_the_collector(disables: list[str], tmp_path: Path) -> None:
    run = _agent_run()
    watch = Watch()
    replayed = replay(run, watch)
    assert watch.seen and all(watch.seen)  # on at every visit of the replay
    capture(run)
    capture(replayed)
    evidence_frame([run], [no_policy(), EvidenceConfig("watch", Watch())], progress=False)
    imported = [
        from_openai(_openai()),
        from_anthropic([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]),
        from_langchain(
            [
                {"type": "human", "data": {"content": "hi"}},
                {"type": "ai", "data": {"content": "ok"}},
            ]
        ),
        *load_tau_bench(DATA / "tau-bench"),
        *load(DATA / "transcripts"),
    ]
    imported += load_otel(to_otel(run, tmp_path / "trace.json"))
    formats = {r.origin.format for r in imported if isinstance(r.origin, Import)}
    assert {"claude-code", "inspect", "openhands", "swe-agent"} <= formats, formats
    assert disables == []


def test_bulk_work_pauses_the_collector_and_restores_it() -> None:
    assert gc.isenabled() and not in_bulk_work()
    with bulk_work():
        assert not gc.isenabled() and in_bulk_work()
        with bulk_work():  # nests
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled() and not in_bulk_work()

    @bulk_work()
    def inside() -> bool:
        return gc.isenabled()

    assert inside() is False and gc.isenabled()
    with pytest.raises(RuntimeError), bulk_work():
        raise RuntimeError("work failed")
    assert gc.isenabled()


def test_bulk_work_leaves_a_collector_the_caller_turned_off_off() -> None:
    gc.disable()
    try:
        with bulk_work():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_blocks_on_two_threads_keep_the_pause_until_the_last_closes() -> None:
    opened, release = threading.Event(), threading.Event()

    def other() -> None:
        with bulk_work():
            opened.set()
            release.wait(10)

    with bulk_work():
        thread = threading.Thread(target=other)
        thread.start()
        assert opened.wait(10)
    assert not gc.isenabled()  # the other thread's block is still open
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_a_worker_job_keeps_the_callers_pause() -> None:
    """``evidence_frame`` with an executor hands its workers whether it ran inside
    ``bulk_work``: the job pauses its own process's collector only then."""
    shipped = [_agent_run().checkpoint().model_dump_json()]
    for bulk in (False, True):
        watch = Watch()
        job((shipped, EvidenceConfig("watch", watch), 20, RELATIVE_PRICING, "prefix", bulk))
        assert watch.seen and set(watch.seen) == {not bulk}
        assert gc.isenabled()


def test_bulk_work_is_importable_from_the_root_and_documented() -> None:
    assert footprint_lab.bulk_work is bulk_work
    assert "bulk_work" in dir(footprint_lab)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "bulk_work()" in readme
