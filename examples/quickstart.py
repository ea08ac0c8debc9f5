"""Quickstart: a scripted agent, a sliding window, and what left — recovered from the ledger.

Run: ``python examples/quickstart.py``
"""

from __future__ import annotations

from footprint_lab import Agent, Reply, ScriptedProvider, sliding_window, tool


@tool
def read_log(deployment: str) -> str:
    """Read one deployment's log."""
    return f"DEPLOY {deployment} status=OK\n" + "step ok, 0 errors\n" * 60


def main() -> None:
    provider = ScriptedProvider(
        [
            *(Reply.tool_call("read_log", deployment=d) for d in ("d1", "d2", "d3", "d4")),
            Reply.text("All four deployments are healthy."),
        ]
    )
    agent = (
        Agent.create(provider=provider, max_iterations=8)
        .system("You audit deployments. Read the logs before answering.")
        .tool(read_log)
        .window(sliding_window(keep_recent_turns=2))
        .build()
    )
    run = agent.run("Audit deployments d1 to d4.")
    print(f"status={run.status} output={run.output!r}")
    for record in run.records:
        print(
            f"iteration {record.iteration}: removed {record.removed_stage_ids or '-'}; "
            f"refused {record.refusal_reasons()}; chars {record.window_chars_before}"
            f" -> {record.window_chars_after}"
        )
    # The first log that left: resolve its stage id in the ledger, verbatim.
    removed = [s for r in run.records for s in r.removed_stage_ids]
    original = next(m for s in removed for m in run.ledger.messages_of(s) if m.role == "tool")
    print(
        f"{original.stage_id} left the window but the ledger still has it: "
        f"{original.content.splitlines()[0]!r} ({original.chars} chars)"
    )


if __name__ == "__main__":
    main()
