"""Progress bars for long re-runs (demo, sweeps, tuners): ``tqdm.auto``, quiet when it should be.

Layer: lab. A bar is shown in a terminal and in a notebook; it is disabled when
``FOOTPRINT_LAB_QUIET=1`` (the test suite sets it) or when stderr is not a terminal (outside a
notebook), so logs stay clean.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any, TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")

QUIET_ENV = "FOOTPRINT_LAB_QUIET"
"""Set to 1 to silence every progress bar."""


def _in_notebook() -> bool:
    """Whether ``tqdm.auto`` chose the notebook (widget) bar."""
    return any(getattr(c, "__module__", "") == "tqdm.notebook" for c in tqdm.__mro__)


def quiet() -> bool:
    """Whether progress bars are off here (see the module docstring)."""
    if os.environ.get(QUIET_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    if _in_notebook():
        return False
    stream = sys.stderr
    return stream is None or not hasattr(stream, "isatty") or not stream.isatty()


def progress(
    iterable: Iterable[T] | None = None,
    *,
    total: int | None = None,
    desc: str = "",
    disable: bool = False,
    **kw: Any,
) -> Any:
    """A ``tqdm.auto`` bar over ``iterable`` (or a manual one with ``total``), disabled when
    asked (``disable=True``) or when :func:`quiet`. Use ``bar.write(text)`` to print beside
    it."""
    return tqdm(iterable, total=total, desc=desc, disable=disable or quiet(), leave=False, **kw)
