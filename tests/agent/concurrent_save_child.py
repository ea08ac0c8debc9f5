"""Child process for the concurrent-save test: several threads save runs to one path, over and
over, and report every save that failed (as JSON on stdout)."""

from __future__ import annotations

import json
import sys
import threading

from footprint_lab import Agent, Reply, ScriptedProvider


def main() -> None:
    path, threads, saves = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    agent = Agent.create(provider=ScriptedProvider([Reply.text("ok")])).build()
    checkpoint = agent.run(f"save from {sys.argv[4]}").checkpoint()
    failures: list[str] = []
    start = threading.Barrier(threads)

    def saver() -> None:
        start.wait()
        for _ in range(saves):
            try:
                checkpoint.save(path)
            except Exception as exc:  # every failure is reported, whatever its type
                failures.append(f"{type(exc).__name__}: {exc}")

    workers = [threading.Thread(target=saver) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    json.dump({"saves": threads * saves, "failures": failures}, sys.stdout)


if __name__ == "__main__":
    main()
