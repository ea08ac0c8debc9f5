"""The error every importer raises, the collection of what an import found wrong, and
renaming what a nested import found.

Layer: reading (see :mod:`footprint_lab.reading`).
Malformed input raises :class:`TranscriptError` naming the source, the index
and the field; input a provider would have accepted but that is wrong is listed by
:class:`Problems` as an :class:`~footprint_lab.agent.run.ImportProblem` (or raised when strict).
An importer that hands part of its input to another renames what that one found with
:func:`nested`, so an error and a listed problem always name the same place: the file, the
unit and index, and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NoReturn, overload

from footprint_lab.agent.run import ImportProblem
from footprint_lab.reading.paths import path_text


class TranscriptError(ValueError):
    """An imported transcript is malformed (or, when strict, has a problem).

    The text reads ``[path: ]source: <unit> <index>, field '<field>': <problem>`` (``transcript``
    in place of the unit and index when the index is None).

    Attributes:
        source: Where it came from ('openai', 'anthropic', 'langchain', 'tau-bench', ...).
        index: The position of the item at fault (its ``unit``), or None for the transcript as
            a whole.
        field: The field, as a path inside that item.
        problem: What is wrong.
        path: The file, for file loaders (else None).
        unit: What ``index`` counts: 'message' (the default), 'entry', 'line', 'sample',
            'event', 'span'.
    """

    def __init__(
        self,
        source: str,
        index: int | None,
        field: str,
        problem: str,
        *,
        path: str | None = None,
        unit: str = "message",
    ) -> None:
        where = f"{unit} {index}" if index is not None else "transcript"
        path = None if path is None else path_text(path)  # a name that is not UTF-8, escaped
        prefix = f"{path}: " if path is not None else ""
        super().__init__(f"{prefix}{source}: {where}, field {field!r}: {problem}")
        self.source = source
        self.index = index
        self.field = field
        self.problem = problem
        self.path = path
        self.unit = unit


class Problems:
    """Collects what an import found wrong; raises at the first one when strict."""

    def __init__(
        self,
        source: str,
        *,
        strict: bool = False,
        unit: str = "message",
        path: str | None = None,
    ) -> None:
        """Start an empty collection for ``source``, whose indices count ``unit`` s, found in
        the file ``path`` (None: objects in memory)."""
        self.source = source
        self.strict = strict
        self.unit = unit
        self.path = path
        self.found: list[ImportProblem] = []

    def note(self, index: int | None, field: str, problem: str) -> None:
        """List a problem (kept as it is), or raise it when strict.

        Raises:
            TranscriptError: the import is strict.
        """
        if self.strict:
            self.fail(index, field, problem)
        self.found.append(
            ImportProblem(
                source=self.source,
                index=index,
                field=field,
                problem=problem,
                unit=self.unit,
                path=self.path,
            )
        )

    def fail(self, index: int | None, field: str, problem: str) -> NoReturn:
        """Raise :class:`TranscriptError` for malformed input."""
        raise TranscriptError(self.source, index, field, problem, path=self.path, unit=self.unit)


def ordered(
    found: Iterable[ImportProblem], *, strict: bool, unit: str = "message"
) -> list[ImportProblem]:
    """Problems in index order (those of the transcript as a whole first; ties keep the
    order found); when ``strict``, the first of them raised.

    For an importer that collects every problem before deciding (its own and a nested
    import's, found in different passes), so that a strict import raises the problem a
    lenient one lists first.

    Raises:
        TranscriptError: ``strict`` and a problem was found (its ``unit`` as given).
    """
    listed = sorted(found, key=lambda p: -1 if p.index is None else p.index)
    if strict and listed:
        first = listed[0]
        raise TranscriptError(
            first.source, first.index, first.field, first.problem, path=first.path, unit=unit
        )
    return listed


Place = Callable[[int | None, str], tuple[int | None, str]]
"""Maps a place (index, field) in a nested import's input to the outer import's place."""


def item_field(prefix: str, index: int | None, field: str) -> str:
    """``field`` of item ``index`` of the list ``prefix`` (``history[3].content``), or of the
    list itself when ``index`` is None (``history.messages``)."""
    return f"{prefix}[{index}].{field}" if index is not None else f"{prefix}.{field}"


@overload
def nested(
    found: TranscriptError,
    source: str,
    place: Place | None = None,
    *,
    unit: str | None = None,
    path: str | None = None,
) -> TranscriptError: ...


@overload
def nested(
    found: Iterable[ImportProblem],
    source: str,
    place: Place | None = None,
    *,
    unit: str | None = None,
    path: str | None = None,
) -> list[ImportProblem]: ...


def nested(
    found: TranscriptError | Iterable[ImportProblem],
    source: str,
    place: Place | None = None,
    *,
    unit: str | None = None,
    path: str | None = None,
) -> TranscriptError | list[ImportProblem]:
    """What a nested import found (its error, or its problems), named as the outer import
    names places: ``place`` maps each (index, field) to the outer one (default: unchanged),
    and ``source`` replaces the inner source.

    Both go through the same ``place``, so a strict import's error and the problem a lenient
    one lists name the same place. Each also gets the outer ``unit`` (default: its own) and
    the file ``path`` (kept when it already names one); raise an error ``from None``.

    Args:
        found: A :class:`TranscriptError`, or the :class:`ImportProblem` s of the nested import.
        source: The outer importer's source.
        place: (inner index, inner field) -> (outer index, outer field).
        unit: What the outer index counts.
        path: The file.
    """
    where = place or (lambda index, field: (index, field))
    if isinstance(found, TranscriptError):
        index, field = where(found.index, found.field)
        return TranscriptError(
            source,
            index,
            field,
            found.problem,
            path=found.path if found.path is not None else path,
            unit=found.unit if unit is None else unit,
        )
    out: list[ImportProblem] = []
    for problem in found:
        index, field = where(problem.index, problem.field)
        out.append(
            ImportProblem(
                source=source,
                index=index,
                field=field,
                problem=problem.problem,
                unit=problem.unit if unit is None else unit,
                path=problem.path if problem.path is not None else path,
            )
        )
    return out


def short(value: Any) -> str:
    """``repr(value)``, cut to 60 characters: how an error quotes a value it rejects."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
