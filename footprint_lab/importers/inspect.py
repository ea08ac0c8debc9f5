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
``label``.

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

import importlib
import io
import lzma
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from footprint_lab._gc import gc_paused
from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    TranscriptError,
    arguments_of,
    blocks_of,
    content_part,
    files_in,
    json_problem,
    json_value,
    nested,
    optional_str,
    parse_json_text,
    read_json_file,
    short,
    text_of,
    usage_by_keys,
)
from footprint_lab.messages import ContentPart, Message, ToolCall, arguments_json
from footprint_lab.usage import Usage

SOURCE = "inspect"
"""The importer's name, on its runs (``run.provider``) and its problems."""
POLICY = "inspect"
"""The name observed window records give Inspect's own context policy."""
SUFFIXES = (".eval", ".json")
"""The file names a folder is searched for."""
UNIT = "sample"
"""What an error's index counts: the sample's position in the log."""

__all__ = ["POLICY", "SOURCE", "SUFFIXES", "load_inspect"]

_REFS = ("attachment://", "tc://")
_DATA_FIELDS = {"image": "image", "audio": "audio", "video": "video", "document": "document"}
_USAGE_KEYS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_tokens": "input_tokens_cache_read",
    "cache_write_tokens": "input_tokens_cache_write",
}
"""``Usage`` field -> its key in a model event's ``output.usage``."""
_HEADER = "header.json"
_ZIP_ZSTANDARD = 93
"""The zip compression method number of Zstandard."""
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
"""A zip local file header (its last two fields: the name's and the extra field's lengths)."""
_SAMPLES = "samples/"
# What zipfile and its decompressors raise for a corrupt or truncated archive.
_ZIP_FAULTS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    RuntimeError,
    NotImplementedError,
    ValueError,
    OverflowError,
    zlib.error,
    lzma.LZMAError,
    struct.error,
)


# -- files ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Sample:
    """One sample as read, with how errors name it."""

    index: int
    """Its position in the log."""
    prefix: str
    """How fields inside it are named: ``samples[k].`` or ``samples/1_epoch_1.json:``."""
    member: str | None
    """The zip member it came from (``.eval`` only)."""
    value: Any
    """The sample's JSON."""


def _json_samples(path: Path) -> tuple[Mapping[str, Any], Iterator[_Sample]]:
    where = str(path)
    log = read_json_file(path, SOURCE)
    if not isinstance(log, Mapping):
        raise TranscriptError(SOURCE, None, "log", "expected an EvalLog object", path=where)
    samples = log.get("samples")
    if samples is None:
        samples = []
    if not isinstance(samples, list):
        raise TranscriptError(SOURCE, None, "samples", "expected a list of samples", path=where)
    items = (_Sample(k, f"samples[{k}].", None, s) for k, s in enumerate(samples))
    return log, items


def _zstd_member(archive: zipfile.ZipFile, member: str) -> bytes:
    """A member compressed with Zstandard (zip method 93, which newer Inspect versions write
    and :mod:`zipfile` before Python 3.14 cannot read), decompressed and CRC-checked.

    Raises:
        NotImplementedError: the ``zstandard`` package is not installed.
        zipfile.BadZipFile: the member's local header, data or CRC is wrong.
    """
    try:
        zstd = importlib.import_module("zstandard")
    except ImportError:
        raise NotImplementedError(
            "the member is Zstandard-compressed (zip method 93); install the 'zstandard' "
            "package to read it"
        ) from None
    info = archive.getinfo(member)
    if archive.filename is None:
        raise zipfile.BadZipFile("the archive has no file to read the member from")
    with open(archive.filename, "rb") as handle:
        handle.seek(info.header_offset)
        header = handle.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile("bad local file header")
        fields = _LOCAL_HEADER.unpack(header)
        handle.seek(fields[-2] + fields[-1], io.SEEK_CUR)  # the name and the extra field
        raw = handle.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise zipfile.BadZipFile("truncated member data")
    try:
        data: bytes = zstd.ZstdDecompressor().decompressobj().decompress(raw)
    except zstd.ZstdError as exc:
        raise zipfile.BadZipFile(f"bad Zstandard data: {exc}") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile("bad CRC or size for the decompressed member")
    return data


def _zip_read(archive: zipfile.ZipFile, member: str, where: str, index: int | None) -> Any:
    try:
        if archive.getinfo(member).compress_type == _ZIP_ZSTANDARD:
            data = _zstd_member(archive, member)
        else:
            data = archive.read(member)
    except _ZIP_FAULTS as exc:
        raise TranscriptError(
            SOURCE, index, member, f"cannot read the zip member: {exc}", path=where, unit=UNIT
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptError(
            SOURCE, index, member, f"not UTF-8 text (byte {exc.start})", path=where, unit=UNIT
        ) from None
    try:
        return parse_json_text(text, SOURCE, where, member)
    except TranscriptError as exc:
        raise TranscriptError(SOURCE, index, member, exc.problem, path=where, unit=UNIT) from None


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except _ZIP_FAULTS as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise TranscriptError(
            SOURCE, None, "file", f"not a readable .eval zip: {why}", path=str(path)
        ) from None


def _eval_samples(
    archive: zipfile.ZipFile, where: str
) -> tuple[Mapping[str, Any], Iterator[_Sample]]:
    names = archive.namelist()
    if _HEADER not in names:
        raise TranscriptError(SOURCE, None, _HEADER, "missing from the .eval zip", path=where)
    header = _zip_read(archive, _HEADER, where, None)
    if not isinstance(header, Mapping):
        raise TranscriptError(SOURCE, None, _HEADER, "expected an EvalLog object", path=where)
    members = sorted({n for n in names if n.startswith(_SAMPLES) and n.endswith(".json")})
    items = (
        _Sample(k, f"{member}:", member, _zip_read(archive, member, where, k))
        for k, member in enumerate(members)
    )
    return header, items


# -- attachments ---------------------------------------------------------------------------


def _attachments(sample: Mapping[str, Any], problems: Problems, s: _Sample) -> dict[str, str]:
    raw = sample.get("attachments")
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.fail(s.index, f"{s.prefix}attachments", "expected an object")
    for key, value in raw.items():
        if not isinstance(value, str):
            problems.fail(s.index, f"{s.prefix}attachments.{key}", "expected text")
    return dict(raw)


def _resolve(
    root: Any,
    where: str,
    attachments: Mapping[str, str],
    problems: Problems,
    s: _Sample,
    missing: set[str],
) -> Any:
    """``root`` with every attachment reference in it replaced by its text (containers are
    changed in place); walked without recursion, so any depth JSON can hold is fine."""

    def swap(text: str, at: str) -> str:
        for ref in _REFS:
            if text.startswith(ref):
                key = text[len(ref) :]
                found = attachments.get(key)
                if found is not None:
                    return found
                if key not in missing:
                    missing.add(key)
                    problems.note(
                        s.index,
                        at,
                        f"attachment {short(key)} is not in the sample's attachments; kept as text",
                    )
        return text

    if isinstance(root, str):
        return swap(root, where)
    if not isinstance(root, (dict, list)):
        return root
    stack: list[tuple[Any, str]] = [(root, where)]
    while stack:
        node, at = stack.pop()
        pairs = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, value in pairs:
            inner = f"{at}.{key}" if isinstance(node, dict) else f"{at}[{key}]"
            if isinstance(value, str):
                if value.startswith(_REFS):
                    node[key] = swap(value, inner)
            elif isinstance(value, (dict, list)):
                stack.append((value, inner))
    return root


# -- messages ------------------------------------------------------------------------------


def _part(block: Mapping[str, Any], problems: Problems, index: int, field: str) -> ContentPart:
    """A content item that is not plain text, kept whole as a part."""
    kind = block["type"]
    if kind in _DATA_FIELDS or kind == "reasoning" or kind == "text":
        why = json_problem(block)
        if why is not None:
            problems.fail(index, field, f"item holds {why}")
    original = dict(block)
    if kind == "text":  # a refusal
        text = text_of(block.get("text"), problems, index, f"{field}.text")
        return ContentPart(kind="refusal", text=text, original=original)
    if kind == "reasoning":
        reasoning = text_of(block.get("reasoning"), problems, index, f"{field}.reasoning")
        if block.get("redacted") is True:
            return ContentPart(
                kind="redacted-thinking", data_chars=len(reasoning), original=original
            )
        return ContentPart(kind="thinking", text=reasoning, original=original)
    if kind in _DATA_FIELDS:
        data = block.get(_DATA_FIELDS[kind])
        chars = len(data) if isinstance(data, str) else len(arguments_json(block))
        return ContentPart(kind=kind, data_chars=chars, original=original)
    return content_part(block, problems, index, field)


def _content(
    raw: Mapping[str, Any], problems: Problems, index: int, field: str
) -> tuple[str, list[ContentPart]]:
    """The text and the typed parts of a message's ``content``."""
    content = raw.get("content")
    if isinstance(content, str):
        return content, []
    if content is None:
        problems.note(index, f"{field}.content", "null content, imported as empty text")
        return "", []
    texts: list[str] = []
    parts: list[ContentPart] = []
    for k, block in enumerate(blocks_of(content, problems, index, f"{field}.content")):
        at = f"{field}.content[{k}]"
        if block["type"] == "text" and block.get("refusal") is not True:
            texts.append(text_of(block.get("text"), problems, index, f"{at}.text"))
        else:
            parts.append(_part(block, problems, index, at))
    return "".join(texts), parts


def _tool_calls(
    raw: Mapping[str, Any], problems: Problems, ids: CallIds, index: int, field: str
) -> list[ToolCall]:
    listed = raw.get("tool_calls")
    if listed is None:
        return []
    if not isinstance(listed, list):
        problems.fail(index, f"{field}.tool_calls", "expected a list of calls")
    calls: list[ToolCall] = []
    for k, call in enumerate(listed):
        at = f"{field}.tool_calls[{k}]"
        if not isinstance(call, Mapping):
            problems.fail(index, at, "expected a tool call object")
        call_id = call.get("id")
        if not isinstance(call_id, str):
            problems.fail(index, f"{at}.id", f"a tool call needs an id, got {short(call_id)}")
        name = ids.name(index, f"{at}.function", call.get("function"))
        arguments = arguments_of(
            call.get("arguments"),
            problems,
            index,
            f"{at}.arguments",
            missing="arguments" not in call,
        )
        parse_error = optional_str(call.get("parse_error"), problems, index, f"{at}.parse_error")
        if parse_error is not None:
            problems.note(
                index,
                f"{at}.parse_error",
                f"the model's arguments did not parse ({short(parse_error)}); kept as given",
            )
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
    ids.asked(calls, index, f"{field}.tool_calls")
    return calls


def _tool_result(
    raw: Mapping[str, Any],
    text: str,
    parts: list[ContentPart],
    problems: Problems,
    ids: CallIds,
    index: int,
    field: str,
) -> Message:
    call_id = optional_str(raw.get("tool_call_id"), problems, index, f"{field}.tool_call_id")
    if call_id is None:
        problems.note(index, f"{field}.tool_call_id", "a tool message without a call id")
        call_id, known = "", None
    else:
        known = ids.answered(call_id, index, f"{field}.tool_call_id")
    given = optional_str(raw.get("function"), problems, index, f"{field}.function")
    if given is not None:
        ids.name(index, f"{field}.function", given)
    error = raw.get("error")
    if error is not None:
        if not isinstance(error, Mapping) or not isinstance(error.get("message"), str):
            problems.fail(index, f"{field}.error", "expected an object with a message")
        said = error["message"]
        text = f"error: {said}" if text in ("", said) else f"error: {said}\n{text}"
    name = given if given is not None else known or "unknown"
    return Message.tool(call_id, name, text, parts=parts)


def _message(
    raw: Any, problems: Problems, ids: CallIds, index: int, field: str
) -> tuple[Message, Mapping[str, Any]]:
    """One Inspect chat message as a :class:`Message` (and the raw object, checked)."""
    if not isinstance(raw, Mapping):
        problems.fail(index, field, f"expected a message object, got {short(raw)}")
    role = raw.get("role")
    if role not in ("system", "user", "assistant", "tool"):
        problems.fail(index, f"{field}.role", f"unknown role {short(role)}")
    text, parts = _content(raw, problems, index, field)
    if role == "system":
        return Message.system(text, parts=parts), raw
    if role == "user":
        return Message.user(text, parts=parts), raw
    if role == "assistant":
        calls = _tool_calls(raw, problems, ids, index, field)
        return Message.assistant(text, tool_calls=calls, parts=parts), raw
    return _tool_result(raw, text, parts, problems, ids, index, field), raw


# -- model events --------------------------------------------------------------------------


def _output_id(event: Mapping[str, Any]) -> str | None:
    """The id of the message a model event returned (None when it has none)."""
    output = event.get("output")
    choices = output.get("choices") if isinstance(output, Mapping) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, Mapping) else None
    found = message.get("id") if isinstance(message, Mapping) else None
    return found if isinstance(found, str) and found else None


def _answered(event: Mapping[str, Any]) -> bool:
    output = event.get("output")
    choices = output.get("choices") if isinstance(output, Mapping) else None
    return isinstance(choices, list) and bool(choices)


_Event = tuple[int, Mapping[str, Any]]


def _match_events(replies: list[Mapping[str, Any]], events: list[_Event]) -> list[_Event | None]:
    """The model event each assistant message came from (None when none did)."""
    reply_ids = [i for r in replies if isinstance(i := r.get("id"), str) and i]
    if replies and len(reply_ids) == len(replies):
        by_id: dict[str, _Event] = {}
        for item in events:
            found = _output_id(item[1])
            if found is not None:
                by_id.setdefault(found, item)
        if by_id:
            return [by_id.get(i) for i in reply_ids]
    answered = [item for item in events if _answered(item[1])]
    return [answered[k] if k < len(answered) else None for k in range(len(replies))]


def _usage(event: Mapping[str, Any], problems: Problems, index: int, field: str) -> Usage | None:
    output = event.get("output")
    if output is None:
        return None
    if not isinstance(output, Mapping):
        problems.fail(index, f"{field}.output", "expected an object")
    return usage_by_keys(output.get("usage"), _USAGE_KEYS, problems, index, f"{field}.output.usage")


def _event_input(
    event: Mapping[str, Any],
    pool: _Pool | None,
    problems: Problems,
    s: _Sample,
    field: str,
) -> list[tuple[Any, str]]:
    """The raw messages a model event says its call received, each with its field."""
    given = event.get("input")
    refs = event.get("input_refs")
    if refs is not None and not given:
        if not isinstance(refs, list) or pool is None:
            problems.fail(s.index, f"{field}.input_refs", "expected ranges into events_data")
        out: list[tuple[Any, str]] = []
        for k, pair in enumerate(refs):
            ok = isinstance(pair, list) and len(pair) == 2
            if not ok or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
                problems.fail(s.index, f"{field}.input_refs[{k}]", "expected [start, end]")
            start, end = max(pair[0], 0), min(pair[1], len(pool.messages))
            out.extend((pool.messages[j], f"{pool.at}[{j}]") for j in range(start, end))
        return out
    if not isinstance(given, list):
        problems.fail(s.index, f"{field}.input", "expected a list of messages")
    return [(m, f"{field}.input[{j}]") for j, m in enumerate(given)]


# -- one sample ----------------------------------------------------------------------------


def _compaction(
    event: Mapping[str, Any], problems: Problems, index: int, field: str
) -> dict[str, Any]:
    """What a ``compaction`` event says about Inspect's own compaction."""
    keys = ("type", "tokens_before", "tokens_after", "source")
    return {key: json_value(event.get(key), problems, index, f"{field}.{key}") for key in keys}


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


def _list_of(value: Any, problems: Problems, index: int, field: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.fail(index, field, "expected a list")
    return value


@dataclass(frozen=True, slots=True)
class _Pool:
    """The pooled messages a sample's model events refer to by ``input_refs``."""

    messages: list[Any]
    at: str
    """The field they live in (``events_data.messages``, or ``message_pool``)."""


def _pool(sample: Mapping[str, Any], problems: Problems, s: _Sample) -> _Pool | None:
    """The sample's message pool: ``events_data.messages``, or the ``message_pool`` that logs
    written before Inspect moved its pools into ``events_data`` (inspect_ai #3519) carry."""
    data = sample.get("events_data")
    if data is None:
        legacy = sample.get("message_pool")
        if legacy is None:
            return None
        at = f"{s.prefix}message_pool"
        return _Pool(_list_of(legacy, problems, s.index, at), at)
    if not isinstance(data, Mapping):
        problems.fail(s.index, f"{s.prefix}events_data", "expected an object")
    at = f"{s.prefix}events_data.messages"
    return _Pool(_list_of(data.get("messages"), problems, s.index, at), at)


def _sample_run(s: _Sample, header: dict[str, Any], where: str, strict: bool) -> Run:
    problems = Problems(SOURCE, strict=strict, unit=UNIT)
    at, k = s.prefix, s.index
    sample = s.value
    if not isinstance(sample, Mapping):
        problems.fail(k, at.rstrip(".:") or "sample", "expected a sample object")
    raw_messages = _list_of(sample.get("messages"), problems, k, f"{at}messages")
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
    for i, raw in enumerate(raw_messages):
        message, checked = _message(raw, problems, ids, k, f"{at}messages[{i}]")
        if i == 0 and message.role == "system" and not message.parts:
            system = message.content
            continue
        if message.role == "assistant":
            replies.append(checked)
        messages.append(message)
    # Usage and the recorded input of each call.
    usages: list[Usage | None] = []
    sent: list[list[Message] | None] = []
    quiet = Problems(
        SOURCE, unit=UNIT
    )  # the inputs' own problems repeat the history's: not listed again
    matched = _match_events(replies, model_events)
    for item in matched:
        if item is None:
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
    )


def _runs(
    log: Mapping[str, Any], samples: Iterator[_Sample], where: str, strict: bool
) -> list[Run]:
    header = _header_meta(log, where)
    runs: list[Run] = []
    for sample in samples:
        try:
            runs.append(_sample_run(sample, header, where, strict))
        except TranscriptError as exc:
            raise nested(exc, SOURCE, path=where) from None
    return runs


def _load_file(path: Path, strict: bool) -> list[Run]:
    where = str(path)
    if path.suffix == ".eval":
        with _open_zip(path) as archive:
            return _runs(*_eval_samples(archive, where), where, strict)
    return _runs(*_json_samples(path), where, strict)


@gc_paused
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
