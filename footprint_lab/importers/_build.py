"""Build a ledger-backed run from an imported message list.

Layer: importers (above the agent's run model). Every message gets a stage id in the agent's
own scheme (``seed#n`` for user turns, ``call-llm#n`` for assistant replies with their usage,
``tool-calls#n`` for consecutive tool results, each committed alone as the agent commits a
batch's results), so ``replay`` and ``capture`` treat an import like any recorded run. The
commits are made by the one walker, :class:`~footprint_lab.agent.transcript.Walk`, which
``replay`` uses too: a replay of an import with no strategy is the import, commit for commit.
Import is linear in the number of messages: the size of what each call sent is a running total,
never a re-count of the window.

Where a source recorded what each call really received (``sent``), the run's windows are those
inputs: each call whose input differs from the running window gets a ``window#n`` stage holding
the source policy's stand-ins and the new window, and an observed
:class:`~footprint_lab.window.records.WindowRecord` (see :mod:`._observed`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from footprint_lab.agent.origin import Import
from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.agent.transcript import Walk
from footprint_lab.agent.writer import RunWriter
from footprint_lab.importers._observed import HistoryIndex, ObservedWindow, observe_window
from footprint_lab.importers._parts import TranscriptError, json_problem
from footprint_lab.importers.recorded import ImportedStatus, Recorded, settle_outcome
from footprint_lab.ledger import Clock, Ledger
from footprint_lab.messages import Message, storable_text, storable_value
from footprint_lab.usage import Usage
from footprint_lab.window.records import WindowRecord

__all__ = ["TranscriptError", "UserKind", "build_run", "import_clock"]

_CLOCK: ContextVar[Clock | None] = ContextVar("footprint_lab_import_clock", default=None)


@contextmanager
def import_clock(clock: Clock) -> Iterator[None]:
    """Stamp the commits of every import made inside with ``clock`` (milliseconds) instead of
    the wall clock. A transcript records no time of its own for most commits, so an import is
    stamped with the time it ran; a store that must give the same bytes for the same file
    whenever it imports it (a corpus) imports under a fixed clock."""
    token = _CLOCK.set(clock)
    try:
        yield
    finally:
        _CLOCK.reset(token)


UserKind = Literal["observation", "demonstration"]
"""What a ``user`` message a person did not write is: what the environment answered as text
(an observation), or a worked example put in the prompt (a demonstration). Committed by an
``observation#`` or ``demonstration#`` stage, it is never a request."""


def _check(
    messages: Sequence[Message],
    usages: Sequence[Usage | None],
    system: str | None,
    source: str,
    meta: dict[str, Any] | None,
    sent: Sequence[Sequence[Message] | None] | None,
    kinds: Mapping[int, UserKind] | None = None,
) -> list[Message]:
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TranscriptError(source, None, "messages", "expected a list of messages")
    if isinstance(usages, (str, bytes)) or not isinstance(usages, Sequence):
        raise TranscriptError(source, None, "usages", "expected a list of usages")
    out: list[Message] = []
    seen: set[int] = set()
    for index, message in enumerate(messages):
        if not isinstance(message, Message):
            raise TranscriptError(source, index, "message", "expected a Message")
        # The ledger stores each message object once: a repeated object is committed as a copy.
        out.append(message.model_copy() if id(message) in seen else message)
        seen.add(id(message))
    for k, usage in enumerate(usages):
        if usage is not None and not isinstance(usage, Usage):
            raise TranscriptError(source, None, f"usages[{k}]", "expected a Usage or None")
    if system is not None and not isinstance(system, str):
        raise TranscriptError(source, None, "system", "expected text or None")
    if sent is not None:
        replies = sum(1 for m in out if m.role == "assistant")
        if isinstance(sent, (str, bytes)) or not isinstance(sent, Sequence):
            raise TranscriptError(source, None, "sent", "expected a list of windows")
        if len(sent) != replies:
            raise TranscriptError(
                source,
                None,
                "sent",
                f"expected one entry per assistant message ({replies}), got {len(sent)}",
            )
        for k, window in enumerate(sent):
            if window is None:
                continue
            if isinstance(window, (str, bytes)) or not isinstance(window, Sequence):
                raise TranscriptError(source, None, f"sent[{k}]", "expected a message list")
            if not all(isinstance(m, Message) for m in window):
                raise TranscriptError(source, None, f"sent[{k}]", "expected Messages")
    for index, kind in (kinds or {}).items():
        if kind not in ("observation", "demonstration"):
            raise TranscriptError(
                source, index, "kinds", f"expected 'observation' or 'demonstration', got {kind!r}"
            )
        if not (0 <= index < len(out)) or out[index].role != "user":
            raise TranscriptError(source, index, "kinds", "only a user message has a kind")
    why = json_problem(meta or {})
    if why is not None:
        raise TranscriptError(source, None, "meta", f"meta holds {why}")
    return out


def build_run(
    messages: Sequence[Message],
    usages: Sequence[Usage | None],
    *,
    system: str | None,
    source: str,
    meta: dict[str, Any] | None = None,
    problems: Sequence[ImportProblem] = (),
    model: str | None = None,
    sent: Sequence[Sequence[Message] | None] | None = None,
    policy: str | None = None,
    kinds: Mapping[int, UserKind] | None = None,
    outcome: ImportedStatus | None = None,
    outcome_detail: str | None = None,
    strict: bool = False,
) -> Run:
    """Commit ``messages`` in order and return a finished run, in time linear in their number.

    Args:
        messages: The conversation (system prompt excluded).
        usages: One entry per assistant message: its reported usage, or None.
        system: The system prompt.
        source: Where it came from ('openai', 'anthropic', 'langchain', ...).
        meta: Extra facts (task id, ...); must be JSON values.
        problems: What the importer found wrong and kept (becomes ``run.import_problems``).
        model: The model the source names (``run.model``; 'imported' when None).
        sent: None, or one entry per assistant message: None when the source did not record
            that call's input, else the messages it received, in wire order. The run's window
            at that call is then that input (see the module docstring).
        policy: The name of the source's own context policy, for the observed records
            (defaults to ``source``).
        kinds: The ``user`` messages a person did not write, by index in ``messages``: each
            is committed by its own ``observation#`` or ``demonstration#`` stage and is never
            a request (``run.request`` and ``run.requests`` name only the others).
        outcome: How the source says the run ended, as an imported status (None: the file
            records no outcome, and the status follows from its last message). The one rule
            is in :mod:`footprint_lab.importers.recorded`.
        outcome_detail: The source's own word for the outcome (``meta["ended"]``).
        strict: Raise what the outcome finds wrong (a finished run's unanswered last calls)
            instead of listing it, as the importer's own problems were.

    Raises:
        TranscriptError: an argument is not what it should be (not a Message, ...).
    """
    messages = _check(messages, usages, system, source, meta, sent, kinds)
    ledger = Ledger(_CLOCK.get())
    if system is not None:
        system = storable_text(system)
    run = Run(
        request="",
        ledger=ledger,
        system=system,
        provider=source,
        model=storable_text(model or "imported"),
    )
    run.meta = dict(storable_value(meta or {}))
    run.import_problems = list(problems)
    writer = RunWriter(run)
    replies = iter(usages)
    inputs = iter(sent) if sent is not None else None
    history = HistoryIndex()
    walk = Walk(writer, messages, system=system, keep_ids=False, kinds=kinds, on_commit=history.add)
    for i in walk.replies():
        run.iterations += 1
        recorded = next(inputs, None) if inputs is not None else None
        if recorded is not None:
            observed = observe_window(
                recorded, history, writer.window, system=system, request=run.request or None
            )
            if observed.removed or observed.fresh or len(observed.window) != len(writer.window):
                _commit_observed(writer, observed, policy or source)
                walk.chars = sum(m.chars for m in writer.window)
        stage = walk.call_stage(i)
        usage = next(replies, None)
        writer.call(stage, run.iterations, chars=walk.chars, usage=usage)
        if usage is not None:
            run.last_usage = usage
        walk.reply(i, stage, usage)
    run.window = writer.window
    _finish(run, messages, usages, sent, model)
    if outcome is not None:
        settle_outcome(run, outcome, outcome_detail, strict=strict)
    return run


def _finish(
    run: Run,
    messages: Sequence[Message],
    usages: Sequence[Usage | None],
    sent: Sequence[Sequence[Message] | None] | None,
    model: str | None,
) -> None:
    """An imported run's status by the one rule of imports (it ends on a reply that asks for
    no tool: done; else incomplete) and its origin: the importer, and what its file recorded
    (``run.origin.recorded``; ``load`` adds the format and the path)."""
    last = run.window[-1] if run.window else None
    answered = last is not None and last.role == "assistant" and not last.tool_calls
    run.status = "done" if answered else "incomplete"
    run.output = last.content if answered and last is not None else None
    run.phase = "finished"
    run.origin = Import(
        format=run.provider,
        recorded=Recorded(
            inputs=sent is not None and any(window is not None for window in sent),
            usage=any(usage is not None and usage.reported for usage in usages),
            tool_results=any(m.role == "tool" for m in messages),
            model=model is not None,
            outcome=False,
        ),
    )


def _commit_observed(writer: RunWriter, observed: ObservedWindow, policy: str) -> None:
    """Commit one observed window: its stand-ins, the window, and the observed record."""
    run = writer.run
    before = writer.window
    record = WindowRecord(
        strategy=policy,
        iteration=run.iterations,
        removed_stage_ids=[m.stage_id for m in observed.removed if m.stage_id is not None],
        cleared_stage_ids=[m.stage_id for m in observed.cleared if m.stage_id is not None],
        removed_message_count=len(observed.removed),
        window_chars_before=sum(m.chars for m in before),
        window_chars_after=sum(m.chars for m in observed.window),
        violations=observed.violations,
        observed=True,
    )
    writer.visit(writer.stage("window"), observed.window, record)
    run.strategy = record.strategy  # the run's windows are the source policy's
