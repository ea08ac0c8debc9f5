"""Durable runs: checkpoints to resume from, and run files to reopen in the lab.

Layer: agent. A :class:`Checkpoint` is the whole state of a run — its ledger (messages stored
once, commits as positions), the window as positions into it, records, calls, events, folded
spans, pause state and where inside an iteration it stood — as one pydantic model that
serialises to JSON. ``run.save(path)`` writes the same model, atomically (temp file, then
rename); :func:`load_run` reads it back or raises :class:`RunFileError` naming the file and what
is wrong — never a half-loaded run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from footprint_lab.agent.run import CallRecord, PauseState, Phase, Run, RunStatus
from footprint_lab.events import Event
from footprint_lab.ledger import HISTORY, WINDOW, Commit, Ledger
from footprint_lab.messages import Message
from footprint_lab.usage import Usage
from footprint_lab.window.records import FoldedSpan, WindowRecord

FORMAT: Literal["footprint-lab/run"] = "footprint-lab/run"
VERSION: Literal[1] = 1


class RunFileError(ValueError):
    """A run file could not be read: the message names the file and what is wrong."""


class RestoredError(RuntimeError):
    """The fault a saved run stopped on, as it was recorded (type name and message)."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.message = message


class SavedCommit(BaseModel):
    """One ledger commit in serialisable form."""

    index: int
    """Position in the log."""
    stage_id: str
    """The stage that wrote it."""
    key: str
    """The key written."""
    at_ms: int
    """When."""
    value: Any = None
    """The stored value (positions for history/window, a dump for records and usage)."""


class SavedLedger(BaseModel):
    """The ledger: every message once, and every commit."""

    messages: list[Message]
    """Every message ever committed, in order."""
    message_commit: list[int]
    """For each message, the commit that appended it."""
    commits: list[SavedCommit]
    """Every commit, in order."""
    stage_counter: int
    """How many stage ids were allocated."""


class SavedError(BaseModel):
    """A fault, as text."""

    type_name: str
    """The exception's class name."""
    message: str
    """Its message."""


class Checkpoint(BaseModel):
    """Everything needed to resume a run, or to reopen it in the lab."""

    format: Literal["footprint-lab/run"] = FORMAT
    """Marks the file as ours."""
    version: Literal[1] = VERSION
    """Format version."""
    request: str
    """The current request."""
    requests: list[str]
    """Every request of the conversation."""
    status: RunStatus
    """The run's status when the checkpoint was taken."""
    phase: Phase
    """Where inside the iteration the run stood."""
    iterations: int
    """Iterations started."""
    loop_start: int
    """Iterations completed before the current request's loop."""
    output: str | None
    """The final answer, if any."""
    error: SavedError | None
    """The fault, if any."""
    ledger: SavedLedger
    """The commit log."""
    window: list[int]
    """The window, as positions into ``ledger.messages``."""
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
    """Free-form facts about the run."""

    def save(self, path: str | Path) -> Path:
        """Write this checkpoint to one JSON file, atomically (temp file, then rename)."""
        return _atomic_write(path, self.model_dump_json())


def _encode_value(commit: Commit) -> Any:
    value = commit.stored
    if commit.key in (HISTORY, WINDOW):
        return [list(pair) for pair in value] if commit.key == WINDOW else list(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


def _decode_value(key: str, value: Any) -> Any:
    if key == HISTORY:
        start, end = value
        return (int(start), int(end))
    if key == WINDOW:
        return tuple((int(a), int(b)) for a, b in value)
    if key == "record":
        return WindowRecord.model_validate(value)
    if key == "usage":
        return Usage.model_validate(value)
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
    return Checkpoint(
        request=run.request,
        requests=list(run.requests) or [run.request],
        status=run.status,
        phase=run.phase,
        iterations=run.iterations,
        loop_start=run.loop_start,
        output=run.output,
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
        records=list(run.records),
        calls=list(run.calls),
        events=list(run.events),
        folded=list(run.folded),
        pause=run.pause,
        last_usage=run.last_usage,
        provider_state=run.provider_state,
        strategy=run.strategy,
        system=run.system,
        model=run.model,
        provider=run.provider,
        keep_last_tool_results=run.keep_last_tool_results,
        meta=dict(run.meta),
    )


def run_from_checkpoint(checkpoint: Checkpoint) -> Run:
    """Rebuild a :class:`Run` from a checkpoint (no agent attached).

    Raises:
        ValueError: the checkpoint's parts do not agree with each other.
    """
    saved = checkpoint.ledger
    commits = [
        Commit(c.index, c.stage_id, c.key, c.at_ms, _decode_value(c.key, c.value))
        for c in saved.commits
    ]
    ledger = Ledger.restore(saved.messages, saved.message_commit, commits, saved.stage_counter)
    messages = ledger.messages
    if any(not 0 <= p < len(messages) for p in checkpoint.window):
        raise ValueError("the window names a message position the ledger does not hold")
    error = (
        None
        if checkpoint.error is None
        else RestoredError(checkpoint.error.type_name, checkpoint.error.message)
    )
    return Run(
        request=checkpoint.request,
        ledger=ledger,
        status=checkpoint.status,
        output=checkpoint.output,
        window=[messages[p] for p in checkpoint.window],
        records=list(checkpoint.records),
        events=list(checkpoint.events),
        calls=list(checkpoint.calls),
        folded=list(checkpoint.folded),
        error=error,
        iterations=checkpoint.iterations,
        strategy=checkpoint.strategy,
        system=checkpoint.system,
        model=checkpoint.model,
        provider=checkpoint.provider,
        keep_last_tool_results=checkpoint.keep_last_tool_results,
        meta=dict(checkpoint.meta),
        requests=list(checkpoint.requests),
        phase=checkpoint.phase,
        pause=checkpoint.pause,
        loop_start=checkpoint.loop_start,
        last_usage=checkpoint.last_usage,
        provider_state=checkpoint.provider_state,
    )


def save_run(run: Run, path: str | Path) -> Path:
    """Write ``run`` to ``path`` atomically: a temp file in the same folder, then a rename."""
    return checkpoint_of(run).save(path)


def _atomic_write(path: str | Path, payload: str) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read a run file as a checkpoint.

    Raises:
        RunFileError: missing, unreadable, truncated, corrupt, foreign or wrong-version file.
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RunFileError(f"{source}: no such run file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RunFileError(f"{source}: cannot be read as a run file ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RunFileError(
            f"{source}: not valid JSON at line {exc.lineno} column {exc.colno} — the file is "
            "truncated or corrupt"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RunFileError(
            f'{source}: not a footprint_lab run file (expected "format": "{FORMAT}")'
        )
    if data.get("version") != VERSION:
        raise RunFileError(
            f"{source}: run file version {data.get('version')!r} is not supported; this "
            f"footprint_lab reads version {VERSION}"
        )
    try:
        return Checkpoint.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RunFileError(
            f"{source}: corrupt run file — {where}: {first['msg']} ({exc.error_count()} problem(s))"
        ) from None


def load_run(path: str | Path) -> Run:
    """Reopen a run saved with ``run.save(path)``, losslessly.

    Raises:
        RunFileError: the file is missing, truncated, corrupt, foreign or of another version.
    """
    checkpoint = load_checkpoint(path)
    try:
        return run_from_checkpoint(checkpoint)
    except (ValueError, TypeError, IndexError) as exc:
        raise RunFileError(f"{Path(path)}: inconsistent run file — {exc}") from None
