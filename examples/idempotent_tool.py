"""A tool whose side effect happens once, even when a crash makes a resume run it again.

    python examples/idempotent_tool.py

A tool's effect and the checkpoint that records its result are two writes. A process killed
between them — after the tool returned, before its checkpoint was written — runs that call
again when the run is resumed: tools run *at least* once. What stays the same across the two
runs is the call's id, ``current_call_id()``: it is committed with the model's reply before any
tool of the batch runs. Key the effect on it and the second run finds the effect done.

Here the effect is a charge written to SQLite under the call id as primary key
(``INSERT OR IGNORE``). The crash is played exactly: the run is resumed from the checkpoint
written just before the batch's results, as a process killed in that gap would be.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from footprint_lab import Agent, Reply, ScriptedProvider, tool
from footprint_lab.agent import Checkpoint, current_call_id

DB = Path(tempfile.mkdtemp()) / "charges.sqlite"
RAN: list[str] = []


@tool
def charge(customer: str, cents: int) -> str:
    """Charge a customer, once per tool call however often the call runs."""
    key = current_call_id()  # the same id when a resume runs this call again
    RAN.append(f"{key}")
    with sqlite3.connect(DB) as db:
        db.execute("create table if not exists charges (call_id text primary key, customer, cents)")
        added = db.execute(
            "insert or ignore into charges values (?, ?, ?)", (key, customer, cents)
        ).rowcount
    did = "charged" if added else "already charged (this call ran before)"
    return f"{did} {customer} {cents} cents [{key}]"


def agent() -> Agent:
    replies = [
        Reply.tool_calls([("charge", {"customer": "ada", "cents": 500})]),
        Reply.text("Ada is charged."),
    ]
    built: Agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=4).tool(charge).build()
    )
    return built


def main() -> None:
    saved: list[Checkpoint] = []
    run = agent().run("charge ada 5 dollars", on_checkpoint=saved.append)
    # The last checkpoint before the charge's result was committed: what a process killed
    # right after the tool returned would have left on disk.
    before_result = [c for c in saved if not c.answered_calls and c.pending_calls][-1]
    resumed = agent().resume(Checkpoint.model_validate_json(before_result.model_dump_json()))
    with sqlite3.connect(DB) as db:
        rows = db.execute("select call_id, customer, cents from charges").fetchall()
    print(f"first run: {run.status}; resumed from before the result: {resumed.status}")
    print(f"tool ran: {len(RAN)} times, as call(s) {sorted(set(RAN))}")
    print(f"charges recorded: {len(rows)} {rows}")
    print(f"the resumed run's tool result: {resumed.window[-2].content}")


if __name__ == "__main__":
    main()
