"""Ledger memory: does the ledger grow with the distinct messages, not iterations x window?"""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

from bench._common import Section, verdict
from footprint_lab import Agent, Message, Reply, ScriptedProvider, sliding_window, tool


def _agent(iterations: int, result_chars: int, strategy: Any) -> Agent:
    payload = "y" * result_chars

    @tool
    def read(i: int) -> str:
        """A 2 KB tool result."""
        return payload[: result_chars - len(str(i))] + str(i)

    replies = [Reply.tool_call("read", i=i) for i in range(iterations - 1)] + [Reply.text("done")]
    builder = Agent.create(
        provider=ScriptedProvider(replies, record_requests=False), max_iterations=iterations
    ).tool(read)
    if strategy is not None:
        builder = builder.window(strategy)
    built: Agent = builder.build()
    return built


def _message_bytes(messages: list[Message]) -> int:
    """Bytes that the distinct messages themselves occupy (rebuilt alone, traced)."""
    dumps = [m.model_dump_json() for m in messages]
    gc.collect()
    tracemalloc.start()
    # From JSON, so every string is built anew inside the trace.
    copies = [Message.model_validate_json(d) for d in dumps]
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del copies
    return size


def measure(iterations: int, result_chars: int, strategy: Any) -> tuple[int, int, int]:
    """(ledger bytes, distinct-message bytes, commits) for one run."""
    agent = _agent(iterations, result_chars, strategy)
    gc.collect()
    tracemalloc.start()
    run = agent.run("read everything")
    # Keep only the ledger: drop what the run holds beside it, and the provider's requests.
    ledger = run.ledger
    run.events.clear()
    run.calls.clear()
    run.records.clear()
    run.window = []
    run.folded.clear()
    agent.conversation = None
    del run
    gc.collect()
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return size, _message_bytes(list(ledger.messages)), len(ledger)


def run(iterations: int, result_chars: int) -> Section:
    """Ledger bytes over distinct-message bytes, with and without a strategy."""
    section = Section(
        "4. Ledger memory",
        f"A {iterations:,}-iteration scripted run with {result_chars:,}-character tool results, "
        "traced with tracemalloc. *Ledger* = everything still allocated once the run is reduced "
        "to its ledger (messages, commits, positions, records); *messages* = the same distinct "
        "messages rebuilt on their own. Target: ledger / messages at most 1.5.",
        ["strategy", "commits", "ledger (MB)", "messages (MB)", "ratio", "target"],
    )
    for label, strategy in (("none", None), ("sliding_window(6)", sliding_window(6))):
        ledger_bytes, message_bytes, commits = measure(iterations, result_chars, strategy)
        ratio = ledger_bytes / message_bytes
        section.rows.append(
            [label, commits, ledger_bytes / 1e6, message_bytes / 1e6, ratio, verdict(ratio <= 1.5)]
        )
    return section
