"""How wide is the at-least-once window? Kill a run at random moments, resume it, count re-runs.

    .venv/bin/python bench/at_least_once.py [TRIALS] [SEED]

A tool's side effect and the checkpoint that records its result are two writes; a process
killed between them runs that call again on resume. Two measurements:

* **The gap**, in a run that is not killed: for each tool result, the time from the tool's
  return to the end of the ``on_checkpoint`` call that holds it (``Checkpoint.save`` to a
  file), split into the library's part (return to the hook being called) and the hook's own
  part (writing the file).
* **Kills**: a forked child runs batches of three parallel calls (each tool sleeps 5-40 ms,
  then appends its call id to an effects file) persisting every checkpoint; the parent
  SIGKILLs it at a uniformly random moment of the run; a second fork resumes from the file.
  Counted: trials in which some call ran twice, and calls that did.

The machine's load is printed: the gap widens when the event loop waits for a core.
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from footprint_lab import Agent, Reply, ScriptedProvider, load_checkpoint, tool
from footprint_lab.agent import Checkpoint, current_call_id

BATCHES = 4
"""Batches of three parallel calls in one run."""

EFFECTS: dict[str, Path] = {}
RETURNED: dict[str, float] = {}


@tool
def work(n: int) -> str:
    """Sleep a little, leave a trace, return."""
    time.sleep(random.uniform(0.005, 0.040))
    key = current_call_id() or "?"
    with EFFECTS["path"].open("a", encoding="utf-8") as handle:
        handle.write(key + "\n")
    RETURNED[key] = time.perf_counter()
    return f"done {n}"


def agent() -> Agent:
    replies = [
        Reply.tool_calls([("work", {"n": 3 * b + i}) for i in range(3)]) for b in range(BATCHES)
    ]
    built: Agent = (
        Agent.create(provider=ScriptedProvider([*replies, Reply.text("all done")]))
        .tool(work)
        .build()
    )
    return built


def gaps(folder: Path) -> tuple[list[float], list[float]]:
    """One unkilled run: per result, (return → hook called, hook's own write) in ms."""
    EFFECTS["path"] = folder / "gap.effects"
    file = folder / "gap.json"
    library: list[float] = []
    hook: list[float] = []
    held: set[str] = set()

    def persist(checkpoint: Checkpoint) -> None:
        called = time.perf_counter()
        checkpoint.save(file)
        saved = time.perf_counter()
        for key in set(checkpoint.answered_calls) - held:
            held.add(key)
            library.append((called - RETURNED[key]) * 1000)
            hook.append((saved - called) * 1000)

    agent().run("work", on_checkpoint=persist)
    return library, hook


def _wait(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def trial(folder: Path, n: int, rng: random.Random, span: float) -> tuple[int, int]:
    """One kill and resume; returns (calls that ran twice, killed mid-run or not)."""
    EFFECTS["path"] = folder / f"{n}.effects"
    file = folder / f"{n}.json"
    pid = os.fork()
    if pid == 0:
        agent().run("work", on_checkpoint=lambda c: c.save(file))
        os._exit(0)
    time.sleep(rng.uniform(0, span))
    os.kill(pid, signal.SIGKILL)
    killed = _wait(pid) == -signal.SIGKILL
    if killed and file.exists():
        pid = os.fork()
        if pid == 0:
            run = agent().resume(load_checkpoint(file))
            os._exit(0 if run.status == "done" else 1)
        assert _wait(pid) == 0
    effects = EFFECTS["path"]
    counts = Counter(effects.read_text(encoding="utf-8").split() if effects.exists() else [])
    return sum(1 for c in counts.values() if c > 1), int(killed)


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 20261206)
    print(
        f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; cores: {os.cpu_count()}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        library, hook = gaps(folder)
        q = statistics.quantiles
        print(
            f"gap per result ({len(library)} results): return -> hook called median "
            f"{statistics.median(library):.2f} ms, p90 {q(library, n=10)[-1]:.2f} ms, max "
            f"{max(library):.2f} ms; the hook's Checkpoint.save median "
            f"{statistics.median(hook):.2f} ms, max {max(hook):.2f} ms"
        )
        start = time.perf_counter()
        EFFECTS["path"] = folder / "timing.effects"
        agent().run("work", on_checkpoint=lambda c: c.save(folder / "timing.json"))
        span = time.perf_counter() - start
        rerun = trials_with = killed = 0
        for n in range(trials):
            again, was_killed = trial(folder, n, rng, span)
            rerun += again
            trials_with += again > 0
            killed += was_killed
    print(
        f"kills: {killed} of {trials} trials killed mid-run ({BATCHES} batches of 3 calls, "
        f"{span * 1000:.0f} ms a run); {trials_with} trial(s) ran some call twice, "
        f"{rerun} call(s) in all"
    )


if __name__ == "__main__":
    main()
