"""Pauses for a person: a tool call that waits on ``ask_human`` or on a check-in.

Layer: agent. The loop (:mod:`footprint_lab.agent._loop`) calls :func:`pause_boundary` when its
tools stage left a call waiting, and :func:`answer_pause` when a resume brings the person's
answer; :func:`check_answer` checks that answer before anything runs. Functions of the loop,
not methods: this module names ``_Loop`` only for type checking, so it imports nothing above.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from footprint_lab.agent._batch import commit_result
from footprint_lab.agent._parts import LoopParts
from footprint_lab.agent.run import PauseState
from footprint_lab.events import RunPaused, RunResumed
from footprint_lab.messages import Message, ToolCall


async def pause_boundary(loop: LoopParts) -> None:
    """Stop for a person. The next iteration's boundary runs now, so the checkpoint
    carries the window the run will resume with — and the turn it waits on refuses."""
    run = loop.run
    pause = run.pause
    assert pause is not None
    run.status = "paused"
    run.phase = "resume"
    loop.recorder.emit(
        RunPaused(
            iteration=run.iterations,
            at_ms=loop.now(),
            call_id=pause.call_id,
            tool_name=pause.tool_name,
            kind=pause.kind,
        )
    )
    if run.iterations - run.loop_start >= loop.agent.max_iterations:
        return  # no iteration left: after the answer the run stops at max-iterations
    loop.window_changed = False
    loop.iteration_record = None
    if loop.agent.strategy is not None:
        await loop.window_stage(
            run.iterations + 1,
            forced=False,
            paused_call_id=pause.call_id,
            paused_check_in=pause.check_in,
        )
    # Counted once the boundary's visit committed, so an interrupted visit is not counted.
    run.iterations += 1
    pause.boundary = True


def check_answer(loop: LoopParts, answer: str | None, approve: bool | None) -> None:
    """Check a person's answer fits the pause before anything runs.

    Raises:
        ValueError: the run is not paused, or the answer is of the wrong kind.
    """
    run = loop.run
    pause = run.pause
    if pause is None or run.phase != "resume":
        raise ValueError("the run is not paused on a tool call")
    call = find_call(loop.window, pause.call_id)
    if pause.kind == "ask-human" and answer is None:
        raise ValueError(
            f"the run waits for a person's answer to ask_human({pause.arguments}): pass answer=..."
        )
    if pause.kind == "check-in" and approve is None and answer is not None:
        raise ValueError(
            f"{call.name} waits for consent, not an answer: use run.approve() or run.deny(reason)"
        )


async def answer_pause(loop: LoopParts, answer: str | None, approve: bool | None) -> None:
    """Commit the person's answer (or run / refuse the checked-in tool) for the call the
    run waits on, then pause on the next call of the batch or go on to the model."""
    check_answer(loop, answer, approve)
    run = loop.run
    pause = run.pause
    assert pause is not None
    call = find_call(loop.window, pause.call_id)
    if pause.kind == "ask-human":
        assert answer is not None
        result = Message.tool(call.id, call.name, answer)
    elif approve is None or approve:
        result = await loop.agent.tools[call.name].invoke(
            call, default_timeout=loop.agent.tool_timeout
        )
    else:
        result = Message.tool(
            call.id, call.name, f"error: denied by the person: {answer or 'not approved'}"
        )
    commit_result(loop, pause.iteration, loop.writer.stage("tool-calls"), result)
    outcome: Literal["answered", "approved", "denied"] = (
        "answered"
        if pause.kind == "ask-human"
        else "approved"
        if approve is not False
        else "denied"
    )
    loop.recorder.emit(
        RunResumed(iteration=run.iterations, at_ms=loop.now(), call_id=call.id, outcome=outcome)
    )
    if pause.pending:
        following = find_call(loop.window, pause.pending[0])
        kind = loop.agent.tools[following.name].kind
        assert kind != "auto"
        run.pause = PauseState(
            call_id=following.id,
            tool_name=following.name,
            kind=kind,
            arguments=dict(following.arguments),
            pending=pause.pending[1:],
            iteration=pause.iteration,
            boundary=pause.boundary,
        )
        loop.recorder.emit(
            RunPaused(
                iteration=run.iterations,
                at_ms=loop.now(),
                call_id=following.id,
                tool_name=following.name,
                kind=kind,
            )
        )
        run.status = "paused"
        loop.checkpoint_hook()
        return
    run.pause = None
    run.status = "max-iterations"
    # After the boundary's visit the injections are due (they see that visit), then the
    # call; without a boundary the next iteration starts.
    run.phase = "inject" if pause.boundary else "window"
    loop.checkpoint_hook()


def find_call(window: Sequence[Message], call_id: str) -> ToolCall:
    for message in reversed(window):
        for call in message.tool_calls:
            if call.id == call_id:
                return call
    raise ValueError(f"the paused call {call_id!r} is not in the window")
