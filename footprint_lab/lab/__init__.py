"""The lab: a run as dataframes, charts, an HTML report and widgets.

Layer: top. The lab sits on top of the agent and the window core: it *reads* runs — their
ledger, calls, records and events — and never changes them. pandas and plotly live here and
only here: ``footprint_lab/window/`` must never import them (the core stays pure and fast).

* :func:`capture` / :func:`capture_many` turn runs into :class:`Frames` (pandas DataFrames
  with fixed columns and dtypes; see :mod:`footprint_lab.lab.schema`).
* :mod:`footprint_lab.lab.plots` holds pure figure builders taking frames and returning
  ``plotly.graph_objects.Figure``.
* :func:`write_report` writes one standalone, offline HTML file for several runs.
* :func:`run_summary` (:mod:`footprint_lab.lab.summary`) is the one summary of a run: sweep
  rows, the widgets' key numbers, the report's summary table and the CLI all read it.
* :func:`evidence_frame` / :func:`evidence_summary` replay many runs under many window
  configurations and measure the tool evidence each lost (:mod:`footprint_lab.lab.evidence`).
* :class:`Inspector`, :class:`Tuner` and :class:`Compare` (:mod:`footprint_lab.lab.widgets`)
  arrange those figures as ipywidgets dashboards for Jupyter.
"""

from __future__ import annotations

from footprint_lab.lab import plots
from footprint_lab.lab.evidence import (
    EvidenceConfig,
    evidence_frame,
    evidence_grid,
    evidence_summary,
    no_policy,
)
from footprint_lab.lab.frames import MEMBERSHIP_FULL_MAX_ROWS, Frames, capture, capture_many
from footprint_lab.lab.report import write_report
from footprint_lab.lab.schema import MEMBERSHIP_STATES, SCHEMAS
from footprint_lab.lab.summary import run_summary
from footprint_lab.lab.widgets import Compare, Inspector, Tuner, key_numbers

__all__ = [
    "MEMBERSHIP_FULL_MAX_ROWS",
    "MEMBERSHIP_STATES",
    "SCHEMAS",
    "Compare",
    "EvidenceConfig",
    "Frames",
    "Inspector",
    "Tuner",
    "capture",
    "capture_many",
    "evidence_frame",
    "evidence_grid",
    "evidence_summary",
    "key_numbers",
    "no_policy",
    "plots",
    "run_summary",
    "write_report",
]
