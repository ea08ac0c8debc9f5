"""A run saved by ``run.save``, as one more format :func:`~footprint_lab.importers.load` reads.

Layer: importers (a format module of the registry; the run file itself is the agent layer's).
"""

from __future__ import annotations

from pathlib import Path

from footprint_lab.agent.checkpoint import RunFileError, load_run
from footprint_lab.agent.run import FORMAT as RUN_FORMAT
from footprint_lab.agent.run import Run
from footprint_lab.importers._parts import TranscriptError
from footprint_lab.importers._sniff import FileFormat, Sniff

__all__ = ["FILE_FORMAT", "SOURCE", "load_saved_run"]

SOURCE = "footprint-lab-run"
"""The format's name, and the ``source`` of an error about a saved run that does not load."""
_RUN_KEYS = frozenset({"request", "requests", "phase", "iterations"})
"""Keys a saved run starts with (its ``format`` comes after its meta, which may be long)."""


def load_saved_run(path: str | Path, *, strict: bool = False) -> list[Run]:
    """A run saved with ``run.save``, as :func:`footprint_lab.load_run` reopens it.

    ``strict`` does not apply: a saved run is reopened as it was saved (its import problems,
    if any, were listed when it was imported).

    Raises:
        TranscriptError: the run file does not load (the place is the JSON path it names).
    """
    del strict
    try:
        return [load_run(path)]
    except RunFileError as exc:
        text = str(exc)
        head = f"{path}: "
        text = text[len(head) :] if text.startswith(head) else text
        # "<kind> — <where>: <rule>" names a place in the document; other faults the file.
        kind, dash, rest = text.partition(" — ")
        where, colon, rule = rest.partition(": ")
        if dash and colon:
            raise TranscriptError(SOURCE, None, where, f"{kind}: {rule}", path=str(path)) from None
        raise TranscriptError(SOURCE, None, "file", text, path=str(path)) from None


def _claims(sniff: Sniff) -> bool:
    """An object with ``"format": "footprint-lab/run"``, or (cut before that key) the keys a
    saved run starts with."""
    shape = sniff.first
    if shape.kind != "object":
        return False
    given = shape.text("format")
    return given == RUN_FORMAT or (given is None and shape.keys >= _RUN_KEYS)


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by=f'a run saved by run.save: "format": "{RUN_FORMAT}"',
    loader=load_saved_run,
    claims=_claims,
)
"""How the registry tells and reads a saved run."""
