"""Child process for the exactly-once SIGKILL trials.

One process imports everything once, then forks per trial: a first fork runs the deploy-audit
story persisting every checkpoint and SIGKILLs itself right after its k-th tool commit (k at
random); a second fork loads the file, builds a fresh agent and resumes. Every execution of the
tool appends a line to a side-effect file, so duplicates are counted, not guessed. Forking keeps
60 trials well inside the test's budget (no interpreter start-up per process).

Usage: ``exactly_once_child.py WORKDIR TRIALS_PER_STRATEGY SEED REPORT``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from footprint_lab import Agent, load_checkpoint, tool
from footprint_lab.agent import Checkpoint, Run
from footprint_lab.scenarios import deploy_audit, read_log

EFFECTS: dict[str, Path] = {}


@tool(name="read_log", description=read_log.description)
def logged_read_log(deployment: str) -> str:
    """Read a deployment log, leaving a trace of the execution on disk."""
    with EFFECTS["path"].open("a", encoding="utf-8") as handle:
        handle.write(deployment + "\n")
    text: str = read_log.fn(deployment)
    return text


def build(strategy_name: str) -> Agent:
    scenario = deploy_audit()
    agent: Agent = (
        Agent.create(provider=scenario.provider(), max_iterations=scenario.max_iterations)
        .system(scenario.system)
        .tool(logged_read_log)
        .window(scenario.strategies()[strategy_name])
        .build()
    )
    return agent


def outcome(run: Run) -> dict[str, Any]:
    return {
        "status": run.status,
        "output": run.output,
        "iterations": run.iterations,
        "windows": [
            [m.model_dump(mode="json") for m in run.window_sent(i)] for i in range(len(run.calls))
        ],
        "records": [r.model_dump(mode="json") for r in run.records],
    }


def executions(path: Path) -> Counter[str]:
    if not path.exists():
        return Counter()
    return Counter(path.read_text(encoding="utf-8").split())


def wait(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def kill_after(strategy_name: str, checkpoint: Path, k: int) -> None:
    """In a fork: run, persist every checkpoint, die right after the k-th tool commit."""
    commits = 0

    def persist(cp: Checkpoint) -> None:
        nonlocal commits
        cp.save(checkpoint)
        if cp.phase == "tools" and cp.answered_calls:  # after a result, not before the batch
            commits += 1
            if commits == k:
                os.kill(os.getpid(), signal.SIGKILL)

    build(strategy_name).run(deploy_audit().request, on_checkpoint=persist)
    os._exit(3)  # finished without being killed: a broken trial


def resume(strategy_name: str, checkpoint: Path, report: Path) -> None:
    """In a fork: load the file, build a fresh agent, resume, report."""
    run = build(strategy_name).resume(load_checkpoint(checkpoint))
    report.write_text(json.dumps(outcome(run)), encoding="utf-8")
    os._exit(0)


def main() -> None:
    workdir, trials, seed, report_path = (
        Path(sys.argv[1]),
        int(sys.argv[2]),
        int(sys.argv[3]),
        Path(sys.argv[4]),
    )
    rng = random.Random(seed)
    summary: dict[str, Any] = {}
    for name in deploy_audit().strategies():
        EFFECTS["path"] = workdir / f"{name}-whole.effects"
        whole = outcome(build(name).run(deploy_audit().request))
        tool_commits = sum(executions(EFFECTS["path"]).values())
        rows = []
        for trial in range(trials):
            k = rng.randint(1, tool_commits)
            checkpoint = workdir / f"{name}-{trial}.json"
            report = workdir / f"{name}-{trial}.report.json"
            EFFECTS["path"] = workdir / f"{name}-{trial}.effects"
            pid = os.fork()
            if pid == 0:
                try:
                    kill_after(name, checkpoint, k)
                finally:
                    os._exit(4)
            killed = wait(pid)
            pid = os.fork()
            if pid == 0:
                try:
                    resume(name, checkpoint, report)
                finally:
                    os._exit(5)
            resumed = wait(pid)
            counts = executions(EFFECTS["path"])
            result = json.loads(report.read_text(encoding="utf-8")) if resumed == 0 else None
            rows.append(
                {
                    "kill_after_tool_commit": k,
                    "killed_by": killed,
                    "resumed_exit": resumed,
                    "executions": sum(counts.values()),
                    "duplicates": sum(n - 1 for n in counts.values() if n > 1),
                    "identical": result == whole,
                }
            )
        summary[name] = {"tool_commits": tool_commits, "trials": rows}
    report_path.write_text(json.dumps(summary), encoding="utf-8")


if __name__ == "__main__":
    main()
