"""``apply_window``: the one boundary every caller goes through.

Layer: window core. The agent loop, replay and tests all call this, so there is exactly one
implementation of every rule. It also checks the law stated in ``footprint_lab.window`` on
whatever a strategy returns: every message that left must be named in the record, the current
request must still be there, and the record's sizes are made exact here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from footprint_lab.messages import Message, window_chars
from footprint_lab.window.errors import WindowConfigError, WindowStrategyError
from footprint_lab.window.pins import should_stand_down
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.result import WindowResult
from footprint_lab.window.strategies.base import StrategyInput, WindowStrategy
from footprint_lab.window.turns import Guards, current_request_index, turn_table

T = TypeVar("T")

__all__ = ["WindowResult", "aapply_window", "apply_window", "run_sync"]


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run an awaitable to completion from sync code, even inside a running event loop
    (Jupyter): then it runs on a fresh loop in a worker thread."""

    async def _wrap() -> T:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_wrap())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _wrap()).result()


def check_keep_last_tool_results(value: Any) -> int:
    """Validate the pin limit: a whole number >= 0; False/None mean 0, True means 2."""
    if value is False or value is None:
        return 0
    if value is True:
        return 2
    if not isinstance(value, int) or value < 0:
        raise WindowConfigError(
            f"keep_last_tool_results must be a whole number >= 0 (0 or False turns pins off), "
            f"got {value!r}"
        )
    return value


def _prepare(
    messages: Sequence[Message],
    *,
    iteration: int,
    request: str | None,
    measured_input_tokens: int | None,
    measured_output_tokens: int | None,
    keep_last_tool_results: int | bool,
    prior_records: Sequence[WindowRecord],
    paused_call_id: str | None,
    paused_check_in: bool,
    provider_name: str | None,
    context_window: int | None,
    max_output_tokens: int | None,
    forced: bool,
) -> StrategyInput:
    messages = tuple(messages)
    request_index = current_request_index(messages, request)
    chars = window_chars(messages)
    return StrategyInput(
        messages=messages,
        turns=turn_table(messages),
        iteration=iteration,
        request_index=request_index,
        measured_input_tokens=measured_input_tokens,
        measured_output_tokens=measured_output_tokens,
        provider_name=provider_name,
        context_window=context_window,
        max_output_tokens=max_output_tokens,
        forced=forced,
        # No copy: a long run has thousands of records and a boundary reads only a few.
        prior_records=prior_records,
        window_chars=chars,
        _guards=Guards(messages, request_index, paused_call_id, paused_check_in),
        _keep_last_tool_results=check_keep_last_tool_results(keep_last_tool_results),
        _stand_down=should_stand_down(prior_records),
    )


def _finish(strategy: WindowStrategy, inp: StrategyInput, out: Any) -> WindowResult:
    if out is None:
        return WindowResult(list(inp.messages), None)
    if not isinstance(out, WindowResult) or not isinstance(out.record, WindowRecord):
        raise WindowStrategyError(
            f"strategy {strategy.name!r} returned {type(out).__name__}; plan() must return "
            "None or a WindowResult with a WindowRecord (use input.drop / input.replace / "
            "input.unchanged)"
        )
    window = list(out.window)
    if out.verified and out.record.window_chars_before == inp.window_chars:
        # Built from a refusal-engine plan by the input's helpers: lawful by construction.
        return WindowResult(window, out.record, list(out.folded))
    kept = {id(m) for m in window}
    left = [m for m in inp.messages if id(m) not in kept]
    named = set(out.record.removed_stage_ids)
    unnamed = sorted({m.stage_id for m in left if m.stage_id is not None} - named)
    if unnamed:
        raise WindowStrategyError(
            f"strategy {strategy.name!r} removed messages of stages {unnamed} without naming "
            "them in removed_stage_ids; a removal that cannot be named cannot be filed"
        )
    audited = getattr(strategy, "audited", False)  # audit records breaches instead
    if (
        not audited
        and inp.request_index is not None
        and id(inp.messages[inp.request_index]) not in kept
    ):
        raise WindowStrategyError(
            f"strategy {strategy.name!r} removed the current request; build removals with "
            "input.plan_removal(), which refuses it"
        )
    exact = {
        "window_chars_before": inp.window_chars,
        "window_chars_after": window_chars(window),
        "removed_message_count": len(left),
    }
    record = out.record
    if any(getattr(record, k) != v for k, v in exact.items()):
        record = record.model_copy(update=exact)
    return WindowResult(window, record, list(out.folded))


def apply_window(
    strategy: WindowStrategy,
    messages: Sequence[Message],
    *,
    iteration: int,
    request: str | None = None,
    measured_input_tokens: int | None = None,
    measured_output_tokens: int | None = None,
    keep_last_tool_results: int | bool = 2,
    prior_records: Sequence[WindowRecord] = (),
    paused_call_id: str | None = None,
    paused_check_in: bool = False,
    provider_name: str | None = None,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
    forced: bool = False,
) -> WindowResult:
    """Apply ``strategy`` to ``messages`` at one boundary. Pure: returns a new window and the
    record (None when the strategy did not engage); the input is never modified.

    An async strategy (e.g. ``summarize_oldest`` with an async summarizer) is driven to
    completion; inside a running event loop use :func:`aapply_window`.

    Raises:
        CompactionUnmeasurableError: a token strategy was handed zero reported tokens.
        WindowStrategyError: a custom strategy's result breaks the law.
    """
    inp = _prepare(
        messages,
        iteration=iteration,
        request=request,
        measured_input_tokens=measured_input_tokens,
        measured_output_tokens=measured_output_tokens,
        keep_last_tool_results=keep_last_tool_results,
        prior_records=prior_records,
        paused_call_id=paused_call_id,
        paused_check_in=paused_check_in,
        provider_name=provider_name,
        context_window=context_window,
        max_output_tokens=max_output_tokens,
        forced=forced,
    )
    out = strategy.plan(inp)
    if inspect.isawaitable(out):
        out = run_sync(out)
    return _finish(strategy, inp, out)


async def aapply_window(
    strategy: WindowStrategy,
    messages: Sequence[Message],
    *,
    iteration: int,
    request: str | None = None,
    measured_input_tokens: int | None = None,
    measured_output_tokens: int | None = None,
    keep_last_tool_results: int | bool = 2,
    prior_records: Sequence[WindowRecord] = (),
    paused_call_id: str | None = None,
    paused_check_in: bool = False,
    provider_name: str | None = None,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
    forced: bool = False,
) -> WindowResult:
    """The async twin of :func:`apply_window` (same arguments, same rules)."""
    inp = _prepare(
        messages,
        iteration=iteration,
        request=request,
        measured_input_tokens=measured_input_tokens,
        measured_output_tokens=measured_output_tokens,
        keep_last_tool_results=keep_last_tool_results,
        prior_records=prior_records,
        paused_call_id=paused_call_id,
        paused_check_in=paused_check_in,
        provider_name=provider_name,
        context_window=context_window,
        max_output_tokens=max_output_tokens,
        forced=forced,
    )
    out: Any = strategy.plan(inp)
    if inspect.isawaitable(out):
        out = await out
    return _finish(strategy, inp, out)
