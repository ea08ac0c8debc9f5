"""Reading Inspect AI eval logs: a ``.json`` log's samples, an ``.eval`` zip's header and
sample members (Zstandard-compressed members too), attachment references replaced by the
sample's attachments, and the message pools model events refer to by ``input_refs``.

Layer: importers.
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

from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    parse_json_text,
    read_json_file,
    short,
)

SOURCE = "inspect"
"""The importer's name, on its runs (``run.provider``) and its problems."""


UNIT = "sample"
"""What an error's index counts: the sample's position in the log."""
FORMAT = "an Inspect eval log (an EvalLog .json file, or an .eval zip)"
"""The format this loader reads, as its errors name it."""


_REFS = ("attachment://", "tc://")


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


def _check_eval_log(log: Mapping[str, Any], field: str, where: str) -> None:
    """Refuse another format's JSON: every Inspect ``EvalLog`` has an ``eval`` object (the
    task, the model and the run's ids), a log without samples included.

    Raises:
        TranscriptError: ``log`` has no ``eval`` object (naming the keys it has).
    """
    if "eval" in log and not isinstance(log["eval"], Mapping):
        raise TranscriptError(SOURCE, None, "eval", "expected an object", path=where)
    if not isinstance(log.get("eval"), Mapping):
        keys = ", ".join(sorted(str(k) for k in log)[:8]) or "none"
        raise TranscriptError(
            SOURCE,
            None,
            field,
            f"not an Inspect EvalLog: it has no 'eval' object (its keys: {keys})",
            path=where,
        )


def _json_samples(path: Path) -> tuple[Mapping[str, Any], Iterator[_Sample]]:
    where = str(path)
    log = read_json_file(path, SOURCE, FORMAT)
    if not isinstance(log, Mapping):
        raise TranscriptError(SOURCE, None, "log", "expected an Inspect EvalLog object", path=where)
    _check_eval_log(log, "log", where)
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
        raise TranscriptError(
            SOURCE, None, _HEADER, "expected an Inspect EvalLog object", path=where
        )
    _check_eval_log(header, _HEADER, where)
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


# -- message pools -------------------------------------------------------------------------


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
