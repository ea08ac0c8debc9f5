"""Sense checks for run files and checkpoints: what shape validation cannot see.

Layer: agent (private; used by :mod:`footprint_lab.agent.checkpoint`). Pydantic checks that a
document has the right *shape*; the checks here ask whether it makes *sense*: that positions
name messages the ledger holds, that removed stage ids were committed, that counts are not
negative, that status and phase agree, and that no field is unknown at any depth. Each check
raises :class:`RunFileProblem` naming the place as a JSON path (``records[3].removed_stage_ids
[0]``) and the rule broken; every check is linear in the size of the document.
"""

from __future__ import annotations

import functools
import json
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from footprint_lab.ledger import Ledger, stage_number
from footprint_lab.usage import Usage

if TYPE_CHECKING:
    from footprint_lab.agent.run import Checkpoint

Path = tuple[Any, str | int] | None
"""A JSON path as a linked list (parent, part), so extending it costs O(1)."""

Kind = Literal["corrupt run file", "inconsistent run file"]

PHASES_OF_STATUS: Mapping[str, tuple[bool, str]] = {
    "done": (True, "finished"),
    "paused": (True, "resume"),
    "max-iterations": (False, "resume"),
    "error": (False, "finished"),
    "incomplete": (True, "finished"),
}
"""For each status, ``(True, p)``: it stands only at phase ``p``; ``(False, p)``: at any phase
but ``p`` — as the agent loop leaves them.

'done' only when the loop finished on a final answer; 'paused' waits at 'resume'.
'max-iterations' is also the status of a run in flight (``start_request`` sets it and
``answer_pause`` restores it), so a checkpoint taken at a boundary (``on_checkpoint``, phase
'window') or inside an iteration stands at any in-flight phase, and a run that exhausted its
iterations at 'finished' — never at 'resume'. 'error' stands wherever the fault struck (any
stage, or 'resume' when the boundary run at a pause failed) — never at 'finished'. Statuses
not listed here ('cancelled', or any added later) are not held to a phase or a pause. For the
listed ones a pause is carried exactly when the phase is 'resume', and a fault only with
status 'error'. 'incomplete' is an imported run's (its file ends mid-loop): always finished.
"""


MAX_CALL_TOKENS = 10**9
"""The most tokens one call may report in any usage field: a thousand times the largest
context window of 2026; more is an edited file, never a provider's report."""

MAX_PIN_LIMIT = 10**6
"""The largest ``keep_last_tool_results`` a run file may hold (more pins than any run has
tool results)."""

MAX_META_CHARS = 1_000_000
"""The most characters a run's ``meta`` may hold, as JSON: it holds settings and notes."""


class RunFileProblem(ValueError):
    """One thing wrong with a run document: where (a JSON path) and which rule."""

    def __init__(self, where: str, rule: str, kind: Kind = "inconsistent run file") -> None:
        super().__init__(f"{where}: {rule}")
        self.where = where
        self.rule = rule
        self.kind: Kind = kind


def json_path(parts: Iterable[str | int]) -> str:
    """``("records", 3, "removed_stage_ids", 0)`` as ``records[3].removed_stage_ids[0]``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "(document)"


def _unlink(path: Path) -> str:
    parts: list[str | int] = []
    while path is not None:
        path, part = path
        parts.append(part)
    return json_path(reversed(parts))


def loc_path(loc: Sequence[str | int], data: Any) -> list[str | int]:
    """A pydantic error location as parts of a JSON path into ``data``.

    Parts of ``loc`` that are not keys or indices of the document (a tagged union's tag, a
    validator's name) are left out, so the path names a place in the file; a last part that
    is not there is kept (it names the missing or unknown key).
    """
    parts: list[str | int] = []
    node = data
    for n, part in enumerate(loc):
        inside = (
            isinstance(part, int) and 0 <= part < len(node)
            if isinstance(node, list)
            else isinstance(node, dict) and part in node
        )
        if inside:
            parts.append(part)
            node = node[part]
        elif n == len(loc) - 1:
            parts.append(part)
    return parts


# -- unknown fields -------------------------------------------------------------------------


def _holds_models(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    origin = typing.get_origin(annotation)
    if origin is None:
        return False
    if origin is Literal:
        return False
    return any(_holds_models(arg) for arg in typing.get_args(annotation))


@functools.cache
def _fields_of(model: type[BaseModel]) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    """The input keys a model knows (names and aliases), and ``(key, attribute)`` for the
    fields that may hold models — the only ones worth descending into."""
    known: set[str] = set()
    nested: list[tuple[str, str]] = []
    for name, info in model.model_fields.items():
        keys = [name] + [a for a in (info.alias, info.validation_alias) if isinstance(a, str)]
        known.update(keys)
        if _holds_models(info.annotation):
            nested.extend((key, name) for key in dict.fromkeys(keys))
    return frozenset(known), tuple(nested)


def check_unknown_fields(data: Any, value: Any, prefix: Path = None) -> None:
    """Raise on the first key of ``data`` that the model validated from it has no field for.

    Walks ``data`` beside ``value`` (what pydantic made of it), so unions and tagged unions
    are resolved by the models themselves and fields added later are known automatically.
    Iterative, so deep documents cannot exhaust the stack; only fields that can hold models
    are descended into.

    Raises:
        RunFileProblem: an unknown field, and where.
    """
    stack: list[tuple[Any, Any, Path]] = [(data, value, prefix)]
    while stack:
        raw, obj, path = stack.pop()
        if isinstance(obj, BaseModel):
            if not isinstance(raw, dict):
                continue
            known, nested = _fields_of(type(obj))
            if not known.issuperset(raw):
                key = next(k for k in raw if k not in known)
                raise RunFileProblem(
                    _unlink((path, key)),
                    f"unknown field: {type(obj).__name__} has no field {key!r}",
                    kind="corrupt run file",
                )
            for key, name in nested:
                item = raw.get(key)
                if isinstance(item, (dict, list)):
                    stack.append((item, getattr(obj, name), (path, key)))
        elif isinstance(obj, (list, tuple)) and isinstance(raw, list) and len(raw) == len(obj):
            stack.extend(
                (item, sub, (path, i))
                for i, (item, sub) in enumerate(zip(raw, obj, strict=True))
                if isinstance(item, (dict, list))
            )
        elif isinstance(obj, dict) and isinstance(raw, dict):
            stack.extend(
                (item, obj[key], (path, key))
                for key, item in raw.items()
                if isinstance(item, (dict, list)) and key in obj
            )


# -- sense ----------------------------------------------------------------------------------


def _check_not_negative(value: BaseModel, prefix: Path) -> None:
    """Every integer field of ``value``, at any depth, is >= 0 (counts, sizes, indices)."""
    stack: list[tuple[Any, Path]] = [(value, prefix)]
    while stack:
        obj, path = stack.pop()
        if isinstance(obj, BaseModel):
            for name, item in vars(obj).items():  # a pydantic model's fields, by name
                if type(item) is int:
                    if item < 0:
                        raise RunFileProblem(
                            _unlink((path, name)), f"is {item}; counts and sizes cannot be negative"
                        )
                elif isinstance(item, (BaseModel, list)):
                    stack.append((item, (path, name)))
        elif isinstance(obj, list):
            stack.extend((item, (path, i)) for i, item in enumerate(obj))


def _check_iteration(iteration: int, iterations: int, where: str) -> None:
    if iteration > iterations:
        raise RunFileProblem(
            where, f"is {iteration}, but the run started only {iterations} iterations"
        )


def _check_status(checkpoint: Checkpoint) -> None:
    status, phase = checkpoint.status, checkpoint.phase
    rule = PHASES_OF_STATUS.get(status)
    if rule is None:
        return
    only, named = rule
    if (phase == named) is not only:
        stands = f"phase {named!r}" if only else f"any phase but {named!r}"
        raise RunFileProblem(
            "phase", f"{phase!r} contradicts status {status!r} (such a run stands at {stands})"
        )
    pause = checkpoint.pause
    if pause is None and phase == "resume":
        raise RunFileProblem(
            "pause", f"a run at phase 'resume' (status {status!r}) names what it waits on"
        )
    if pause is not None and phase != "resume":
        raise RunFileProblem(
            "pause",
            f"only a run waiting at phase 'resume' carries a pause (this one: status "
            f"{status!r}, phase {phase!r})",
        )
    if checkpoint.error is not None and status != "error":
        raise RunFileProblem(
            "error", f"only a run with status 'error' carries a fault (status is {status!r})"
        )
    if checkpoint.error is None and status == "error":
        # A run continued with resume_on_error is 'max-iterations' again while it runs, so
        # every checkpoint it takes on the way says so: 'error' always names its fault.
        raise RunFileProblem("error", "a run with status 'error' names the fault it stopped on")


def _check_usage(usage: Usage | None, where: str) -> None:
    """No usage field above :data:`MAX_CALL_TOKENS`."""
    if usage is None:
        return
    for name in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        value = getattr(usage, name)
        if value is not None and value > MAX_CALL_TOKENS:
            raise RunFileProblem(
                f"{where}.{name}",
                f"is {value:,}; no call reads or writes more than {MAX_CALL_TOKENS:,} tokens",
            )


def _check_bounds(checkpoint: Checkpoint) -> None:
    """Sizes no honest run reaches: the pin limit, the meta's size, every usage."""
    pins = checkpoint.keep_last_tool_results
    if pins > MAX_PIN_LIMIT:
        raise RunFileProblem(
            "keep_last_tool_results",
            f"is {pins:,}; a pin limit is at most {MAX_PIN_LIMIT:,} (more pins than any run has "
            "tool results)",
        )
    size = len(json.dumps(checkpoint.meta, default=str))
    if size > MAX_META_CHARS:
        raise RunFileProblem(
            "meta",
            f"holds {size:,} characters as JSON; a run's meta holds settings and notes, at most "
            f"{MAX_META_CHARS:,}",
        )
    _check_usage(checkpoint.last_usage, "last_usage")
    for i, call in enumerate(checkpoint.calls):
        _check_usage(call.usage, f"calls[{i}].usage")
    for i, event in enumerate(checkpoint.events):
        _check_iteration(event.iteration, checkpoint.iterations, f"events[{i}].iteration")


def _check_removed(ids: Sequence[str], committed: set[str], where: str) -> None:
    for j, stage_id in enumerate(ids):
        if stage_id not in committed:
            raise RunFileProblem(
                f"{where}[{j}]",
                f"names stage {stage_id!r}, which committed no message in the ledger",
            )


def check_run(checkpoint: Checkpoint, ledger: Ledger) -> None:
    """Check that a checkpoint's parts make sense with each other and with its ledger.

    Args:
        checkpoint: The validated checkpoint.
        ledger: Its ledger, restored (and so already checked by ``Ledger.restore``).

    Raises:
        RunFileProblem: the first rule broken, and where.
    """
    iterations = checkpoint.iterations
    if iterations < 0:
        raise RunFileProblem("iterations", f"is {iterations}; it cannot be negative")
    if checkpoint.loop_start < 0:
        raise RunFileProblem("loop_start", f"is {checkpoint.loop_start}; it cannot be negative")
    if iterations < checkpoint.loop_start:
        raise RunFileProblem(
            "iterations",
            f"is {iterations}, less than loop_start {checkpoint.loop_start} (the iterations "
            "completed before the current request's loop)",
        )
    _check_status(checkpoint)
    _check_bounds(checkpoint)
    if checkpoint.pause is not None:
        _check_iteration(checkpoint.pause.iteration, iterations, "pause.iteration")

    size = len(ledger.messages)
    seen: set[int] = set()
    for i, pos in enumerate(checkpoint.window):
        if not 0 <= pos < size:
            raise RunFileProblem(
                f"window[{i}]",
                f"position {pos} is out of range: the ledger holds {size} messages",
            )
        if pos in seen:
            raise RunFileProblem(
                f"window[{i}]", f"position {pos} repeats (a window holds each message once)"
            )
        seen.add(pos)

    committed = {m.stage_id for m in ledger.messages if m.stage_id is not None}
    for i, record in enumerate(checkpoint.records):
        where = f"records[{i}]"
        _check_not_negative(record, (None, where))
        _check_iteration(record.iteration, iterations, f"{where}.iteration")
        _check_removed(record.removed_stage_ids, committed, f"{where}.removed_stage_ids")
        if record.removed_message_count == 0 and record.removed_stage_ids:
            raise RunFileProblem(
                f"{where}.removed_message_count",
                f"is 0, but the record names {len(record.removed_stage_ids)} removed stage id(s)",
            )
    for i, span in enumerate(checkpoint.folded):
        where = f"folded[{i}]"
        _check_removed(span.removed_stage_ids, committed, f"{where}.removed_stage_ids")
        if span.frame_stage_id is not None and span.frame_stage_id not in committed:
            raise RunFileProblem(
                f"{where}.frame_stage_id",
                f"names stage {span.frame_stage_id!r}, which committed no message in the ledger",
            )
    commits = len(ledger)
    counter = ledger.stage_count
    for i, call in enumerate(checkpoint.calls):
        where = f"calls[{i}]"
        _check_not_negative(call, (None, where))
        _check_iteration(call.iteration, iterations, f"{where}.iteration")
        if not call.sent_commit < commits:
            raise RunFileProblem(
                f"{where}.sent_commit",
                f"commit {call.sent_commit} is out of range: the ledger holds {commits} commits",
            )
        number = stage_number(call.stage_id)
        if number is not None and number >= counter:
            raise RunFileProblem(
                "ledger.stage_counter",
                f"is {counter}, but {where}.stage_id {call.stage_id!r} was already allocated: "
                "the counter must be greater than every #n used, or ids would be reused",
            )
