"""The tools stage: a batch of tool calls run, and each result committed as it finishes.

Layer: agent. The loop (:mod:`footprint_lab.agent._loop`) calls :func:`tool_calls` at its
``tools`` step; :mod:`footprint_lab.agent._pauses` commits a person's answer through
:func:`commit_result`. Functions of the loop, not methods: this module names ``_Loop`` only for
type checking, so it imports nothing above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from footprint_lab.agent.run import PauseState, open_batch
from footprint_lab.agent.tools import is_error_result, run_tool_calls
from footprint_lab.events import ToolEnd
from footprint_lab.messages import Message

if TYPE_CHECKING:
    from footprint_lab.agent._loop import _Loop


def commit_result(loop: _Loop, iteration: int, stage: str, result: Message) -> None:
    """Commit one tool result under ``stage`` and append it to the window."""
    (committed,) = loop.ledger.append(stage, [result])
    loop.window.append(committed)
    loop.recorder.emit(
        ToolEnd(
            iteration=iteration,
            at_ms=loop.now(),
            call_id=committed.tool_call_id or "",
            name=committed.name or "",
            error=is_error_result(committed),
        )
    )


async def tool_calls(loop: _Loop, iteration: int) -> None:
    """Run the calls of the open batch that have no result yet (all of them, unless the
    run resumes mid-batch), committing each result as it finishes — under the batch's one
    stage id, one history commit per result — with a checkpoint after each, so a resume
    never runs a call whose result was committed. A call to a tool that waits for a person
    pauses the run instead."""
    assistant, answered = open_batch(loop.window)
    assert assistant is not None, "the tools step follows an assistant message"
    done = set(answered)
    calls = [c for c in assistant.tool_calls if c.id not in done]
    # A batch resumed mid-way goes on under the stage its first results were committed in.
    results = (m for m in loop.window if m.role == "tool" and m.tool_call_id in done)
    stage = next((m.stage_id for m in results), None) if done else None
    tools = loop.agent.tools
    human = [c for c in calls if c.name in tools and tools[c.name].kind != "auto"]
    auto = [c for c in calls if c not in human]
    if auto:
        # Taken at the first result, not before: a batch cancelled before any result
        # consumed no id, so its re-run is numbered as an uninterrupted run's.
        batch: dict[str, str] = {} if stage is None else {"stage": stage}

        def commit(result: Message) -> None:
            if "stage" not in batch:
                batch["stage"] = loop.ledger.begin_stage("tool-calls")
            commit_result(loop, iteration, batch["stage"], result)
            loop.checkpoint_hook()

        await run_tool_calls(tools, auto, default_timeout=loop.agent.tool_timeout, on_result=commit)
    if human:
        first = human[0]
        kind = tools[first.name].kind
        assert kind != "auto"
        loop.run.pause = PauseState(
            call_id=first.id,
            tool_name=first.name,
            kind=kind,
            arguments=dict(first.arguments),
            pending=[c.id for c in human[1:]],
            iteration=iteration,
        )
