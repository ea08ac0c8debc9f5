"""The lab: a run as dataframes, charts, an HTML report and (soon) widgets.

Layer: top. The lab sits on top of the agent and the window core: it *reads* runs — their
ledger, calls, records and events — and never changes them. pandas and plotly live here and
only here: ``footprint_lab/window/`` must never import them (the core stays pure and fast).

* :func:`capture` / :func:`capture_many` turn runs into :class:`Frames` (pandas DataFrames
  with fixed columns and dtypes; see :mod:`footprint_lab.lab.schema`).
* :mod:`footprint_lab.lab.plots` holds pure figure builders taking frames and returning
  ``plotly.graph_objects.Figure``.
* :func:`write_report` writes one standalone, offline HTML file for several runs.
"""

from __future__ import annotations

from footprint_lab.lab import plots
from footprint_lab.lab.frames import MEMBERSHIP_FULL_MAX_ROWS, Frames, capture, capture_many
from footprint_lab.lab.report import write_report
from footprint_lab.lab.schema import MEMBERSHIP_STATES, SCHEMAS

# Widgets (``Inspector``, ``Tuner``, ``Compare``) are added here by footprint_lab/lab/widgets.py:
#   from footprint_lab.lab.widgets import Compare, Inspector, Tuner
# and their names appended to __all__ below.

__all__ = [
    "MEMBERSHIP_FULL_MAX_ROWS",
    "MEMBERSHIP_STATES",
    "SCHEMAS",
    "Frames",
    "capture",
    "capture_many",
    "plots",
    "write_report",
]
