"""Build a ledger-backed run from an imported message list.

Layer: importers (above the agent's run model). Every message gets a stage id in the agent's
own scheme (``seed#n`` for user turns, ``call-llm#n`` for assistant replies with their usage,
``tool-calls#n`` for consecutive tool results), so ``replay`` and ``capture`` treat an import
like any recorded run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from footprint_lab.agent.run import CallRecord, Run
from footprint_lab.ledger import Ledger
from footprint_lab.messages import Message, window_chars
from footprint_lab.usage import Usage


class TranscriptError(ValueError):
    """An imported transcript is malformed; the message names the index and the field."""

    def __init__(self, source: str, index: int | None, field: str, problem: str) -> None:
        where = f"message {index}" if index is not None else "transcript"
        super().__init__(f"{source}: {where}, field {field!r}: {problem}")
        self.index = index
        self.field = field


def build_run(
    messages: Sequence[Message],
    usages: Sequence[Usage | None],
    *,
    system: str | None,
    source: str,
    meta: dict[str, Any] | None = None,
) -> Run:
    """Commit ``messages`` in order and return a finished run.

    Args:
        messages: The conversation (system prompt excluded).
        usages: One entry per assistant message: its reported usage, or None.
        system: The system prompt.
        source: Where it came from ('openai', 'anthropic', 'langchain', ...).
        meta: Extra facts (task id, ...).
    """
    ledger = Ledger()
    run = Run(request="", ledger=ledger, system=system, provider=source, model="imported")
    run.meta = {"imported_from": source, **(meta or {})}
    window: list[Message] = []
    replies = iter(usages)
    # seed#0 carries the system prompt, as in an agent run, and the first user turn.
    seed = ledger.begin_stage("seed")
    if system is not None:
        ledger.put(seed, "system", system)
    first_seed: str | None = seed
    i = 0
    while i < len(messages):
        message = messages[i]
        if message.role == "tool":
            j = i
            while j < len(messages) and messages[j].role == "tool":
                j += 1
            window.extend(ledger.append(ledger.begin_stage("tool-calls"), messages[i:j]))
            i = j
            continue
        if message.role == "assistant":
            run.iterations += 1
            stage = ledger.begin_stage("call-llm")
            usage = next(replies, None)
            run.calls.append(
                CallRecord(
                    iteration=run.iterations,
                    stage_id=stage,
                    sent_commit=len(ledger) - 1,
                    messages=len(window),
                    chars=window_chars(window),
                    usage=usage,
                )
            )
            if usage is not None:
                ledger.put(stage, "usage", usage)
                run.last_usage = usage
            window.extend(ledger.append(stage, [message]))
        else:
            if message.role == "user" and message.authored is None:
                run.request = message.content
                run.requests.append(message.content)
            stage = first_seed if first_seed is not None else ledger.begin_stage("seed")
            first_seed = None
            window.extend(ledger.append(stage, [message]))
        i += 1
    run.window = window
    last = window[-1] if window else None
    finished = last is not None and last.role == "assistant" and not last.tool_calls
    run.status = "done" if finished else "max-iterations"
    run.output = last.content if finished and last is not None else None
    run.phase = "finished"
    return run
