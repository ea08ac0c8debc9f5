"""Pure figure builders: frames in, ``plotly.graph_objects.Figure`` out.

Layer: lab. Every function here takes :class:`~footprint_lab.lab.Frames` (or the frame it needs)
and returns a new figure; nothing reads a run, a file or a clock, so the same frames always give
the same figure — which is what the HTML report and the widgets build on. One module per chart:

* :mod:`.window_size` — characters sent, reported tokens, threshold, removals, pauses;
* :mod:`.window_map` — every message's membership state at every iteration (overlays in
  :mod:`._overlays`);
* :mod:`.pins_timeline` — pinned tool results, yielded names, stand-downs;
* :mod:`.refusals` — refusals per iteration, stacked by reason;
* :mod:`.compare` — several runs' window size on one chart;
* :mod:`.evidence_tradeoff` — characters saved against evidence lost, with the Pareto front;
* :mod:`.policy_frontier` — estimated cost against evidence lost, with the Pareto front;
* :mod:`.cache_prefix` — each request's cacheable prefix and what a removal rewrote;
* :mod:`.costs` — each call's price, cached and uncached input apart;
* :mod:`.corpus_runs` — a corpus's runs by source format or model, stacked by outcome;
* :mod:`.corpus_distributions` — each run's peak window size and calls, by format;
* :mod:`.source_policies` — what each source's own policy removed, and its violations;
* :mod:`.corpus_frontier` — the frontier of a grid over a corpus, the runs behind it.

Shared: :mod:`._common` (titles, empty notes, the WebGL switch, run selection) and
:mod:`footprint_lab.lab.theme` (the palette, and the ``"footprint_lab"`` plotly template every
figure uses).

Every builder returns a :class:`LabFigure`: a ``go.Figure`` that, shown in a notebook (the
cell's value, ``display(fig)`` or ``fig.show()``), is drawn as a chart that follows the
front-end's light or dark theme — JupyterLab Dark gets a dark chart, and a theme switch redraws
it — while what the notebook stores stays plotly's own figure JSON (:mod:`._figure`).

Big runs stay responsive:

* a figure whose scatter traces hold more than :data:`WEBGL_THRESHOLD` points in total uses
  WebGL (``go.Scattergl``) for all of them, lines without per-point markers;
* the window map is a heatmap of at most :data:`MAP_MAX_ROWS` x :data:`MAP_MAX_COLS` cells:
  beyond that, messages and iterations are grouped into equal blocks and each block shows the
  most notable state of any cell in it (pinned > refused > notice > frame > in-window >
  folded > dropped); ``fig.layout.meta`` records the block sizes;
* the refusals chart groups iterations into at most :data:`BAR_MAX_BINS` bins.
"""

from __future__ import annotations

from footprint_lab.lab.plots._common import (
    COUNTERFACTUAL_SUFFIX,
    TITLE_BREAK,
    TITLE_LINE_CHARS,
    WEBGL_THRESHOLD,
    fit_title,
    is_counterfactual,
    removal_summary,
)
from footprint_lab.lab.plots._figure import LabFigure
from footprint_lab.lab.plots._overlays import (
    LOSS_COLOR,
    PAUSE_COLOR,
    PAUSE_OFFSET,
    VIOLATION_COLOR,
)
from footprint_lab.lab.plots.cache_prefix import cache_prefix
from footprint_lab.lab.plots.compare import compare
from footprint_lab.lab.plots.corpus_distributions import run_distributions
from footprint_lab.lab.plots.corpus_frontier import RUNS_TRACE, corpus_frontier
from footprint_lab.lab.plots.corpus_runs import runs_by
from footprint_lab.lab.plots.costs import cost_per_call
from footprint_lab.lab.plots.evidence_tradeoff import evidence_tradeoff
from footprint_lab.lab.plots.pins_timeline import STAND_DOWN_ROW, YIELDED_ROW, pins_timeline
from footprint_lab.lab.plots.policy_frontier import policy_frontier
from footprint_lab.lab.plots.refusals import BAR_MAX_BINS, refusals_by_reason
from footprint_lab.lab.plots.source_policies import source_policies
from footprint_lab.lab.plots.window_map import (
    MAP_HOVER_MAX_CELLS,
    MAP_MAX_COLS,
    MAP_MAX_ROWS,
    MAP_TICK_LABEL_MAX_ROWS,
    window_map,
)
from footprint_lab.lab.plots.window_size import window_size
from footprint_lab.lab.theme import REASON_COLORS, STATE_COLORS

__all__ = [
    "BAR_MAX_BINS",
    "COUNTERFACTUAL_SUFFIX",
    "LOSS_COLOR",
    "MAP_HOVER_MAX_CELLS",
    "MAP_MAX_COLS",
    "MAP_MAX_ROWS",
    "MAP_TICK_LABEL_MAX_ROWS",
    "PAUSE_COLOR",
    "PAUSE_OFFSET",
    "REASON_COLORS",
    "RUNS_TRACE",
    "STAND_DOWN_ROW",
    "STATE_COLORS",
    "TITLE_BREAK",
    "TITLE_LINE_CHARS",
    "VIOLATION_COLOR",
    "WEBGL_THRESHOLD",
    "YIELDED_ROW",
    "LabFigure",
    "cache_prefix",
    "compare",
    "corpus_frontier",
    "cost_per_call",
    "evidence_tradeoff",
    "fit_title",
    "is_counterfactual",
    "pins_timeline",
    "policy_frontier",
    "refusals_by_reason",
    "removal_summary",
    "run_distributions",
    "runs_by",
    "source_policies",
    "window_map",
    "window_size",
]
