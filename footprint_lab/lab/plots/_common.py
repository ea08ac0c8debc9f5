"""Helpers every chart shares: titles, the lab layout, empty-figure notes, the WebGL switch,
single-run selection, counterfactual detection, the hover text of a record, round tick steps
and identical series told apart.

Layer: lab. Pure functions of frames and figures; nothing here reads a run, a file or a clock.

A record's hover (:func:`removal_summary`, :func:`record_lines`) names the record (iteration
and strategy), the rule that fired (:func:`footprint_lab.lab.views.record_rule`, worded with
the record's sentence in one module: a forced visit, the tokens measured against the threshold,
or the turns against the keep window) and the refusals counted by reason, each in the
glossary's words (:data:`footprint_lab.lab.views.REFUSAL_MEANINGS`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots._figure import as_lab_figure
from footprint_lab.lab.plots._hiding import distinguish_identical
from footprint_lab.lab.theme import TEMPLATE
from footprint_lab.lab.views import REFUSAL_MEANINGS, RULE_FACTS, record_rule

__all__ = [
    "COUNTERFACTUAL_SUFFIX",
    "RECORD_HOVER_COLUMNS",
    "TITLE_BREAK",
    "TITLE_LINE_CHARS",
    "WEBGL_THRESHOLD",
    "empty_note",
    "fit_title",
    "is_counterfactual",
    "layout",
    "nice_step",
    "record_hover_rows",
    "record_lines",
    "record_reasons",
    "record_rule",
    "refusal_lines",
    "removal_summary",
    "round_ticks",
    "scatter_class",
    "set_template",
    "single",
    "title_of",
    "truncate",
    "values",
]

WEBGL_THRESHOLD = 5000
"""Above this many scatter points in one figure, traces are ``go.Scattergl``."""

COUNTERFACTUAL_SUFFIX = " (counterfactual replay)"
"""Appended to the title of every figure of a counterfactual run (``replay``): its replies are
the original run's, not what a model would have said to that window."""


TITLE_LINE_CHARS = 64
"""The longest line of a chart's title, in characters: about 560 px at the title's size, so a
title fits a chart in a notebook beside JupyterLab's file browser."""

TITLE_LINE_PX = 22
"""What each further title line adds to the top margin."""

TITLE_BREAK = "<br>"
"""What starts a new line in a chart's title (plotly's line break)."""


def _units(text: str) -> list[str]:
    """The words of a title, a parenthesis counted as one (``(counterfactual replay)`` is never
    broken, so a title still ends with :data:`COUNTERFACTUAL_SUFFIX`)."""
    units: list[str] = []
    inside = False
    for word in text.split(" "):
        if inside:
            units[-1] += " " + word
        else:
            units.append(word)
        if word.startswith("("):
            inside = True
        if word.endswith(")"):
            inside = False
    return units


def fit_title(title: str, width: int | None = None) -> list[str]:
    """The lines a title is drawn on: broken between words so that no line is longer than
    ``width`` characters (a single longer word, or parenthesis, keeps a line of its own).
    Plotly draws a title on one line however long, and a line wider than the figure is cut at
    its edge — the window map of a long setting in a narrow notebook was.

    Args:
        title: The title text (``<br>`` in it starts a new line).
        width: The longest line, in characters (default :data:`TITLE_LINE_CHARS`).

    Returns:
        The lines, at least one.
    """
    limit = TITLE_LINE_CHARS if width is None else width
    lines: list[str] = []
    for given in title.split(TITLE_BREAK):
        first, *words = _units(given)
        line = first
        for word in words:
            if line.strip() and len(line) + 1 + len(word) > limit:
                lines.append(line)  # the space between them is where the line breaks
                line = word
            else:
                line = f"{line} {word}"
        lines.append(line)
    return lines


def layout(fig: go.Figure, title: str, **extra: Any) -> go.Figure:
    """Give ``fig`` its title and the lab template (font, margins, legend placement), tell
    identical lines apart (:func:`distinguish_identical`) and make it a
    :class:`~._figure.LabFigure` (shown in a notebook, it follows the theme). A title longer than
    :data:`TITLE_LINE_CHARS` is broken between words (:func:`fit_title`) and the top margin
    grows by :data:`TITLE_LINE_PX` for each further line, so no title is cut at the edge.

    Args:
        fig: The figure to lay out, in place.
        title: The title text (left-aligned, in the top margin).
        **extra: Further ``update_layout`` keywords (height, meta, barmode, ...).

    Returns:
        ``fig``.
    """
    lines = fit_title(title)
    if len(lines) > 1:
        margin = dict(extra.pop("margin", None) or {})
        top = pio.templates[TEMPLATE].layout.margin.t or 0  # the template's: one line
        margin.setdefault("t", top + TITLE_LINE_PX * (len(lines) - 1))
        extra["margin"] = margin
    fig.update_layout(title={"text": TITLE_BREAK.join(lines)}, **extra)
    set_template(fig, TEMPLATE)
    distinguish_identical(fig)
    return as_lab_figure(fig)


def set_template(fig: go.Figure, name: str) -> go.Figure:
    """Give ``fig`` the registered template ``name``, as ``fig.update_layout(template=name)``
    does, without validating it again.

    Plotly validates a template given by name by rebuilding the registered one, every trace
    type's defaults checked anew (about 7 ms a figure, most of a small chart's cost and of a
    Tuner's redraw); the registered one was validated when it was built. So it is set as plotly
    sets its own default template on every new figure: with the layout's validation off for
    that one assignment, which stores a copy of its JSON. ``tests/lab/test_plot_theme.py``
    checks the figure is the same either way.
    """
    template = pio.templates[name]
    fig_layout = fig.layout
    # a widget must tell its front-end (an unvalidated assignment sends nothing), and a plotly
    # without the switch has only the validated way
    if isinstance(fig, go.FigureWidget) or not hasattr(fig_layout, "_validate"):
        fig.update_layout(template=name)
        return fig
    validating = fig_layout._validate
    fig_layout._validate = False
    try:
        fig_layout.template = template
    finally:
        fig_layout._validate = validating
    return fig


def nice_step(span: float, ticks: int = 5) -> float:
    """A round tick step for an axis spanning ``span``: 1, 2 or 5 x 10^k, the one nearest to
    ``span / ticks`` (so the span holds about ``ticks`` steps: 12,345 ticks every 2,000).

    Args:
        span: The axis's extent in data units (> 0).
        ticks: About how many steps the span should hold.

    Returns:
        The step (1 for a span that is not positive).
    """
    if not span > 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(ticks, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    fraction = raw / power  # in [1, 10)
    for below, mantissa in ((1.5, 1.0), (3.0, 2.0), (7.0, 5.0)):
        if fraction < below:
            return mantissa * power
    return 10.0 * power


def round_ticks(maximum: float | None, ticks: int = 5) -> dict[str, Any]:
    """Axis settings for round ticks from 0 to ``maximum``: ``tick0`` 0, ``dtick`` a
    :func:`nice_step` of the range (0, 5k, 10k, ...) and SI labels (``~s``: 5k, 1.5M).

    Args:
        maximum: The largest value the axis shows (None or <= 0: no settings).
        ticks: About how many ticks.

    Returns:
        ``update_yaxes`` keywords (empty when there is nothing to tick).
    """
    if maximum is None or not maximum > 0 or not math.isfinite(maximum):
        return {}
    step = nice_step(float(maximum), ticks)
    if step < 1:
        step = 1.0
    dtick: float | int = int(step) if step == int(step) else step
    return {"tick0": 0, "dtick": dtick, "tickformat": "~s"}


def empty_note(fig: go.Figure, text: str) -> None:
    """Replace the axes of an empty figure with a centred note saying why it is empty.

    Args:
        fig: The figure, changed in place.
        text: What the note says (e.g. ``"no pins on any visit"``).
    """
    fig.add_annotation(
        text=text,
        showarrow=False,
        xref="paper",
        yref="paper",
        x=0.5,
        y=0.5,
        font={"size": 14},  # in the theme's muted colour (the template's annotationdefaults)
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(height=200)


def scatter_class(points: int) -> Any:
    """``go.Scattergl`` above :data:`WEBGL_THRESHOLD` points in a figure, else ``go.Scatter``.

    Args:
        points: How many scatter points the whole figure holds.

    Returns:
        The trace class to build the figure's scatter traces with.
    """
    return go.Scattergl if points > WEBGL_THRESHOLD else go.Scatter


def values(series: pd.Series) -> list[Any]:
    """A column as plain Python values, <NA> as None (what plotly serialises as null).

    Args:
        series: The frame column.

    Returns:
        Its values as a list.
    """
    return [None if pd.isna(v) else v for v in series.tolist()]


def single(frames: Frames, what: str) -> Frames:
    """The frames of one run, or a ``ValueError`` naming the builder when they stack several.

    Args:
        frames: The frames a one-run chart was given.
        what: The builder's name, for the message.

    Returns:
        ``frames``.

    Raises:
        ValueError: The frames stack more than one run.
    """
    runs = frames.calls["run"].unique().tolist() if "run" in frames.calls.columns else []
    if len(runs) > 1:
        raise ValueError(
            f"{what} shows one run; these frames stack {len(runs)} runs ({runs[:3]}...). "
            "Use plots.compare(...) or select one run first."
        )
    return frames


def is_counterfactual(frames: Frames) -> bool:
    """Whether the frames show a counterfactual replay (for stacked frames: every run is).

    Args:
        frames: Frames of one run or of several stacked.

    Returns:
        True when the run (every stacked run) is a counterfactual replay.
    """
    if "counterfactual" in frames.info:
        return bool(frames.info["counterfactual"])
    by_run = frames.info.get("by_run") or {}
    return bool(by_run) and all(bool(i.get("counterfactual")) for i in by_run.values())


def title_of(frames: Frames, what: str) -> str:
    """The title of a one-run chart: ``"{what} — {label}"``, marked when counterfactual.

    Args:
        frames: The chart's frames (their label, strategy or run names name the chart).
        what: The chart's name.

    Returns:
        The title text.
    """
    runs = ", ".join(str(r) for r in frames.info.get("runs", []))
    label = frames.info.get("label") or frames.info.get("strategy") or runs or "no strategy"
    suffix = COUNTERFACTUAL_SUFFIX if is_counterfactual(frames) else ""
    return f"{what} — {label}{suffix}"


def truncate(text: str, items: int = 4) -> str:
    """A comma-separated list cut to its first ``items`` entries, saying how many more.

    Args:
        text: Entries separated by ``", "``.
        items: How many entries to keep.

    Returns:
        The shortened list, or ``"–"`` when it is empty.
    """
    parts = [p for p in text.split(", ") if p]
    if len(parts) <= items:
        return ", ".join(parts) or "–"
    return ", ".join(parts[:items]) + f", … (+{len(parts) - items} more)"


def _present(value: Any) -> bool:
    """Whether a frame value holds a fact (not None, NaN or <NA>)."""
    if value is None:
        return False
    try:
        return not bool(pd.isna(value))
    except (TypeError, ValueError):  # pragma: no cover - list-likes hold facts
        return True


def refusal_lines(reasons: Iterable[str], *, meanings: bool = True) -> list[str]:
    """The refusals of a record (or of several), counted by reason in order of first
    appearance: with ``meanings``, one line per reason with the glossary's words
    (:data:`REFUSAL_MEANINGS`); without, one compact line of counts.

    Args:
        reasons: Every refusal's reason.
        meanings: One line per reason with its meaning (``"refused 2 × inside-keep-window:
            one of the last …"``), else ``"refused: 2 × inside-keep-window, 1 × …"``.

    Returns:
        The lines (``["refusals: none"]`` when nothing refused).
    """
    counts = Counter(r for r in reasons if r)
    if not counts:
        return ["refusals: none"]
    if not meanings:
        return ["refused: " + ", ".join(f"{n} × {reason}" for reason, n in counts.items())]
    return [
        f"refused {n} × {reason}: {REFUSAL_MEANINGS.get(reason, 'a reason of this strategy')}"
        for reason, n in counts.items()
    ]


RECORD_HOVER_COLUMNS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            "iteration",
            "strategy",
            "refusal_reasons",
            "removed_message_count",
            "removed_stage_ids",
            "window_chars_before",
            "window_chars_after",
            *RULE_FACTS,
        ]
    )
)
"""The ``records`` columns a record's hover reads (:func:`record_lines`,
:func:`removal_summary`): which record, its rule's facts, its refusals and what it removed."""


def record_hover_rows(records: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``records`` as mappings for a record's hover (:func:`record_lines`,
    :func:`removal_summary`): only the columns it reads (:data:`RECORD_HOVER_COLUMNS`), as
    ``to_dict("records")`` gives them — converting a row's every column (sixty) for a hover
    that reads a third of them was most of a chart's cost on a long run.

    Args:
        records: A ``records`` frame (or some of its rows).

    Returns:
        One mapping per row, in order.
    """
    columns = [c for c in RECORD_HOVER_COLUMNS if c in records.columns]
    return [{str(k): v for k, v in row.items()} for row in records[columns].to_dict("records")]


def record_reasons(row: Mapping[str, Any]) -> list[str]:
    """Every refusal reason of a ``records`` row, in order (its ``refusal_reasons`` split).

    Args:
        row: One row of ``frames.records`` as a mapping.

    Returns:
        The reasons (empty when none refused).
    """
    text = row.get("refusal_reasons")
    return [r for r in str(text).split(", ") if r] if _present(text) else []


def record_lines(row: Mapping[str, Any], *, meanings: bool = True) -> list[str]:
    """The hover lines of one record: which record (iteration · strategy), the rule that
    fired, and its refusals by reason.

    Args:
        row: One row of ``frames.records`` as a mapping.
        meanings: Give each refusal reason its meaning.

    Returns:
        The lines.
    """
    head = f"<b>record</b>: iteration {row['iteration']} · {row['strategy']}"
    return [head, record_rule(row), *refusal_lines(record_reasons(row), meanings=meanings)]


def removal_summary(row: Mapping[str, Any]) -> str:
    """The hover text of one record: which record (iteration · strategy), the rule that fired,
    the removed count and stage ids (truncated), the characters before and after, and the
    refusals counted by reason in the glossary's words.

    Args:
        row: One row of ``frames.records`` as a mapping.

    Returns:
        The hover text (HTML line breaks).
    """
    head, rule, *refusals = record_lines(row)
    return "<br>".join(
        [
            head,
            rule,
            f"removed {row['removed_message_count']} message(s): "
            f"{truncate(str(row.get('removed_stage_ids') or ''))}",
            f"chars {row['window_chars_before']:,} → {row['window_chars_after']:,}",
            *refusals,
        ]
    )
