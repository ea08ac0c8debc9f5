"""Child process for the parallel-batch SIGKILL trials (#24 item 5).

One process imports everything once, then plays chains: a chain is one scripted run of three
batches of three parallel calls with random durations (two async tools and one sync tool per
batch, in random positions). Each attempt of a chain is a fork that runs the agent — or
resumes it from the checkpoint file — persisting every checkpoint; this process SIGKILLs it
at a random moment and starts the next attempt, until one finishes. Every kill is a trial.

Everything that happens is written, one ``os.write`` per line, to one log file, in order:

* ``ret <key> <kind>`` — a tool returned (written by the tool as its last act);
* ``commit <seq>`` — the checkpoint hook was called (a result, or a boundary, was just
  committed); the checkpoint it then saves carries ``seq`` in its ``meta``;
* ``attempt <n>`` / ``killed`` — written by this process around each attempt.

After each kill the checkpoint file is loaded and two rules are checked:

* **returned before the last commit ⇒ committed**: every call of this attempt that returned
  on the event loop (the async tools) before the ``commit`` line of the checkpoint on disk
  has its result in that checkpoint — a finished call never waits behind a slower one;
* **committed ⇒ never runs again**: no call whose result the checkpoint holds returns again
  in any later attempt (checked once the chain finished).

A sync tool's result reaches the loop through its worker thread, so for it only the second rule
is checked (the README states the gap). The checkpoint hook sleeps a little, as a slow disk
would, which widens the moment between two commits of one batch.

Usage: ``batch_kill_child.py WORKDIR MIN_KILLS SEED REPORT``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

from footprint_lab import Agent, Reply, ScriptedProvider, load_checkpoint, sliding_window, tool
from footprint_lab.agent import Checkpoint, Run

LOG: dict[str, int] = {}
HOOK_SLEEP_S = 0.002
MAX_KILL_OFFSET_S = 0.09


def _write(line: str) -> None:
    os.write(LOG["fd"], (line + "\n").encode())


def _result(key: str) -> str:
    return f"done {key} " + "r" * 60


@tool
async def work_async(key: str, ms: int) -> str:
    """Work for ``ms`` milliseconds on the event loop."""
    await asyncio.sleep(ms / 1000)
    _write(f"ret {key} async")
    return _result(key)


@tool
def work_sync(key: str, ms: int) -> str:
    """Work for ``ms`` milliseconds in a worker thread."""
    time.sleep(ms / 1000)
    _write(f"ret {key} sync")
    return _result(key)


def script(chain: int, rng: random.Random) -> list[Reply]:
    replies = []
    for batch in range(3):
        kinds = ["work_async", "work_async", "work_sync"]
        rng.shuffle(kinds)
        calls = [
            (name, {"key": f"c{chain}b{batch}n{i}", "ms": rng.randint(0, 15)})
            for i, name in enumerate(kinds)
        ]
        replies.append(Reply.tool_calls(calls))
    replies.append(Reply.text(f"chain {chain} finished"))
    return replies


def build(replies: list[Reply]) -> Agent:
    agent: Agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=8)
        .tools(work_async, work_sync)
        .window(sliding_window(2))
        .build()
    )
    return agent


def sent(run: Run) -> list[list[list[Any]]]:
    return [
        [[m.role, m.stage_id, m.tool_call_id, m.content] for m in run.window_sent(i)]
        for i in range(len(run.calls))
    ]


def attempt(replies: list[Reply], path: Path, report: Path) -> None:
    """In a fork: run (or resume from ``path``), persisting every checkpoint; report."""
    seq = 0

    def persist(checkpoint: Checkpoint) -> None:
        nonlocal seq
        seq += 1
        number = f"{os.getpid()}.{seq}"
        _write(f"commit {number}")
        checkpoint.meta["seq"] = number
        time.sleep(HOOK_SLEEP_S)
        checkpoint.save(path)

    agent = build(replies)
    if path.exists():
        run = agent.resume(load_checkpoint(path), on_checkpoint=persist)
    else:
        run = agent.run("do the work", on_checkpoint=persist)
    report.write_text(json.dumps({"status": run.status, "sent": sent(run)}), encoding="utf-8")


def committed_keys(checkpoint: Checkpoint) -> set[str]:
    return {
        m.content.split()[1]
        for m in checkpoint.ledger.messages
        if m.role == "tool" and m.content.startswith("done ")
    }


def open_batch_state(checkpoint: Checkpoint) -> str:
    answered, pending = checkpoint.answered_calls, checkpoint.pending_calls
    if not answered or not pending:
        return "no batch open" if not answered and not pending else "batch open, no result"
    window = [checkpoint.ledger.messages[p] for p in checkpoint.window]
    asked = next(m for m in reversed(window) if m.role == "assistant").tool_calls
    prefix = [c.id for c in asked[: len(answered)]]
    return "mid-batch, in call order" if answered == prefix else "mid-batch, out of call order"


def play(chain: int, rng: random.Random, workdir: Path, log: Path) -> dict[str, Any]:
    replies = script(chain, rng)
    whole = sent(build(list(replies)).run("do the work"))
    path = workdir / f"chain{chain}.json"
    report = workdir / f"chain{chain}.report.json"
    trials: list[dict[str, Any]] = []
    for number in range(200):
        offset = rng.uniform(0.0, MAX_KILL_OFFSET_S)
        _write(f"attempt {chain}.{number}")
        pid = os.fork()
        if pid == 0:
            try:
                attempt(list(replies), path, report)
            finally:
                os._exit(0)
        deadline = time.monotonic() + offset
        finished = False
        while time.monotonic() < deadline:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                finished = True
                break
            time.sleep(0.0005)
        if finished:
            break
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if not os.WIFSIGNALED(status):  # it finished just before the kill: no trial
            break
        _write("killed")
        trials.append(judge(chain, number, offset, path, log))
        trials[-1]["killed_by"] = -os.WTERMSIG(status)
    result = json.loads(report.read_text(encoding="utf-8"))
    lines = log.read_text(encoding="utf-8").split("\n")
    for trial in trials:  # what returned before the last commit, or was committed, never
        after = lines[trial["log_end"] :]  # returns again in any later attempt
        again = {line.split()[1] for line in after if line.startswith("ret ")}
        trial["committed_ran_again"] = sorted(again & set(trial["committed"]))
        trial["returned_ran_again"] = sorted(again & set(trial["returned_before"]))
    return {
        "chain": chain,
        "status": result["status"],
        "identical": result["sent"] == whole,
        "trials": trials,
    }


def judge(chain: int, number: int, offset: float, path: Path, log: Path) -> dict[str, Any]:
    lines = log.read_text(encoding="utf-8").split("\n")
    start = max(i for i, line in enumerate(lines) if line == f"attempt {chain}.{number}")
    mine = lines[start:]
    committed: set[str] = set()
    state = "no checkpoint yet"
    before: list[list[str]] = []  # [key, kind] of what returned before the last commit
    if path.exists():
        checkpoint = load_checkpoint(path)
        committed = committed_keys(checkpoint)
        state = open_batch_state(checkpoint)
        marker = f"commit {checkpoint.meta.get('seq')}"
        upto = mine.index(marker) if marker in mine else 0
        before = [line.split()[1:] for line in mine[:upto] if line.startswith("ret ")]
    on_loop = {key for key, kind in before if kind == "async"}
    in_thread = {key for key, kind in before if kind == "sync"}
    return {
        "attempt": number,
        "offset_ms": round(offset * 1000, 2),
        "state": state,
        "committed": sorted(committed),
        "returned_before": sorted(on_loop),
        "returned_not_committed": sorted(on_loop - committed),
        "sync_returned_not_committed": sorted(in_thread - committed),  # measured, not a rule
        "log_end": len(lines),
    }


def main() -> None:
    workdir, min_kills, seed, report = (
        Path(sys.argv[1]),
        int(sys.argv[2]),
        int(sys.argv[3]),
        Path(sys.argv[4]),
    )
    log = workdir / "events.log"
    LOG["fd"] = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    rng = random.Random(seed)
    chains = []
    kills = 0
    while kills < min_kills:
        chains.append(play(len(chains), rng, workdir, log))
        kills += len(chains[-1]["trials"])
    report.write_text(json.dumps(chains), encoding="utf-8")


if __name__ == "__main__":
    main()
