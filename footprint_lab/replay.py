"""Replay: what would strategy X have done to *this* run?

Layer: top (drives the window core like the agent does, but calls no model). ``replay``
re-applies a strategy boundary by boundary over a recorded history: before each recorded
assistant reply it runs the window stage with the usage the original call reported, then
commits that reply and the tool results that followed. The result is a :class:`Run` the lab
captures like any other, marked counterfactual: every reply after the first removal is the
original run's, not what a model would have said to the smaller window.

This module was once named ``footprint_lab.counterfactual``; that path still re-exports it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from footprint_lab._gc import paused_gc
from footprint_lab.agent.run import CallRecord, Run
from footprint_lab.agent.visit import commit_visit
from footprint_lab.events import LlmEnd, LlmStart, Recorder
from footprint_lab.evidence.dependencies import transcript
from footprint_lab.ledger import Ledger
from footprint_lab.messages import Message, window_chars
from footprint_lab.pricing import run_tokens_per_char
from footprint_lab.usage import Usage
from footprint_lab.window.apply import aapply_boundary, check_keep_last_tool_results, run_sync
from footprint_lab.window.boundary import Boundary
from footprint_lab.window.strategies import WindowStrategy

COUNTERFACTUAL_NOTE = (
    "counterfactual: the window is what this strategy would have sent; every reply after it "
    "is the original run's"
)


def transcript_of(run: Run) -> tuple[list[Message], list[Usage | None]]:
    """The recorded conversation of ``run`` (what window stages and injections wrote left out)
    and the usage each assistant reply reported, in order."""
    messages = transcript(run)
    usages: list[Usage | None] = [c.usage for c in run.calls if c.usage is not None]
    replies = sum(1 for m in messages if m.role == "assistant")
    usages = (usages + [None] * replies)[:replies]
    return messages, usages


Transcript = Sequence[Message] | Sequence[Mapping[str, Any]]
"""A recorded conversation: our messages, OpenAI Chat Completions dicts, Anthropic Messages
dicts, or LangChain ``messages_to_dict`` dicts."""


def as_run(source: Run | Transcript, *, strict: bool = False) -> Run:
    """A run for ``source``: a run as it is; a transcript through the matching importer.

    Args:
        source: A run, or a transcript (our messages, or OpenAI / Anthropic / LangChain dicts).
        strict: Passed to the importer: raise at the first problem instead of listing it in
            ``run.import_problems``.

    Raises:
        TranscriptError: the transcript's shape is not one of the known ones, or malformed.
    """
    if isinstance(source, Run):
        return source
    from footprint_lab.importers import (
        TranscriptError,
        build_run,
        from_anthropic,
        from_langchain,
        from_openai,
    )

    if isinstance(source, (str, bytes, Mapping)) or not hasattr(source, "__iter__"):
        raise TranscriptError("replay", None, "source", "expected a Run or a list of messages")
    items = list(source)
    if all(isinstance(m, Message) for m in items):
        messages = [m for m in items if isinstance(m, Message)]
        system = next((m.content for m in messages[:1] if m.role == "system"), None)
        body = messages[1:] if system is not None else messages
        replies = sum(1 for m in body if m.role == "assistant")
        return build_run(body, [None] * replies, system=system, source="messages")
    first = items[0] if items else None
    if isinstance(first, Mapping) and "data" in first and "type" in first:
        return from_langchain(items, strict=strict)  # type: ignore[arg-type]
    if any(
        isinstance(m, Mapping)
        and isinstance(m.get("content"), list)
        and any(
            isinstance(b, Mapping) and b.get("type") in ("tool_use", "tool_result")
            for b in m["content"]
        )
        for m in items
    ):
        return from_anthropic(items, strict=strict)  # type: ignore[arg-type]
    if all(isinstance(m, Mapping) and "role" in m for m in items):
        return from_openai(items, strict=strict)  # type: ignore[arg-type]
    raise TranscriptError("replay", None, "source", "expected a Run or a list of messages")


def replay(
    source: Run | Transcript,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool = 2,
) -> Run:
    """Re-apply ``strategy`` over ``source``'s recorded history; calls no model.

    Args:
        source: A run (from an agent, ``load_run`` or an importer), or a transcript (our
            messages, or OpenAI / Anthropic / LangChain message dicts).
        strategy: The window strategy to replay (None replays with no window management).
        keep_last_tool_results: The pin limit for the replay.

    Returns:
        A counterfactual run: ``meta['counterfactual']`` is True and ``meta['replay_of']``
        names the source.
    """
    return run_sync(areplay(source, strategy, keep_last_tool_results))


async def areplay(
    source: Run | Transcript,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool = 2,
) -> Run:
    """The async form of :func:`replay`."""
    with paused_gc():  # a long replay builds a whole run of acyclic objects: see _gc
        return await _replay(source, strategy, keep_last_tool_results)


async def _replay(
    source: Run | Transcript,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool,
) -> Run:
    keep_last = check_keep_last_tool_results(keep_last_tool_results)
    source = as_run(source)
    messages, usages = transcript_of(source)
    ledger = Ledger()
    recorder = Recorder()
    run = Run(
        request="",
        ledger=ledger,
        status=source.status if source.status != "paused" else "done",
        output=source.output,
        events=recorder.events,
        strategy=getattr(strategy, "name", None),
        system=source.system,
        model=source.model,
        provider=source.provider,
        keep_last_tool_results=keep_last,
        meta={
            **{k: v for k, v in source.meta.items() if not k.startswith("_")},
            "counterfactual": True,
            "replay_of": source.meta.get("label") or source.meta.get("scenario") or "run",
            # What the source's own reported usage says a character costs (for cost estimates).
            "tokens_per_char": source.meta.get("tokens_per_char")
            if source.meta.get("counterfactual")
            else run_tokens_per_char(source),
            "note": COUNTERFACTUAL_NOTE,
        },
    )
    # The agent's tool roster, when the source still has its agent (a notice names only those).
    roster = None if source.agent is None else frozenset(source.agent.tools)
    source_stage: dict[str, str | None] = {}
    window: list[Message] = []
    # Characters of ``window``, kept as it grows: summing the whole window at every call is
    # quadratic in the run's length when nothing is removed.
    sent_chars = 0
    last_usage: Usage | None = None
    reply_no = 0
    i = 0
    while i < len(messages):
        message = messages[i]
        if message.role == "assistant":
            run.iterations += 1
            iteration = run.iterations
            if strategy is not None:
                staged = await _window_stage(
                    run, recorder, strategy, window, iteration, last_usage, keep_last, roster
                )
                if staged is not window:  # a visit that filed a record: a new list
                    window, sent_chars = staged, window_chars(staged)
            stage = ledger.begin_stage("call-llm")
            usage = usages[reply_no]
            reply_no += 1
            call = CallRecord(
                iteration=iteration,
                stage_id=stage,
                sent_commit=len(ledger) - 1,
                messages=len(window),
                chars=sent_chars,
                usage=usage,
            )
            run.calls.append(call)
            recorder.emit(
                LlmStart(
                    iteration=iteration, stage_id=stage, messages=call.messages, chars=call.chars
                )
            )
            if usage is not None:
                ledger.put(stage, "usage", usage)
                recorder.emit(LlmEnd(iteration=iteration, stage_id=stage, usage=usage))
                last_usage = usage
            committed = _commit(ledger, stage, [message], source_stage)
            window.extend(committed)
            sent_chars += window_chars(committed)
            i += 1
            continue
        # Consecutive tool results form one tool-calls stage; a user message is a new request.
        j = i
        kind = "tool-calls" if message.role == "tool" else "seed"
        while j < len(messages) and messages[j].role == message.role and message.role == "tool":
            j += 1
        batch = messages[i : max(j, i + 1)]
        stage = ledger.begin_stage(kind)
        if kind == "seed" and not run.requests and source.system is not None:
            # As the agent's opening `seed` stage does: the commits line up with the source's.
            ledger.put(stage, "system", source.system)
        if message.role == "user":
            run.request = message.content
            run.requests.append(message.content)
        committed = _commit(ledger, stage, batch, source_stage)
        window.extend(committed)
        sent_chars += window_chars(committed)
        i += len(batch)
    run.window = window
    run.phase = "finished"  # a replay is over: it saves and reopens like any finished run
    run.meta["source_stage_ids"] = source_stage
    return run


def _commit(
    ledger: Ledger, stage: str, batch: Sequence[Message], source_stage: dict[str, str | None]
) -> list[Message]:
    source_stage.setdefault(stage, batch[0].stage_id if batch else None)
    if len(batch) > 1 and batch[0].role == "tool":
        # One commit per result, as the agent commits a batch's results as they finish, so
        # the replay's commits (and every record's ``commit``) line up with the source's.
        return [
            m
            for message in batch
            for m in ledger.append(stage, [message.model_copy(update={"stage_id": None})])
        ]
    return ledger.append(stage, [m.model_copy(update={"stage_id": None}) for m in batch])


async def _window_stage(
    run: Run,
    recorder: Recorder,
    strategy: WindowStrategy,
    window: list[Message],
    iteration: int,
    last_usage: Usage | None,
    keep_last: int,
    tool_names: Collection[str] | None,
) -> list[Message]:
    ledger = run.ledger
    stage = ledger.begin_stage("window")
    boundary = Boundary(
        iteration=iteration,
        request=run.request or None,
        measured_input_tokens=None if last_usage is None else last_usage.input_tokens,
        measured_output_tokens=None if last_usage is None else last_usage.output_tokens,
        keep_last_tool_results=keep_last,
        prior_records=run.records,
        provider_name=run.provider or "replay",
        tool_names=None if tool_names is None else frozenset(tool_names),
        model=run.model or None,
    )
    result = await aapply_boundary(strategy, window, boundary)
    if result.record is None:
        return window
    return commit_visit(
        run, recorder, stage, window, result, iteration=iteration, usage=last_usage, forced=False
    ).window
