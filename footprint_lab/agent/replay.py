"""Replay: what would strategy X have done to *this* run?

Layer: agent (drives the window core as the agent loop does, and writes its run through
:class:`~footprint_lab.agent.writer.RunWriter`, but calls no model). ``replay``
re-applies a strategy boundary by boundary over a recorded history: before each recorded
assistant reply it runs the window stage, then commits that reply and the tool results that
followed. The result is a :class:`Run` the lab captures like any other, marked
counterfactual: every reply after the first removal is the original run's, not what a model
would have said to the smaller window.

**Replay sends what a live run would have sent.** Where the replies do not depend on the
window (every scripted run), the replay sends, call by call, the windows a live run under the
same strategy sends and files the same records. So a token strategy is handed the tokens of
the window *the replay* sent at the last call, never the original's (which measured the
untrimmed window and would trigger a removal at every later boundary). They are obtained, in
this order, and named in each record's and call's ``tokens_from``:

1. ``reported`` — the original call's reported tokens, when the replay sent what it sent
   (the same number of messages and characters);
2. ``counted`` — by a provider that can count a request (``count_tokens``; the scripted
   provider counts exactly as it reports): the ``provider=`` argument, else the source run's
   own provider while the run still has its agent, else — a scripted run saved, loaded or
   shipped to a worker (its provider named ``scripted…``) — the scripted provider's rule;
3. ``scaled`` — the original call's reported input tokens times the counterfactual request's
   characters over the original's (system prompt included);
4. ``estimated`` — no call reported usage (SWE-agent files, tau-bench): the request's
   characters at ``tokens_per_char`` (default the source's own ratio, else 1/4), so token
   policies engage on such runs too, marked estimated (the replay's ``origin.estimated_calls``).
   ``estimate=False`` allows none: the token strategy then cannot engage.

A live run keeps the spec's rule: zero reported tokens raise ``CompactionUnmeasurableError``.

**Ids mean one thing everywhere.** A replay walks its source's recorded conversation with the
one walker (:class:`~footprint_lab.agent.transcript.Walk`, which the importers use too) and
commits each of the source's messages under the stage id it has in the source, so
``explain(replay, "tool-calls#4")`` speaks of the message the source calls ``tool-calls#4``.
The stages the replay adds (its window visits, their notices and summaries) are numbered after
every id the source allocated, so they never collide with the source's. With no strategy, a
replay of a run nobody's policy trimmed is that run, commit for commit; its ledger holds only
usage a provider reported (a counted, scaled or estimated figure is its call's alone).

Replaying one run under many strategies (a grid)? Read it once: a :class:`ReplaySource`
holds the run's transcript, its calls by reply and its ratio, and the stamped copies its
replays commit — every replay commits a source message under the same stage id, so all the
replays of one source share each copy instead of each making its own.

Here replay takes a run. The root's ``footprint_lab.replay`` — the function, in
:mod:`footprint_lab.replay`, this module's old path, above the importers — takes a transcript
as well, reads it into a run with :func:`footprint_lab.importers.as_run`, and replays that here.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Collection, Generator

from footprint_lab._async import run_sync
from footprint_lab.agent._replay_tokens import ReplayTokens, replies_of
from footprint_lab.agent.origin import Replay
from footprint_lab.agent.run import CallRecord, Run
from footprint_lab.agent.transcript import Walk, in_call_order, recorded
from footprint_lab.agent.writer import RunWriter
from footprint_lab.applicability import not_applicable
from footprint_lab.auditing import AuditedPolicy
from footprint_lab.events import Recorder
from footprint_lab.ledger import Ledger
from footprint_lab.messages import Message, window_chars
from footprint_lab.pricing import source_tokens_per_char
from footprint_lab.providers.base import window_counter
from footprint_lab.usage import Usage
from footprint_lab.window.apply import OnBreach, check_keep_last_tool_results, start_boundary
from footprint_lab.window.boundary import Boundary
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.records import TOKEN_SOURCES, TokenSource
from footprint_lab.window.result import WindowResult
from footprint_lab.window.shape import Window
from footprint_lab.window.strategies import WindowStrategy
from footprint_lab.window.strategies.base import strategy_name

__all__ = [
    "COUNTERFACTUAL_NOTE",
    "ReplaySource",
    "areplay",
    "replay",
    "transcript_of",
]

COUNTERFACTUAL_NOTE = (
    "counterfactual: the window is what this strategy would have sent; every reply after it "
    "is the original run's"
)


class ReplaySource:
    """A run read once for many replays (see the module docstring): what every replay of it
    reads, and the stamped copies of its messages the replays commit.

    A snapshot of the run as it is when read: for a finished run (recorded, imported, loaded).
    Two replays may commit the same stamped copy (a frozen message, the same fields): each
    ledger still holds each message once.

    Args:
        run: The run replayed.

    Raises:
        TypeError: ``run`` is not a run.
    """

    __slots__ = ("_stamped", "messages", "originals", "run", "tokens_per_char")

    def __init__(self, run: Run) -> None:
        if not isinstance(run, Run):
            raise TypeError(
                f"replay here takes a Run, got {type(run).__name__}; give a transcript to "
                f"footprint_lab.replay, which reads it with footprint_lab.importers.as_run"
            )
        self.run = run
        """The run replayed."""
        self.messages: list[Message] = recorded(run)
        """Its recorded conversation, in the order the run committed it
        (:func:`~footprint_lab.agent.transcript.recorded`)."""
        self.originals: list[CallRecord | None] = replies_of(
            run, sum(1 for m in self.messages if m.role == "assistant")
        )
        """The source's call for each assistant reply, in order."""
        self.tokens_per_char: float | None = source_tokens_per_char(run)
        """What the run's own reported usage says a character costs."""
        self._stamped: list[Message | None] = [None] * len(self.messages)

    @classmethod
    def of(cls, source: Run | ReplaySource) -> ReplaySource:
        """``source`` when it is already read, else ``source`` read.

        Raises:
            TypeError: ``source`` is neither a run nor a source.
        """
        return source if isinstance(source, ReplaySource) else cls(source)

    def stamped(self, index: int, stage: str) -> Message:
        """Message ``index`` of the transcript stamped with ``stage``: a new object the first
        time (the replay's ledger never holds the source's), the same one for every replay
        that commits it under the same stage."""
        copy = self._stamped[index]
        if copy is None or copy.stage_id != stage:
            copy = self._stamped[index] = self.messages[index].with_stage(stage)
        return copy


def transcript_of(run: Run) -> tuple[list[Message], list[Usage | None]]:
    """The recorded conversation of ``run`` (what window stages and injections wrote left out)
    and the usage each assistant reply reported, in order."""
    read = ReplaySource(run)
    return in_call_order(read.messages), [
        None if call is None else call.usage for call in read.originals
    ]


def replay(
    source: Run | ReplaySource,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool = 2,
    tokens_per_char: float | None = None,
    *,
    provider: object | None = None,
    estimate: bool = True,
    context_window: int | None = None,
    events: bool = True,
) -> Run:
    """Re-apply ``strategy`` over ``source``'s recorded history; calls no model.

    A token strategy is handed the tokens of the window the *replay* sent at the last call,
    never the original's (see the module docstring): counted by ``provider`` when it can
    count a request, else the original call's reported input tokens scaled by the two
    requests' characters, else estimated at ``tokens_per_char``. Each record and call says
    which (``tokens_from``).

    Args:
        source: A run (from an agent, ``load_run`` or an importer), or a
            :class:`ReplaySource` read from one for many replays. A transcript goes to
            ``footprint_lab.replay``, which reads it into a run first.
        strategy: The window strategy to replay (None replays with no window management).
        keep_last_tool_results: The pin limit for the replay.
        tokens_per_char: The ratio an estimate uses where no provider reported usage
            (default: the ratio the source's own usage shows, else 1/4,
            :data:`~footprint_lab.pricing.DEFAULT_TOKENS_PER_CHAR`).
        provider: A provider that counts requests (``count_tokens``); default the source
            run's own provider while it still has its agent. It also gives the context
            window of a relative threshold.
        estimate: False to allow no estimate: a call whose tokens nobody reported then has
            none, and a token strategy does not engage (the replay says why in
            ``origin.not_applicable``).
        context_window: The model's context window, for ``threshold_fraction=`` strategies
            (default: what ``provider`` says, else ``meta['context_window']`` of the source).
        events: False to record no events (``run.events`` stays empty; everything else is
            the same): for a caller that measures only windows, calls and records, as
            ``evidence_frame`` does for every run x configuration.

    Returns:
        A counterfactual run: its ``origin`` is a :class:`~footprint_lab.agent.origin.Replay`
        naming the source, the strategy and where its token figures came from.

    Raises:
        WindowConfigError: ``tokens_per_char`` is not a positive number.
        TypeError: ``source`` is not a run.
    """
    steps = _steps(
        source,
        strategy,
        keep_last_tool_results,
        tokens_per_char,
        provider,
        estimate,
        context_window,
        events,
    )
    # Driven here, in the caller's thread: an event loop is started only if a strategy's plan
    # turns out to be async (starting one per replay costs as much as a short replay).
    try:
        visit = next(steps)
        while True:
            result = _start(visit)
            if inspect.isawaitable(result):
                return run_sync(_driven(steps, result))
            visit = steps.send(result)
    except StopIteration as done:
        run: Run = done.value
        return run


async def areplay(
    source: Run | ReplaySource,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool = 2,
    tokens_per_char: float | None = None,
    *,
    provider: object | None = None,
    estimate: bool = True,
    context_window: int | None = None,
    events: bool = True,
) -> Run:
    """The async form of :func:`replay`."""
    return await _driven(
        _steps(
            source,
            strategy,
            keep_last_tool_results,
            tokens_per_char,
            provider,
            estimate,
            context_window,
            events,
        )
    )


_Visit = tuple[WindowStrategy, list[Message], Boundary, OnBreach]
"""What a replay asks of the window core at a boundary: ``start_boundary``'s arguments."""

_Steps = Generator[_Visit, WindowResult, Run]
"""A replay as a generator: it yields each boundary's visit and is sent its result; its return
value is the run. :func:`replay` and :func:`areplay` drive the one body."""


async def _driven(steps: _Steps, pending: Awaitable[WindowResult] | None = None) -> Run:
    """Drive ``steps`` inside an event loop, awaiting any async plan (``pending``: the visit
    whose plan turned out async when :func:`replay` was driving)."""
    try:
        visit = next(steps) if pending is None else steps.send(await pending)
        while True:
            result = _start(visit)
            visit = steps.send(await result if inspect.isawaitable(result) else result)
    except StopIteration as done:
        run: Run = done.value
        return run


def _start(visit: _Visit) -> WindowResult | Awaitable[WindowResult]:
    strategy, window, boundary, on_breach = visit
    return start_boundary(strategy, window, boundary, on_breach=on_breach)


def _steps(
    source: Run | ReplaySource,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool,
    tokens_per_char: float | None,
    provider: object | None,
    estimate: bool,
    context_window: int | None,
    events: bool = True,
) -> _Steps:
    """The replay of ``source`` under ``strategy`` (arguments checked now, before any step)."""
    if tokens_per_char is not None and (
        isinstance(tokens_per_char, bool)
        or not isinstance(tokens_per_char, int | float)
        or not 0 < tokens_per_char < math.inf
    ):
        raise WindowConfigError(
            f"tokens_per_char must be a positive number (e.g. 0.25, four characters a "
            f"token), got {tokens_per_char!r}"
        )
    read = ReplaySource.of(source)
    return _replay(
        read,
        strategy,
        keep_last_tool_results,
        ReplayTokens.of(
            read.run, tokens_per_char, provider, estimate, context_window, read.tokens_per_char
        ),
        Recorder() if events else None,
    )


def _replay(
    read: ReplaySource,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool,
    tokens: ReplayTokens,
    recorder: Recorder | None,
) -> _Steps:
    keep_last = check_keep_last_tool_results(keep_last_tool_results)
    source, originals = read.run, read.originals
    configured = strategy
    trigger = getattr(strategy, "trigger", None)
    if getattr(trigger, "threshold_fraction", None) is not None and tokens.context_window is None:
        strategy = None  # it cannot run here: origin.not_applicable says why (below)
    run = _replay_run(read, configured, keep_last, recorder)
    # The agent's tool roster, when the source still has its agent (a notice names only those).
    roster = None if source.agent is None else frozenset(source.agent.tools)
    writer = RunWriter(run, recorder=recorder)
    # The source's messages keep their stage ids (an id names one message in both runs); the
    # replay's own stages are numbered after every id the source allocated.
    commits = source.ledger.commits
    opening = commits[0].stage_id if commits and commits[0].stage_id.startswith("seed#") else None
    walk = Walk(
        writer,
        read.messages,
        system=source.system,
        keep_ids=True,
        opening=opening,
        stamp=read.stamped,
    )
    last_usage: Usage | None = None
    last_from: TokenSource = "reported"
    shaped: list[Window | None] = [None]  # the last visit's window, its facts kept for the next
    for reply_no, i in enumerate(walk.replies()):
        run.iterations += 1
        iteration = run.iterations
        last = (last_usage, last_from)
        if strategy is not None and (
            yield from _window_stage(
                writer, strategy, iteration, last, keep_last, roster, tokens, shaped
            )
        ):
            walk.chars = window_chars(writer.window)
        stage = walk.call_stage(i)
        original = originals[reply_no]
        usage, tokens_from = tokens.of_call(writer.window, walk.chars, original, read.messages[i])
        source_usage = None if original is None else original.usage
        writer.call(
            stage,
            iteration,
            chars=walk.chars,
            usage=usage,
            tokens_from=None if tokens_from == "reported" else tokens_from,
            scaled_from=(
                source_usage.input_tokens
                if tokens_from == "scaled" and source_usage is not None
                else None
            ),
        )
        if usage is not None:
            last_usage, last_from = usage, tokens_from or "reported"
        # The ledger holds what a provider reported; a counted, scaled or estimated figure is
        # the call's alone (``CallRecord.tokens_from`` names it), so a replay with no strategy
        # commits exactly what its source committed.
        walk.reply(i, stage, usage if tokens_from == "reported" else None)
    run.window = writer.window
    run.phase = "finished"  # a replay is over: it saves and reopens like any finished run
    run.last_usage = last_usage
    _replay_facts(run, configured, read.messages, keep_last, tokens)
    sources = {c.tokens_from or "reported" for c in run.calls if c.usage is not None}
    run.origin = run.origin.model_copy(
        update={"tokens_from": tuple(t for t in TOKEN_SOURCES if t in sources)}
    )
    return run


def _replay_run(
    read: ReplaySource,
    configured: WindowStrategy | None,
    keep_last: int,
    recorder: Recorder | None,
) -> Run:
    """The replay's run before any commit: the source's facts, marked counterfactual."""
    source = read.run
    return Run(
        request="",
        ledger=Ledger(first_stage=source.ledger.stage_count),
        status=source.status if source.status != "paused" else "done",
        output=source.output,
        events=[] if recorder is None else recorder.events,
        strategy=strategy_name(configured),
        system=source.system,
        model=source.model,
        provider=source.provider,
        keep_last_tool_results=keep_last,
        meta={k: v for k, v in source.meta.items() if not k.startswith("_")},
        origin=Replay(
            source_id=_source_id(source),
            strategy=strategy_name(configured),
            source=source.origin,
            # What the source's own reported usage says a character costs (cost estimates).
            tokens_per_char=read.tokens_per_char,
        ),
    )


def _source_id(source: Run) -> str:
    """What a replay calls its source: the source's label, else its scenario, else ``run``."""
    for key in ("label", "scenario"):
        value = source.meta.get(key)
        if isinstance(value, str) and value:
            return value
    return "run"


def _replay_facts(
    run: Run,
    configured: WindowStrategy | None,
    messages: list[Message],
    keep_last: int,
    tokens: ReplayTokens,
) -> None:
    """What a finished replay says of itself: why its policy could not apply, and which of
    its token figures are estimated."""
    reasons = not_applicable(
        configured,
        messages,
        keep_last_tool_results=keep_last,
        measured_calls=sum(1 for c in run.calls if c.usage is not None and c.usage.reported),
        calls=len(run.calls),
        context_window=tokens.context_window,
    )
    run.origin = run.origin.model_copy(
        update={
            "not_applicable": tuple(reasons),
            "estimated_calls": tokens.estimated,
            "estimated_tokens_per_char": tokens.ratio if tokens.estimated else None,
        }
    )


def _window_stage(
    writer: RunWriter,
    strategy: WindowStrategy,
    iteration: int,
    last: tuple[Usage | None, TokenSource],
    keep_last: int,
    tool_names: Collection[str] | None,
    tokens: ReplayTokens,
    shaped: list[Window | None],
) -> Generator[_Visit, WindowResult, bool]:
    """Run one boundary's window visit; True when it filed a record (the window may differ).
    ``shaped`` holds the last visit's window, whose facts this visit reuses for the turns the
    two share (as the agent loop does), and is set to this visit's."""
    run = writer.run
    stage = writer.stage("window")
    last_usage, tokens_from = last
    boundary = Boundary(
        iteration=iteration,
        request=run.request or None,
        measured_input_tokens=None if last_usage is None else last_usage.input_tokens,
        measured_output_tokens=None if last_usage is None else last_usage.output_tokens,
        tokens_from=tokens_from,
        keep_last_tool_results=keep_last,
        prior_records=run.records,
        provider_name=run.provider or "replay",
        context_window=tokens.context_window,
        max_output_tokens=tokens.max_output_tokens,
        tool_names=None if tool_names is None else frozenset(tool_names),
        provider=tokens.counter,
        model=run.model or None,
        count_window=window_counter(tokens.counter, tokens.request_for),
        reuse=shaped[0],
    )
    # A replay sends nothing: a policy its caller wrapped with audit(...) files what it breaks
    # (the point of auditing it); any other strategy is held to the law as in an agent.
    on_breach: OnBreach = "record" if isinstance(strategy, AuditedPolicy) else "raise"
    result = yield (strategy, writer.window, boundary, on_breach)
    shaped[0] = result.given
    if result.record is None:
        return False
    writer.visit(stage, result.window, result.record, folded=result.folded, usage=last_usage)
    return True
