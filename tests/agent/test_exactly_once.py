"""Exactly once: every committed tool result is checkpointed, and a resume runs only the calls
of the open batch that have no result — in-process, and across SIGKILLs in child processes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from footprint_lab import Agent, Reply, ScriptedProvider, sliding_window, tool
from footprint_lab.agent import Checkpoint, current_call_id
from footprint_lab.agent.checkpoint import run_from_checkpoint

CHILD = Path(__file__).with_name("exactly_once_child.py")
TRIALS_PER_STRATEGY = 20
STAGGER_S = {"b": 0.15, "c": 0.3}
"""Results that finish together are committed together (one checkpoint): staggered, the
three calls of the batch finish, and are checkpointed, one by one."""


def _batch_agent(executed: Counter[str]) -> Agent:
    @tool
    def fetch(key: str) -> str:
        """Fetch a value; "b" and "c" take longer, so each result is committed on its own."""
        time.sleep(STAGGER_S.get(key, 0.0))
        executed[key] += 1
        return f"{key}: " + "v" * 120

    replies = [
        Reply.tool_calls(
            [("fetch", {"key": "a"}), ("fetch", {"key": "b"}), ("fetch", {"key": "c"})]
        ),
        Reply.tool_call("fetch", key="d"),
        Reply.text("all fetched"),
    ]
    agent: Agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=5)
        .tool(fetch)
        .window(sliding_window(2))
        .build()
    )
    return agent


def test_a_checkpoint_follows_every_committed_tool_result() -> None:
    executed: Counter[str] = Counter()
    seen: list[Checkpoint] = []
    run = _batch_agent(executed).run("fetch everything", on_checkpoint=seen.append)
    assert run.status == "done"
    after_results = [c for c in seen if c.phase == "tools" and c.answered_calls]
    assert len(after_results) == 4 == sum(executed.values())
    answered = [run_from_checkpoint(c).answered_calls for c in after_results]
    assert answered == [
        ["call_1"],
        ["call_1", "call_2"],
        ["call_1", "call_2", "call_3"],
        ["call_4"],
    ]
    pending = [run_from_checkpoint(c).pending_calls for c in after_results]
    assert pending == [["call_2", "call_3"], ["call_3"], [], []]
    # The checkpoint itself says which calls of the batch have results.
    assert [c.answered_calls for c in after_results] == answered
    assert [c.pending_calls for c in after_results] == pending
    # The iteration boundaries still checkpoint too.
    assert [c.iterations for c in seen if c.phase == "window"] == [0, 1, 2]


def test_a_resume_mid_batch_runs_only_the_calls_without_a_result() -> None:
    whole = _batch_agent(Counter()).run("fetch everything")
    seen: list[Checkpoint] = []
    _batch_agent(Counter()).run("fetch everything", on_checkpoint=seen.append)
    first_result = next(c for c in seen if c.phase == "tools" and c.answered_calls)
    executed: Counter[str] = Counter()
    resumed = _batch_agent(executed).resume(
        Checkpoint.model_validate_json(first_result.model_dump_json())
    )
    assert executed == Counter({"b": 1, "c": 1, "d": 1})  # "a" had its result: it did not run
    assert resumed.status == "done" and resumed.output == whole.output
    for i in range(len(whole.calls)):
        assert resumed.window_sent(i) == whole.window_sent(i)
    assert [r.model_dump() for r in resumed.records] == [r.model_dump() for r in whole.records]
    # The batch's results share one stage id, resumed or not.
    batch = [m for m in resumed.ledger.messages if m.role == "tool"][:3]
    assert len({m.stage_id for m in batch}) == 1


def test_sigkill_right_after_a_tool_commit_never_runs_a_tool_twice(tmp_path: Path) -> None:
    report = tmp_path / "summary.json"
    done = subprocess.run(
        [
            sys.executable,
            str(CHILD),
            str(tmp_path),
            str(TRIALS_PER_STRATEGY),
            "20261201",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard only
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(report.read_text())
    assert set(summary) == {"sliding-window", "token-budget", "summarize-oldest"}
    for name, result in summary.items():
        trials = result["trials"]
        assert len(trials) == TRIALS_PER_STRATEGY, name
        assert result["tool_commits"] == 6
        assert all(t["killed_by"] == -signal.SIGKILL for t in trials), name
        assert all(t["resumed_exit"] == 0 for t in trials), name
        assert [t["duplicates"] for t in trials] == [0] * TRIALS_PER_STRATEGY, name
        assert all(t["executions"] == result["tool_commits"] for t in trials), name
        assert all(t["identical"] for t in trials), name
        # The kill points are spread over the run, not bunched at one commit.
        assert len({t["kill_after_tool_commit"] for t in trials}) >= 3, name


def test_a_crash_inside_a_tool_resumes_the_batch_without_asking_the_model_again() -> None:
    """The reply and its call ids are checkpointed before any tool runs: a process killed while
    a tool runs (its result not yet checkpointed) resumes at that checkpoint — the model is not
    asked again, so a provider that mints new ids per reply cannot change them — and the call
    runs again under its id (``current_call_id``, the idempotency key)."""
    saved: list[Checkpoint] = []
    ids: list[tuple[str | None, int]] = []

    @tool
    def charge(cents: int) -> str:
        """Charge; note the call id and how many checkpoints were written before it."""
        ids.append((current_call_id(), len(saved)))
        return f"charged {cents}"

    def build(replies: list[Reply]) -> tuple[Agent, ScriptedProvider]:
        provider = ScriptedProvider(replies)
        agent: Agent = Agent.create(provider=provider, max_iterations=4).tool(charge).build()
        return agent, provider

    first, _ = build([Reply.tool_call("charge", cents=500), Reply.text("done")])
    first.run("charge", on_checkpoint=saved.append)
    [(call_id, written)] = ids
    on_disk = saved[written - 1]  # the last checkpoint written before the tool returned
    assert on_disk.phase == "tools" and on_disk.pending_calls == [call_id]
    # asked for the batch's reply again, this provider would answer with another call (999):
    # the resume never asks it — the script goes on from the file's provider state
    again, provider = build([Reply.tool_call("charge", cents=999), Reply.text("done")])
    resumed = again.resume(Checkpoint.model_validate_json(on_disk.model_dump_json()))
    assert resumed.status == "done" and resumed.output == "done"
    assert [i for i, _ in ids] == [call_id, call_id]  # the same id, run again
    assert [m.content for m in resumed.ledger.messages if m.role == "tool"] == ["charged 500"]
    assert len(resumed.calls) == 2 and provider.calls == 2  # the batch's reply, then the answer
