"""Child process for the kill/resume test: run until iteration K, persisting a checkpoint at
every boundary, then die hard (SIGKILL); or resume from the last checkpoint and report."""

from __future__ import annotations

import json
import os
import signal
import sys

from footprint_lab import load_checkpoint
from footprint_lab.scenarios import deploy_audit


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    scenario = deploy_audit()
    agent = scenario.agent(scenario.strategies()["sliding-window"])
    if mode == "kill":
        kill_at = int(sys.argv[3])

        def persist(checkpoint: object) -> None:
            checkpoint.save(path)  # type: ignore[attr-defined]
            if checkpoint.iterations == kill_at:  # type: ignore[attr-defined]
                os.kill(os.getpid(), signal.SIGKILL)

        agent.run(scenario.request, on_checkpoint=persist)
        raise SystemExit("the run finished before it was killed")
    run = agent.resume(load_checkpoint(path))
    windows = [[m.model_dump() for m in run.window_sent(i)] for i in range(len(run.calls))]
    out = {
        "status": run.status,
        "output": run.output,
        "windows": windows,
        "records": [r.model_dump() for r in run.records],
    }
    with open(sys.argv[3], "w") as handle:
        json.dump(out, handle)


if __name__ == "__main__":
    main()
