"""A file's name as text any UTF-8 writer takes.

Layer: reading (see :mod:`footprint_lab.reading`). POSIX file names are bytes; Python hands a
name that is not UTF-8 (a latin-1 ``café.traj``) over as a string holding surrogate escapes,
which no JSON, Parquet or UTF-8 file can hold. Wherever a path is recorded — an error, a run's
origin, a corpus's manifest and frames — it is recorded as :func:`path_text`: the same string
when it is UTF-8, else its bytes decoded with each undecodable byte written ``\\xNN`` (and a
backslash of the name doubled, so no two such names give one text). The real name is kept for
opening the file; the text only names it.
"""

from __future__ import annotations

import os

__all__ = ["path_text"]


def path_text(path: str | os.PathLike[str]) -> str:
    """``path`` as recordable text: itself when it is UTF-8; else its bytes as UTF-8 with each
    byte that is not written ``\\xNN`` (``caf\\xe9.traj``) and each backslash doubled."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")
    return text
