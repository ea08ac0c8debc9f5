"""A file's runs' checkpoints as one pack: each run a Zstandard frame, behind their sizes.

Layer: corpus (private; :class:`~footprint_lab.corpus.store.Store` writes and reads packs). A
store keeps one pack per imported file, ``checkpoints/<hash>.runs.zst`` (the first 16 hex
digits of the file's content hash, the first part of its runs' ids), so a store of 10,000 runs
makes a file per source, not per run. The layout::

    4 bytes    the index's length, big-endian
    index      JSON: each frame's size, in run order
    frames     each run's file text (``run_file_text``), compressed on its own

A run is read by its frame alone: the index says where it lies.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Sequence
from typing import BinaryIO

import zstandard

__all__ = [
    "PACK_NAME",
    "PACK_SUFFIX",
    "PackError",
    "pack",
    "place_of",
    "read_frame",
    "unpack_text",
]

PACK_SUFFIX = ".runs.zst"
"""A pack's file name after its name."""
PACK_NAME = re.compile(r"[0-9a-f]{16}")
"""A pack's name: the first part of its runs' ids."""

_INDEX_LENGTH = struct.Struct(">I")


def place_of(run_id: str) -> tuple[str, int]:
    """Where a run's checkpoint lies: its pack's name and its frame's index (a run id is
    ``<16 hex of its file's hash>-<index in the file>``, :data:`~footprint_lab.corpus.manifest.
    RUN_ID`, checked by the caller)."""
    name, index = run_id.split("-", 1)
    return name, int(index)


class PackError(ValueError):
    """A pack that is not as a store writes one (cut, or its index broken)."""


def pack(texts: Sequence[str]) -> tuple[bytes, list[int]]:
    """The pack of these run file texts (in run order) and each run's compressed size."""
    compressor = zstandard.ZstdCompressor(level=3)
    frames = [compressor.compress(text.encode("utf-8")) for text in texts]
    sizes = [len(frame) for frame in frames]
    index = json.dumps(sizes).encode("utf-8")
    return b"".join([_INDEX_LENGTH.pack(len(index)), index, *frames]), sizes


def read_frame(handle: BinaryIO, index: int) -> bytes | None:
    """Frame ``index`` of the pack open in ``handle`` (None: the pack has no such run).

    Raises:
        PackError: the pack is cut, or its index is not a list of frame sizes.
    """
    head = handle.read(_INDEX_LENGTH.size)
    if len(head) != _INDEX_LENGTH.size:
        raise PackError("it ends inside its index's length")
    (length,) = _INDEX_LENGTH.unpack(head)
    try:
        sizes = json.loads(handle.read(length))
    except ValueError:
        sizes = None
    if not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes):
        raise PackError("its index is not a list of frame sizes")
    if index >= len(sizes):
        return None
    handle.seek(_INDEX_LENGTH.size + length + sum(sizes[:index]))
    frame = handle.read(sizes[index])
    if len(frame) != sizes[index]:
        raise PackError(f"it ends inside run {index}'s frame")
    return frame


def unpack_text(frame: bytes) -> str:
    """A frame's run file text.

    Raises:
        zstandard.ZstdError: the frame is not a Zstandard frame.
        UnicodeDecodeError: it does not hold UTF-8 text.
    """
    return zstandard.ZstdDecompressor().decompress(frame).decode("utf-8")
