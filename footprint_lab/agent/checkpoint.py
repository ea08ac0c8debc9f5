"""Durable runs: checkpoints to resume from, and run files to reopen in the lab.

Layer: agent, above :mod:`footprint_lab.agent.run` (which holds the :class:`Checkpoint` model and
``checkpoint_of``, so ``run.checkpoint()`` needs nothing from here; this module is the file side:
restoring a run, reading run files). A :class:`Checkpoint` is the whole state of a run — its ledger
(messages stored once, commits as positions), the window as positions into it, records, calls,
events, folded spans, pause state and where inside an iteration it stood — as one pydantic model
that serialises to JSON. ``run.save(path)`` writes the same model, atomically (temp file, then
rename); :func:`load_run` reads it back or raises :class:`RunFileError` naming the file and what is
wrong — never a half-loaded run.

A run file is the checkpoint's JSON with one more field in front, ``"checksum":
"sha256:<hex>"``: the SHA-256 of the exact UTF-8 bytes of the document without that field (as
``model_dump_json`` writes it), so a flipped bit is reported, not loaded. The checksum is
required: a file without one (written before checksums, or with the field deleted) loads only
with ``verify=False``, unverified. Loading checks shape (pydantic, no
unknown field at any depth), then sense (positions, stage ids, counts, status against phase —
see :mod:`footprint_lab.agent._runfile_checks`), then meaning (the window, requests, calls,
records, folded spans and pause follow from the ledger, and every window change the records
describe obeys the law — see :mod:`footprint_lab.agent._runfile_ledger`), then the checksum.
Reading is bounded: only a regular file, at most :data:`MAX_RUN_FILE_BYTES`. A save leaves
nothing behind: it removes the temp files of killed saves to the same place (never a live
save's, so concurrent saves to one path all succeed), writes through a symlink to its target,
and gives the file the mode ``open()`` would.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from footprint_lab.agent._runfile_checks import (
    RunFileProblem,
    check_run,
    check_unknown_fields,
    json_path,
    loc_path,
)
from footprint_lab.agent._runfile_io import (
    CHECKSUM_FIELD,
    MAX_RUN_FILE_BYTES,
    RunFileError,
    atomic_write,
    read_run_text,
    verify_checksum,
    with_checksum,
)
from footprint_lab.agent._runfile_ledger import check_against_ledger
from footprint_lab.agent._saved import READABLE_VERSIONS
from footprint_lab.agent.origin import origin_of_meta
from footprint_lab.agent.run import (
    FORMAT,
    VERSION,
    Checkpoint,
    Run,
    SavedCommit,
    SavedError,
    SavedLedger,
    checkpoint_of,
    shared_state,
)
from footprint_lab.ledger import HISTORY, WINDOW, Commit, Ledger, LedgerError, given_commit
from footprint_lab.messages import storable_json
from footprint_lab.usage import Usage
from footprint_lab.window.records import TOKEN_SOURCES, WindowRecord

__all__ = [
    "CHECKSUM_FIELD",
    "FORMAT",
    "MAX_RUN_FILE_BYTES",
    "VERSION",
    "Checkpoint",
    "RestoredError",
    "RunFileError",
    "RunFileProblem",
    "SavedCommit",
    "SavedError",
    "SavedLedger",
    "atomic_write",
    "check_run",
    "check_unknown_fields",
    "checkpoint_of",
    "json_path",
    "load_checkpoint",
    "load_run",
    "loc_path",
    "run_file_text",
    "run_from_checkpoint",
    "run_from_text",
    "save_run",
    "upgraded_run_document",
]


class RestoredError(RuntimeError):
    """The fault a saved run stopped on, as it was recorded (type name and message)."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.message = message


def _decode_value(key: str, value: Any, where: str) -> Any:
    """A saved commit value in the ledger's stored form. Malformed positions are passed on
    as they are, for ``Ledger.restore`` to name; a bad record or usage is named here."""
    if key == HISTORY:
        return tuple(value) if isinstance(value, list) and len(value) == 2 else value
    if key == WINDOW:
        if not isinstance(value, list):
            return value
        return tuple(tuple(run) if isinstance(run, list) else run for run in value)
    models: dict[str, type[BaseModel]] = {"record": WindowRecord, "usage": Usage}
    model = models.get(key)
    if model is None:
        return value
    try:
        decoded = model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        place = json_path([where, *loc_path(first["loc"], value)])
        rule = str(first["msg"])
        if first["type"] == "extra_forbidden":
            rule = f"unknown field: {model.__name__} has no field {first['loc'][-1]!r}"
        raise RunFileProblem(place, rule, kind="corrupt run file") from None
    check_unknown_fields(value, decoded, (None, where))
    return decoded


def _as_filed(commits: list[Commit]) -> list[Commit]:
    """The record commits as a run's writer files them: each record told its own commit and
    the commit of the window its visit was given (``given_commit``, never saved: the ledger
    says it, :func:`~footprint_lab.ledger.given_commit`). A file from before records named
    their commit gets that too."""
    out = list(commits)
    for i, commit in enumerate(commits):
        record = commit.stored
        if commit.key != "record" or not isinstance(record, WindowRecord):
            continue
        named = {
            "given_commit": given_commit(commits, i),
            "commit": i if record.commit is None else record.commit,
        }
        out[i] = dataclasses.replace(commit, stored=record.model_copy(update=named))
    return out


def _ledger_of(checkpoint: Checkpoint) -> Ledger:
    saved = checkpoint.ledger
    commits = [
        Commit(
            c.index,
            c.stage_id,
            c.key,
            c.at_ms,
            _decode_value(c.key, c.value, f"ledger.commits[{i}].value"),
        )
        for i, c in enumerate(saved.commits)
    ]
    try:
        return Ledger.restore(
            saved.messages, saved.message_commit, _as_filed(commits), saved.stage_counter
        )
    except LedgerError as exc:
        raise RunFileProblem(f"ledger.{exc.where}", exc.rule) from None


def run_from_checkpoint(checkpoint: Checkpoint) -> Run:
    """Rebuild a :class:`Run` from a checkpoint (no agent attached).

    The ledger is checked as :meth:`Ledger.restore` checks it, and the window's positions
    against it; the run-level sense checks of :func:`load_run` are not repeated here.

    Raises:
        ValueError: the checkpoint's parts do not agree with each other (a
            :class:`~footprint_lab.agent._runfile_checks.RunFileProblem` naming the place).
    """
    return _run_of(checkpoint, _ledger_of(checkpoint))


def _run_of(checkpoint: Checkpoint, ledger: Ledger) -> Run:
    messages = ledger.messages
    for i, pos in enumerate(checkpoint.window):
        if not 0 <= pos < len(messages):
            raise RunFileProblem(
                f"window[{i}]",
                f"position {pos} is out of range: the ledger holds {len(messages)} messages",
            )
    error = (
        None
        if checkpoint.error is None
        else RestoredError(checkpoint.error.type_name, checkpoint.error.message)
    )
    state = shared_state(checkpoint)
    # The records are the ledger's (the file checks say they agree), as in a live run.
    state["records"] = [c.stored for c in ledger.commits if c.key == "record"]
    return Run(
        **state,
        ledger=ledger,
        window=[messages[p] for p in checkpoint.window],
        error=error,
    )


def run_file_text(run: Run) -> str:
    """The text ``run.save`` writes for ``run`` (its checkpoint's JSON, checksum in front), for
    a store that keeps runs elsewhere than in files of their own (a corpus compresses it)."""
    return with_checksum(checkpoint_of(run).model_dump_json())


def run_from_text(text: str, *, source: str = "<run text>") -> Run:
    """The run :func:`run_file_text` wrote, its checksum verified: the text is checked to be the
    bytes written (not a re-serialisation, not altered), then validated and rebuilt as
    :func:`run_from_checkpoint` rebuilds a checkpoint. The sense checks :func:`load_run` makes of
    a file from anywhere are not repeated: the checksum says this text is one that was written.

    Raises:
        RunFileError: the text has no checksum in front, or is not what was written (the
            message names ``source``), or does not validate as a checkpoint.
    """
    where = Path(source)
    head = f'{{"{CHECKSUM_FIELD}":"'
    if not text.startswith(head):
        raise RunFileError(f"{where}: no checksum in front — not the text run_file_text writes")
    checksum = text[len(head) : text.find('"', len(head))]
    verify_checksum(where, text, checksum)
    body = "{" + text[len(head) + len(checksum) + 2 :]
    try:
        checkpoint = Checkpoint.model_validate_json(body)
    except ValidationError as exc:
        raise RunFileError(f"{where}: corrupt run text — {exc.errors()[0]['msg']}") from None
    try:
        return run_from_checkpoint(checkpoint)
    except RunFileProblem as problem:
        raise RunFileError(f"{where}: {problem.kind} — {problem.where}: {problem.rule}") from None


def save_run(run: Run, path: str | Path) -> Path:
    """Write ``run`` to ``path`` atomically: a temp file in the same folder, then a rename."""
    return checkpoint_of(run).save(path)


def _parse(source: Path, text: str) -> dict[str, Any]:
    try:
        data = storable_json(text)  # a run file is an entry too: its text made storable
    except json.JSONDecodeError as exc:
        raise RunFileError(
            f"{source}: not valid JSON at line {exc.lineno} column {exc.colno} — the file is "
            "truncated or corrupt"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RunFileError(
            f'{source}: not a footprint_lab run file (expected "format": "{FORMAT}")'
        )
    version = data.get("version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise RunFileError(
            f"{source}: run file version {version!r} is not supported; this footprint_lab "
            f"reads versions {', '.join(map(str, READABLE_VERSIONS))} (the integer)"
        )
    return data


def upgraded_run_document(data: dict[str, Any]) -> dict[str, Any]:
    """A version-1 run file's data as version 2: the origin its meta keys said
    (:func:`~footprint_lab.agent.origin.origin_of_meta`), those keys out of its meta. A file
    that is not what it claims is left for the checks to name."""
    if data.get("version") != 1 or "origin" in data:
        return data
    meta, calls = data.get("meta"), data.get("calls")
    if not isinstance(meta, dict) or not isinstance(calls, list):
        return data
    sources = {
        c.get("tokens_from") or "reported" for c in calls if isinstance(c, dict) and c.get("usage")
    }
    strategy = data.get("strategy")
    origin, rest = origin_of_meta(
        meta,
        strategy if isinstance(strategy, str) else None,
        tuple(s for s in TOKEN_SOURCES if s in sources),
    )
    return {**data, "version": VERSION, "meta": rest, "origin": origin.model_dump(mode="json")}


def _load(path: str | Path, max_bytes: int, verify: bool = True) -> tuple[Checkpoint, Run]:
    source = Path(path)
    text = read_run_text(source, max_bytes)
    try:
        data = _parse(source, text)
        has_checksum = CHECKSUM_FIELD in data
        checksum = data.pop(CHECKSUM_FIELD, None)
        data = upgraded_run_document(data)
        try:
            checkpoint = Checkpoint.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = json_path(loc_path(first["loc"], data))
            rule = str(first["msg"])
            if first["type"] == "extra_forbidden":
                rule = f"unknown field: no field {first['loc'][-1]!r} here in a run file"
            raise RunFileError(
                f"{source}: corrupt run file — {where}: {rule} ({exc.error_count()} problem(s))"
            ) from None
        check_unknown_fields(data, checkpoint)
        ledger = _ledger_of(checkpoint)
        check_run(checkpoint, ledger)
        check_against_ledger(checkpoint, ledger)
        run = _run_of(checkpoint, ledger)
    except RunFileProblem as problem:
        raise RunFileError(f"{source}: {problem.kind} — {problem.where}: {problem.rule}") from None
    except RecursionError:
        raise RunFileError(
            f"{source}: corrupt run file — nested too deeply to be a run file"
        ) from None
    if has_checksum:
        verify_checksum(source, text, checksum)
    elif verify:
        raise RunFileError(
            f"{source}: no checksum — run.save writes one, so the field was removed or the "
            "file was written by hand; an altered file must not load silently. To read a "
            "file without one (written before checksums), pass verify=False"
        )
    return checkpoint, run


def load_checkpoint(
    path: str | Path, *, max_bytes: int = MAX_RUN_FILE_BYTES, verify: bool = True
) -> Checkpoint:
    """Read a run file as a checkpoint, checking its shape, its sense and its checksum.

    Args:
        path: The run file.
        max_bytes: The largest file read (default :data:`MAX_RUN_FILE_BYTES`).
        verify: Require the checksum (the default). False reads a file that has none (one
            written before checksums) unverified; a checksum a file carries is checked
            either way.

    Raises:
        RunFileError: the file is missing, not a regular file, too big, not UTF-8, truncated,
            corrupt, foreign, of another version, inconsistent or altered. The message names
            the file, the place in the document (a JSON path such as
            ``ledger.commits[12].value``) and the rule broken.
    """
    return _load(path, max_bytes, verify)[0]


def load_run(path: str | Path, *, max_bytes: int = MAX_RUN_FILE_BYTES, verify: bool = True) -> Run:
    """Reopen a run saved with ``run.save(path)``, losslessly (see :func:`load_checkpoint`).

    Args:
        path: The run file.
        max_bytes: The largest file read (default :data:`MAX_RUN_FILE_BYTES`).
        verify: Require the checksum (the default); False reads a file without one,
            unverified (see :func:`load_checkpoint`).

    Raises:
        RunFileError: as :func:`load_checkpoint` — never a half-loaded run.
    """
    return _load(path, max_bytes, verify)[1]
