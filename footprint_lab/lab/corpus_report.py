"""The offline report page of a corpus, and a page per run it links to.

Layer: lab (reads a corpus through :class:`~footprint_lab.lab.corpus_view.CorpusLike`; the
corpus layer's CLI, ``footprint-lab corpus report STORE -o FILE``, calls it).
:func:`write_corpus_report` writes ``FILE`` (``corpus.html``): the overview's charts
(:mod:`footprint_lab.lab.plots`: runs by source format and by model, stacked by outcome; the
distributions of peak window size and calls per run; what each source's own policy removed
and the violations it committed; the cost/evidence frontier of the store's evidence grid, or
words saying no grid was run and how to run one), a table of the grid's configurations, and a
table of runs, each a link to its own page in ``<stem>_runs/<run id>.html``, opened at its
Boundary view — the report of one run (:func:`~footprint_lab.lab.report.write_run_report`, what
``Inspector(run).to_html`` writes). The page is single-file, plotly.js inlined; the run pages
share one copy of plotly.js in their folder (``plotly.min.js``) instead of 4 MB each. Every
link is relative, so the folder opens offline, wherever it is moved. Like the run report, the
page is light or dark as the browser prefers, with the same switch, and every chart follows it.

Runs are read one at a time (``corpus.runs(where=...)``), only those that get a page: at
most ``max_runs`` listed (spread over the source formats, so each has some) and each
configuration's worst run (the one the frontier's point links to).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.offline

from footprint_lab.lab import plots
from footprint_lab.lab.corpus_view import (
    GRID_HOWTO,
    RUNS_LISTED,
    CorpusLike,
    OverviewFrames,
    listed_runs,
    overview_frames,
)
from footprint_lab.lab.plots.corpus_frontier import worst_runs
from footprint_lab.lab.render import page_theme_context, render
from footprint_lab.lab.report import FigureDivs, boundary_anchor, write_run_report
from footprint_lab.messages import storable_text

__all__ = [
    "PLOTLY_JS",
    "CorpusReport",
    "render_corpus_report",
    "runs_folder",
    "write_corpus_report",
]

PLOTLY_JS = "plotly.min.js"
"""The run pages' shared copy of plotly.js, in their folder."""

RUN_TABLE_COLUMNS: dict[str, str] = {
    "run_id": "run",
    "format": "source format",
    "model": "model",
    "label": "label",
    "outcome": "outcome",
    "calls": "calls",
    "peak_window_chars": "peak window chars",
}
"""The runs table's columns and headers."""

CONFIG_TABLE_COLUMNS: dict[str, str] = {
    "config": "configuration",
    "runs": "runs",
    "lost_share": "evidence lost",
    "cost_ratio": "input cost vs no policy",
    "cost_pareto": "on the front",
}
"""The configurations table's columns (of ``evidence_summary``) and headers."""


@dataclass
class CorpusReport:
    """What :func:`write_corpus_report` wrote."""

    path: Path
    """The overview page."""
    pages: dict[str, Path] = field(default_factory=dict)
    """Each run page, by run id."""
    figures: int = 0
    """Plotly figures on the overview page."""


def runs_folder(path: Path) -> Path:
    """The folder of the run pages of the overview page at ``path``: ``<stem>_runs``."""
    return path.with_name(f"{path.stem}_runs")


def _percent(value: Any) -> str:
    return "" if value is None or pd.isna(value) else f"{float(value):.0%}"


def _configurations(data: OverviewFrames, worst: dict[str, str]) -> list[dict[str, Any]]:
    from footprint_lab.lab.evidence import evidence_summary

    assert data.grid is not None
    summary = evidence_summary(data.grid)
    return [
        {
            "config": str(row["config"]),
            "runs": int(row["runs"]),
            "lost_share": _percent(row["lost_share"]),
            "cost_ratio": _percent(row["cost_ratio"]),
            "front": bool(row["cost_pareto"]) if pd.notna(row["cost_pareto"]) else False,
            "worst": worst.get(str(row["config"]), ""),
        }
        for row in summary.to_dict("records")
    ]


def render_corpus_report(
    corpus: CorpusLike,
    data: OverviewFrames,
    listed: pd.DataFrame,
    links: dict[str, str],
    *,
    title: str,
) -> tuple[str, int]:
    """The overview page's HTML and its number of figures (see the module)."""
    figs = FigureDivs(True)
    charts = [
        figs.html(plots.runs_by(data.runs, "format")),
        figs.html(plots.runs_by(data.runs, "model")),
        figs.html(plots.run_distributions(data.runs)),
        figs.html(plots.source_policies(data.observed, data.violations)),
    ]
    frontier = None
    configurations: list[dict[str, Any]] = []
    if data.grid is not None:
        fig = plots.corpus_frontier(data.grid)
        frontier = figs.html(fig)
        configurations = _configurations(data, dict(fig.layout.meta["worst_run"]))
    rows = [{key: row[key] for key in RUN_TABLE_COLUMNS} for row in listed.to_dict("records")]
    formats = data.observed
    html = render(
        "corpus_report.html.j2",
        **page_theme_context(),
        title=title,
        store=corpus.path,
        total=len(data.runs),
        formats=[
            {"format": str(r["format"]), "runs": int(r["runs"])} for r in formats.to_dict("records")
        ],
        charts=charts,
        frontier=frontier,
        grid_name=data.grid_name,
        howto=GRID_HOWTO,
        configurations=configurations,
        findings=[
            {
                "format": str(r["format"]),
                "rule": str(r["rule"]),
                "compactions": int(r["compactions"]),
                "findings": int(r["findings"]),
            }
            for r in data.findings.to_dict("records")
        ],
        columns=RUN_TABLE_COLUMNS,
        runs=rows,
        links=links,
        listed=len(rows),
    )
    return html, figs.count


def write_corpus_report(
    corpus: CorpusLike,
    path: str | os.PathLike[str] = "corpus.html",
    *,
    grid: str | None = None,
    max_runs: int = RUNS_LISTED,
    title: str | None = None,
) -> CorpusReport:
    """Write the corpus's overview page to ``path`` and a page per run it links to beside it
    (``<stem>_runs/<run id>.html``); return what was written.

    Args:
        corpus: The corpus (a :class:`footprint_lab.corpus.Corpus`).
        path: The overview page (parent folders are made).
        grid: The evidence grid whose frontier is drawn (default: the store's ``evidence``
            table, else its first evidence grid; words in its place when there is none).
        max_runs: Runs listed with a page (spread over the formats); each configuration's
            worst run gets a page too.
        title: The page title (default: ``Corpus overview — <store>``).

    Raises:
        ValueError: ``grid`` names no evidence grid of the store, or ``max_runs`` < 0.
    """
    out = Path(path)
    data = overview_frames(corpus, grid)
    listed = listed_runs(data.runs, max_runs)
    wanted = [str(r) for r in listed["run_id"].tolist()]
    if data.grid is not None:
        wanted += [r for r in worst_runs(data.grid).values() if r and r not in wanted]
    folder = runs_folder(out)
    folder.mkdir(parents=True, exist_ok=True)
    if wanted:
        (folder / PLOTLY_JS).write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")
    pages: dict[str, Path] = {}
    links: dict[str, str] = {}
    for run_id in wanted:
        # One run read at a time, by its id (a scan of the runs table pushed down to one row).
        run = next(corpus.runs(where={"run_id": run_id}))
        pages[run_id] = write_run_report(run, folder / f"{run_id}.html", plotlyjs=PLOTLY_JS)
        links[run_id] = f"{folder.name}/{run_id}.html#{boundary_anchor(run)}"
    heading = storable_text(title or f"Corpus overview — {corpus.path}")
    html, count = render_corpus_report(corpus, data, listed, links, title=heading)
    out.write_text(html, encoding="utf-8")
    return CorpusReport(path=out, pages=pages, figures=count)
