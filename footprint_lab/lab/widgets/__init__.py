"""Widgets: the Inspector, the Tuner and Compare — a run you can click through in Jupyter.

Layer: lab (top). Every chart here is a pure builder of :mod:`footprint_lab.lab.plots` wrapped
in a ``plotly.graph_objects.FigureWidget``, every table and pane a view of
:mod:`footprint_lab.lab.views` rendered by a template of :mod:`footprint_lab.lab.render`; the
widgets only arrange them with ipywidgets and keep them current. They read runs and never
change them.

* :class:`Inspector` (:mod:`.inspector`) — one run: an overview of its key numbers, the
  window map, pins, refusals, and the *boundary* view: drag the iteration slider and see the
  exact messages sent at that call, which of them were pinned or refused, which left, and the
  :class:`~footprint_lab.WindowRecord` filed there.
* :class:`Tuner` (:mod:`.tuner`) — a scripted scenario, or your own runs, under one strategy,
  with a slider per knob; every change re-runs the scenario (replays the runs) and redraws the
  charts *in place*, with the setting's readouts and a frontier pane of the sliders' grid.
* :class:`Compare` (:mod:`.compare`) — several runs of one scenario side by side: the compare
  chart, a summary table and each run's window map.
* :class:`CorpusOverview` (:mod:`.corpus_overview`) — a corpus store at a glance (runs by
  format, model and outcome; window sizes and calls; the sources' own policies; the frontier of
  a grid), a click opening one run's Inspector.
* :func:`update_figure` (:mod:`._figures`) — the in-place figure differ they share.
* :class:`LabWidget` (:mod:`._lifecycle`) — their base: ``close()`` closes a widget with every
  widget it is made of, and a new widget closes the one it *replaces* — in a notebook, the ones
  the same cell made when it last ran; elsewhere, the last one of its class on the same run(s)
  (see :mod:`._lifecycle`) — so re-running a cell does not pile up comms.
* :class:`Snapshot` (:mod:`._snapshot`) — ``widget.snapshot()``: the widget's charts as PNG
  images (kaleido, offline, deterministic) and its key table as HTML, the static outputs a
  notebook keeps for readers without a kernel.
* ``widget.to_html(path)`` (:mod:`._share`, the same for all three) — the report of the runs it
  shows, one offline HTML file; every table it shows has a "Download CSV" link of its frame.
* Their charts follow the front-end's light or dark theme
  (:mod:`footprint_lab.lab._theme_probe`: a hidden probe tells the kernel JupyterLab's theme,
  and the charts are re-templated).

Every widget exposes its parts as attributes (``.figures``, ``.slider``, ``.sliders``,
``.boundary_html`` ...), so its logic is tested by setting values and reading figure data, with
no browser.
"""

from __future__ import annotations

from footprint_lab.lab.render import TABLE_MAX_ROWS
from footprint_lab.lab.summary import KEY_NUMBER_COLUMNS, SUMMARY_COLUMNS, key_numbers
from footprint_lab.lab.views import (
    BOUNDARY_COLUMNS,
    LEFT_COLUMNS,
    PREVIEW_CHARS,
    refusal_counts,
)
from footprint_lab.lab.views import preview as _preview  # noqa: F401  (kept importable)
from footprint_lab.lab.widgets._figures import figure_widget, update_figure
from footprint_lab.lab.widgets._lifecycle import LabWidget
from footprint_lab.lab.widgets._snapshot import Snapshot
from footprint_lab.lab.widgets.compare import Compare
from footprint_lab.lab.widgets.corpus_overview import OVERVIEW_TABS, CorpusOverview
from footprint_lab.lab.widgets.inspector import BOUNDARY_MAX_ROWS, INSPECTOR_TABS, Inspector
from footprint_lab.lab.widgets.tuner import PIN_KNOB, Tuner, default_range

__all__ = [
    "BOUNDARY_COLUMNS",
    "BOUNDARY_MAX_ROWS",
    "INSPECTOR_TABS",
    "KEY_NUMBER_COLUMNS",
    "LEFT_COLUMNS",
    "OVERVIEW_TABS",
    "PIN_KNOB",
    "PREVIEW_CHARS",
    "SUMMARY_COLUMNS",
    "TABLE_MAX_ROWS",
    "Compare",
    "CorpusOverview",
    "Inspector",
    "LabWidget",
    "Snapshot",
    "Tuner",
    "default_range",
    "figure_widget",
    "key_numbers",
    "refusal_counts",
    "update_figure",
]
