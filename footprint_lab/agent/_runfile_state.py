"""Sense checks of meaning, continued: a run file's state against the ledger it carries.

Layer: agent (private; used by :mod:`footprint_lab.agent._runfile_ledger`, whose docstring
states every rule). What a run says about itself beside its windows and records — the
requests it was asked, its final answer, how many iterations it started, what a pause waits
on, its pin limit — must be what its ledger holds: an edit to any of them is refused as a
:class:`RunFileProblem` naming the place and the rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from footprint_lab.agent._runfile_checks import RunFileProblem
from footprint_lab.agent.run import batch_progress, open_batch
from footprint_lab.messages import Message, is_observation
from footprint_lab.window.apply import check_keep_last_tool_results
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.request import is_library_authored

if TYPE_CHECKING:
    from footprint_lab.agent.run import Checkpoint


def check_state(checkpoint: Checkpoint, messages: Sequence[Message]) -> list[int]:
    """Check the pin limit, the requests, the output, the iterations and the pause against
    the ledger's messages.

    Returns:
        The positions of the requests the ledger holds (the anchors no strategy may drop).

    Raises:
        RunFileProblem: the first rule broken, and where.
    """
    try:
        check_keep_last_tool_results(checkpoint.keep_last_tool_results)
    except WindowConfigError as exc:
        raise RunFileProblem("keep_last_tool_results", str(exc)) from None
    requests = request_positions(messages)
    _check_requests(checkpoint, [messages[p].content for p in requests])
    _check_output(checkpoint, messages)
    _check_iterations(checkpoint)
    _check_pause(checkpoint, messages)
    return requests


def stage_kind(stage_id: str | None) -> str:
    """``tool-calls`` of ``tool-calls#4`` (the whole id when it has no ``#``)."""
    name, sep, _ = (stage_id or "").rpartition("#")
    return name if sep else (stage_id or "")


def request_positions(messages: Sequence[Message]) -> list[int]:
    """Positions of the requests: user messages a person wrote, committed by a seed stage."""
    return [
        pos
        for pos, m in enumerate(messages)
        if m.role == "user"
        and stage_kind(m.stage_id) == "seed"
        and not is_library_authored(m)
        and not is_observation(m)
    ]


def _check_requests(checkpoint: Checkpoint, texts: Sequence[str]) -> None:
    """``requests`` are the requests the ledger holds, and ``request`` is the last of them."""
    if not texts:
        return  # nothing committed to anchor on (an import of no person's words)
    for j, (saved, text) in enumerate(zip(checkpoint.requests, texts, strict=False)):
        if saved != text:
            raise RunFileProblem(
                f"requests[{j}]",
                f"is not the text of request {j} the ledger holds (a person's message "
                "committed by a seed stage)",
            )
    if len(checkpoint.requests) != len(texts):
        raise RunFileProblem(
            "requests",
            f"holds {len(checkpoint.requests)} requests, but the ledger holds {len(texts)}",
        )
    if checkpoint.request != texts[-1]:
        raise RunFileProblem(
            "request",
            "is not the text of the last request the ledger holds (the request a window "
            "strategy keeps is the ledger's)",
        )


def _check_output(checkpoint: Checkpoint, messages: Sequence[Message]) -> None:
    """A final answer is the text of the ledger's last reply."""
    if checkpoint.output is None:
        return
    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    if last is None or checkpoint.output != last.content:
        raise RunFileProblem(
            "output",
            "is not the text of the last reply the ledger holds (a run's answer is its "
            "model's last reply)",
        )


def _check_iterations(checkpoint: Checkpoint) -> None:
    """A run started each iteration it counts, and is at most one past its last call's."""
    last = max((call.iteration for call in checkpoint.calls), default=0)
    if checkpoint.iterations > last + 1:
        raise RunFileProblem(
            "iterations",
            f"is {checkpoint.iterations}, but the run's last call was in iteration {last} (a "
            "run stands at most one iteration past its last call)",
        )


def _check_pause(checkpoint: Checkpoint, messages: Sequence[Message]) -> None:
    """A pause names a call of the open batch that has no result yet: its tool, its
    arguments, and the batch's other waiting calls."""
    pause = checkpoint.pause
    if pause is None:
        return
    window = [messages[p] for p in checkpoint.window]
    assistant, _ = open_batch(window)
    _, pending = batch_progress(window)
    if assistant is None or pause.call_id not in pending:
        raise RunFileProblem(
            "pause.call_id",
            f"names call {pause.call_id!r}, which is not a call of the window's open batch "
            f"waiting for a result (those are {pending[:4]})",
        )
    for j, call_id in enumerate(pause.pending):
        if call_id not in pending or call_id == pause.call_id:
            raise RunFileProblem(
                f"pause.pending[{j}]",
                f"names call {call_id!r}, which is not another call of the window's open batch "
                "waiting for a result",
            )
    call = next(c for c in assistant.tool_calls if c.id == pause.call_id)
    if pause.tool_name != call.name:
        raise RunFileProblem(
            "pause.tool_name",
            f"is {pause.tool_name!r}, but call {call.id!r} is to {call.name!r}",
        )
    if pause.arguments != call.arguments:
        raise RunFileProblem(
            "pause.arguments", f"are not the arguments of call {call.id!r} in the window"
        )
