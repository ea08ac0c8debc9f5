"""One house style: every figure uses the lab's template, the palette is named once, and
legends never sit on titles."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from footprint_lab import Run
from footprint_lab.lab import Frames, capture, capture_many, plots
from footprint_lab.lab import theme as _theme

LAB = Path(plots.__file__).parents[1]
THEME = Path(_theme.__file__)
HEX = re.compile(r"#(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{6})\b|[\"']#[0-9A-Fa-f]{3}[\"']")

SOURCE_SUFFIXES = {".py", ".j2", ".html", ".css", ".js"}
"""The lab's source and template files: none of them spells a colour but ``theme.py``."""


def _summary() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "config": ["no policy", "sw-2", "sw-2+pins"],
            "strategy": ["none", "sliding-window", "sliding-window"],
            "keep_last_tool_results": [0, 0, 2],
            "chars_saved_share": [0.0, 0.5, 0.4],
            "chars_saved": [0, 500, 400],
            "baseline_window_chars": [1000, 1000, 1000],
            "lost_calls": [0, 2, 1],
            "dependent_calls": [4, 4, 4],
            "lost_share": [0.0, 0.5, 0.25],
            "wire_violations": [0, 0, 0],
            "request_lost": [0, 0, 0],
            "runs": [1, 1, 1],
        }
    )


def _figures(frames: Frames) -> dict[str, go.Figure]:
    return {
        "window_size": plots.window_size(frames),
        "window_map": plots.window_map(frames),
        "pins_timeline": plots.pins_timeline(frames),
        "refusals_by_reason": plots.refusals_by_reason(frames),
    }


@pytest.fixture(scope="module")
def figures(scenario_runs: dict[tuple[str, str], Run]) -> dict[str, go.Figure]:
    by_label = {
        label: capture(scenario_runs[("screen-driver", label)], label=label)
        for label in ("none", "sliding-window", "token-budget", "summarize-oldest")
    }
    out = {f"{k} (summarize-oldest)": v for k, v in _figures(by_label["summarize-oldest"]).items()}
    out |= {f"{k} (empty)": v for k, v in _figures(Frames.empty()).items()}
    out["compare"] = plots.compare(by_label)
    out["compare (stacked, tokens)"] = plots.compare(capture_many(by_label), metric="input_tokens")
    out["compare (empty)"] = plots.compare({})
    out["evidence_tradeoff"] = plots.evidence_tradeoff(_summary())
    out["evidence_tradeoff (empty)"] = plots.evidence_tradeoff(_summary().iloc[0:0])
    return out


def test_every_figure_is_a_lab_figure(figures: dict[str, go.Figure]) -> None:
    """Each builder returns a LabFigure (shown in a notebook, it follows the theme)."""
    assert all(type(fig) is plots.LabFigure for fig in figures.values()), [
        name for name, fig in figures.items() if type(fig) is not plots.LabFigure
    ]


def test_the_template_is_registered_once_on_plotly_white() -> None:
    template = pio.templates[_theme.TEMPLATE]
    assert _theme.TEMPLATE == "footprint_lab"
    white = pio.templates["plotly_white"].layout
    assert template.layout.plot_bgcolor == white.plot_bgcolor
    assert template.layout.xaxis.gridcolor == white.xaxis.gridcolor
    assert template.layout.font.family == _theme.FONT["family"]
    assert list(template.layout.colorway) == list(_theme.RUN_COLORS)
    assert template is pio.templates[_theme.TEMPLATE]  # not rebuilt on access


def test_every_builder_uses_the_footprint_lab_template(figures: dict[str, go.Figure]) -> None:
    expected = pio.templates["footprint_lab"].to_plotly_json()
    assert len(figures) == 13
    for name, fig in figures.items():
        assert fig.layout.template.to_plotly_json() == expected, name


def test_legends_never_sit_on_titles(figures: dict[str, go.Figure]) -> None:
    layout = pio.templates["footprint_lab"].layout
    legend = layout.legend
    below = (legend.yref == "container" and legend.yanchor == "bottom" and legend.y <= 0.05) or (
        legend.yref in (None, "paper") and legend.y is not None and legend.y < 0
    )
    right = legend.xref in (None, "paper") and legend.x is not None and legend.x > 1
    assert below or right, legend
    # the title sits in the top margin, and there is room for it
    assert layout.title.yref == "container"
    assert layout.margin.t >= 60
    for name, fig in figures.items():
        # no figure moves its legend back over the plot (and its title)
        own = fig.layout.legend
        assert (own.x, own.y, own.xref, own.yref, own.orientation) == (None,) * 5, name
        assert fig.layout.title.text, name


def test_the_palette_is_named_once() -> None:
    offenders: dict[str, list[str]] = {}
    for path in sorted(LAB.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or path == THEME or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(LAB).as_posix()
        found = HEX.findall(path.read_text(encoding="utf-8"))
        if found:
            offenders[rel] = found
    assert offenders == {}, "colours belong in footprint_lab/lab/theme.py"
    theme = THEME.read_text(encoding="utf-8")
    literals = HEX.findall(theme)
    assert len(literals) == len({c.lower() for c in literals}), "a colour is named twice"


def test_the_plots_use_the_theme_colours(figures: dict[str, go.Figure]) -> None:
    assert plots.STATE_COLORS is _theme.STATE_COLORS
    assert plots.REASON_COLORS is _theme.REASON_COLORS
    for reason, color in plots.REASON_COLORS.items():
        assert color == plots.STATE_COLORS[f"refused-{reason}"]
    bars = figures["refusals_by_reason (summarize-oldest)"]
    for trace in bars.data:
        assert trace.marker.color == plots.REASON_COLORS[trace.name]
    lines = figures["compare"]
    for i, trace in enumerate(lines.data):
        assert trace.line.color == _theme.RUN_COLORS[i % len(_theme.RUN_COLORS)]
    points = figures["evidence_tradeoff"]
    for i, trace in enumerate(points.data[:-1]):
        assert trace.marker.color == _theme.STRATEGY_COLORS[i]


def test_a_figure_is_given_the_template_as_update_layout_gives_it(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    # layout() sets the registered template without validating it again: the same figure
    from footprint_lab.lab.plots._common import set_template

    for name in _theme.TEMPLATES.values():
        fast = set_template(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), name)
        slow = go.Figure(go.Scatter(x=[1, 2], y=[3, 4])).update_layout(template=name)
        assert fast.to_plotly_json() == slow.to_plotly_json()
        assert fast.layout.template == pio.templates[name]
    for run in list(scenario_runs.values())[:6]:
        frames = capture(run)
        for build in (plots.window_size, plots.window_map, plots.pins_timeline):
            fig = build(frames)
            validated = go.Figure(fig).update_layout(template=_theme.TEMPLATE)
            assert fig.to_plotly_json() == validated.to_plotly_json()
