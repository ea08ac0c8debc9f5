"""``apply_window``: the one boundary every caller goes through.

Layer: window core. The agent loop, replay and tests all call this, so there is exactly one
implementation of every rule. It also checks the law stated in ``footprint_lab.window`` on
whatever a strategy returns (see :mod:`footprint_lab.window.law`), and the record's sizes are
made exact here.
"""

from __future__ import annotations

import bisect
import inspect
import operator
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Literal

from footprint_lab._async import run_sync  # re-exported: this module was its home
from footprint_lab.messages import Message
from footprint_lab.window.boundary import Boundary
from footprint_lab.window.errors import WindowConfigError, WindowStrategyError
from footprint_lab.window.facts import scan
from footprint_lab.window.law import Change, breaches, change_of
from footprint_lab.window.pins import should_stand_down
from footprint_lab.window.records import TokenSource, WindowRecord
from footprint_lab.window.refusals import Guards
from footprint_lab.window.request_tokens import request_tokens
from footprint_lab.window.result import WindowResult
from footprint_lab.window.strategies.base import StrategyInput, WindowStrategy, strategy_name

_CHARS = operator.attrgetter("chars")

OnBreach = Literal["raise", "record"]
"""What the engine does when a result breaks the law: ``"raise"`` (the default, and always so
in an agent: nothing unlawful is sent) or ``"record"`` (the caller audits: a result whose record
files its breaches as ``violations`` is kept, as replay does for ``audit(policy)``)."""

__all__ = [
    "Boundary",
    "OnBreach",
    "WindowResult",
    "aapply_boundary",
    "aapply_window",
    "apply_boundary",
    "apply_window",
    "run_sync",
    "start_boundary",
]


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


def _finish(
    strategy: WindowStrategy, inp: StrategyInput, out: Any, on_breach: OnBreach
) -> WindowResult:
    """Check ``out`` against the law and make its record's facts exact.

    Every result is checked, however it was built, and no attribute of a strategy changes what
    happens to a breach: the caller's ``on_breach`` does. Under ``"raise"`` a breach raises
    :class:`WindowStrategyError`; under ``"record"`` (an audit, chosen by its caller) the
    record must file the breaches as ``violations``.
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
        iteration=inp.iteration,
    )
    if found:
        if on_breach != "record":
            # An audit wrapper says so by a flag of its own (the core imports no auditing).
            raise found[0].error(
                strategy.name, audited=getattr(strategy, "audits_a_foreign_policy", False) is True
            )
        if record.violations is None:
            raise WindowStrategyError(
                f"strategy {strategy.name!r} broke {found[0].rule!r} and filed no violations; "
                "under on_breach='record' a result records what it breaks (wrap the policy "
                "with audit(...))",
                rule=found[0].rule,
                message_index=found[0].message_index,
                stage_id=found[0].stage_id,
            )
    record = _exact(strategy, record, inp, change, window, lawful=not found)
    return WindowResult(window, record, list(out.folded), given=given.window)


def _exact(
    strategy: WindowStrategy,
    record: WindowRecord,
    inp: StrategyInput,
    change: Change,
    window: Sequence[Message],
    *,
    lawful: bool,
) -> WindowRecord:
    """``record`` with every fact the engine knows set from what it saw, never from what the
    strategy claims: the strategy's name, the iteration, ``forced``, ``observed`` and
    ``forked`` (never, for a visit that ran here), ``commit`` (set by the run that files it),
    the sizes and counts, and the measured tokens and where they came from. A record that
    claims otherwise is corrected (README: "A record says what the engine saw")."""
    given = inp._guards.facts
    assert given is not None
    boundary = inp._boundary
    if change.in_place:
        removed_count = len(change.in_place)
        removed_chars = sum(inp.messages[i].chars for i in change.in_place)
        inserted = [window[i] for i in change.in_place]
        turns_removed = turns_inserted = 0
    else:
        removed_count = change.end - change.start
        removed_chars = given.window.span_chars(change.start, change.end)
        inserted = change.inserted
        starts = given.turns.starts
        turns_removed = bisect.bisect_left(starts, change.end) - bisect.bisect_left(
            starts, change.start
        )
        turns_inserted = len(inserted)  # each stand-in is a user message: a turn of its own
    after = inp.window_chars - removed_chars + sum(map(_CHARS, inserted))
    measured = None if record.measured_tokens is None else boundary.measured_input_tokens
    source: TokenSource | None = None if measured is None else boundary.tokens_from
    if record.measured_request and record.measured_tokens is not None:
        # A twin of a provider's own policy measures the request in hand, as the server does:
        # the engine measures it again (counted by the boundary, else estimated).
        measured, source = request_tokens(inp.messages, inp.count_window, inp.window_chars)
    exact: dict[str, Any] = {
        "strategy": strategy_name(strategy) or record.strategy,
        "iteration": boundary.iteration,
        "forced": boundary.forced,
        "observed": False,
        "forked": False,
        "commit": None,
        "given_commit": None,
        "window_chars_before": inp.window_chars,
        "window_chars_after": after,
        "removed_message_count": removed_count,
        "measured_tokens": measured,
        # How the measured tokens were obtained is the boundary's fact, never the strategy's.
        "tokens_from": source,
    }
    turns = len(given.turns.starts)
    if record.turns_before is not None:
        exact["turns_before"] = turns
    if record.turns_after is not None and lawful:
        exact["turns_after"] = turns - turns_removed + turns_inserted
    differs = {k: v for k, v in exact.items() if getattr(record, k) != v}
    return record.model_copy(update=differs) if differs else record


def apply_boundary(
    strategy: WindowStrategy,
    messages: Sequence[Message],
    boundary: Boundary,
    *,
    on_breach: OnBreach = "raise",
) -> WindowResult:
    """Apply ``strategy`` to ``messages`` at ``boundary``. Pure: returns a new window and the
    record (None when the strategy did not engage); the input is never modified. The result is
    checked against the law whatever built it; ``on_breach`` (:data:`OnBreach`) says what a
    breach does.

    Raises:
        CompactionUnmeasurableError: a token strategy was handed zero reported tokens.
        WindowStrategyError: the strategy's result breaks the law.
    """
    result = start_boundary(strategy, messages, boundary, on_breach=on_breach)
    return run_sync(result) if inspect.isawaitable(result) else result


async def aapply_boundary(
    strategy: WindowStrategy,
    messages: Sequence[Message],
    boundary: Boundary,
    *,
    on_breach: OnBreach = "raise",
) -> WindowResult:
    """The async twin of :func:`apply_boundary` (an async strategy is awaited in place)."""
    result = start_boundary(strategy, messages, boundary, on_breach=on_breach)
    return await result if inspect.isawaitable(result) else result


def start_boundary(
    strategy: WindowStrategy,
    messages: Sequence[Message],
    boundary: Boundary,
    *,
    on_breach: OnBreach = "raise",
) -> WindowResult | Awaitable[WindowResult]:
    """:func:`apply_boundary` up to the strategy's plan: its result when the strategy planned
    synchronously, else an awaitable that awaits the plan and finishes the visit.

    The one body of :func:`apply_boundary` and :func:`aapply_boundary`, for a caller that
    needs no event loop until a strategy is async (a replay of a sync strategy runs none).
    """
    inp = _prepare(messages, boundary)
    out: Any = strategy.plan(inp)
    if inspect.isawaitable(out):
        return _finish_awaited(strategy, inp, out, on_breach)
    return _finish(strategy, inp, out, _checked_on_breach(on_breach))


async def _finish_awaited(
    strategy: WindowStrategy, inp: StrategyInput, out: Awaitable[Any], on_breach: OnBreach
) -> WindowResult:
    return _finish(strategy, inp, await out, _checked_on_breach(on_breach))


def _checked_on_breach(on_breach: Any) -> OnBreach:
    if on_breach not in ("raise", "record"):
        raise WindowConfigError(f"on_breach must be 'raise' or 'record', got {on_breach!r}")
    return on_breach  # type: ignore[no-any-return]


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
    count_window: Callable[[Sequence[Message]], int | None] | None = None,
    on_breach: OnBreach = "raise",
) -> WindowResult:
    """Apply ``strategy`` to ``messages`` at one boundary, the facts given as keywords (the
    fields of :class:`~footprint_lab.window.boundary.Boundary`). Pure: returns a new window and
    the record (None when the strategy did not engage); the input is never modified.

    An async strategy (e.g. ``summarize_oldest`` with an async summarizer) is driven to
    completion; inside a running event loop use :func:`aapply_window`.

    ``tool_names`` is the agent's tool roster (a drop notice names only those tools);
    ``provider`` and ``model`` are handed, opaque, to strategies that ask (an audited
    ``compact(ctx)`` policy); ``count_window`` counts a window's input tokens as the provider
    would (the providers' policies' twins measure the request in hand with it). The result is
    checked against the law whatever built it: a breach raises, unless the caller audits with
    ``on_breach="record"`` (then the record must file it as ``violations``, as
    ``audit(policy)`` does).

    Raises:
        CompactionUnmeasurableError: a token strategy was handed zero reported tokens.
        WindowStrategyError: a custom strategy's result breaks the law.
    """
    return apply_boundary(strategy, messages, _boundary(locals()), on_breach=on_breach)


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
    count_window: Callable[[Sequence[Message]], int | None] | None = None,
    on_breach: OnBreach = "raise",
) -> WindowResult:
    """The async twin of :func:`apply_window` (same arguments, same rules)."""
    return await aapply_boundary(strategy, messages, _boundary(locals()), on_breach=on_breach)


def _boundary(arguments: dict[str, Any]) -> Boundary:
    """The :class:`Boundary` of ``apply_window``'s keywords (its ``locals()``)."""
    facts = arguments.copy()
    del facts["strategy"], facts["messages"], facts["on_breach"]
    names = facts["tool_names"]
    if names is not None:
        facts["tool_names"] = frozenset(names)
    return Boundary(**facts)
