"""Sharing a widget: its views as one offline HTML file, and its tables as CSV.

Layer: lab. Two things every lab widget offers the same way:

* :class:`HtmlShare` — ``widget.to_html(path)``: the report of the runs the widget shows
  (:func:`~footprint_lab.lab.report.write_captured_report`), one standalone file that opens with
  no kernel and no network. Each widget says which runs those are (``_shared_runs``); the
  writing is here, once, for the Inspector, Compare and the Tuner.
* :func:`csv_download` — a table's frame as a CSV download: a link carrying the CSV in a
  ``data:`` URI, so it works in a live notebook, in a saved one and in a snapshot alike. The
  widgets' table helpers (:func:`~._html.table_html`, :func:`~._html.records_html`) add it
  above each table they render.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.lab.frames import Frames
from footprint_lab.lab.report import write_captured_report

__all__ = ["CSV_MIME", "HtmlShare", "SharedRuns", "csv_download", "csv_text"]

CSV_MIME = "text/csv"
"""The media type of a table's download."""

SharedRuns = Mapping[str, Mapping[str, tuple[Run, Frames]]]
"""What a widget shares: ``{section: {label: (run, its capture)}}``."""


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as the CSV its download holds: ``frame.to_csv(index=False)`` (a frame's
    index is a column of it first, where it means something: ``reset_index()``)."""
    return frame.to_csv(index=False)


def csv_download(frame: pd.DataFrame, name: str) -> dict[str, Any]:
    """What ``csv_link.html.j2`` takes for ``frame``: the file ``name`` (``.csv`` added when
    missing), its ``href`` (a base64 ``data:`` URI of :func:`csv_text`) and its ``rows``."""
    data = base64.b64encode(csv_text(frame).encode("utf-8")).decode("ascii")
    filename = name if name.endswith(".csv") else f"{name}.csv"
    return {
        "name": filename,
        "href": f"data:{CSV_MIME};charset=utf-8;base64,{data}",
        "rows": len(frame),
    }


class HtmlShare:
    """``to_html(path)`` for a lab widget: mixed into the Inspector, Compare and the Tuner,
    each of which has a ``title`` and says what it shares in ``_shared_runs``."""

    title: str

    def _shared_runs(self) -> SharedRuns:
        """The runs the widget shows, by section and label, with their captures."""
        raise NotImplementedError(f"{type(self).__name__} must say which runs it shares")

    def to_html(self, path: str | os.PathLike[str]) -> Path:
        """Write the widget's views as one standalone HTML file that opens offline, with no
        kernel: the report of the runs it shows — per run its overview, window size, window
        map, pins, refusals, every removal in words and the Boundary view with its iteration
        slider; for several runs the compare chart and a summary table first. Returns the path
        written (parent folders are created)."""
        return write_captured_report(self._shared_runs(), path, title=self.title)
