"""The lab: a run as dataframes, charts, an HTML report and widgets.

Layer: top. The lab sits on top of the agent and the window core: it *reads* runs — their
ledger, calls, records and events — and never changes them. pandas and plotly live here and
only here: ``footprint_lab/window/`` must never import them (the core stays pure and fast).

* :func:`capture` / :func:`capture_many` turn runs into :class:`Frames` (pandas DataFrames
  with fixed columns and dtypes; see :mod:`footprint_lab.lab.schema`); :func:`capture_columns`
  gives the frames a corpus store keeps as their column values, for a writer of Arrow.
* :mod:`footprint_lab.lab.plots` holds pure figure builders taking frames and returning
  ``plotly.graph_objects.Figure``.
* :func:`write_report` writes one standalone, offline HTML file for several runs.
* :func:`run_summary` (:mod:`footprint_lab.lab.summary`) is the one summary of a run: sweep
  rows, the widgets' key numbers, the report's summary table and the CLI all read it.
* :func:`evidence_frame` / :func:`evidence_summary` replay many runs under many window
  configurations and measure the tool evidence each lost (:mod:`footprint_lab.lab.evidence`).
* :class:`Inspector`, :class:`Tuner` and :class:`Compare` (:mod:`footprint_lab.lab.widgets`)
  arrange those figures as ipywidgets dashboards for Jupyter; :func:`parting_frame` says where
  compared runs part (a fork and the run it forked from), as ``Compare`` shows it;
  :class:`CorpusOverview` shows a corpus store at a glance and :func:`write_corpus_report`
  writes its offline page (:mod:`footprint_lab.lab.corpus_report`).

Every name here is loaded on first use (as the root's are): importing one room of the lab
(``footprint_lab.lab.sweeps``, ``footprint_lab.lab.costs``, ``footprint_lab.lab.frames``) loads
that room, not plotly, Jinja2 and ipywidgets with the charts, the report and the widgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from footprint_lab._lazy import lazy_names

if TYPE_CHECKING:
    from footprint_lab.lab import plots as plots
    from footprint_lab.lab.corpus_report import write_corpus_report as write_corpus_report
    from footprint_lab.lab.evidence import EvidenceConfig as EvidenceConfig
    from footprint_lab.lab.evidence import evidence_frame as evidence_frame
    from footprint_lab.lab.evidence import evidence_grid as evidence_grid
    from footprint_lab.lab.evidence import evidence_summary as evidence_summary
    from footprint_lab.lab.evidence import no_policy as no_policy
    from footprint_lab.lab.frames import COLUMN_FAMILIES as COLUMN_FAMILIES
    from footprint_lab.lab.frames import MEMBERSHIP_FULL_MAX_ROWS as MEMBERSHIP_FULL_MAX_ROWS
    from footprint_lab.lab.frames import Frames as Frames
    from footprint_lab.lab.frames import capture as capture
    from footprint_lab.lab.frames import capture_columns as capture_columns
    from footprint_lab.lab.frames import capture_many as capture_many
    from footprint_lab.lab.parting import parting_frame as parting_frame
    from footprint_lab.lab.report import write_report as write_report
    from footprint_lab.lab.schema import MEMBERSHIP_STATES as MEMBERSHIP_STATES
    from footprint_lab.lab.schema import SCHEMAS as SCHEMAS
    from footprint_lab.lab.summary import run_summary as run_summary
    from footprint_lab.lab.widgets import Compare as Compare
    from footprint_lab.lab.widgets import CorpusOverview as CorpusOverview
    from footprint_lab.lab.widgets import Inspector as Inspector
    from footprint_lab.lab.widgets import Tuner as Tuner
    from footprint_lab.lab.widgets import key_numbers as key_numbers

__all__ = [
    "COLUMN_FAMILIES",
    "MEMBERSHIP_FULL_MAX_ROWS",
    "MEMBERSHIP_STATES",
    "SCHEMAS",
    "Compare",
    "CorpusOverview",
    "EvidenceConfig",
    "Frames",
    "Inspector",
    "Tuner",
    "capture",
    "capture_columns",
    "capture_many",
    "evidence_frame",
    "evidence_grid",
    "evidence_summary",
    "key_numbers",
    "no_policy",
    "parting_frame",
    "plots",
    "run_summary",
    "write_corpus_report",
    "write_report",
]

_EVIDENCE = "footprint_lab.lab.evidence"
_FRAMES = "footprint_lab.lab.frames"
_WIDGETS = "footprint_lab.lab.widgets"

_LAZY: dict[str, str] = {
    "plots": "footprint_lab.lab.plots",
    "EvidenceConfig": _EVIDENCE,
    "evidence_frame": _EVIDENCE,
    "evidence_grid": _EVIDENCE,
    "evidence_summary": _EVIDENCE,
    "no_policy": _EVIDENCE,
    "MEMBERSHIP_FULL_MAX_ROWS": _FRAMES,
    "Frames": _FRAMES,
    "COLUMN_FAMILIES": _FRAMES,
    "capture": _FRAMES,
    "capture_columns": _FRAMES,
    "capture_many": _FRAMES,
    "parting_frame": "footprint_lab.lab.parting",
    "write_report": "footprint_lab.lab.report",
    "write_corpus_report": "footprint_lab.lab.corpus_report",
    "MEMBERSHIP_STATES": "footprint_lab.lab.schema",
    "SCHEMAS": "footprint_lab.lab.schema",
    "run_summary": "footprint_lab.lab.summary",
    "Compare": _WIDGETS,
    "CorpusOverview": _WIDGETS,
    "Inspector": _WIDGETS,
    "Tuner": _WIDGETS,
    "key_numbers": _WIDGETS,
}
"""Every name the lab exports, and the module it comes from (``plots`` is the subpackage)."""


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
