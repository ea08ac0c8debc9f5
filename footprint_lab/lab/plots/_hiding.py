"""Lines that would hide one another, kept apart.

Layer: lab (plots). A line drawn over an earlier one on screen hides it: two strategies that
behaved the same (or nearly), a token line that tracks the characters on its own axis.
:func:`distinguish_identical` (which every builder's ``layout`` calls) finds each such pair
from the figure's own data — positions as shares of each axis's span, as plotly autoranges
it from zero — and gives the later line its own dash and marker so the earlier shows through.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import plotly.graph_objects as go

__all__ = [
    "IDENTICAL_DASHES",
    "IDENTICAL_SYMBOLS",
    "ON_SCREEN_TOLERANCE",
    "distinguish_identical",
    "hidden_lines",
]

IDENTICAL_DASHES: tuple[str, ...] = ("dot", "dashdot", "longdashdot", "longdash")
"""The dashes of a line drawn over an earlier one ("dash" is left to counterfactual
replays), in order."""

IDENTICAL_SYMBOLS: tuple[str, ...] = ("x", "diamond", "square", "triangle-up", "cross")
"""The marker symbols of a line drawn over an earlier one, in order."""


ON_SCREEN_TOLERANCE = 0.01
"""Two lines closer than this share of their axis's span at every point are drawn over one
another (a 2 px line on a plot about 300 px tall): the later one would hide the earlier."""


def _finite(ys: Any) -> np.ndarray[Any, np.dtype[np.float64]] | None:
    """``ys`` as floats, missing values NaN (None: not numbers, a categorical axis)."""
    try:
        return np.array([np.nan if v is None else v for v in ys], dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _axis_spans(fig: go.Figure) -> dict[str, tuple[float, float]]:
    """Each y axis's extent as plotly autoranges it from zero: (low, high) over every scatter
    trace drawn on it (lines and markers alike)."""
    spans: dict[str, tuple[float, float]] = {}
    for trace in fig.data:
        if getattr(trace, "type", None) not in ("scatter", "scattergl") or trace.y is None:
            continue
        ys = _finite(trace.y)
        if ys is None or not np.isfinite(ys).any():
            continue
        low, high = spans.get(trace.yaxis or "y", (0.0, 0.0))
        spans[trace.yaxis or "y"] = (
            min(low, float(np.nanmin(ys))),
            max(high, float(np.nanmax(ys))),
        )
    return spans


def _lines(fig: go.Figure) -> list[tuple[Any, tuple[Any, ...], Any]]:
    """The figure's line traces, each with its x values and its y values as shares of its
    axis's span (where it sits on screen)."""
    spans = _axis_spans(fig)
    out = []
    for trace in fig.data:
        if getattr(trace, "type", None) not in ("scatter", "scattergl"):
            continue
        if "lines" not in (trace.mode or "") or trace.y is None or len(trace.y) == 0:
            continue
        low, high = spans.get(trace.yaxis or "y", (0.0, 1.0))
        xs = tuple(trace.x) if trace.x is not None else tuple(range(len(trace.y)))
        ys = _finite(trace.y)
        # categories sit where their names put them: only the same names on one axis coincide
        where = tuple(trace.y) if ys is None else (ys - low) / ((high - low) or 1.0)
        out.append((trace, xs, where))
    return out


def _over(
    earlier: tuple[Any, tuple[Any, ...], Any], later: tuple[Any, tuple[Any, ...], Any]
) -> bool:
    """True when ``later`` is drawn over ``earlier`` at every point (same x axis and x values,
    y within :data:`ON_SCREEN_TOLERANCE` of its axis, missing where it is missing)."""
    (a, xa, ya), (b, xb, yb) = earlier, later
    if a.xaxis != b.xaxis or xa != xb:
        return False
    if isinstance(ya, tuple) or isinstance(yb, tuple):
        return bool(a.yaxis == b.yaxis and ya == yb)
    missing = np.isnan(ya)
    if not np.array_equal(missing, np.isnan(yb)) or missing.all():
        return False
    return bool(np.all(np.abs(ya[~missing] - yb[~missing]) <= ON_SCREEN_TOLERANCE))


def distinguish_identical(fig: go.Figure) -> go.Figure:
    """Keep lines that would hide one another apart. A line drawn over an earlier one on
    screen — the same x values and, at every point, within :data:`ON_SCREEN_TOLERANCE` of its
    axis's span (two strategies that behaved the same or nearly so, a token line tracking the
    characters on its own axis) — would hide it. Each later one gets its own dash
    (:data:`IDENTICAL_DASHES`) and marker symbol (:data:`IDENTICAL_SYMBOLS`), so the one
    beneath shows through. When its values are exactly the earlier one's (same axis, same x and
    y), its name says so, ``"… (identical to <first>)"``, and the first one's name says which it
    stands for too, ``"<first> (also <later>, …)"`` — in the legend and the hover.

    Args:
        fig: The figure, changed in place.

    Returns:
        ``fig``.
    """
    lines = _lines(fig)
    leaders: list[tuple[Any, tuple[Any, ...], Any]] = []
    repeats: Counter[int] = Counter()
    used: dict[int, set[str]] = {}
    also: dict[int, list[str]] = {}
    names = {id(trace): str(trace.name) for trace, _, _ in lines}
    for line in lines:
        trace = line[0]
        under = next((first for first in leaders if _over(first, line)), None)
        if under is None:
            leaders.append(line)
            continue
        original = under[0]
        k = repeats[id(original)]
        repeats[id(original)] += 1
        update: dict[str, Any] = {}
        # every line over one leader in a dash of its own (replays come dashed already)
        taken = used.setdefault(id(original), {original.line.dash or "solid"})
        dash = trace.line.dash or "solid"
        if dash in taken:
            free = [d for d in IDENTICAL_DASHES if d not in taken]
            dash = free[0] if free else IDENTICAL_DASHES[k % len(IDENTICAL_DASHES)]
            update["line"] = {"dash": dash}
        taken.add(dash)
        update["marker"] = {"symbol": IDENTICAL_SYMBOLS[k % len(IDENTICAL_SYMBOLS)], "size": 8}
        if trace.yaxis == original.yaxis and list(trace.y) == list(original.y):
            update["name"] = f"{trace.name} (identical to {names[id(original)]})"
            also.setdefault(id(original), []).append(str(trace.name))
        trace.update(**update)
        if "markers" not in trace.mode and (trace.type == "scatter" or len(trace.y) <= 2000):
            trace.update(mode=trace.mode + "+markers")
    for trace, _, _ in leaders:
        if id(trace) in also:
            trace.update(name=f"{names[id(trace)]} (also {', '.join(also[id(trace)])})")
    return fig


def hidden_lines(fig: go.Figure) -> list[tuple[str, str]]:
    """The pairs of lines of ``fig`` where the later is drawn over the earlier at every point
    in the same solid style, so the earlier cannot be seen: ``(earlier name, later name)``.
    Empty for every lab figure (:func:`distinguish_identical` sees to it)."""
    lines = _lines(fig)
    hidden = []
    for i, earlier in enumerate(lines):
        for later in lines[i + 1 :]:
            same_dash = (earlier[0].line.dash or "solid") == (later[0].line.dash or "solid")
            if same_dash and _over(earlier, later):
                hidden.append((str(earlier[0].name), str(later[0].name)))
    return hidden
