"""``apply_window``: the one boundary every caller goes through.

Layer: window core. The agent loop, replay and tests all call this, so there is exactly one
implementation of every rule. It also checks the law stated in ``footprint_lab.window`` on
whatever a strategy returns (see :mod:`footprint_lab.window.law`), and the record's sizes are
made exact here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import operator
from collections.abc import Awaitable, Iterable, Sequence
from typing import Any, TypeVar

from footprint_lab.messages import Message
from footprint_lab.window.boundary import Boundary
from footprint_lab.window.errors import WindowConfigError, WindowStrategyError
from footprint_lab.window.facts import scan
from footprint_lab.window.law import breaches, change_of
from footprint_lab.window.pins import should_stand_down
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.refusals import Guards
from footprint_lab.window.result import WindowResult
from footprint_lab.window.strategies.base import StrategyInput, WindowStrategy

T = TypeVar("T")
_CHARS = operator.attrgetter("chars")

__all__ = [
    "Boundary",
    "WindowResult",
    "aapply_boundary",
    "aapply_window",
    "apply_boundary",
    "apply_window",
    "run_sync",
]


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run an awaitable to completion from sync code, even inside a running event loop
    (Jupyter): then it runs on a fresh loop in a worker thread."""

    async def _wrap() -> T:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    # Outside the except clause, so a fault raised by the run carries no "no running event
    # loop" error on its __context__.
    if not running:
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


def _prepare(messages: Sequence[Message], boundary: Boundary) -> StrategyInput:
    facts = scan(messages, boundary.request, boundary.paused_call_id, boundary.reuse)
    messages = facts.window.messages
    pins = boundary.keep_last_tool_results
    return StrategyInput(
        messages,
        facts.turns,
        facts.request_index,
        facts.chars,
        boundary,
        Guards(
            messages,
            facts.request_index,
            boundary.paused_call_id,
            boundary.paused_check_in,
            facts,
        ),
        pins if type(pins) is int and pins >= 0 else check_keep_last_tool_results(pins),
        should_stand_down(boundary.prior_records),
        # Facts of the given window, computed here, never by the strategy: the refusal engine
        # and the law's checks both read them.
        facts.bound,
    )


def _finish(strategy: WindowStrategy, inp: StrategyInput, out: Any) -> WindowResult:
    """Check ``out`` against the law and make its record's sizes exact.

    Every result is checked, however it was built: no flag a strategy sets skips a check. A
    breach raises :class:`WindowStrategyError`; an audited foreign policy (``audit(...)``),
    whose breaches are the point, files them as ``violations`` instead — it must.
    """
    given = inp._guards.facts
    assert given is not None
    if out is None:
        return WindowResult(list(inp.messages), None, given=given.window)
    if not isinstance(out, WindowResult) or not isinstance(out.record, WindowRecord):
        raise WindowStrategyError(
            f"strategy {strategy.name!r} returned {type(out).__name__}; plan() must return "
            "None or a WindowResult with a WindowRecord (use input.drop / input.replace / "
            "input.unchanged)"
        )
    window = list(out.window)
    record = out.record
    change = change_of(inp.messages, window)
    found = breaches(
        inp.messages,
        window,
        record,
        request_index=inp.request_index,
        paused_call_id=inp._guards.paused_call_id,
        change=change,
        facts=inp._guards.facts,
    )
    if found:
        if not getattr(strategy, "audited", False):
            raise found[0].error(strategy.name)
        if record.violations is None:
            raise WindowStrategyError(
                f"audited strategy {strategy.name!r} broke {found[0].rule!r} and filed no "
                "violations; an audited policy records what it breaks",
                rule=found[0].rule,
                message_index=found[0].message_index,
                stage_id=found[0].stage_id,
            )
    if change.in_place:
        removed_count = len(change.in_place)
        removed_chars = sum(inp.messages[i].chars for i in change.in_place)
        inserted = [window[i] for i in change.in_place]
    else:
        removed_count = change.end - change.start
        removed_chars = given.window.span_chars(change.start, change.end)
        inserted = change.inserted
    after = inp.window_chars - removed_chars + sum(map(_CHARS, inserted))
    # How the measured tokens were obtained is the boundary's fact, never the strategy's.
    tokens_from = None if record.measured_tokens is None else inp._boundary.tokens_from
    if (
        record.window_chars_before != inp.window_chars
        or record.window_chars_after != after
        or record.removed_message_count != removed_count
        or record.tokens_from != tokens_from
    ):
        exact = {
            "window_chars_before": inp.window_chars,
            "window_chars_after": after,
            "removed_message_count": removed_count,
            "tokens_from": tokens_from,
        }
        record = record.model_copy(update=exact)
    return WindowResult(window, record, list(out.folded), given=given.window)


def apply_boundary(
    strategy: WindowStrategy, messages: Sequence[Message], boundary: Boundary
) -> WindowResult:
    """Apply ``strategy`` to ``messages`` at ``boundary``. Pure: returns a new window and the
    record (None when the strategy did not engage); the input is never modified. The result is
    checked against the law whatever built it.

    Raises:
        CompactionUnmeasurableError: a token strategy was handed zero reported tokens.
        WindowStrategyError: the strategy's result breaks the law.
    """
    inp = _prepare(messages, boundary)
    out = strategy.plan(inp)
    if inspect.isawaitable(out):
        out = run_sync(out)
    return _finish(strategy, inp, out)


async def aapply_boundary(
    strategy: WindowStrategy, messages: Sequence[Message], boundary: Boundary
) -> WindowResult:
    """The async twin of :func:`apply_boundary` (an async strategy is awaited in place)."""
    inp = _prepare(messages, boundary)
    out: Any = strategy.plan(inp)
    if inspect.isawaitable(out):
        out = await out
    return _finish(strategy, inp, out)


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
    tool_names: Iterable[str] | None = None,
    provider: Any = None,
    model: str | None = None,
) -> WindowResult:
    """Apply ``strategy`` to ``messages`` at one boundary, the facts given as keywords (the
    fields of :class:`~footprint_lab.window.boundary.Boundary`). Pure: returns a new window and
    the record (None when the strategy did not engage); the input is never modified.

    An async strategy (e.g. ``summarize_oldest`` with an async summarizer) is driven to
    completion; inside a running event loop use :func:`aapply_window`.

    ``tool_names`` is the agent's tool roster (a drop notice names only those tools);
    ``provider`` and ``model`` are handed, opaque, to strategies that ask (an audited
    ``compact(ctx)`` policy). The result is checked against the law whatever built it.

    Raises:
        CompactionUnmeasurableError: a token strategy was handed zero reported tokens.
        WindowStrategyError: a custom strategy's result breaks the law.
    """
    return apply_boundary(strategy, messages, _boundary(locals()))


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
    tool_names: Iterable[str] | None = None,
    provider: Any = None,
    model: str | None = None,
) -> WindowResult:
    """The async twin of :func:`apply_window` (same arguments, same rules)."""
    return await aapply_boundary(strategy, messages, _boundary(locals()))


def _boundary(arguments: dict[str, Any]) -> Boundary:
    """The :class:`Boundary` of ``apply_window``'s keywords (its ``locals()``)."""
    facts = arguments.copy()
    del facts["strategy"], facts["messages"]
    names = facts["tool_names"]
    if names is not None:
        facts["tool_names"] = frozenset(names)
    return Boundary(**facts)
