"""Compare: several runs of one scenario side by side.

Layer: lab. The compare chart (characters sent or reported input tokens per iteration, one
line per run, redrawn in place when the metric changes), where the runs part (the first
iteration whose window differs from the first run's, and the first whose reply does —
:func:`~footprint_lab.lab.parting.parting_frame`; a fork against the run it forked from), a
summary table of each run's key numbers (:func:`~footprint_lab.lab.summary.key_numbers`) and
each run's window map in a tab. A banner shared by several counterfactual runs (replays of one
run) is shown once.
A new Compare replaces the last one on the same runs (or made by the same cell) and closes it,
with all its parts (:mod:`._lifecycle`); :meth:`Compare.snapshot` gives its charts as PNG
images for a notebook's static outputs (:mod:`._snapshot`) and :meth:`~._share.HtmlShare.to_html`
writes the report of its runs (:mod:`._share`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as widgets

from footprint_lab.agent.origin import Fork, Replay
from footprint_lab.agent.run import Run
from footprint_lab.lab import plots
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.lab.parting import parting_frame, parting_lines
from footprint_lab.lab.progress import progress
from footprint_lab.lab.render import render
from footprint_lab.lab.summary import key_numbers_frame
from footprint_lab.lab.views import counterfactual_banner
from footprint_lab.lab.widgets._figures import figure_widget, update_figure
from footprint_lab.lab.widgets._html import heading_html, table_html
from footprint_lab.lab.widgets._lifecycle import LabWidget, subject_of
from footprint_lab.lab.widgets._share import HtmlShare, SharedRuns
from footprint_lab.lab.widgets._snapshot import Snapshot
from footprint_lab.scenarios import SCENARIOS, Scenario
from footprint_lab.window.strategies import WindowStrategy

__all__ = ["Compare"]

BANNERS_SHOWN = 10
"""Counterfactual banners shown under Compare's heading, at most."""

SNAPSHOT_FIGURES: tuple[str, ...] = ("compare",)
"""The charts :meth:`Compare.snapshot` renders unless told others."""


def _label_runs(runs: Mapping[str, Run] | Sequence[Run]) -> dict[str, Run]:
    if isinstance(runs, Mapping):
        return {str(label): run for label, run in runs.items()}
    labelled: dict[str, Run] = {}
    for run in runs:
        base = run.strategy or "none"
        if isinstance(run.origin, Replay):
            base += " (replay)"
        if isinstance(run.origin, Fork):
            base += f" (fork at {run.origin.at})"
        label, n = base, 1
        while label in labelled:
            n += 1
            label = f"{base} ({n})"
        labelled[label] = run
    return labelled


class Compare(HtmlShare, LabWidget):
    """Several runs side by side — usually one scenario under each strategy: the compare chart
    (characters sent or reported input tokens per iteration, one line per run), a summary
    table (:data:`~footprint_lab.lab.summary.KEY_NUMBER_COLUMNS`, one row per run) and each
    run's window map in a tab.

    Parts: ``runs`` (label -> run), ``frames`` (label -> capture), ``summary`` (DataFrame
    indexed by label), ``summary_html``, ``parting`` (the ``parting`` frame: where each run
    parts from the first) and ``parting_html``, ``figures`` (``compare``), ``maps`` (label ->
    window-map ``FigureWidget``), ``metric`` (toggle between ``chars`` and ``input_tokens``;
    the chart is redrawn in place).

    Making a Compare closes the one it replaces — the last one on the same runs (the same
    objects under the same labels; :meth:`from_scenario` makes fresh runs), or in a notebook the
    ones the same cell made when it last ran — and :meth:`close` closes it with all its parts;
    :meth:`snapshot` renders its charts for readers without a kernel.

    Args:
        runs: ``{label: run}``, a list of runs (labelled by strategy), or the first of several
            runs given one by one (``Compare(original, fork)``).
        more: Further runs, when ``runs`` is one.
        metric: ``"chars"`` or ``"input_tokens"``.
    """

    def __init__(
        self,
        runs: Mapping[str, Run] | Sequence[Run] | Run,
        *more: Run,
        metric: str = "chars",
    ) -> None:
        super().__init__()
        if isinstance(runs, Run):
            runs = [runs, *more]
        elif more:
            raise TypeError(
                "Compare takes runs one by one (Compare(original, fork)), or one list or "
                "mapping of them — not a list and more runs"
            )
        self.runs: dict[str, Run] = _label_runs(runs)
        if not self.runs:
            raise ValueError("Compare needs at least one run")
        self.frames: dict[str, Frames] = {
            label: capture(run, label=label) for label, run in self.runs.items()
        }
        self.summary = key_numbers_frame(self.runs)
        self.summary_html = widgets.HTML(
            table_html(self.summary.reset_index(), empty="no runs", csv="summary.csv"),
            layout=widgets.Layout(overflow="auto"),
        )
        self.metric = widgets.ToggleButtons(
            options=[("characters sent", "chars"), ("input tokens (reported)", "input_tokens")],
            value=metric,
            description="metric",
        )
        self.figures: dict[str, Any] = {
            "compare": figure_widget(plots.compare(self.frames, metric=metric))
        }
        self.maps: dict[str, Any] = {
            label: figure_widget(plots.window_map(frames)) for label, frames in self.frames.items()
        }
        scenarios = sorted({str(r.meta.get("scenario")) for r in self.runs.values()} - {"None"})
        self.title = "Compare" + (f" — {', '.join(scenarios)}" if scenarios else "")
        # Replays of one run share their banner: it is said once, not once per replay.
        banners = dict.fromkeys(b for b in map(counterfactual_banner, self.runs.values()) if b)
        self.header = widgets.HTML(heading_html(self.title, banners=list(banners)[:BANNERS_SHOWN]))
        self.parting = parting_frame(self.runs)
        self.parting_html = widgets.HTML(
            render("parting.html.j2", lines=parting_lines(self.parting))
        )
        self.children = [
            self.header,
            self.parting_html,
            self.metric,
            self.figures["compare"],
            self.summary_html,
            widgets.Tab(children=list(self.maps.values()), titles=list(self.maps)),
        ]
        self.metric.observe(self._on_metric, names="value")
        self._adopt(subject_of(*[item for pair in self.runs.items() for item in pair]))

    def snapshot(self, *names: str) -> Snapshot:
        """Compare as it is now, as static outputs: its heading and summary table (HTML) and
        its charts as PNG images — ``names`` of :attr:`figures` or run labels of :attr:`maps`
        (default :data:`SNAPSHOT_FIGURES`: the compare chart). Display it in the cell after
        the widget, so a notebook read without a kernel (on GitHub) shows the runs."""
        chosen = {name: self.figures.get(name, self.maps.get(name)) for name in names}
        unknown = sorted(name for name, fig in chosen.items() if fig is None)
        if unknown:
            raise ValueError(
                f"no figure or run {', '.join(unknown)}; figures: {', '.join(self.figures)}; "
                f"runs: {', '.join(self.maps)}"
            )
        return Snapshot.of(
            self.title,
            self.header.value + self.parting_html.value + self.summary_html.value,
            chosen or {name: self.figures[name] for name in SNAPSHOT_FIGURES},
        )

    def _shared_runs(self) -> SharedRuns:
        """``to_html(path)`` writes one section of every run: the compare chart, the summary
        table, then each run in full."""
        section = self.title.removeprefix("Compare — ") if " — " in self.title else "runs"
        return {section: {label: (run, self.frames[label]) for label, run in self.runs.items()}}

    def _on_metric(self, change: Mapping[str, Any]) -> None:
        update_figure(self.figures["compare"], plots.compare(self.frames, metric=change["new"]))

    @classmethod
    def from_scenario(
        cls,
        scenario: Scenario | str,
        strategies: Mapping[str, WindowStrategy] | None = None,
        *,
        keep_last_tool_results: int | bool = 2,
        include_none: bool = False,
        metric: str = "chars",
    ) -> Compare:
        """Run ``scenario`` under each strategy (default: the three it ships, tuned for it;
        ``include_none`` adds a run without window management) and compare the runs."""
        if isinstance(scenario, str):
            scenario = SCENARIOS[scenario]()
        chosen: dict[str, WindowStrategy | None] = {}
        if include_none:
            chosen["none"] = None
        chosen.update(strategies if strategies is not None else scenario.strategies())
        runs: dict[str, Run] = {}
        for label, strategy in progress(list(chosen.items()), desc=f"{scenario.name}: runs"):
            runs[label] = scenario.run(strategy, keep_last_tool_results=keep_last_tool_results)
        return cls(runs, metric=metric)
