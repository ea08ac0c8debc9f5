"""The HTML report: one standalone, offline file for several runs.

Layer: lab (on top of capture, plots, views and render). ``write_report({scenario: {strategy:
run}}, path)`` writes a single HTML file with plotly.js embedded once, so it opens without a
network: per scenario the compare chart and a summary table (from
:func:`~footprint_lab.lab.summary.run_summary`), per strategy the window size, the window map,
the pins, the refusals, the record table and each record in full (``record.html.j2``, the same
rendering the Inspector shows). A counterfactual run (``replay``) is labelled as such in its
heading, the summary table and every figure title. The page is the template
``report.html.j2``, autoescaped.

The output is deterministic: no timestamps, no random ids (figure divs are numbered), no
wall-clock facts (``at_ms`` and ``survival_ms`` are left out), so the same runs write the same
bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.lab import plots
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.lab.render import render, table_context
from footprint_lab.lab.summary import run_summary
from footprint_lab.lab.views import (
    IMPORT_PROBLEMS_SHOWN,
    RECORD_TABLE_COLUMNS,
    REFUSAL_MEANINGS,
    STATE_MEANINGS,
    counterfactual_banner,
    import_problem_items,
    part_badges,
    record_pairs,
    strategy_facts,
    truncation,
)

__all__ = [
    "RECORD_TABLE_COLUMNS",
    "Report",
    "import_problems_html",
    "part_badges",
    "render_report",
    "write_report",
]

DEFAULT_REPORT_NAME = "footprint-report.html"
"""The file name the CLI writes by default."""

TABLE_MAX_ROWS = 400
"""A record table shows at most this many rows (the first ones), and says so."""

RECORD_CARDS_SHOWN = 50
"""Records shown in full per run (the first ones), under its record table."""

SUMMARY_TABLE_COLUMNS: dict[str, str] = {
    "strategy": "strategy",
    "status": "status",
    "iterations": "iterations",
    "calls": "calls",
    "records": "records",
    "removed_messages": "messages removed",
    "refusals": "refusals",
    "pins": "pins",
    "peak_window_chars": "peak chars sent",
    "final_window_chars": "last chars sent",
    "input_tokens": "input tokens (reported)",
}
"""The :func:`~footprint_lab.lab.summary.run_summary` keys in the summary table, and their
headings."""

_PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}
_DEFAULT_FIGURE_HEIGHT = 440

RunLike = Run | Frames


@dataclass
class Report:
    """A rendered report: the HTML and what is in it."""

    html: str
    """The whole standalone document."""
    figures: int = 0
    """How many plotly figures it holds (each a ``.js-plotly-plot`` once rendered)."""
    sections: list[str] = field(default_factory=list)
    """The scenario sections, in order."""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


class _Figures:
    """Numbers figure divs and embeds plotly.js with the first one only."""

    def __init__(self) -> None:
        self.count = 0

    def html(self, fig: go.Figure) -> str:
        self.count += 1
        height = fig.layout.height or _DEFAULT_FIGURE_HEIGHT
        div: str = pio.to_html(
            fig,
            include_plotlyjs=self.count == 1,
            full_html=False,
            div_id=f"footprint-figure-{self.count}",
            config=_PLOTLY_CONFIG,
            default_height=f"{height}px",
            validate=False,
        )
        return div


def _frames(value: RunLike, label: str) -> Frames:
    return value if isinstance(value, Frames) else capture(value, label=label)


def _replayed(frames: Frames) -> bool:
    return bool(frames.info.get("counterfactual"))


def _summary_table(by_strategy: Mapping[str, Frames], sources: Mapping[str, RunLike]) -> Any:
    rows: list[dict[str, Any]] = []
    for label, frames in by_strategy.items():
        source = sources[label]
        numbers = run_summary(source if isinstance(source, Run) else frames)
        numbers["strategy"] = label + (" (counterfactual replay)" if _replayed(frames) else "")
        rows.append({heading: numbers[key] for key, heading in SUMMARY_TABLE_COLUMNS.items()})
    frame = pd.DataFrame(rows, columns=list(SUMMARY_TABLE_COLUMNS.values()))
    return table_context(frame, inline=False, css_class="dataframe summary", empty="no runs")


def _problems_context(
    problems: Sequence[ImportProblem], limit: int = IMPORT_PROBLEMS_SHOWN
) -> dict[str, Any] | None:
    if not problems:
        return None
    items, more = import_problem_items(problems, limit)
    return {"items": items, "more": more, "total": len(problems)}


def import_problems_html(
    problems: Sequence[ImportProblem], limit: int = IMPORT_PROBLEMS_SHOWN
) -> str:
    """A compact, collapsible list of what an importer found wrong (empty when nothing)."""
    context = _problems_context(problems, limit)
    if context is None:
        return ""
    return render(
        "import_problems.html.j2",
        items=context["items"],
        more=context["more"],
        total=context["total"],
    )


def _records_context(frames: Frames, source: RunLike | None) -> dict[str, Any]:
    records = frames.records
    t = table_context(
        records.loc[:, list(RECORD_TABLE_COLUMNS)],
        inline=False,
        css_class="dataframe records",
        max_rows=TABLE_MAX_ROWS,
        empty="No window records: the strategy never engaged on this run.",
        unit="records",
    )
    cards: list[tuple[Any, Any]] = []
    note = None
    if isinstance(source, Run):
        shown = source.records[:RECORD_CARDS_SHOWN]
        cards = [(record, record_pairs(record)) for record in shown]
        if len(source.records) > len(shown):
            note = f"The first {len(shown)} of {len(source.records)} records in full."
    return {"t": t, "count": len(records), "cards": cards, "cards_note": note}


def _run_context(
    sid: str, label: str, frames: Frames, source: RunLike | None, figs: _Figures
) -> Any:
    cut = truncation(frames)
    figures = [
        figs.html(fig)
        for fig in (
            plots.window_size(frames),
            plots.window_map(frames),
            plots.pins_timeline(frames),
            plots.refusals_by_reason(frames),
        )
    ]
    return {
        "id": f"{sid}--{_slug(label)}",
        "label": label,
        "replayed": _replayed(frames),
        "truncated": 0 if cut is None else cut.total,
        "status": str(frames.info.get("status")),
        "knobs": strategy_facts(frames, source),
        "error": frames.info.get("error"),
        "banner": counterfactual_banner(frames.info),
        "truncation": cut,
        "problems": _problems_context(source.import_problems) if isinstance(source, Run) else None,
        "figures": figures,
        "records": _records_context(frames, source),
    }


def render_report(
    runs: Mapping[str, Mapping[str, RunLike]],
    *,
    title: str = "footprint_lab — context window report",
) -> Report:
    """Render the report for ``{scenario: {strategy label: run or frames}}`` (see module)."""
    figs = _Figures()
    sections: list[dict[str, Any]] = []
    for scenario, by_strategy_runs in runs.items():
        sid = _slug(scenario)
        sources = {str(label): run for label, run in by_strategy_runs.items()}
        by_strategy = {label: _frames(run, label) for label, run in sources.items()}
        requests = sorted({str(f.info.get("request") or "") for f in by_strategy.values()})
        section: dict[str, Any] = {
            "id": sid,
            "name": scenario,
            "requests": " / ".join(requests) if requests and requests[0] else "",
            "figure": figs.html(plots.compare(by_strategy)) if by_strategy else None,
            "summary": _summary_table(by_strategy, sources) if by_strategy else None,
        }
        section["runs"] = [
            _run_context(sid, label, f, sources.get(label), figs)
            for label, f in by_strategy.items()
        ]
        sections.append(section)
    doc = render(
        "report.html.j2",
        title=title,
        sections=sections,
        reasons=REFUSAL_MEANINGS,
        states=STATE_MEANINGS,
    )
    return Report(html=doc, figures=figs.count, sections=[str(s["name"]) for s in sections])


def write_report(
    runs: Mapping[str, Mapping[str, RunLike]],
    path: str | os.PathLike[str] = DEFAULT_REPORT_NAME,
    *,
    title: str = "footprint_lab — context window report",
) -> Path:
    """Write the standalone HTML report for ``{scenario: {strategy label: run}}`` to ``path``
    (parent folders are created) and return the path.

    Values may also be :class:`~footprint_lab.lab.Frames` already captured.
    """
    report = render_report(runs, title=title)
    out = Path(path)
    if out.parent != Path():
        out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.html, encoding="utf-8")
    return out
