"""Safe usage numbers: the token counts a reply reported, checked and kept as reported (a
negative count is listed as a problem, and the reply recorded as not reporting usage).

Layer: reading (see :mod:`footprint_lab.reading`).

"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from footprint_lab.reading.problems import Problems, short
from footprint_lab.usage import Usage

MAX_USAGE = 2**63 - 1
"""Largest token count a usage field may report."""


def usage_int(
    value: Any, problems: Problems, index: int | None, field: str, *, optional: bool = False
) -> int | None:
    """A token count as reported: an int (or an integral float) within range, negative
    included; absent is 0 (None when ``optional``).

    Raises:
        TranscriptError: not a number, not integral, not finite, or out of range.
    """
    if value is None:
        return None if optional else 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.fail(index, field, f"expected a token count, got {short(value)}")
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        problems.fail(index, field, f"expected a whole token count, got {value!r}")
    if abs(value) > MAX_USAGE:
        problems.fail(index, field, f"token count {short(value)} is out of range")
    return int(value)


def usage_from(
    raw: Any,
    counts: Mapping[str, tuple[Any, str]],
    problems: Problems,
    index: int,
    field: str,
) -> Usage | None:
    """The :class:`Usage` a reply reported, from ``counts`` (``Usage`` field -> (value as
    given, its field path)); None when nothing was reported.

    A negative count is listed as a problem with the report exactly as given, and the reply is
    recorded as not reporting usage (a run file holds no negative counts, and a strategy must
    not measure one).

    Raises:
        TranscriptError: the report is not an object, or a count is not a token count.
    """
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        problems.fail(index, field, "expected an object")
    values: dict[str, int | None] = {}
    negative: tuple[str, int] | None = None
    for name, (value, path) in counts.items():
        count = usage_int(value, problems, index, path, optional=name.startswith("cache"))
        if count is not None and count < 0 and negative is None:
            negative = (path, count)
        values[name] = count
    if negative is not None:
        given = repr(dict(raw))
        given = given if len(given) <= 500 else given[:497] + "..."
        problems.note(
            index,
            negative[0],
            f"negative token count {negative[1]}; the reply is recorded as not reporting "
            f"usage; as given: {given}",
        )
        return None
    return Usage.model_validate(values)


def usage_by_keys(
    raw: Any, keys: Mapping[str, str], problems: Problems, index: int, field: str
) -> Usage | None:
    """:func:`usage_from` for a report whose counts sit directly in it: ``keys`` maps each
    ``Usage`` field to the report's key for it, and each count's field is ``{field}.{key}``.

    Raises:
        TranscriptError: as :func:`usage_from`.
    """
    counts = (
        {name: (raw.get(key), f"{field}.{key}") for name, key in keys.items()}
        if isinstance(raw, Mapping)
        else {}
    )
    return usage_from(raw, counts, problems, index, field)
