"""The Inspector: one run you can click through in Jupyter.

Layer: lab. Eight tabs — Overview, Window map, Pins, Refusals, Compactions (what the run's own
stack's compactions did, :mod:`._compactions_pane`), Boundary, Calls and Search —
over the pure builders of :mod:`footprint_lab.lab.plots` and the views of
:mod:`footprint_lab.lab.views`; drag the iteration slider and see the exact messages sent at
that call (``run.window_sent``), which of them were pinned or refused, which left and why, the
:class:`~footprint_lab.WindowRecord` filed there in words, the call's tokens, cost and latency,
and the window against the one before it: the Boundary pane (:mod:`._boundary_pane`) is an
anywidget over the iteration's :class:`~footprint_lab.lab.views.BoundaryView`, rendered by the
same script as the report's Boundary view; the calls table, the window diff and the search box
are in :mod:`._inspector_panes`. It reads the run, never changes it. A new Inspector replaces
the last one on the same run (or made by the same cell) and closes it, with all its parts
(:mod:`._lifecycle`); :meth:`Inspector.snapshot` gives its charts as PNG images for a
notebook's static outputs (:mod:`._snapshot`), :meth:`~._share.HtmlShare.to_html` writes its
report (:mod:`._share`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
import pandas as pd

from footprint_lab.agent.origin import Replay
from footprint_lab.agent.run import Run
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.lab.render import render, state_style, table_context
from footprint_lab.lab.schema import LEFT_STATES
from footprint_lab.lab.summary import key_numbers
from footprint_lab.lab.views import (
    BoundaryView,
    boundary_frame,
    boundary_iterations,
    boundary_view,
    call_of_iteration,
    counterfactual_banner,
    describe,
    left_frame,
)
from footprint_lab.lab.widgets._boundary_pane import BoundaryPane
from footprint_lab.lab.widgets._compactions_pane import CompactionsPane
from footprint_lab.lab.widgets._figures import figure_widget, show_figure
from footprint_lab.lab.widgets._html import (
    heading_html,
    label_html,
    note_html,
    records_html,
)
from footprint_lab.lab.widgets._inspector_charts import CLICKABLE, charts
from footprint_lab.lab.widgets._inspector_overview import (
    key_pairs,
    overview_html,
    pins_table,
    refusals_table,
)
from footprint_lab.lab.widgets._inspector_panes import (
    CallsPane,
    DiffPane,
    SearchPane,
    call_line,
)
from footprint_lab.lab.widgets._lifecycle import LabWidget, subject_of
from footprint_lab.lab.widgets._live import Following, starting_run
from footprint_lab.lab.widgets._live import start as start_live
from footprint_lab.lab.widgets._share import HtmlShare, SharedRuns
from footprint_lab.lab.widgets._snapshot import Snapshot
from footprint_lab.pricing import Pricing
from footprint_lab.window.records import WindowRecord

if TYPE_CHECKING:
    from footprint_lab.agent.agent import Agent

__all__ = ["BOUNDARY_MAX_ROWS", "INSPECTOR_TABS", "Inspector"]

INSPECTOR_TABS: tuple[str, ...] = (
    "Overview",
    "Window map",
    "Pins",
    "Refusals",
    "Compactions",
    "Boundary",
    "Calls",
    "Search",
)
"""The Inspector's tabs, in order."""

BOUNDARY_MAX_ROWS = 500
"""The snapshot's boundary table shows at most this many messages (the first ones, and says
so)."""

LEGEND_STATES: tuple[str, ...] = ("pinned", "refused-current-request", "notice", "frame", "dropped")
"""The membership states the boundary pane's legend names."""

_CHART_TABS = 4
"""The first tabs, each a box holding a chart (Overview, Window map, Pins, Refusals)."""

SNAPSHOT_FIGURES: tuple[str, ...] = ("window_size", "window_map")
"""The charts :meth:`Inspector.snapshot` renders unless told others."""


class Inspector(HtmlShare, LabWidget):
    """One run, in eight tabs: Overview, Window map, Pins, Refusals, Compactions, Boundary,
    Calls, Search.

    Parts (for code and tests): ``run``, ``frames`` (its capture), ``numbers``
    (:func:`~footprint_lab.lab.widgets.key_numbers`), ``figures`` (``window_size``,
    ``window_map``, ``pins``, ``refusals`` — ``go.FigureWidget``), ``tabs``, ``overview_html``,
    ``records_html`` (the records table, under the chart in Overview), ``pins_html``,
    ``refusals_html``, ``compactions`` (each compaction the run's own stack performed, with the
    judge's findings and a button to its boundary, a :class:`~._compactions_pane.CompactionsPane`),
    ``slider`` (the iteration shown in Boundary), ``play``,
    ``boundary_pane`` (the anywidget showing that iteration: the window sent, what left there
    and the record(s) filed there, each in words) and ``boundary`` (the
    :class:`~footprint_lab.lab.views.BoundaryView` it shows), ``call_html`` (beside the pane:
    that iteration's call with its tokens, cost and latency), ``diff`` (the window against the
    one before it, a :class:`~._inspector_panes.DiffPane`), ``calls`` (every call's tokens, cost
    and latency, a :class:`~._inspector_panes.CallsPane`) and ``search_pane`` (a search box
    across the run, a :class:`~._inspector_panes.SearchPane`; :meth:`search`). Clicking a cell
    of the window map or a point of the window-size chart opens that iteration's boundary. The
    Inspector, its tabs, slider and Boundary pane carry the CSS classes ``footprint-inspector``,
    ``footprint-inspector-tabs``, ``footprint-boundary-slider`` and ``footprint-boundary-table``
    (for browser tests and styling).

    Making an Inspector closes the one it replaces — the last one on the same run, or in a
    notebook the ones the same cell made when it last ran — and :meth:`close` closes it with all
    its parts; :meth:`snapshot` renders its charts for readers without a kernel.

    Args:
        run: Any run: from an agent, ``replay``, an importer or ``load_run``.
        label: A name for the run in titles (default: its strategy).
        evidence: Find the tool calls sent without the evidence they depended on and mark
            them on the window map (default: for counterfactual replays, where that is the
            question being asked).
        pricing: Prices for the Calls tab's cost column (a ``Pricing`` or ``{model:
            Pricing}``; default: the built-in list prices — a model they lack shows no cost,
            and the tab says how to pass one).
    """

    def __init__(
        self,
        run: Run,
        *,
        label: str | None = None,
        evidence: bool | None = None,
        pricing: Pricing | Mapping[str, Pricing] | None = None,
    ) -> None:
        super().__init__()
        self.run = run
        if evidence is None:
            evidence = isinstance(run.origin, Replay)
        self._label, self._evidence, self._pricing = label, evidence, pricing
        self.task: asyncio.Task[Run] | None = None
        """The agent's run when the Inspector follows one (:meth:`live`): await it for the
        finished run; None otherwise."""
        self.following: Following | None = None
        """What a live Inspector follows (its redraw count, ``redraws``); None otherwise."""
        self.frames = capture(run, label=label, evidence=evidence)
        self.numbers = key_numbers(run)
        self.figures: dict[str, Any] = self._figures(self.frames)
        self._call_of: dict[int, int] = call_of_iteration(self.frames)
        iterations = boundary_iterations(self.frames, self._call_of)
        first, last = (iterations[0], iterations[-1]) if iterations else (0, 0)
        self.iterations: list[int] = iterations
        """Iterations with a call or a record: the values the boundary slider can show."""

        scroll = widgets.Layout(overflow="auto")
        self.overview_html = widgets.HTML(self._overview(), layout=scroll)
        self.pins_html = widgets.HTML(self._pins_table(), layout=scroll)
        self.refusals_html = widgets.HTML(self._refusals_table(), layout=scroll)
        self.records_html = widgets.HTML(records_html(self.frames), layout=scroll)
        self.slider = widgets.IntSlider(
            value=self._initial_iteration(first, last),
            min=first,
            max=last,
            step=1,
            description="iteration",
            disabled=not iterations,
            continuous_update=True,
            layout=widgets.Layout(width="520px"),
        )
        self.play = widgets.Play(value=self.slider.value, min=first, max=last, step=1, interval=900)
        self.links: list[Any] = [widgets.jslink((self.play, "value"), (self.slider, "value"))]
        """The front-end links between widgets (closed with the Inspector)."""
        self.boundary_pane = BoundaryPane(
            self._boundary_at(self.slider.value),
            layout=widgets.Layout(overflow="auto"),
            _dom_classes=("footprint-boundary-table",),  # in the comm's first state
        )
        self.calls = CallsPane(run, self.frames, pricing)
        self.call_html = widgets.HTML()
        self.diff = DiffPane(run, self.frames, self._call_of)
        self.search_pane = SearchPane(run, self.frames)
        self.compactions = CompactionsPane(run, self.open_boundary)
        self._show_beside(self.slider.value)
        self.tabs = widgets.Tab(children=self._tab_children(), titles=list(INSPECTOR_TABS))
        banner = counterfactual_banner(self.frames.info)
        self.title = f"Inspector — {describe(run, self.frames)}"
        self.header = widgets.HTML(
            heading_html(self.title, banners=[banner] if banner is not None else [])
        )
        self.children = [self.header, self.tabs]
        self.add_class("footprint-inspector")
        self.tabs.add_class("footprint-inspector-tabs")
        self.slider.add_class("footprint-boundary-slider")
        self.slider.observe(self._on_slider, names="value")
        self._adopt(subject_of(run))

    def _figures(self, frames: Frames) -> dict[str, Any]:
        """The four charts of ``frames`` as widgets; a click on the window map or the
        window-size chart opens that iteration's boundary."""
        figures = {name: figure_widget(fig) for name, fig in charts(frames).items()}
        for name, widget in figures.items():
            self._clickable(name, widget)
        return figures

    def _clickable(self, name: str, widget: Any) -> None:
        if name in CLICKABLE:
            for trace in widget.data:  # (again after an in-place redraw: a trace may be new)
                trace.on_click(self._on_click)

    @classmethod
    def live(
        cls,
        agent: Agent,
        request: str,
        *,
        label: str | None = None,
        pricing: Pricing | Mapping[str, Pricing] | None = None,
        interval: float = 0.25,
    ) -> Inspector:
        """The Inspector of ``agent``'s run of ``request`` while it happens: display it, and
        the window size, pins, refusals, records, the latest boundary and the calls' tokens and
        cost (as the provider reports them) update as each commit lands. The agent runs as a
        task of the running event loop (:attr:`task`; in a notebook, the kernel's), so the
        kernel stays free; when it ends, the Inspector shows the finished run as
        ``Inspector(run)`` does. With no loop running (a script), the run is made first and the
        Inspector returned shows it finished.

        Args:
            agent: The agent to run (its ``arun``; ``run`` without a loop).
            request: What to ask it.
            label: A name for the run in titles.
            pricing: Prices for the Calls tab (as :class:`Inspector` takes them).
            interval: Seconds between two redraws that bring no new call or record (a new
                boundary always redraws).
        """
        inspector = cls(starting_run(agent, request), label=label, pricing=pricing)
        inspector.task = start_live(inspector, agent, request, interval)
        return inspector

    def refresh(self, run: Run) -> None:
        """Show ``run`` — the same conversation, further on (a live run's latest checkpoint,
        or its end) — in every part: each chart in place, in the theme it follows (once its
        view has drawn, when one is drawing it), the tables, panes and header in place, the
        slider following the latest boundary unless it was moved back, the tab that was open
        still open."""
        following = self.slider.value >= self.slider.max
        self.run = run
        self.frames = capture(run, label=self._label, evidence=self._evidence)
        self.numbers = key_numbers(run)
        for name, fig in charts(self.frames).items():
            # in place, the widget's theme kept (see ._figures.show_figure)
            show_figure(self.figures[name], fig, partial(self._clickable, name))
        self._call_of = call_of_iteration(self.frames)
        self.iterations = boundary_iterations(self.frames, self._call_of)
        self.overview_html.value = self._overview()
        self.pins_html.value = self._pins_table()
        self.refusals_html.value = self._refusals_table()
        self.records_html.value = records_html(self.frames)
        # the panes and the Boundary tab's box, closed below with every part no longer shown
        boundary = self.tabs.children[INSPECTOR_TABS.index("Boundary")]
        old = [self.calls, self.diff, self.search_pane, self.compactions, boundary]
        self.calls = CallsPane(run, self.frames, self._pricing)
        self.diff = DiffPane(run, self.frames, self._call_of)
        self.search_pane = SearchPane(run, self.frames)
        self.compactions = CompactionsPane(run, self.open_boundary)
        selected = self.tabs.selected_index
        # The chart tabs keep their boxes (a box's views, and the charts' in it, are drawn
        # again only when its children change); the panes' tabs are made anew.
        self.tabs.children = [*self.tabs.children[:_CHART_TABS], *self._pane_tabs()]
        self.tabs.selected_index = selected
        self._close_replaced(old)
        first, last = (self.iterations[0], self.iterations[-1]) if self.iterations else (0, 0)
        value = last if following else min(max(self.slider.value, first), last)
        for ranged in (self.play, self.slider):
            with ranged.hold_trait_notifications():
                ranged.max = max(last, ranged.min)  # never min > max on the way
                ranged.min = first
                ranged.max = last
        self.slider.disabled = not self.iterations
        if self.slider.value != value:
            self.slider.value = value  # the slider's observer shows that boundary
        else:
            self.show_boundary(value)
        self.title = f"Inspector — {describe(run, self.frames)}"
        banner = counterfactual_banner(self.frames.info)
        self.header.value = heading_html(self.title, banners=[banner] if banner is not None else [])

    def snapshot(self, *names: str) -> Snapshot:
        """The Inspector as it is now, as static outputs: its heading, overview and the boundary
        at the slider's iteration (HTML) and its charts as PNG images — ``names`` of
        :attr:`figures` (default :data:`SNAPSHOT_FIGURES`). Display it in the cell after the
        Inspector, so a notebook read without a kernel (on GitHub) shows the run."""
        chosen = self._chosen_figures(names, SNAPSHOT_FIGURES)
        return Snapshot.of(
            self.title,
            "".join(
                [
                    self.header.value,
                    self.overview_html.value,
                    label_html("Boundary"),
                    self._static_boundary(),
                ]
            ),
            chosen,
        )

    def _shared_runs(self) -> SharedRuns:
        """``to_html(path)`` writes the report of this run (the same as
        :func:`~footprint_lab.lab.report.write_run_report`)."""
        label = str(self.frames.info.get("label") or self.run.strategy or "no strategy")
        return {str(self.run.meta.get("scenario") or "run"): {label: (self.run, self.frames)}}

    def search(self, query: str) -> pd.DataFrame:
        """Find ``query`` — a stage id or any text — across the run's messages, as typing it in
        the Search tab's box does: the matching messages with where it was found, their
        iterations and why each left or stayed (:func:`~footprint_lab.lab.views.search_frame`)."""
        return self.search_pane.search(query)

    def _tab_children(self) -> list[Any]:
        map_lead = (
            "One row per ledger message (commit order), one column per iteration, coloured by "
            "the message's state at that call. Click a cell to open its boundary."
        )
        return [
            widgets.VBox(
                [
                    self.overview_html,
                    self.figures["window_size"],
                    widgets.HTML(label_html("Window records")),
                    self.records_html,
                ]
            ),
            widgets.VBox(
                [widgets.HTML(note_html(map_lead, tone="muted")), self.figures["window_map"]]
            ),
            widgets.VBox([self.figures["pins"], self.pins_html]),
            widgets.VBox([self.figures["refusals"], self.refusals_html]),
            *self._pane_tabs(),
        ]

    def _pane_tabs(self) -> list[Any]:
        """The tabs after the charts': Compactions, Boundary, Calls, Search (the Boundary tab a
        new box, with a new row for the play button and the slider and a new legend)."""
        boundary = widgets.VBox(
            [
                widgets.HBox([self.play, self.slider]),
                self.call_html,
                widgets.HTML(render("legend.html.j2", states=LEGEND_STATES)),
                self.boundary_pane,
                self.diff,
            ]
        )
        return [self.compactions, boundary, self.calls, self.search_pane]

    # -- boundary -------------------------------------------------------------------------

    def _initial_iteration(self, first: int, last: int) -> int:
        removals = self.frames.records[self.frames.records["removed_message_count"] > 0]
        if len(removals):
            return int(removals["iteration"].iloc[0])
        return last if self.iterations else first

    def records_at(self, iteration: int) -> list[WindowRecord]:
        """The records filed at the boundary before iteration ``iteration`` (two when a
        context-length rejection forced a second visit)."""
        rows = self.frames.records[self.frames.records["iteration"] == iteration]
        return [self.run.records[int(j)] for j in rows["record"]]

    def boundary_frame(self, iteration: int) -> pd.DataFrame:
        """The window sent by the (last) call of ``iteration``, one row per message:
        :data:`~footprint_lab.lab.views.BOUNDARY_COLUMNS` (see
        :func:`footprint_lab.lab.views.boundary_frame`). At an iteration whose record was filed
        but whose call never happened (a paused or failed run), the window as that record left
        it."""
        return boundary_frame(self.run, self.frames, iteration, self._call_of)

    def left_frame(self, iteration: int) -> pd.DataFrame:
        """The messages that left the window at the boundary before ``iteration``:
        :data:`~footprint_lab.lab.views.LEFT_COLUMNS` — ``how`` is 'dropped' or 'summarized'.
        They are still in the ledger: ``run.ledger.message(stage_id)`` returns each."""
        return left_frame(self.run, self.frames, iteration)

    @property
    def boundary(self) -> BoundaryView:
        """The Boundary view the pane shows: the slider's iteration (see
        :func:`footprint_lab.lab.views.boundary_view`)."""
        return self.boundary_pane.boundary

    def show_boundary(self, iteration: int) -> None:
        """Show iteration ``iteration`` in the Boundary pane (moving the slider calls this):
        the window its call sent, what left there and why, the record(s) filed there, the
        call's tokens, cost and latency, and the window against the one before it."""
        self.boundary_pane.show(self._boundary_at(iteration))
        self._show_beside(iteration)

    def _show_beside(self, iteration: int) -> None:
        """The call line and the window diff beside the pane, for ``iteration``."""
        shown = self.iterations and iteration in self.iterations
        self.call_html.value = call_line(self.calls.frame, self._call_of.get(iteration))
        self.diff.show(iteration if shown else None)

    def _boundary_at(self, iteration: int) -> BoundaryView:
        shown = [iteration] if self.iterations else []
        return boundary_view(self.run, self.frames, shown, call_of=self._call_of)

    def _static_boundary(self) -> str:
        """The slider's boundary for a static output (no script runs there): the caption and
        the boundary and left frames as tables."""
        steps = self.boundary.iterations
        if not steps:
            return note_html(self.boundary.no_calls)
        iteration = steps[0].iteration
        frame = self.boundary_frame(iteration)
        left = self.left_frame(iteration)
        return note_html(strong=steps[0].caption) + render(
            "messages_table.html.j2",
            sent=table_context(
                frame,
                row_styles=[state_style(s) for s in frame["state"]],
                max_rows=BOUNDARY_MAX_ROWS,
                empty="an empty window",
            ),
            left=table_context(
                left,
                row_styles=[state_style(LEFT_STATES.get(str(h), "dropped")) for h in left["how"]],
                empty="nothing left the window here",
            ),
            left_count=len(left),
        )

    def open_boundary(self, iteration: int) -> None:
        """Show iteration ``iteration``'s boundary and switch to the Boundary tab (a click on a
        compaction, a cell of the window map or a point of the window-size chart does this)."""
        if self.slider.min <= iteration <= self.slider.max:
            self.slider.value = iteration
            self.tabs.selected_index = INSPECTOR_TABS.index("Boundary")

    def _on_slider(self, change: Mapping[str, Any]) -> None:
        self.show_boundary(int(change["new"]))

    def _on_click(self, trace: Any, points: Any, state: Any) -> None:
        xs = list(getattr(points, "xs", []) or [])
        if not xs or xs[0] is None:
            return
        self.open_boundary(int(xs[0]))

    # -- overview and tables --------------------------------------------------------------

    def _key_pairs(self) -> list[tuple[str, Any]]:
        return key_pairs(self.run, self.frames, self.numbers)

    def _overview(self) -> str:
        return overview_html(self.run, self.frames, self.numbers)

    def _pins_table(self) -> str:
        return pins_table(self.frames)

    def _refusals_table(self) -> str:
        return refusals_table(self.frames)
