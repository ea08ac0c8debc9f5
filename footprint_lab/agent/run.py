"""``Run``: everything one agent run produced — status, window, records, events, ledger.

Layer: agent. The run's state shared with checkpoints lives here too: the :class:`Checkpoint` model
and :func:`checkpoint_of`, so ``run.checkpoint()`` and ``run.save()`` need nothing above this module
(:mod:`footprint_lab.agent.checkpoint`, which imports this one, restores runs and reads run files).
A run that hit a fault is still a run: ``status='error'`` with ``error`` set and the ledger, records
and events intact up to the fault, so it can be inspected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from footprint_lab.agent._open_batch import batch_progress as batch_progress
from footprint_lab.agent._open_batch import open_batch as open_batch
from footprint_lab.agent._runfile_io import atomic_write, with_checksum
from footprint_lab.agent._saved import FORMAT as FORMAT
from footprint_lab.agent._saved import VERSION as VERSION
from footprint_lab.agent._saved import SavedCommit as SavedCommit
from footprint_lab.agent._saved import SavedError as SavedError
from footprint_lab.agent._saved import SavedLedger as SavedLedger
from footprint_lab.agent._saved import named_records
from footprint_lab.agent.origin import Live, Origin
from footprint_lab.events import Event
from footprint_lab.ledger import HISTORY, WINDOW, Commit, Ledger
from footprint_lab.messages import Message, StorableStr
from footprint_lab.usage import Usage
from footprint_lab.window.records import FoldedSpan, TokenSource, WindowRecord

if TYPE_CHECKING:
    from footprint_lab.agent.tools import Tool
    from footprint_lab.providers.base import Provider


class RunOwner(Protocol):
    """What a run needs of the agent that ran it (an :class:`~footprint_lab.agent.Agent`)."""

    @property
    def tools(self) -> Mapping[str, Tool]:
        """The agent's tools by name (a replay's drop notice names only these)."""

    @property
    def provider(self) -> Provider:
        """The agent's provider (a replay counts tokens with it)."""

    def resume(
        self, checkpoint: Checkpoint, *, answer: str | None = None, approve: bool | None = None
    ) -> Run:
        """Continue a paused run from its checkpoint (the run's resume, approve and deny)."""


RunStatus = Literal["done", "paused", "max-iterations", "error", "cancelled", "incomplete"]
"""'cancelled' is an interrupt (Ctrl-C, ``SystemExit``) or a task cancellation (including a
timeout around ``arun``): the run stopped between or inside a stage and resumes like a fault.
'incomplete' is only ever an imported run's: its file ends mid-loop with no recorded outcome
(the rule is in :mod:`footprint_lab.importers.recorded`)."""
Phase = Literal[
    "window", "visit", "inject", "call", "recover", "retry", "tools", "resume", "finished"
]
"""Where a run stands inside an iteration — always the next step that has not finished, so a
checkpoint taken there (after a fault, an interrupt or a kill) re-runs only that step:

* ``window``: at the iteration boundary, the iteration not yet counted;
* ``visit``: the iteration is counted, its window stage has not committed;
* ``inject``: the window stage committed, the injection rules have not run;
* ``call``: about to call the model;
* ``recover``: the call was rejected as too long, the forced window stage has not committed;
* ``retry``: the forced stage (and its injections) committed, the one retry is due;
* ``tools``: the model asked for tools; the calls of its batch without a result are due;
* ``resume``: waiting on a person; ``finished``: nothing left to run."""


class PauseState(BaseModel):
    """What a paused run waits on."""

    call_id: str
    """The tool call waiting for a person."""
    tool_name: str
    """Its tool."""
    kind: Literal["ask-human", "check-in"]
    """'ask-human' waits for an answer; 'check-in' waits for consent to run the tool."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The call's arguments (the question, for ask_human)."""
    pending: list[str] = Field(default_factory=list)
    """Further calls of the same batch still waiting, in order."""
    iteration: int = 0
    """The iteration whose tool calls paused."""
    boundary: bool = False
    """True once the next iteration's window stage ran (it runs at the pause)."""

    @property
    def check_in(self) -> bool:
        """True when the person is asked for consent rather than an answer."""
        return self.kind == "check-in"


class CallRecord(BaseModel):
    """One LLM call: what was sent and what the provider reported."""

    iteration: int
    """The ReAct iteration."""
    stage_id: str
    """The call-llm stage."""
    sent_commit: int
    """Index of the last commit before the call: ``ledger.window_at(sent_commit)`` is what
    was sent."""
    messages: int
    """Messages sent."""
    chars: int
    """Exact characters sent."""
    usage: Usage | None = None
    """What the provider reported (None when the call failed); in a replay, the tokens of
    the window the replay sent, obtained as ``tokens_from`` says."""
    tokens_from: TokenSource | None = None
    """None for usage a provider reported for this very call; in a replay, how the input
    tokens of the counterfactual window were obtained ('counted', 'scaled', 'estimated')."""
    scaled_from: int | None = None
    """For a ``scaled`` figure, the input tokens the source's call reported, which it was
    scaled from (``6,007 scaled from the 6,182 reported``); None otherwise."""
    retry: bool = False
    """True for the one retry after a context-length rejection."""
    finish_reason: str | None = None
    """Why the reply ended, as the provider said it ('stop', 'tool_calls', 'length',
    'end_turn', 'max_tokens', ...); None when it did not say or the call failed."""
    truncated: bool = False
    """True when the reply was cut short by the output cap (an ``llm.truncated`` event too)."""


class ImportProblem(BaseModel):
    """One thing an importer found wrong in a transcript and kept as it was."""

    model_config = ConfigDict(frozen=True)

    source: str
    """Where the transcript came from ('openai', 'anthropic', 'langchain', 'tau-bench', ...)."""
    index: int | None
    """Index of the input item it concerns, counted in ``unit`` s (None: the transcript as a
    whole)."""
    field: StorableStr
    """The field it concerns, as a path inside that item ('tool_calls[0].function.name')."""
    problem: StorableStr
    """What is wrong with it (the rule it breaks), and how it was kept."""
    unit: str = "message"
    """What ``index`` counts: 'message', or for a file loader the file's own unit ('entry',
    'line', 'sample', 'event', 'span'), as :class:`~footprint_lab.importers.TranscriptError`
    names it."""
    path: StorableStr | None = None
    """The file it was found in (file loaders; None for an import of objects in memory)."""


class RunState(BaseModel):
    """The state a :class:`Run` and its :class:`Checkpoint` share, named once: ``checkpoint_of``
    and ``run_from_checkpoint`` copy exactly these fields, and ``Run`` carries each under the
    same name (a test holds the two to it)."""

    model_config = ConfigDict(extra="forbid")

    request: str
    """The current request."""
    requests: list[str]
    """Every request of the conversation."""
    status: RunStatus
    """The run's status."""
    phase: Phase
    """Where inside the iteration the run stands."""
    iterations: int
    """Iterations started."""
    loop_start: int
    """Iterations completed before the current request's loop."""
    output: str | None
    """The final answer, if any."""
    records: list[WindowRecord]
    """Every record filed."""
    calls: list[CallRecord]
    """Every LLM call."""
    events: list[Event]
    """Every event."""
    folded: list[FoldedSpan]
    """Spans compaction frames stand for (with their originals when retained)."""
    pause: PauseState | None
    """What a paused run waits on."""
    last_usage: Usage | None
    """Usage of the last successful call."""
    provider_state: dict[str, Any] | None
    """A stateful provider's state (the scripted provider's position)."""
    strategy: str | None
    """The window strategy's name."""
    system: str | None
    """The system prompt."""
    model: str
    """The model id."""
    provider: str
    """The provider's name."""
    keep_last_tool_results: int
    """The pin limit."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Free-form facts about the run: the user's and the source file's."""
    import_problems: list[ImportProblem] = Field(default_factory=list)
    """What an importer found wrong in the transcript and kept as it was."""
    origin: Origin = Field(default_factory=Live)
    """How the run was made (:mod:`footprint_lab.agent.origin`)."""


STATE_FIELDS: tuple[str, ...] = tuple(RunState.model_fields)
"""The fields of :class:`RunState`, in order."""


def shared_state(source: Any) -> dict[str, Any]:
    """The :class:`RunState` fields of a run or a checkpoint, containers copied (so the copy
    and its source can grow apart)."""
    out: dict[str, Any] = {}
    for name in STATE_FIELDS:
        value = getattr(source, name)
        if isinstance(value, list):
            value = list(value)
        elif isinstance(value, dict):
            value = dict(value)
        out[name] = value
    return out


class Checkpoint(RunState):
    """Everything needed to resume a run, or to reopen it in the lab: the shared
    :class:`RunState` plus the ledger, the window as positions, and the fault as text."""

    format: Literal["footprint-lab/run"] = FORMAT
    """Marks the file as ours."""
    version: Literal[2] = VERSION
    """Format version."""
    error: SavedError | None
    """The fault, if any."""
    ledger: SavedLedger
    """The commit log."""
    window: list[int]
    """The window, as positions into ``ledger.messages``."""

    @model_validator(mode="after")
    def _records_know_their_given_commit(self) -> Checkpoint:
        """Each record's ``given_commit`` (never saved: the ledger says it) read back, so a
        checkpoint equals itself after a JSON round trip."""
        self.records = named_records(self.records, self.ledger.commits)
        return self

    @property
    def answered_calls(self) -> list[str]:
        """Which calls of the open tool batch already have a committed result (a resume from
        this checkpoint runs only the others)."""
        return batch_progress([self.ledger.messages[p] for p in self.window])[0]

    @property
    def pending_calls(self) -> list[str]:
        """Which calls of the open tool batch have no result yet, in call order."""
        return batch_progress([self.ledger.messages[p] for p in self.window])[1]

    def save(self, path: str | Path) -> Path:
        """Write this checkpoint to one JSON run file with its checksum, atomically.

        See :func:`~footprint_lab.agent._runfile_io.atomic_write`: a temp file in the target's
        folder, then a rename; stale temp files of killed saves to the same place are removed first;
        a symlink is written through; the file gets the mode ``open()`` would give it.
        """
        return atomic_write(path, with_checksum(self.model_dump_json()))


@dataclass
class Run:
    """The outcome of ``agent.run(request)``."""

    request: str
    """What the run was asked."""
    ledger: Ledger
    """The append-only commit log."""
    status: RunStatus = "done"
    """'done', 'paused', 'max-iterations', 'error' or 'cancelled'."""
    output: str | None = None
    """The final answer, when the run finished."""
    window: list[Message] = field(default_factory=list)
    """The window as the run left it."""
    records: list[WindowRecord] = field(default_factory=list)
    """Every WindowRecord filed, in order."""
    events: list[Event] = field(default_factory=list)
    """Every event emitted, in order."""
    calls: list[CallRecord] = field(default_factory=list)
    """Every LLM call, in order."""
    folded: list[FoldedSpan] = field(default_factory=list)
    """Spans compaction frames stand for."""
    error: BaseException | None = None
    """The fault that stopped the run, if any: its type, message and attributes, but no
    traceback, ``__cause__`` or ``__context__`` (they would keep the frames, and the SDK client
    and key in them, alive); a note on it says where it was raised."""
    iterations: int = 0
    """ReAct iterations started."""
    strategy: str | None = None
    """Name of the window strategy, or None."""
    system: str | None = None
    """The system prompt."""
    model: str = ""
    """The model id."""
    provider: str = ""
    """The provider's name."""
    keep_last_tool_results: int = 2
    """The pin limit in force."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Free-form facts about the run (scenario name, imported task id, ...)."""
    requests: list[str] = field(default_factory=list)
    """Every request of the conversation so far, in order (the last is ``request``)."""
    phase: Phase = "window"
    """Where the run stands inside its current iteration (for resume)."""
    pause: PauseState | None = None
    """What a paused run waits on."""
    loop_start: int = 0
    """Iterations completed before the current request's loop began."""
    last_usage: Usage | None = None
    """Usage of the last successful call: what a token strategy measures next."""
    provider_state: dict[str, Any] | None = None
    """State of a stateful provider (the scripted one) as of the last checkpointable point."""
    import_problems: list[ImportProblem] = field(default_factory=list)
    """What an importer found wrong in the transcript and kept as it was (empty otherwise)."""
    origin: Origin = field(default_factory=Live)
    """How the run was made: an agent ran it (``Live``), or ``replay``, an importer or ``fork``
    made it (:mod:`footprint_lab.agent.origin`)."""
    agent: RunOwner | None = field(default=None, repr=False, compare=False)
    """The agent that produced this run (None for loaded runs); ``resume`` uses it."""

    @property
    def usage(self) -> Usage:
        """Total usage reported over every call."""
        total = Usage()
        for call in self.calls:
            if call.usage is not None:
                total = total + call.usage
        return total

    @property
    def answered_calls(self) -> list[str]:
        """Ids of the calls of the open tool batch (the last assistant message of the window)
        that already have a committed result — a resume runs only the others."""
        return batch_progress(self.window)[0]

    @property
    def pending_calls(self) -> list[str]:
        """Ids of the calls of the open tool batch that have no result yet, in call order."""
        return batch_progress(self.window)[1]

    def window_sent(self, call_index: int) -> list[Message]:
        """The exact window sent by call number ``call_index`` (0-based)."""
        return self.ledger.window_at(self.calls[call_index].sent_commit)

    def checkpoint(self) -> Checkpoint:
        """A JSON-serialisable snapshot the agent can resume from (see ``agent.resume``)."""
        return checkpoint_of(self)

    def save(self, path: str | Path) -> Path:
        """Write this run to one file, atomically; ``footprint_lab.load_run`` restores it."""
        return self.checkpoint().save(path)

    def _owner(self) -> RunOwner:
        if self.agent is None:
            raise RuntimeError(
                "this run has no agent attached (it was loaded from a file): use "
                "agent.resume(run.checkpoint(), answer=...) with the agent rebuilt"
            )
        return self.agent

    def resume(self, answer: str | None = None) -> Run:
        """Continue a paused run: ``answer`` is the person's reply to ``ask_human``; for a
        check-in, ``resume()`` without an answer approves."""
        return self._owner().resume(self.checkpoint(), answer=answer)

    def approve(self) -> Run:
        """Let a paused check-in tool run, and continue."""
        return self._owner().resume(self.checkpoint(), approve=True)

    def deny(self, reason: str = "not approved") -> Run:
        """Refuse a paused check-in tool (the model sees the refusal), and continue."""
        return self._owner().resume(self.checkpoint(), approve=False, answer=reason)

    def raise_for_error(self) -> Run:
        """Re-raise the fault that stopped the run; return the run when there was none."""
        if self.error is not None:
            raise self.error
        return self

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the run without its ``agent`` link (for sweeps across processes).

        The agent holds the provider, and a real provider holds SDK clients and its key; a
        pickled run carries only what the run produced, and ``agent`` is None when unpickled
        (attach a rebuilt agent, or use ``agent.resume(run.checkpoint())``).
        """
        state = dict(self.__dict__)
        state["agent"] = None
        return state

    def __repr__(self) -> str:
        """One line: ``<Run done · 12 iterations · 3 records · 41 messages ·
        scripted/sliding-window>`` (provider/strategy; the error's type when it failed)."""
        from footprint_lab._repr import count, short

        status = str(self.status)
        if self.error is not None:
            status += f" ({getattr(self.error, 'type_name', type(self.error).__name__)})"
        who = "/".join(p for p in (self.provider, self.strategy or "no strategy") if p)
        return short(
            "Run",
            [
                status,
                count(self.iterations, "iteration"),
                count(len(self.records), "record"),
                count(len(self.ledger.messages), "message"),
                who,
            ],
        )

    def _repr_html_(self) -> str:
        """The run in a notebook: its one line over a table of what it was asked and
        answered, its size, its strategy and provider, and why it stopped."""
        from footprint_lab._repr import clip, html_table

        error = None
        if self.error is not None:
            kind = getattr(self.error, "type_name", type(self.error).__name__)
            error = clip(f"{kind}: {self.error}", 200)
        pause = None
        if self.pause is not None:
            pause = f"{self.pause.kind} · {self.pause.tool_name} · call {self.pause.call_id}"
        rows: list[tuple[str, object]] = [
            ("status", self.status),
            ("request", clip(self.request)),
            ("output", None if self.output is None else clip(self.output)),
            ("iterations", f"{self.iterations:,}"),
            ("calls", f"{len(self.calls):,}"),
            ("records", f"{len(self.records):,}"),
            ("ledger messages", f"{len(self.ledger.messages):,}"),
            (
                "window",
                f"{len(self.window):,} message(s), {sum(m.chars for m in self.window):,} chars",
            ),
            ("strategy", self.strategy or "none"),
            ("provider", " · ".join(dict.fromkeys(p for p in (self.provider, self.model) if p))),
        ]
        rows += [(key, value) for key, value in (("paused on", pause), ("error", error)) if value]
        return html_table(repr(self), rows)


def _encode_value(commit: Commit) -> Any:
    value = commit.stored
    if commit.key in (HISTORY, WINDOW):
        return [list(pair) for pair in value] if commit.key == WINDOW else list(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


def checkpoint_of(run: Run) -> Checkpoint:
    """Snapshot ``run`` (see :class:`Checkpoint`)."""
    messages, message_commit, commits, counter = run.ledger.export()
    positions: list[int] = []
    for message in run.window:
        pos = run.ledger.position(message)
        if pos is None:
            raise ValueError("the run's window holds a message its ledger never committed")
        positions.append(pos)
    error = None
    if run.error is not None:
        type_name = getattr(run.error, "type_name", type(run.error).__name__)
        error = SavedError(
            type_name=type_name, message=getattr(run.error, "message", str(run.error))
        )
    state = shared_state(run)
    state["requests"] = state["requests"] or [run.request]
    return Checkpoint(
        **state,
        error=error,
        ledger=SavedLedger(
            messages=messages,
            message_commit=message_commit,
            commits=[
                SavedCommit(
                    index=c.index,
                    stage_id=c.stage_id,
                    key=c.key,
                    at_ms=c.at_ms,
                    value=_encode_value(c),
                )
                for c in commits
            ],
            stage_counter=counter,
        ),
        window=positions,
    )
