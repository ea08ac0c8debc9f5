"""Rendering: the lab's one Jinja2 environment and its HTML templates.

Layer: lab. Every piece of HTML the lab shows — the offline report, the widgets' panes, a
:class:`~footprint_lab.WindowRecord` — comes from a template in ``templates/`` rendered by
:func:`render`, with autoescape on: text from a run (message content, tool names, errors)
can never become markup. The one exception is plotly's own ``to_html`` output, which the
report embeds with ``|safe``.

Templates get these globals: ``styles`` (:data:`STYLES`, the inline styles the widgets need,
since a notebook output has no stylesheet of ours), ``colors`` (the page colours of the palette,
:data:`footprint_lab.lab.plots._theme.PAGE_COLORS`, for the report's stylesheet) and
``state_style`` (:func:`state_style`). Every colour comes from that palette.
The ``cell`` filter writes a missing value (None, NaN, ``<NA>``) as an en dash.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jinja2
import pandas as pd

from footprint_lab.lab.plots._theme import (
    BORDER,
    COUNTERFACTUAL_ACCENT,
    ERROR_TEXT,
    FALLBACK,
    HEADER_BACKGROUND,
    MUTED,
    PAGE_COLORS,
    STATE_COLORS,
)

__all__ = ["ENV", "STYLES", "TABLE_MAX_ROWS", "cell", "render", "state_style", "table_context"]

_FONT = "font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; font-size: 12px;"
_CELL = (
    f"border: 1px solid {BORDER}; padding: 2px 6px; text-align: left; vertical-align: top; "
    "line-height: 1.35;"
)

STYLES: Mapping[str, str] = {
    "font": _FONT,
    "table": f"border-collapse: collapse; {_FONT}",
    "cell": _CELL,
    "cell_nowrap": _CELL + " white-space: nowrap;",
    "head": _CELL + f" white-space: nowrap; background: {HEADER_BACKGROUND};",
    "muted": f"color: {MUTED};",
    "error": f"color: {ERROR_TEXT};",
    "banner": (
        f"background: {COUNTERFACTUAL_ACCENT}22; border-left: 4px solid {COUNTERFACTUAL_ACCENT}; "
        "padding: 4px 8px; margin: 4px 0;"
    ),
    "problems": (
        f"background: {PAGE_COLORS['problems-background']}; "
        f"border-left: 3px solid {PAGE_COLORS['problems-accent']}; padding: 4px 8px; "
        "margin: 4px 0;"
    ),
}
"""Inline styles, by name (``styles.cell`` in a template)."""


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
    its first ``max_rows`` rows (and a note saying so when there are more), per-row styles,
    inline styles (widgets) or a CSS class (the report), and the line shown when it is empty."""
    shown = frame.head(max_rows)
    note = f"The first {max_rows} of {len(frame)} {unit}." if len(frame) > max_rows else None
    return {
        "columns": [str(c) for c in shown.columns],
        "rows": [list(values) for values in shown.itertuples(index=False, name=None)],
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
    """A table cell's value: an en dash for a missing one, else the value (escaped later)."""
    if value is None:
        return "–"
    if not isinstance(value, str | list | dict | tuple):
        try:
            if pd.isna(value):
                return "–"
        except (TypeError, ValueError):  # pragma: no cover - array-likes are shown as they are
            return value
    return value


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
ENV.globals["state_style"] = state_style
ENV.filters["cell"] = cell


def render(template_name: str, **context: Any) -> str:
    """Render ``templates/<template_name>`` with ``context`` and return the HTML."""
    return ENV.get_template(template_name).render(**context)
