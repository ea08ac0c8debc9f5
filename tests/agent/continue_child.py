"""Child process for the durable-conversation test.

``first STRATEGY RUNFILE CHECKPOINT``: run the deploy audit and save it both ways.
``second SOURCE FILE REPORT``: in a new process, load the run (``run``) or the checkpoint
(``checkpoint``), build a fresh agent, ``continue_from`` it and send the next request.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from footprint_lab import Agent, Reply, ScriptedProvider, load_checkpoint, load_run, sliding_window
from footprint_lab.scenarios import deploy_audit

NEXT_REQUEST = "Now re-check d4 and tell me whether the rollback finished."


def first(strategy_name: str, run_file: Path, checkpoint_file: Path) -> None:
    scenario = deploy_audit()
    run = scenario.agent(scenario.strategies()[strategy_name]).run(scenario.request)
    assert run.status == "done", run.status
    run.save(run_file)
    run.checkpoint().save(checkpoint_file)


def second(source: str, path: Path, report: Path) -> None:
    loaded = load_run(path) if source == "run" else load_checkpoint(path)
    scenario = deploy_audit()
    # Scripted for the continuation only: the earlier reply position is not restored.
    provider = ScriptedProvider(
        [Reply.tool_call("read_log", deployment="d4"), Reply.text("d4: rollback finished.")]
    )
    agent = (
        Agent.create(provider=provider, max_iterations=4)
        .system(scenario.system)
        .tools(*scenario.tools)
        .window(sliding_window(100))  # engages late: the first window is the history as-is
        .build()
    )
    # Another policy than the first run's (summarize-oldest, sliding-window(3)): allowed.
    assert agent.continue_from(loaded, allow_policy_change=True) is agent
    run = agent.run(NEXT_REQUEST)
    out = {
        "status": run.status,
        "output": run.output,
        "requests": run.requests,
        "ledger_users": [m.content for m in run.ledger.messages if m.role == "user"],
        "ledger_messages": len(run.ledger.messages),
        "calls": len(run.calls),
        "windows": [
            [m.model_dump(mode="json") for m in run.window_sent(i)] for i in range(len(run.calls))
        ],
        "provider_calls": provider.calls,
    }
    report.write_text(json.dumps(out), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "first":
        first(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        second(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
