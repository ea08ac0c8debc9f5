"""The small validators every importer shares: objects, text, integers and values JSON can
carry exactly, each failing with a :class:`~footprint_lab.reading.problems.TranscriptError`
naming the place.

Layer: reading (see :mod:`footprint_lab.reading`).

"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from footprint_lab.reading.problems import Problems, short

MAX_DEPTH = 64
"""Deepest nesting of lists and objects an imported value may have."""
MAX_INT_BITS = 8192
"""Largest integer (in bits) an imported value may carry (JSON text of it stays convertible)."""


def reject_constant(name: str) -> NoReturn:
    """``parse_constant`` for :func:`json.loads`: NaN and infinities are not JSON.

    Raises:
        ValueError: always.
    """
    raise ValueError(f"{name} is not JSON")


def object_of(value: Any, problems: Problems, index: int | None, field: str) -> Mapping[str, Any]:
    """An object field that may be absent (then empty).

    Raises:
        TranscriptError: present and not an object.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.fail(index, field, f"expected an object, got {short(value)}")
    return value


def text_or_empty(value: Any, problems: Problems, index: int | None, field: str) -> str:
    """A text field that may be absent (then empty); unlike :func:`text_of`, a ``null`` here
    is no problem (the source writes it for "none").

    Raises:
        TranscriptError: present and not text.
    """
    return optional_str(value, problems, index, field) or ""


def int_of(value: Any, problems: Problems, index: int | None, field: str) -> int:
    """An integer field (a boolean is not one).

    Raises:
        TranscriptError: not an integer.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        problems.fail(index, field, f"expected an integer, got {short(value)}")
    return value


def json_value(value: Any, problems: Problems, index: int | None, field: str) -> Any:
    """``value`` as given, when JSON can carry it exactly (see :func:`json_problem`).

    Raises:
        TranscriptError: it cannot (NaN, a huge integer, deep nesting, ...).
    """
    why = json_problem(value)
    if why is not None:
        problems.fail(index, field, f"holds {why}")
    return value


def json_problem(value: Any) -> str | None:
    """Why ``value`` cannot be carried as JSON exactly (None when it can): a non-JSON type, a
    non-string key, NaN or infinity, a huge integer, or nesting deeper than :data:`MAX_DEPTH`."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, (bool, str)):
            continue
        if isinstance(item, int):
            if item.bit_length() > MAX_INT_BITS:
                return "an integer too large to carry"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{item!r} is not a JSON number"
        elif isinstance(item, (list, tuple, dict)):
            if depth >= MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            if isinstance(item, dict):
                if not all(isinstance(k, str) for k in item):
                    return "an object key that is not text"
                stack.extend((v, depth + 1) for v in item.values())
            else:
                stack.extend((v, depth + 1) for v in item)
        else:
            return f"a {type(item).__name__} is not a JSON value"
    return None


def text_of(value: Any, problems: Problems, index: int | None, field: str) -> str:
    """Text as given; ``null`` becomes ``""`` with a problem listed.

    Raises:
        TranscriptError: the value is neither text nor ``null``.
    """
    if isinstance(value, str):
        return value
    if value is None:
        problems.note(index, field, "null text, imported as empty text")
        return ""
    problems.fail(index, field, f"expected text, got {short(value)}")


def optional_str(value: Any, problems: Problems, index: int | None, field: str) -> str | None:
    """A string field that may be absent (None).

    Raises:
        TranscriptError: the value is present and not text.
    """
    if value is None or isinstance(value, str):
        return value
    problems.fail(index, field, f"expected text, got {short(value)}")


EMPTY_TRANSCRIPT = "no messages: an empty transcript, imported as an empty run"
"""The problem listed for a transcript with no messages at all."""


def message_list(value: Any, problems: Problems, what: str = "message objects") -> Sequence[Any]:
    """``value``, a list of messages (any sequence but text); an empty one is listed as a
    problem (:data:`EMPTY_TRANSCRIPT`, field ``messages``).

    Raises:
        TranscriptError: it is not one (field ``messages``).
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        problems.fail(None, "messages", f"expected a list of {what}")
    if not value:
        problems.note(None, "messages", EMPTY_TRANSCRIPT)
    return value
