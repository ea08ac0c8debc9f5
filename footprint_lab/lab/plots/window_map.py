"""The window map: a heatmap of every ledger message's membership state at every iteration,
with violations, lost evidence and pauses drawn over it.

Layer: lab. A pure builder: frames in, ``plotly.graph_objects.Figure`` out. A big run stays
responsive: the map is at most :data:`MAP_MAX_ROWS` x :data:`MAP_MAX_COLS` cells; beyond that,
messages and iterations are grouped into equal blocks and each block shows the most notable
state of any cell in it (pinned > refused > notice > frame > in-window > folded > dropped);
``fig.layout.meta`` records the block sizes.

A cell's hover (up to :data:`MAP_HOVER_MAX_CELLS` cells) names the message, its state at that
iteration (a refusal with the glossary's words for its reason) and the record filed there:
iteration · strategy, the rule that fired and the refusals counted by reason (a block of
iterations sums its records).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._common import (
    layout,
    record_hover_rows,
    record_lines,
    record_reasons,
    record_rule,
    refusal_lines,
    single,
    title_of,
)
from footprint_lab.lab.plots._overlays import map_overlays
from footprint_lab.lab.schema import LEFT_STATES, MEMBERSHIP_STATES, STATE_DTYPE
from footprint_lab.lab.theme import NOT_COMMITTED, STATE_COLORS
from footprint_lab.lab.views import REFUSAL_MEANINGS
from footprint_lab.window.records import REFUSAL_REASONS

__all__ = [
    "MAP_HOVER_GLOSSARY_MAX_CELLS",
    "MAP_HOVER_MAX_CELLS",
    "MAP_MAX_COLS",
    "MAP_MAX_ROWS",
    "MAP_TICK_LABEL_MAX_ROWS",
    "window_map",
]

MAP_MAX_ROWS = 300
"""The window map shows at most this many message rows (larger runs are grouped in blocks)."""

MAP_MAX_COLS = 600
"""The window map shows at most this many iteration columns (larger runs are grouped)."""

MAP_HOVER_MAX_CELLS = 20_000
"""Up to this many cells, every window-map cell carries its own hover text."""

MAP_HOVER_GLOSSARY_MAX_CELLS = 2_000
"""Up to this many cells, a cell's hover gives every refusal reason of its record the
glossary's words; above it, the reasons are counted on one line (the page stays light)."""

MAP_TICK_LABEL_MAX_ROWS = 60
"""Up to this many rows, the window map labels each row with its stage id and role/tool."""

_PRIORITY: tuple[str, ...] = (
    "dropped",
    "folded",
    "cleared",
    "in-window",
    "placeholder",
    "frame",
    "notice",
    *(f"refused-{r}" for r in reversed(REFUSAL_REASONS)),
    "pinned",
)
"""States from least to most notable (a block of the window map shows its most notable)."""
_PRIO = {state: i for i, state in enumerate(_PRIORITY)}
_PRIO_BY_CODE = np.asarray([_PRIO[s] for s in MEMBERSHIP_STATES], dtype=np.int16)


@dataclass(frozen=True)
class _Grid:
    """The map's cells as state priorities (-1: not committed yet) and its block layout."""

    grid: npt.NDArray[np.int16]
    iterations: npt.NDArray[np.int64]
    n_rows: int
    n_cols: int
    rs: int
    cs: int


def _stepped_colorscale(colors: Sequence[str]) -> list[list[Any]]:
    """A colour scale with one flat band per colour (the heatmap's z are band indices)."""
    n = len(colors)
    scale: list[list[Any]] = []
    for i, color in enumerate(colors):
        scale.append([i / n, color])
        scale.append([(i + 1) / n, color])
    return scale


def _grid(frames: Frames, max_rows: int, max_cols: int) -> _Grid:
    """Every cell's most notable state priority: the background (a message that exists and is
    not in the window has left: dropped or folded), then the membership rows on top."""
    calls = frames.calls.drop_duplicates("iteration", keep="last").sort_values("iteration")
    iterations = calls["iteration"].to_numpy(dtype=np.int64)
    existing = calls["existing"].to_numpy(dtype=np.int64)
    n_rows = int(existing.max()) if len(existing) else 0
    n_cols = len(iterations)
    rs = max(1, math.ceil(n_rows / max(1, max_rows)))
    cs = max(1, math.ceil(n_cols / max(1, max_cols)))
    g_rows = math.ceil(n_rows / rs) if n_rows else 0
    g_cols = math.ceil(n_cols / cs) if n_cols else 0
    grid = np.full((g_rows, g_cols), -1, dtype=np.int16)
    if g_rows and g_cols:
        left = frames.messages["left"].astype("string").fillna("").to_numpy(dtype=object)
        out_prio = np.asarray(
            [_PRIO[LEFT_STATES.get(fate, "dropped")] for fate in left[:n_rows]], dtype=np.int16
        )
        row_starts = np.arange(g_rows, dtype=np.int64) * rs
        col_block_exist = np.maximum.reduceat(existing, np.arange(0, n_cols, cs))
        exists = row_starts[:, None] < col_block_exist[None, :]
        grid = np.where(exists, out_prio[row_starts][:, None], -1).astype(np.int16)
        membership = frames.membership
        if len(membership):
            m_iter = membership["iteration"].to_numpy(dtype=np.int64)
            m_pos = membership["position"].to_numpy(dtype=np.int64)
            codes = membership["state"].astype(STATE_DTYPE).cat.codes.to_numpy()
            m_prio = _PRIO_BY_CODE[codes]
            col = np.searchsorted(iterations, m_iter)
            ok = (col < n_cols) & (m_pos < n_rows)
            col = np.minimum(col, n_cols - 1)
            ok &= iterations[col] == m_iter
            np.maximum.at(grid, (m_pos[ok] // rs, col[ok] // cs), m_prio[ok])
    return _Grid(grid, iterations, n_rows, n_cols, rs, cs)


def _states(grid: npt.NDArray[np.int16]) -> tuple[list[str], npt.NDArray[np.float64]]:
    """The states present (in :data:`MEMBERSHIP_STATES` order) and z = each cell's index
    among them (NaN: not committed yet)."""
    present = sorted(
        {int(v) for v in np.unique(grid) if v >= 0},
        key=lambda p: MEMBERSHIP_STATES.index(_PRIORITY[p]),
    )
    names = [_PRIORITY[p] for p in present]
    lookup = np.full(len(_PRIORITY) + 1, np.nan)
    for i, p in enumerate(present):
        lookup[p] = i
    z: npt.NDArray[np.float64] = np.where(
        grid >= 0, lookup[np.clip(grid, 0, len(_PRIORITY))], np.nan
    )
    return names, z


def _column_texts(
    frames: Frames, iterations: npt.NDArray[np.int64], cs: int, *, meanings: bool
) -> list[str]:
    """The record part of each column's hover: the record(s) filed at its iteration (or, for
    a block of ``cs`` iterations, all of the block's), the rule that fired, the refusals by
    reason (with their meanings, or counted on one line)."""
    records = frames.records
    by_iteration: dict[int, list[dict[str, Any]]] = {}
    for row in record_hover_rows(records):
        by_iteration.setdefault(int(row["iteration"]), []).append(row)
    idle = (
        "the run has no window strategy"
        if not len(records) and not frames.info.get("strategy")
        else "the strategy did not act"
    )
    texts: list[str] = []
    for start in range(0, len(iterations), cs):
        block = [int(i) for i in iterations[start : start + cs]]
        rows = [row for i in block for row in by_iteration.get(i, [])]
        where = f"iteration {block[0]}" if len(block) == 1 else f"iterations {block[0]}–{block[-1]}"
        if not rows:
            texts.append(f"no record at {where}: {idle}")
            continue
        if len(rows) == 1:
            texts.append("<br>".join(record_lines(rows[0], meanings=meanings)))
            continue
        strategies = ", ".join(dict.fromkeys(str(r["strategy"]) for r in rows))
        rules = Counter(record_rule(r).removeprefix("rule: ") for r in rows)
        shown = [f"{n} × {rule}" if n > 1 else rule for rule, n in rules.most_common(3)]
        if len(rules) > 3:
            shown.append(f"… (+{len(rules) - 3} more)")
        reasons = [reason for r in rows for reason in record_reasons(r)]
        lines = [
            f"<b>{len(rows)} records</b> at {where} · {strategies}",
            "rules: " + "; ".join(shown),
        ]
        texts.append("<br>".join([*lines, *refusal_lines(reasons, meanings=meanings)]))
    return texts


def _state_words(name: str) -> str:
    """A cell's state, with the glossary's words for a refusal's reason."""
    reason = name.removeprefix("refused-")
    if reason != name:
        return f"{name} ({REFUSAL_MEANINGS.get(reason, 'a reason of this strategy')})"
    return name


def _hover(
    z: npt.NDArray[np.float64],
    xs: list[int],
    ys: list[int],
    labels: list[str],
    names: list[str],
    columns: Sequence[str],
) -> dict[str, Any]:
    """Per-cell hover text up to :data:`MAP_HOVER_MAX_CELLS` cells (the message, its state
    and the column's record), else a hover template."""
    if z.size > MAP_HOVER_MAX_CELLS:
        return {"hovertemplate": "message #%{y}<br>iteration %{x}<extra></extra>"}
    words = [_state_words(n) for n in names]
    text = [
        [
            f"#{y} {labels[i]}<br>iteration {x}: "
            + (words[int(z[i, j])] if not np.isnan(z[i, j]) else "not yet committed")
            + f"<br>{columns[j]}"
            for j, x in enumerate(xs)
        ]
        for i, y in enumerate(ys)
    ]
    return {"text": text, "hoverinfo": "text"}


def _heatmap(
    z: npt.NDArray[np.float64],
    xs: list[int],
    ys: list[int],
    names: list[str],
    hover: dict[str, Any],
) -> go.Heatmap:
    """The ``membership`` heatmap: stepped colour scale, colour bar naming the states."""
    g_rows, g_cols = z.shape
    colors = [STATE_COLORS[n] for n in names] or [NOT_COMMITTED]
    n_states = max(1, len(names))
    return go.Heatmap(
        x=xs,
        y=ys,
        # an array, not nested lists: plotly validates and copies lists cell by cell (most of
        # the map's cost on a long run); NaN cells (not committed yet) are gaps, as null is
        z=z,
        zmin=-0.5,
        zmax=n_states - 0.5,
        colorscale=_stepped_colorscale(colors),
        colorbar={
            "title": {"text": "state"},
            "tickvals": list(range(len(names))),
            "ticktext": names,
            "len": 1.0,
        },
        xgap=1 if g_cols <= 120 else 0,
        ygap=1 if g_rows <= 120 else 0,
        name="membership",
        **hover,
    )


def window_map(
    frames: Frames, *, max_rows: int = MAP_MAX_ROWS, max_cols: int = MAP_MAX_COLS
) -> go.Figure:
    """A heatmap of every message's life: x = iteration, y = ledger message in commit order
    (labelled by stage id and role/tool), colour = its membership state at that iteration.

    ``z`` (a float array; NaN where the message did not exist yet) holds indices into the states
    present (the colour bar names them, in the order of
    :data:`~footprint_lab.lab.schema.MEMBERSHIP_STATES`); ``fig.layout.meta`` holds
    ``states``, ``row_stride`` and ``col_stride`` (1 unless the run was grouped in blocks, see
    the module docstring). Empty cells: the message did not exist yet. Overlay traces
    (``violation``, ``lost evidence``, ``call without its evidence``, ``pause``) follow the
    heatmap when their frames have rows.

    Args:
        frames: The frames of one run.
        max_rows: At most this many message rows.
        max_cols: At most this many iteration columns.

    Returns:
        The figure.

    Raises:
        ValueError: The frames stack several runs.
    """
    frames = single(frames, "window_map")
    cells = _grid(frames, max_rows, max_cols)
    names, z = _states(cells.grid)
    rs, cs = cells.rs, cells.cs
    xs = cells.iterations[::cs].tolist() if cells.n_cols else []
    ys = list(range(0, cells.n_rows, rs))
    labels = frames.messages["label"].astype(str).tolist()
    row_labels = [labels[y] if y < len(labels) else str(y) for y in ys]
    columns = (
        _column_texts(frames, cells.iterations, cs, meanings=z.size <= MAP_HOVER_GLOSSARY_MAX_CELLS)
        if z.size <= MAP_HOVER_MAX_CELLS
        else []
    )
    fig = go.Figure(_heatmap(z, xs, ys, names, _hover(z, xs, ys, row_labels, names, columns)))
    map_overlays(fig, frames, ys, rs)
    title = title_of(frames, "Window map")
    if rs > 1 or cs > 1:
        title += f" (blocks of {rs} messages × {cs} iterations)"
    layout(
        fig,
        title,
        meta={"states": names, "row_stride": rs, "col_stride": cs},
        height=max(320, min(900, 60 + 14 * max(1, cells.grid.shape[0]))),
    )
    fig.update_xaxes(title_text="iteration")
    yaxis: dict[str, Any] = {"title_text": "ledger message (commit order)", "autorange": "reversed"}
    if 0 < len(ys) <= MAP_TICK_LABEL_MAX_ROWS:
        yaxis.update(tickmode="array", tickvals=ys, ticktext=row_labels)
    fig.update_yaxes(**yaxis)
    return fig
