"""Rendering: the lab's one Jinja2 environment and its HTML templates.

Layer: lab. Every piece of HTML the lab shows — the offline report, the widgets' panes, a
:class:`~footprint_lab.WindowRecord` — comes from a template in ``templates/`` rendered by
:func:`render`, with autoescape on: text from a run (message content, tool names, errors)
can never become markup. The exceptions are plotly's own ``to_html`` output and the Boundary view's
script, ``boundary.js`` (:func:`boundary_script`, a file of this package that writes text
only), which the report embeds with ``|safe``. That script is the Boundary view's one renderer:
the report inlines it, the Inspector's Boundary pane runs it as an anywidget, and
:func:`boundary_css` is the stylesheet both give it (the report's colours, or JupyterLab's
theme variables for the pane).

Templates get these globals: ``styles`` (:data:`STYLES`, the inline styles the widgets need,
since a notebook output has no stylesheet of ours), ``colors`` (the page colours of the palette,
:data:`footprint_lab.lab.theme.PAGE_COLORS`, for the report's stylesheet),
``headers`` (:data:`footprint_lab.lab.schema.COLUMN_HEADERS`, the human header of a frame
column), ``state_style`` (:func:`state_style`) and ``call_label``
(:func:`footprint_lab.window.words.call_label`, how a call is named). Every colour comes from
that palette; the inline styles name JupyterLab's theme variables first
(:data:`~footprint_lab.lab.theme.THEMED`), so a table reads as well in the dark theme as in the
light one.

Tables stay inside their box: each sits in a scrolling box (``overflow: auto`` with a
``max-height``) instead of widening the page, and text columns wrap anywhere
(``overflow-wrap: anywhere; white-space: pre-wrap``), so a long message preview or a long list
of stage ids never needs horizontal scrolling. The ``cell`` filter writes a missing value
(None, NaN, ``<NA>``) as a blank cell.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, Literal

import jinja2
import numpy as np
import pandas as pd

from footprint_lab.lab.schema import COLUMN_HEADERS, MEMBERSHIP_STATES
from footprint_lab.lab.theme import (
    COUNTERFACTUAL_ACCENT,
    ERROR_TEXT,
    FALLBACK,
    PAGE_COLORS,
    PAGE_THEMES,
    STATE_COLORS,
    THEMED,
    THEMES,
    template_for,
)
from footprint_lab.window.words import call_label

__all__ = [
    "BOUNDARY_SCRIPT",
    "ENV",
    "PAGE_VARS",
    "STYLES",
    "TABLE_MAX_HEIGHT_PX",
    "TABLE_MAX_ROWS",
    "TEXT_MIN_WIDTH_EM",
    "WRAP_MIN_CHARS",
    "boundary_css",
    "boundary_script",
    "cell",
    "page_theme_context",
    "render",
    "state_style",
    "table_context",
]

BOUNDARY_SCRIPT = "boundary.js"
"""The Boundary view's script: a file of this package (it ships in the wheel beside the
templates)."""

_SCRIPT_END = re.compile(r"<\s*/\s*script", re.IGNORECASE)
"""What would end an inline script early."""

PAGE_VARS: Mapping[str, str] = {role: f"var(--fl-{role})" for role in PAGE_COLORS}
"""Each page colour role as the report's CSS variable (``--fl-<role>``): the report's
stylesheet sets the variables from :data:`~footprint_lab.lab.theme.PAGE_THEMES` (light, or dark
when the browser prefers it or the reader's switch says so) and its rules name only these."""

TEXT_MIN_WIDTH_EM = 16
"""A table column of long text (one that wraps anywhere) is never narrower than this many em:
in a narrow box (JupyterLab with its file browser open) the table scrolls sideways in its own
box instead of squeezing the text to a few characters a line."""

TABLE_MAX_HEIGHT_PX = 480
"""A table taller than this scrolls inside its own box (its header row stays in view)."""

WRAP_MIN_CHARS = 24
"""A table column holding text longer than this wraps anywhere (``overflow-wrap: anywhere``);
the others stay on one line, except that an inline table's last column wraps between words."""

_FONT = "font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; font-size: 12px;"
_CELL = (
    f"border: 1px solid {THEMED['border']}; padding: 2px 6px; text-align: left; "
    "vertical-align: top; line-height: 1.35;"
)
_WRAP = "overflow-wrap: anywhere; white-space: pre-wrap;"
_TEXT = f"{_WRAP} min-width: {TEXT_MIN_WIDTH_EM}em;"

STYLES: Mapping[str, str] = {
    "font": _FONT,
    "table": (
        f"border-collapse: collapse; {_FONT} color: {THEMED['text']}; "
        f"background: {THEMED['background']};"
    ),
    "scroll": f"overflow: auto; max-width: 100%; max-height: {TABLE_MAX_HEIGHT_PX}px;",
    "wrap": _WRAP,
    "cell": _CELL,
    "cell_wrap": _CELL + " " + _WRAP,
    "cell_text": _CELL + " " + _TEXT,
    "text": _TEXT,
    "cell_nowrap": _CELL + " white-space: nowrap;",
    "head": (
        _CELL + f" white-space: nowrap; color: {THEMED['text']}; "
        f"background: {THEMED['header']}; position: sticky; top: 0;"
    ),
    "key": (
        _CELL + f" white-space: nowrap; color: {THEMED['text']}; background: {THEMED['header']};"
    ),
    "muted": f"color: {THEMED['muted']};",
    "link": f"color: {THEMED['link']}; text-decoration: underline;",
    "error": f"color: {ERROR_TEXT};",
    "banner": (
        f"background: {COUNTERFACTUAL_ACCENT}22; border-left: 4px solid {COUNTERFACTUAL_ACCENT}; "
        "padding: 4px 8px; margin: 4px 0;"
    ),
    "problems": (
        f"background: {PAGE_COLORS['problems-accent']}22; "
        f"border-left: 3px solid {PAGE_COLORS['problems-accent']}; padding: 4px 8px; "
        "margin: 4px 0;"
    ),
}
"""Inline styles, by name (``styles.cell`` in a template): ``table``, ``head`` (a column
header: it stays in view while the table scrolls), ``key`` (a row header of a key-value
table), ``cell`` (wraps between words), ``cell_wrap`` (wraps anywhere, keeps line breaks),
``cell_nowrap``, ``cell_text`` (a column of long text: wraps anywhere, at least
:data:`TEXT_MIN_WIDTH_EM` wide), ``scroll`` (the box a table scrolls in), ``wrap`` (text that
wraps anywhere), ``text`` (``cell_text`` for the report's stylesheet-styled tables),
``font``, ``muted``, ``link``, ``error``, ``banner`` and ``problems``."""


TABLE_MAX_ROWS = 300
"""A table shows at most this many rows unless told otherwise (the first ones, and says so)."""


def table_context(
    frame: pd.DataFrame,
    *,
    inline: bool = True,
    css_class: str | None = None,
    row_styles: Sequence[str] | None = None,
    max_rows: int = TABLE_MAX_ROWS,
    empty: str = "nothing to show",
    unit: str = "rows",
) -> dict[str, Any]:
    """What the ``table`` macro of ``_macros.html.j2`` takes, from a DataFrame: its columns,
    its first ``max_rows`` rows (and a note saying so when there are more), which columns wrap
    anywhere (``wrap``: those holding text longer than :data:`WRAP_MIN_CHARS`), per-row
    styles, inline styles (widgets) or a CSS class (the report), and the line shown when it is
    empty. A template may pass ``headers`` to the macro to show human headers."""
    shown = frame.head(max_rows)
    note = f"The first {max_rows} of {len(frame)} {unit}." if len(frame) > max_rows else None
    rows = [list(values) for values in shown.itertuples(index=False, name=None)]
    width = len(shown.columns)
    return {
        "columns": [str(c) for c in shown.columns],
        "wrap": [
            any(isinstance(row[i], str) and len(row[i]) > WRAP_MIN_CHARS for row in rows)
            for i in range(width)
        ],
        "rows": rows,
        "row_styles": None if row_styles is None else list(row_styles)[: len(shown)],
        "inline": inline,
        "css_class": css_class,
        "empty": empty,
        "note": note,
    }


def state_style(state: str) -> str:
    """The row style of a message in membership state ``state`` (none for ``in-window``)."""
    if state == "in-window":
        return ""
    color = STATE_COLORS.get(state, FALLBACK)
    return f"background: {color}33; box-shadow: inset 4px 0 0 {color};"


def cell(value: Any) -> Any:
    """A table cell's value: blank for a missing one (None, NaN, ``<NA>``, ``NaT``), else the
    value (escaped later)."""
    if value is None:
        return ""
    if not isinstance(value, str | list | dict | tuple):
        try:
            if pd.isna(value):
                return ""
        except (TypeError, ValueError):  # pragma: no cover - array-likes are shown as they are
            return value
    return value


_WHOLE: frozenset[type] = frozenset({int, bool, np.int64, np.int32, np.bool_})
"""Types of cell values never missing whose text needs no escaping (digits, True, False)."""

_PLAIN: frozenset[type] = _WHOLE | {str, float, np.float64, type(None), type(pd.NA)}
"""Types of cell values that have no ``full`` (what a cell said briefly carries: a ``str``
subclass), told without a lookup."""


def row_cells(t: Mapping[str, Any], row: Sequence[Any]) -> list[tuple[bool, Any, str, Any]]:
    """What the ``table`` macro of ``_macros.html.j2`` writes in each cell of one row, as
    ``(titled, title, style, value)``: a cell said briefly (a value with a ``full``) has what
    it stands for as its title; an inline table's cell has its style (``cell_text`` in a column
    that wraps, else ``cell`` for the last cell and ``cell_nowrap`` before it), a stylesheet
    table's wrapping cell ``text`` (else no style: ``""``); the value through :func:`cell`.
    The template escapes all of it and writes the markup.

    Decided here rather than in the template: a table's cells are most of a table's cost (a
    records table of 300 rows has 4,500) and the template looked up each cell's facts anew.
    ``tests/lab/test_render.py`` checks the cells are what the template's own loop wrote.
    """
    wrap = ENV.getattr(t, "wrap")
    wraps = [] if isinstance(wrap, jinja2.Undefined) else wrap
    inline = ENV.getattr(t, "inline")
    last = len(row) - 1
    out: list[tuple[bool, Any, str, Any]] = []
    for i, v in enumerate(row):
        kind = type(v)
        titled, full = False, None
        if kind not in _PLAIN:
            found = ENV.getattr(v, "full")
            if not isinstance(found, jinja2.Undefined):
                titled, full = True, found
        wrapped = i < len(wraps) and wraps[i]
        if inline:
            style = STYLES["cell_text" if wrapped else "cell" if i == last else "cell_nowrap"]
        else:
            style = STYLES["text"] if wrapped else ""
        # the common values need no filter: text and whole numbers are never missing, a
        # missing integer is blank
        value = v if kind is str or kind in _WHOLE else "" if v is pd.NA else cell(v)
        out.append((titled, full, style, value))
    return out


ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("footprint_lab.lab.render", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
"""The lab's Jinja2 environment: templates from this package, autoescape on."""
ENV.globals["styles"] = STYLES
ENV.globals["colors"] = PAGE_COLORS
ENV.globals["headers"] = COLUMN_HEADERS
ENV.globals["state_style"] = state_style
ENV.globals["call_label"] = call_label
ENV.filters["cell"] = cell
ENV.globals["row_cells"] = row_cells


def render(template_name: str, **context: Any) -> str:
    """Render ``templates/<template_name>`` with ``context`` and return the HTML."""
    return ENV.get_template(template_name).render(**context)


@cache
def boundary_script() -> str:
    """The text of :data:`BOUNDARY_SCRIPT`, the Boundary view's one renderer (see the module's
    docstring), as the report inlines it and the Inspector's pane runs it.

    Raises:
        FileNotFoundError: the file is not in the installed package (a broken install:
            reinstall footprint-lab).
        ValueError: the file would end the report's inline script early (it closes a script
            tag).
    """
    source = resources.files(__name__).joinpath(BOUNDARY_SCRIPT)
    if not source.is_file():
        raise FileNotFoundError(
            f"{BOUNDARY_SCRIPT} is missing from {source}: the Boundary view cannot be "
            "rendered; reinstall footprint-lab (the file ships inside footprint_lab/lab/render)"
        )
    text = source.read_text(encoding="utf-8")
    if _SCRIPT_END.search(text):
        raise ValueError(
            f"{source} ends a script tag (a slash and 'script' after '<'), which would end "
            "the report's inline script early: escape the slash as a backslash-slash there"
        )
    return text


def page_theme_context() -> dict[str, Any]:
    """What a themed page's templates take (the report's ``report.html.j2`` and
    ``theme_script.html.j2``): ``colors`` (:data:`PAGE_VARS`), ``themes`` (each theme's colours
    by role) and ``plot_templates`` (each theme's plotly template as JSON, for the switch)."""
    return {
        "colors": PAGE_VARS,
        "themes": PAGE_THEMES,
        "plot_templates": {theme: template_for(theme).to_plotly_json() for theme in THEMES},
    }


def boundary_css(where: Literal["report", "jupyterlab"] = "report") -> str:
    """The Boundary view's stylesheet (``boundary.css.j2``): in the report's colour variables
    (light or dark, :data:`PAGE_VARS`), or for the Inspector's pane in JupyterLab's theme
    variables (readable in the dark theme too)."""
    if where == "report":
        return render(
            "boundary.css.j2",
            colors=PAGE_VARS,
            surface=PAGE_VARS["surface"],
            membership_states=MEMBERSHIP_STATES,
        )
    themed = {**PAGE_COLORS, **THEMED}
    return render(
        "boundary.css.j2",
        colors=themed,
        surface=THEMED["background"],
        membership_states=MEMBERSHIP_STATES,
    )
