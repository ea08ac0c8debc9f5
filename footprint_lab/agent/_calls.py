"""The call stage: the model asked, its reply committed.

Layer: agent. The loop (:mod:`footprint_lab.agent._loop`) calls :func:`call_llm` at its
``call`` and ``retry`` steps. Functions of the loop, not methods, as :mod:`._batch`'s are: this
module knows the loop only through :class:`~footprint_lab.agent._parts.CallParts`.
A model call files its record before it is sent (``run.calls``), and a re-run of a call that
got no reply takes that record's place under the same stage id (:func:`call_stage`).
"""

from __future__ import annotations

from footprint_lab.agent._parts import CallParts
from footprint_lab.agent._server_policy import observe_server_policy
from footprint_lab.events import ReplyTruncated
from footprint_lab.ledger import stage_number
from footprint_lab.providers.base import ContextLengthError, ProviderResponse, checked_response

__all__ = ["call_llm", "call_stage"]


async def _send(loop: CallParts, iteration: int, stage: str, *, retry: bool) -> ProviderResponse:
    request = loop.agent.request_for(loop.window)
    call = loop.writer.call(stage, iteration, retry=retry)  # and its start event
    try:
        returned: object = await loop.agent.provider.complete(request)
    finally:
        loop.capture_provider_state()
    # None, a foreign object or a repeated call id is a ProviderError (usage stays None)
    response = checked_response(loop.agent.provider.name, returned)
    call.usage = response.usage
    call.finish_reason = response.finish_reason
    call.truncated = response.truncated
    if response.truncated:
        loop.recorder.emit(
            ReplyTruncated(
                iteration=iteration,
                at_ms=loop.now(),
                stage_id=stage,
                finish_reason=response.finish_reason,
            )
        )
    return response


def call_stage(loop: CallParts) -> str:
    """The stage id of the model call about to be made. A call that failed or was
    interrupted committed nothing; when nothing was committed or numbered since, its re-run
    (``resume_on_error``, ``resume``) goes under the same id and takes the failed attempt's
    place in ``run.calls`` — so the fault consumed no id, every later stage is numbered as in a
    run that never stopped, and the resumed run's calls are the uninterrupted run's. The failed
    attempt stays in the events (its ``llm.start`` and the ``run.error``)."""
    run = loop.run
    if run.calls:
        last = run.calls[-1]
        ledger = run.ledger
        unanswered = last.sent_commit == len(ledger) - 1
        if unanswered and stage_number(last.stage_id) == ledger.stage_count - 1:
            run.calls.pop()  # the attempt that got no reply: its re-run replaces it
            return last.stage_id
    return loop.writer.stage("call-llm")


async def call_llm(loop: CallParts, iteration: int, *, retry: bool) -> ProviderResponse | None:
    """Call the model and commit its reply. Returns None when the provider rejected the
    window as too long and a strategy can compact it (the ``recover`` step comes next; the
    rejection is kept as ``loop.rejection``); the one retry's rejection raises."""
    stage = call_stage(loop)
    try:
        response = await _send(loop, iteration, stage, retry=retry)
    except ContextLengthError as exc:
        if retry or loop.agent.strategy is None:
            raise
        loop.rejection = exc
        return None
    reply = loop.writer.reply(stage, response.message, response.usage)  # and its end event
    loop.run.last_usage = response.usage
    # The provider's own server-side policy (context_management): what it did, observed.
    observe_server_policy(loop.writer, iteration, reply, response, loop.agent.provider)
    return response
