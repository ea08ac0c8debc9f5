"""The lab's one palette and its one plotly template.

Layer: lab. Every colour a lab figure, widget or report uses is named here, once: the state
colours of the window map, the refusal-reason colours, the run and strategy sequences, the
overlay colours and the neutral greys of text, borders and table headers. Importing this module
registers ``pio.templates["footprint_lab"]`` (built once, on top of ``"plotly_white"``); every
figure builder sets ``template=TEMPLATE``.

The template's legend sits below the plot area, in the figure's bottom margin (container
coordinates), and the title sits in the top margin: a legend never covers a title, and the
window map's colour bar keeps the right-hand side to itself.

There are two themes, ``"light"`` and ``"dark"`` (:data:`THEMES`): each has a registered plotly
template (:data:`TEMPLATES`; the light one is :data:`TEMPLATE`, the one figures are built with)
and the colours of the HTML around the figures (:data:`PAGE_THEMES`). A figure changes theme by
swapping its template (:func:`template_for`): the widgets do it when JupyterLab's theme changes,
the report when its reader flips its switch or the browser prefers dark.

HTML shown in a notebook takes its colours from JupyterLab's theme (:data:`THEMED`: CSS
variables such as ``--jp-ui-font-color1``, each with this palette's colour as the fallback),
so a table is as readable in the dark theme as in the light one and outside JupyterLab.
"""

from __future__ import annotations

from typing import Any, Literal

import plotly.graph_objects as go
import plotly.io as pio

from footprint_lab.window.records import REFUSAL_REASONS

__all__ = [
    "BORDER",
    "COUNTERFACTUAL_ACCENT",
    "ERROR_TEXT",
    "FALLBACK",
    "FONT",
    "HEADER_BACKGROUND",
    "LEGEND",
    "LOSS_COLOR",
    "MUTED",
    "NEUTRAL_MARK",
    "NOT_COMMITTED",
    "OUTCOME_COLORS",
    "OUTLINE",
    "PAGE_COLORS",
    "PAGE_DARK_COLORS",
    "PAGE_THEMES",
    "PAUSE_COLOR",
    "REASON_COLORS",
    "RUN_COLORS",
    "SECONDARY_LINE",
    "STATE_COLORS",
    "STRATEGY_COLORS",
    "TEMPLATE",
    "TEMPLATES",
    "THEMED",
    "THEMES",
    "VIOLATION_COLOR",
    "YIELDED",
    "Theme",
    "build_template",
    "template_for",
]

# -- named colours (the only hex literals of the lab) -----------------------------------------

BLUE = "#4C78A8"
ORANGE = "#F58518"
RED = "#E45756"
PINK = "#FF9DA6"
BROWN = "#9D755D"
MAUVE = "#B07AA1"
ROSE = "#D67195"
APRICOT = "#FFBF79"
TEAL = "#72B7B2"
LIGHT_GREEN = "#8CD17D"
WARM_GREY = "#79706E"
OLIVE = "#B6992D"
LIGHT_BLUE = "#9ECAE9"
PALE_GOLD = "#F1CE63"
STONE = "#BAB0AC"
LILAC = "#D4A6C8"
YELLOW = "#EECA3B"
GREEN = "#54A24B"
LIGHT_GREY = "#D9D9D9"
SAGE = "#B5D3B0"
PURPLE = "#B279A2"
GRAPE = "#7F3C8D"
CRIMSON = "#D62728"
INK = "#111111"
SLATE = "#52606d"
GREY = "#888888"
DARK_GREY = "#666666"
MID_GREY = "#999999"
WHITE = "#FFFFFF"
PALE_BORDER = "#e4e7eb"
PALE_BLUE = "#eef2f7"
CHARCOAL = "#1f2933"
PAPER = "#f7f8fa"
CREAM = "#fdf0d5"
UMBER = "#7a4b00"
GOLD = "#f0c36d"
IVORY = "#fdf8ec"
BLUSH = "#fdeeee"
BRICK = "#d9534f"
MAROON = "#8a1f1b"
SALMON = "#e8a09d"
BUTTER = "#fff8e6"
AMBER = "#e0a100"
NIGHT = "#15181c"
DUSK = "#1e2228"
SMOKE = "#e6e9ee"
FOG = "#aab4c0"
GRAPHITE = "#3a414b"
NIGHT_BLUE = "#253042"
SKY = "#7fa7d6"
BRONZE = "#3b2f1a"
HONEY = "#f3d49b"
DEEP_GOLD = "#8a6a2c"
WINE = "#3d2222"
ROSE_TEXT = "#f4b5b2"
DARK_BRICK = "#a5423e"
DEEP_BLUE = "#2f5b8a"

# -- roles --------------------------------------------------------------------------------------

FALLBACK = MID_GREY
"""A state or reason the palette does not know."""

_REFUSED_COLORS: dict[str, str] = {
    "current-request": RED,
    "system-envelope": PINK,
    "paused-tool": BROWN,
    "pending-check-in": MAUVE,
    "unresolved-tool-call": ROSE,
    "last-tool-result": APRICOT,
    "inside-keep-window": TEAL,
    "only-existing-summary": LIGHT_GREEN,
    "summarizer-failed": WARM_GREY,
    "replacement-not-smaller": OLIVE,
    "within-slack": LIGHT_BLUE,
    "below-clear-at-least": PALE_GOLD,
    "excluded-tool": STONE,
    "among-newest-results": LILAC,
}

STATE_COLORS: dict[str, str] = {
    "in-window": BLUE,
    "pinned": ORANGE,
    **{f"refused-{reason}": _REFUSED_COLORS.get(reason, FALLBACK) for reason in REFUSAL_REASONS},
    "notice": YELLOW,
    "frame": GREEN,
    "placeholder": PURPLE,
    "dropped": LIGHT_GREY,
    "folded": SAGE,
    "cleared": GRAPE,
}
"""One fixed colour per membership state, the same in every figure (a refusal reason the
palette does not name yet is drawn in :data:`FALLBACK`)."""

REASON_COLORS: dict[str, str] = {
    reason: STATE_COLORS[f"refused-{reason}"] for reason in REFUSAL_REASONS
}
"""One fixed colour per refusal reason (the colour of its ``refused-*`` state)."""

RUN_COLORS: tuple[str, ...] = (BLUE, ORANGE, GREEN, RED, TEAL, PURPLE, YELLOW, BROWN)
"""The line colours of compared runs, in order (also the template's colourway)."""

STRATEGY_COLORS: tuple[str, ...] = (BLUE, ORANGE, GREEN, RED, TEAL, PURPLE, BROWN, YELLOW)
"""The marker colours of strategies in the evidence trade-off, in order."""

OUTCOME_COLORS: dict[str, str] = {
    "passed": GREEN,
    "failed": RED,
    "done": BLUE,
    "incomplete": APRICOT,
    "max-iterations": ORANGE,
    "paused": PURPLE,
    "error": CRIMSON,
    "cancelled": STONE,
    "unknown": FALLBACK,
}
"""One fixed colour per run outcome of a corpus overview (a recorded reward's verdict, else
the run's status); an outcome not named here is drawn in :data:`FALLBACK`."""

PAUSE_COLOR = GRAPE
"""Pauses (window size and window map)."""

VIOLATION_COLOR = CRIMSON
"""Audit violations over the window map."""

LOSS_COLOR = INK
"""Lost evidence over the window map."""

SECONDARY_LINE = GREY
"""The reported-input-tokens line of the window size chart."""

YIELDED = DARK_GREY
"""Pins that found no free slot."""

OUTLINE = "white"
"""The outline of markers drawn over other marks."""

NOT_COMMITTED = WHITE
"""The colour scale of a window map with no cells."""

MUTED = SLATE
"""Secondary text: notes on empty figures (the light template's annotation colour), muted
widget text."""

NEUTRAL_MARK = GREY
"""Marks that are neither a run nor a state, drawn the same in both themes: the Pareto front,
the faint cloud of runs behind a corpus frontier (at least 3:1 against the light and the dark
chart surface)."""

BORDER = PALE_BORDER
"""Table and panel borders (widgets, report)."""

HEADER_BACKGROUND = PALE_BLUE
"""Table header cells (widgets, report)."""

COUNTERFACTUAL_ACCENT = PURPLE
"""The badge of a counterfactual replay in the widgets."""

ERROR_TEXT = RED
"""Text saying something did not run."""

PAGE_COLORS: dict[str, str] = {
    "text": CHARCOAL,
    "background": PAPER,
    "rule": BLUE,
    "muted": SLATE,
    "border": PALE_BORDER,
    "header": PALE_BLUE,
    "badge-background": CREAM,
    "badge-text": UMBER,
    "badge-border": GOLD,
    "note-background": IVORY,
    "note-accent": GOLD,
    "truncated-background": BLUSH,
    "truncated-accent": BRICK,
    "truncated-text": MAROON,
    "truncated-border": SALMON,
    "problems-background": BUTTER,
    "problems-accent": AMBER,
    "error": RED,
    "surface": WHITE,
    "link": DEEP_BLUE,
}
"""The colours of the HTML around the figures (report page, widget tables), by role: the light
theme's."""

PAGE_DARK_COLORS: dict[str, str] = {
    "text": SMOKE,
    "background": NIGHT,
    "surface": DUSK,
    "rule": SKY,
    "muted": FOG,
    "border": GRAPHITE,
    "header": NIGHT_BLUE,
    "badge-background": BRONZE,
    "badge-text": HONEY,
    "badge-border": DEEP_GOLD,
    "note-background": BRONZE,
    "note-accent": GOLD,
    "truncated-background": WINE,
    "truncated-accent": BRICK,
    "truncated-text": ROSE_TEXT,
    "truncated-border": DARK_BRICK,
    "problems-background": BRONZE,
    "problems-accent": AMBER,
    "error": PINK,
    "link": SKY,
}
"""The same roles in the dark theme (light text on dark surfaces)."""

THEMED: dict[str, str] = {
    "text": f"var(--jp-ui-font-color1, {CHARCOAL})",
    "muted": f"var(--jp-ui-font-color2, {SLATE})",
    "background": f"var(--jp-layout-color1, {WHITE})",
    "header": f"var(--jp-layout-color2, {PALE_BLUE})",
    "border": f"var(--jp-border-color2, {PALE_BORDER})",
    "link": f"var(--jp-content-link-color, {BLUE})",
}
"""CSS colour values for HTML shown inside JupyterLab (widget panes, tables, reprs), by role:
the theme's variable, falling back to this palette outside JupyterLab (or in a theme that does
not set it). Text and background always come in pairs from here, so the dark theme's light
text never lands on a light header."""

# -- themes and templates -----------------------------------------------------------------------

Theme = Literal["light", "dark"]
"""A theme's name."""

THEMES: tuple[Theme, ...] = ("light", "dark")
"""The lab's themes."""

PAGE_THEMES: dict[Theme, dict[str, str]] = {"light": PAGE_COLORS, "dark": PAGE_DARK_COLORS}
"""Each theme's page colours, by role (the same roles in both)."""

TEMPLATE = "footprint_lab"
"""The name of the registered template every figure is built with (``pio.templates[TEMPLATE]``,
the light theme)."""

TEMPLATES: dict[Theme, str] = {"light": TEMPLATE, "dark": "footprint_lab_dark"}
"""Each theme's registered plotly template, by name."""

_FIGURE_DARK: dict[str, str] = {
    "paper": DUSK,
    "plot": DUSK,
    "text": SMOKE,
    "grid": GRAPHITE,
    "line": FOG,
    "muted": FOG,
}
"""The dark template's surfaces, text and axis lines (the report's dark surface, so a chart
sits on its page without a frame of another colour)."""

FONT: dict[str, Any] = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12}
"""The lab's figure font."""

LEGEND: dict[str, Any] = {
    "orientation": "h",
    "xref": "container",
    "yref": "container",
    "x": 0.01,
    "xanchor": "left",
    "y": 0,
    "yanchor": "bottom",
}
"""Below the plot area, at the bottom of the figure: plotly reserves the room for it, so it
never covers the axes, the colour bar or the title."""


def build_template(theme: Theme = "light") -> go.layout.Template:
    """Build one of the lab's templates: ``"plotly_white"`` (light) or ``"plotly_dark"`` (dark,
    on the dark page's surface) with the lab's font, colourway, margins, title and legend
    placement — the same in both, so a figure keeps its layout when its theme changes.

    Args:
        theme: ``"light"`` or ``"dark"``.

    Returns:
        A new template (the registered ones are built once, when this module is imported).
    """
    base = "plotly_dark" if theme == "dark" else "plotly_white"
    template = go.layout.Template(pio.templates[base])
    template.layout.update(
        font=FONT,
        colorway=list(RUN_COLORS),
        title={"x": 0.01, "xanchor": "left", "yref": "container"},
        margin={"l": 60, "r": 30, "t": 64, "b": 50},
        legend=LEGEND,
        annotationdefaults={"font": {"color": MUTED}},
    )
    if theme == "dark":
        axis = {
            "gridcolor": _FIGURE_DARK["grid"],
            "linecolor": _FIGURE_DARK["line"],
            "zerolinecolor": _FIGURE_DARK["grid"],
        }
        template.layout.update(
            paper_bgcolor=_FIGURE_DARK["paper"],
            plot_bgcolor=_FIGURE_DARK["plot"],
            font={"color": _FIGURE_DARK["text"]},
            annotationdefaults={"font": {"color": _FIGURE_DARK["muted"]}},
            xaxis=axis,
            yaxis=axis,
        )
    return template


def template_for(theme: Theme) -> go.layout.Template:
    """The registered template of ``theme`` (what a figure's ``layout.template`` becomes when
    it changes theme).

    Raises:
        ValueError: ``theme`` is not one of :data:`THEMES`.
    """
    if theme not in TEMPLATES:
        raise ValueError(f"no theme {theme!r}; themes: {', '.join(THEMES)}")
    return pio.templates[TEMPLATES[theme]]


for _theme in THEMES:
    pio.templates[TEMPLATES[_theme]] = build_template(_theme)
