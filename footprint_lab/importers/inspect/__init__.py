"""Load Inspect AI eval logs (``.json`` and ``.eval``) as runs, one run per sample.

Layer: importers. An Inspect ``EvalLog`` keeps each sample's conversation in ``messages`` and
every call to a model as a ``model`` event whose ``input`` is exactly what that call received.
So a sample becomes a run whose history is ``messages``, whose per-call usage is the matched
event's ``output.usage``, and whose window at each call is that event's ``input`` (``sent``
for :func:`~footprint_lab.importers._build.build_run`, policy ``"inspect"``): where Inspect's
own policy sent less than the history, the run holds an observed record of what left.

What is read:

* ``.json``: one ``EvalLog`` object; its samples are ``log.samples``.
* ``.eval``: a zip of ``header.json`` (the log without samples) and one ``samples/*.json``
  member per sample (``{id}_epoch_{epoch}.json``), read in name order; members compressed
  with Zstandard (newer Inspect versions) are read with the ``zstandard`` package.
  ``summaries.json``, ``reductions.json`` and ``_journal/`` repeat what the header and
  samples hold and are not read.
* Messages (``ChatMessageSystem/User/Assistant/Tool``): ``content`` is text or a list of
  content items. ``text`` items are the message text (joined without a separator, as every
  importer here joins text blocks); a ``text`` item flagged ``refusal`` is a ``refusal``
  part; ``reasoning`` is a ``thinking`` part (``redacted-thinking`` when redacted);
  ``image`` / ``audio`` / ``video`` / ``document`` are parts sized by their data or URL;
  ``data``, ``tool_use`` and item types we do not know are parts sized by their JSON.
  Assistant ``tool_calls`` carry ``id``, ``function`` and ``arguments``; a recorded
  ``parse_error`` is listed as a problem. A tool message answers ``tool_call_id``; when it
  has an ``error`` (which Inspect's providers send in place of the output), its text is
  ``error: <message>``, as the Anthropic importer marks a failed result, followed by the
  tool's own output when that is not empty and differs.
* A leading system message with text only is the run's system prompt; any other system
  message stays in the history.
* Requests: a user message is the sample's input (``source: "input"``) or a prompt the task's
  own solvers added (the benchmark's instructions), so every one is a request; what the tools
  answered are tool messages, tool results, never a request. Inspect's agents call tools
  natively, so there is no text-mode loop to rebuild.
* Attachments: strings ``attachment://<hash>`` (and the older ``tc://<hash>``) are replaced by
  ``sample.attachments[hash]``, as Inspect's own reader does; a reference to an attachment
  the sample does not hold is kept as text and listed as a problem (once per hash). Pooled
  inputs (``input_refs`` into ``events_data.messages``, newer logs; into ``message_pool`` in
  logs written before Inspect moved its pools into ``events_data``) are expanded.
* Usage and inputs: each assistant message is matched to the ``model`` event that produced
  it — by the output message's ``id`` when every assistant message has one, else in order
  over the model events that returned a choice. Model events matched to no message (a
  model-graded scorer, a sub-agent) are counted in ``meta['unmatched_model_events']``.

``meta`` holds the eval's ``eval_id``, ``run_id``, ``task``, ``task_id`` and ``model``, the
log's ``status``, the sample's ``sample_id``, ``epoch`` and ``sample_uuid``, ``scores`` (scorer
name -> the score's ``value``), the sample's ``error`` message and ``limit`` type when it has
them, ``compactions`` (``type``, ``tokens_before``, ``tokens_after``, ``source`` of each
``compaction`` event) when there are any, ``log_file``, ``member`` (``.eval`` only) and a
``label``. A sample's status follows the one rule of imported runs
(:mod:`footprint_lab.importers.recorded`): an ``error`` is ``incomplete``, a ``limit``
``max-iterations``, a scored sample ``done`` (``meta['ended']`` says which).

A log without samples (written with ``log_samples=False``, or an error log that stopped before
any sample finished) yields no runs: ``[]``. An error log's finished samples import like any
other; the log's status is in each run's ``meta['status']``.

Faults: a file that cannot be read, is not UTF-8 or not JSON, a bad zip, a missing
``header.json``, a sample member that is not JSON, and any malformed sample raise
:class:`TranscriptError` naming the file (``path``), the sample's position in the log
(``index``) and the field — prefixed ``samples[k].`` in a ``.json`` log and with the member
name (``samples/1_epoch_1.json:``) in an ``.eval`` log. A run's import problems name the same
index and field, and ``strict=True`` raises at the first of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    EMPTY_TRANSCRIPT,
    CallIds,
    Problems,
    TranscriptError,
    files_in,
    json_value,
    nested,
    optional_str,
)
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.inspect._events import (
    _compaction,
    _event_input,
    _match_events,
    _usage,
)
from footprint_lab.importers.inspect._log import (
    SOURCE,
    UNIT,
    _attachments,
    _eval_samples,
    _json_samples,
    _list_of,
    _open_zip,
    _pool,
    _resolve,
    _Sample,
)
from footprint_lab.importers.inspect._messages import _message
from footprint_lab.importers.recorded import ImportedStatus
from footprint_lab.messages import Message
from footprint_lab.usage import Usage

POLICY = "inspect"
"""The name observed window records give Inspect's own context policy."""
SUFFIXES = (".eval", ".json")
"""The file names a folder is searched for."""

__all__ = [
    "FILE_FORMAT",
    "POLICY",
    "SCORE_WORDS",
    "SOURCE",
    "SUFFIXES",
    "load_inspect",
    "outcome_words",
]

SCORE_WORDS: dict[str, str] = {
    "C": "correct",
    "I": "incorrect",
    "P": "partially correct",
    "N": "no answer",
}
"""Inspect's score value constants (``CORRECT``, ``INCORRECT``, ``PARTIAL``, ``NOANSWER``) in
words."""


def _score_words(value: Any) -> str:
    if isinstance(value, str) and value in SCORE_WORDS:
        return SCORE_WORDS[value]
    if isinstance(value, bool):
        return "correct" if value else "incorrect"
    if isinstance(value, int | float):
        return f"score {value:g}"
    return f"score {value}"


def outcome_words(scores: Mapping[str, Any] | None) -> str | None:
    """A sample's Inspect scores as its outcome, in words — each scorer's value (Inspect's
    ``C`` / ``I`` / ``P`` / ``N`` as correct, incorrect, partially correct, no answer; a
    number as a score), then the scorer and the value as the log gives them:
    ``"incorrect (match: I)"``; None for a sample that was not scored."""
    if not scores:
        return None
    return "; ".join(f"{_score_words(v)} ({name}: {v})" for name, v in scores.items())


# -- one sample ----------------------------------------------------------------------------


def _header_meta(log: Mapping[str, Any], where: str) -> dict[str, Any]:
    problems = Problems(SOURCE, unit=UNIT)
    spec = log.get("eval")
    if spec is None:
        spec = {}
    try:
        if not isinstance(spec, Mapping):
            problems.fail(None, "eval", "expected an object")
        meta: dict[str, Any] = {
            key: optional_str(spec.get(key), problems, None, f"eval.{key}")
            for key in ("eval_id", "run_id", "task", "task_id", "model")
        }
        meta["status"] = optional_str(log.get("status"), problems, None, "status")
    except TranscriptError as exc:
        raise nested(exc, SOURCE, path=where) from None
    return meta


def _sample_meta(
    sample: Mapping[str, Any], header: dict[str, Any], problems: Problems, s: _Sample
) -> dict[str, Any]:
    at = s.prefix
    sample_id = json_value(sample.get("id"), problems, s.index, f"{at}id")
    epoch = json_value(sample.get("epoch"), problems, s.index, f"{at}epoch")
    meta: dict[str, Any] = {**header, "sample_id": sample_id, "epoch": epoch}
    meta["sample_uuid"] = optional_str(sample.get("uuid"), problems, s.index, f"{at}uuid")
    scores = sample.get("scores")
    if scores is not None:
        if not isinstance(scores, Mapping):
            problems.fail(s.index, f"{at}scores", "expected an object")
        values: dict[str, Any] = {}
        for name, score in scores.items():
            value = score.get("value") if isinstance(score, Mapping) else score
            values[name] = json_value(value, problems, s.index, f"{at}scores.{name}.value")
        meta["scores"] = values
    error = sample.get("error")
    if isinstance(error, Mapping):
        meta["error"] = optional_str(error.get("message"), problems, s.index, f"{at}error")
    limit = sample.get("limit")
    if isinstance(limit, Mapping):
        meta["limit"] = optional_str(limit.get("type"), problems, s.index, f"{at}limit.type")
    if s.member is not None:
        meta["member"] = s.member
    meta["label"] = f"{header.get('task') or 'sample'}-{sample_id}-epoch-{epoch}"
    return meta


def _sample_run(s: _Sample, header: dict[str, Any], where: str, strict: bool) -> Run:
    problems = Problems(SOURCE, strict=strict, unit=UNIT)
    at, k = s.prefix, s.index
    sample = s.value
    if not isinstance(sample, Mapping):
        problems.fail(k, at.rstrip(".:") or "sample", "expected a sample object")
    raw_messages = _list_of(sample.get("messages"), problems, k, f"{at}messages")
    if not raw_messages:
        problems.note(k, f"{at}messages", EMPTY_TRANSCRIPT)
    raw_events = _list_of(sample.get("events"), problems, k, f"{at}events")
    pool = _pool(sample, problems, s)
    # Attachments first (messages, then the model events, then the pooled inputs).
    attachments = _attachments(sample, problems, s)
    missing: set[str] = set()
    model_events: list[tuple[int, Mapping[str, Any]]] = []
    compactions: list[dict[str, Any]] = []
    _resolve(raw_messages, f"{at}messages", attachments, problems, s, missing)
    for e, event in enumerate(raw_events):
        if not isinstance(event, dict):
            problems.fail(k, f"{at}events[{e}]", "expected an event object")
        if event.get("event") == "compaction":
            compactions.append(_compaction(event, problems, k, f"{at}events[{e}]"))
        if event.get("event") == "model":
            model_events.append((e, event))
            for key in ("input", "output"):
                if key in event:
                    event[key] = _resolve(
                        event[key], f"{at}events[{e}].{key}", attachments, problems, s, missing
                    )
    if pool is not None:
        _resolve(pool.messages, pool.at, attachments, problems, s, missing)
    # The history.
    ids = CallIds(problems)
    system: str | None = None
    messages: list[Message] = []
    replies: list[Mapping[str, Any]] = []
    reply_at: list[int] = []
    for i, raw in enumerate(raw_messages):
        message, checked = _message(raw, problems, ids, k, f"{at}messages[{i}]")
        if i == 0 and message.role == "system" and not message.parts:
            system = message.content
            continue
        if message.role == "assistant":
            replies.append(checked)
            reply_at.append(i)
        messages.append(message)
    # Usage and the recorded input of each call.
    usages: list[Usage | None] = []
    sent: list[list[Message] | None] = []
    quiet = Problems(
        SOURCE, unit=UNIT
    )  # the inputs' own problems repeat the history's: not listed again
    matched = _match_events(replies, model_events)
    for item, i in zip(matched, reply_at, strict=True):
        if item is None:
            if model_events:
                problems.note(
                    k,
                    f"{at}messages[{i}]",
                    "no model event produced this assistant message (by id, text or order): "
                    "its usage and input are not recorded",
                )
            usages.append(None)
            sent.append(None)
            continue
        e, event = item
        field = f"{at}events[{e}]"
        usages.append(_usage(event, problems, k, field))
        window_ids = CallIds(quiet)
        window_ids.names = dict(ids.names)
        window = [
            _message(raw, quiet, window_ids, k, raw_at)[0]
            for raw, raw_at in _event_input(event, pool, problems, s, field)
        ]
        sent.append(window)
    meta = _sample_meta(sample, header, problems, s)
    if compactions:
        meta["compactions"] = compactions
    used = {item[0] for item in matched if item is not None}
    meta["unmatched_model_events"] = len(model_events) - len(used)
    meta["log_file"] = where
    model = header.get("model")
    outcome, ended = _outcome(meta)
    return build_run(
        messages,
        usages,
        system=system,
        source=SOURCE,
        meta=meta,
        problems=problems.found,
        model=model if isinstance(model, str) else None,
        sent=sent if any(w is not None for w in sent) else None,
        policy=POLICY,
        outcome=outcome,
        outcome_detail=ended,
        strict=strict,
    )


def _outcome(meta: Mapping[str, Any]) -> tuple[ImportedStatus | None, str | None]:
    """How a sample ended, by the imported-status rule (``footprint_lab.importers.recorded``):
    an error is ``incomplete``, a limit ``max-iterations``, a scored sample ``done``; a sample
    with none of them records no outcome."""
    if meta.get("error") is not None:
        return "incomplete", f"error: {meta['error']}"
    if meta.get("limit") is not None:
        return "max-iterations", f"limit: {meta['limit']}"
    if meta.get("scores"):
        return "done", "scored"
    return None, None


def _runs(
    log: Mapping[str, Any], samples: Iterator[_Sample], where: str, strict: bool
) -> list[Run]:
    header = _header_meta(log, where)
    runs: list[Run] = []
    for sample in samples:
        try:
            run = _sample_run(sample, header, where, strict)
        except TranscriptError as exc:
            raise nested(exc, SOURCE, path=where) from None
        run.import_problems = nested(run.import_problems, SOURCE, path=where)
        runs.append(run)
    return runs


def _load_file(path: Path, strict: bool) -> list[Run]:
    where = str(path)
    if path.suffix == ".eval":
        with _open_zip(path) as archive:
            return _runs(*_eval_samples(archive, where), where, strict)
    return _runs(*_json_samples(path), where, strict)


def load_inspect(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per sample of an Inspect eval log (see the module docstring for the mapping).

    Args:
        path: An Inspect log (``.json``, or ``.eval`` — decided by the suffix), or a folder:
            every ``.eval`` and ``.json`` file directly in it, in name order.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Returns:
        The runs, file by file and sample by sample (``[]`` for a log without samples).

    Raises:
        TranscriptError: a file cannot be read or is not a log, or a sample is malformed (or,
            when ``strict``, has a problem) — naming the file, the sample and the field.
    """
    runs: list[Run] = []
    for file in files_in(path, SUFFIXES, SOURCE):
        runs.extend(_load_file(file, strict))
    return runs


_INSPECT_KEYS = frozenset({"samples", "status", "version", "plan", "results"})


def _claims(sniff: Sniff) -> bool:
    """An ``.eval`` file (the loader checks the zip), or an object with ``eval`` beside an
    EvalLog's keys."""
    if sniff.name.endswith(".eval"):
        return True
    keys = sniff.first.keys
    return sniff.first.kind == "object" and "eval" in keys and bool(keys & _INSPECT_KEYS)


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="Inspect AI log: an .eval zip, or an object with eval and samples",
    loader=load_inspect,
    claims=_claims,
)
"""How the registry tells and reads an Inspect log."""
