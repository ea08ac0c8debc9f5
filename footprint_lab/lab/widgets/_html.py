"""The widgets' HTML panes, each from a template of :mod:`footprint_lab.lab.render`.

Layer: lab. Small helpers that pass a view to its template: a table from a DataFrame, the
records table, a line of text, a bold label, a heading. Every table comes with a download of
its frame as CSV (:func:`~._share.csv_download`) unless told ``csv=None``. No markup is written
here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from footprint_lab.lab.frames import Frames
from footprint_lab.lab.render import TABLE_MAX_ROWS, render, table_context
from footprint_lab.lab.views import Banner, records_view
from footprint_lab.lab.widgets._share import csv_download

__all__ = [
    "heading_html",
    "label_html",
    "note_html",
    "pairs_html",
    "records_html",
    "sentences_html",
    "table_html",
]

NO_RECORDS = "No window records: the strategy never engaged on this run."


def table_html(
    frame: pd.DataFrame,
    *,
    row_styles: Sequence[str] | None = None,
    max_rows: int = TABLE_MAX_ROWS,
    empty: str = "nothing to show",
    human: bool = False,
    csv: str | None = "table.csv",
) -> str:
    """``frame`` as an inline-styled table (its first ``max_rows`` rows), under a link that
    downloads all of ``frame`` as the CSV file ``csv`` (None: no link); ``human`` heads the
    columns with their human headers (``COLUMN_HEADERS``)."""
    t = table_context(frame, row_styles=row_styles, max_rows=max_rows, empty=empty)
    download = None if csv is None else csv_download(frame, csv)
    return render("table.html.j2", t=t, human=human, csv=download)


def records_html(frames: Frames, *, csv: str | None = "records.csv") -> str:
    """The records table of a capture (``records_table.html.j2``, inline-styled; its list
    cells said briefly, :func:`~footprint_lab.lab.views.records_view`), under a link that
    downloads the records' cells in full as the CSV file ``csv`` (None: no link)."""
    t = table_context(records_view(frames), empty=NO_RECORDS, unit="records")
    download = None if csv is None else csv_download(records_view(frames, compact=False), csv)
    return render(
        "records_table.html.j2",
        t=t,
        collapsible=False,
        count=len(frames.records),
        cards=[],
        csv=download,
    )


def note_html(text: str = "", *, strong: str | None = None, tone: str = "plain") -> str:
    """A line of text, with an optional bold start; ``tone`` 'plain', 'muted' or 'error'."""
    return render("note.html.j2", text=text, strong=strong, tone=tone)


def label_html(text: str) -> str:
    """A bold section label."""
    return render("label.html.j2", text=text)


def heading_html(title: str, *, banners: Sequence[Banner] = (), lead: str | None = None) -> Any:
    """A widget's heading, its counterfactual banners and a lead line."""
    return render("heading.html.j2", title=title, banners=list(banners), lead=lead)


def pairs_html(pairs: Sequence[tuple[str, Any]]) -> str:
    """``(label, value)`` pairs as a key-value table (``kv_table.html.j2``)."""
    return render("kv_table.html.j2", pairs=list(pairs))


def sentences_html(sentences: Sequence[str], *, empty: str = NO_RECORDS) -> str:
    """Sentences as a scrolling numbered list (``sentences.html.j2``), ``empty`` when none."""
    return render("sentences.html.j2", sentences=list(sentences), empty=empty)
