"""CorpusOverview: a corpus at a glance, and any of its runs one click away in an Inspector.

Layer: lab. The overview's frames (:func:`~footprint_lab.lab.corpus_view.overview_frames`,
read from the store: a few columns per run, the records aggregated in DuckDB) drawn by the pure
builders of :mod:`footprint_lab.lab.plots` — runs by source format and by model, stacked by
outcome; peak window size and calls per run; what each source's own policy removed and the
violations it committed; the cost/evidence frontier of the store's evidence grid (or words
saying none was run, and how) — in tabs. A click on a point of the frontier, or a run chosen in
the run picker, opens that run's :class:`~footprint_lab.lab.widgets.Inspector` below (the run
read from the store then, and only that one). The corpus is anything shaped like
:class:`footprint_lab.corpus.Corpus` (:class:`~footprint_lab.lab.corpus_view.CorpusLike`):
the lab does not import the corpus layer above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets

from footprint_lab.lab import plots
from footprint_lab.lab.corpus_view import (
    GRID_HOWTO,
    RUNS_LISTED,
    CorpusLike,
    listed_runs,
    overview_frames,
)
from footprint_lab.lab.widgets._figures import figure_widget
from footprint_lab.lab.widgets._html import heading_html, label_html, note_html, table_html
from footprint_lab.lab.widgets._lifecycle import LabWidget, subject_of
from footprint_lab.lab.widgets.inspector import Inspector

__all__ = ["OVERVIEW_TABS", "CorpusOverview"]

OVERVIEW_TABS: tuple[str, ...] = ("Runs", "Distributions", "Source policies", "Frontier")
"""The overview's tabs, in order."""


class CorpusOverview(LabWidget):
    """A corpus at a glance, in four tabs (:data:`OVERVIEW_TABS`), and the Inspector of the run
    you click.

    Parts (for code and tests): ``corpus``, ``data`` (the
    :class:`~footprint_lab.lab.corpus_view.OverviewFrames` drawn), ``figures``
    (``by_format``, ``by_model``, ``distributions``, ``source_policies`` and, when the store
    holds an evidence grid, ``frontier`` — ``go.FigureWidget``), ``frontier_note`` (the words
    in place of the frontier without a grid), ``tabs``, ``picker`` (the listed runs: choosing
    one opens it), ``inspector`` (the open run's Inspector, or None) and ``opened`` (its run
    id). A click on the frontier's cloud opens the run of that point; on a configuration's
    point (or the front), the run that lost the most evidence under it.

    Args:
        corpus: The corpus (a :class:`footprint_lab.corpus.Corpus`).
        grid: The evidence grid to draw the frontier of (default: the store's ``evidence``
            table, else its first evidence grid).
        max_runs: Runs listed in the picker (spread over the source formats).
    """

    def __init__(
        self, corpus: CorpusLike, *, grid: str | None = None, max_runs: int = RUNS_LISTED
    ) -> None:
        super().__init__()
        self.corpus = corpus
        self.data = overview_frames(corpus, grid)
        data = self.data
        self.figures: dict[str, Any] = {
            "by_format": figure_widget(plots.runs_by(data.runs, "format")),
            "by_model": figure_widget(plots.runs_by(data.runs, "model")),
            "distributions": figure_widget(plots.run_distributions(data.runs)),
            "source_policies": figure_widget(plots.source_policies(data.observed, data.violations)),
        }
        self.findings_html = widgets.HTML(
            label_html("The stacks' own compactions, judged")
            + table_html(
                data.findings,
                empty="No finding about any compaction of a source's own policy.",
                csv="findings-by-stack.csv",
            )
        )
        self.worst_run: dict[str, str] = {}
        self.frontier_note = widgets.HTML(
            note_html(GRID_HOWTO, tone="muted") if data.grid is None else ""
        )
        frontier: list[Any] = [self.frontier_note]
        if data.grid is not None:
            fig = plots.corpus_frontier(data.grid)
            self.worst_run = dict(fig.layout.meta["worst_run"])
            self.figures["frontier"] = figure_widget(fig)
            for trace in self.figures["frontier"].data:
                trace.on_click(self._on_frontier_click)
            frontier = [self.figures["frontier"]]
        self.tabs = widgets.Tab(
            children=[
                widgets.VBox([self.figures["by_format"], self.figures["by_model"]]),
                self.figures["distributions"],
                widgets.VBox([self.figures["source_policies"], self.findings_html]),
                widgets.VBox(frontier),
            ],
            titles=list(OVERVIEW_TABS),
        )
        listed = listed_runs(data.runs, max_runs)
        self.picker = widgets.Dropdown(
            options=[
                (f"{r['run_id']} · {r['format']} · {r['model']} · {r['outcome']}", r["run_id"])
                for r in listed.to_dict("records")
            ],
            value=None,
            description="open run",
            layout=widgets.Layout(width="min(100%, 60em)"),
        )
        self.picker.observe(self._on_pick, names="value")
        self.inspector: Inspector | None = None
        self.opened: str | None = None
        self.run_header = widgets.HTML(
            note_html("Click a point of the frontier or choose a run to open it.", tone="muted")
        )
        self.run_box = widgets.VBox([])
        self.title = f"Corpus overview — {corpus.path}"
        lead = f"{len(data.runs):,} runs; " + ", ".join(
            f"{r['format']} {int(r['runs']):,}" for r in data.observed.to_dict("records")
        )
        self.header = widgets.HTML(heading_html(self.title, lead=lead))
        self.children = [self.header, self.tabs, self.picker, self.run_header, self.run_box]
        self._adopt(subject_of(corpus.path))

    def open_run(self, run_id: str) -> Inspector:
        """Open run ``run_id`` of the corpus in an Inspector below the overview (closing the
        one open before) and return it.

        Raises:
            KeyError: the corpus has no such run.
        """
        run = next(iter(self.corpus.runs(where={"run_id": run_id})), None)
        if run is None:
            raise KeyError(f"{self.corpus.path}: no run {run_id!r} in the corpus")
        if self.inspector is not None:
            self.inspector.close()
        self.inspector = Inspector(run)
        self.opened = run_id
        row = self.data.runs[self.data.runs["run_id"] == run_id]
        where = "" if row.empty else f"{row['format'].iloc[0]} · {row['source_path'].iloc[0]}"
        self.run_header.value = note_html(where, strong=f"Run {run_id}")
        self.run_box.children = [self.inspector]
        return self.inspector

    def run_of_point(self, trace_name: str | None, customdata: Any) -> str | None:
        """The run a frontier point opens: the cloud's point's own run; a configuration's
        point (or the front's), its worst run."""
        if customdata is None:
            return None
        if trace_name == plots.RUNS_TRACE:
            return str(customdata[0])
        return self.worst_run.get(str(customdata))

    def _on_frontier_click(self, trace: Any, points: Any, state: Any) -> None:
        indices = list(getattr(points, "point_inds", []) or [])
        if not indices or trace.customdata is None:
            return
        run_id = self.run_of_point(trace.name, trace.customdata[indices[0]])
        if run_id:
            self.open_run(run_id)

    def _on_pick(self, change: Mapping[str, Any]) -> None:
        if change["new"]:
            self.open_run(str(change["new"]))
