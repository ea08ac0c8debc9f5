"""Notebooks that read well: tables are rendered frames rather than printed text (a printed
table wraps in a narrow output area: "lost evide / nce"), a chart's title names its run once,
and notebook 09 opens one run of each stack in the Inspector.

The rules read a notebook's outputs, so the same checks run here on the committed notebooks
(which nbval re-executes, comparing the checked cells) and in ``tests/docs`` on the notebooks
the documentation build executes afresh.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ALL = tuple(sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
STACKS = ("swe-agent", "openhands", "inspect", "claude-code", "otel")
PLOTLY_JSON = "application/vnd.plotly.v1+json"
FRAME_HTML = '<table border="1" class="dataframe">'


def read(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


def printed_tables(nb: Any) -> list[str]:
    """Code cells that print a frame as text (``DataFrame.to_string``) instead of showing it."""
    return [
        c.get("id", "?") for c in nb.cells if c.cell_type == "code" and ".to_string(" in c.source
    ]


def rendered_frames(nb: Any) -> int:
    """How many outputs show a frame as an HTML table."""
    return sum(
        FRAME_HTML in "".join(o.get("data", {}).get("text/html", ""))
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
    )


def truncated_cells(nb: Any) -> list[str]:
    """Cells of a displayed frame that pandas cut short (``display.max_colwidth``)."""
    cut = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            html = "".join(output.get("data", {}).get("text/html", ""))
            if FRAME_HTML in html:
                cut += re.findall(r"<td>([^<]*\.\.\.)</td>", html)
    return cut


def chart_titles(nb: Any) -> list[str]:
    """The title of every plotly figure in the outputs."""
    titles = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            figure = output.get("data", {}).get(PLOTLY_JSON)
            if figure is not None:
                titles.append(str(figure.get("layout", {}).get("title", {}).get("text", "")))
    return titles


def repeated_title_parts(title: str) -> list[str]:
    """Parts of a title (split at " — ") that an earlier part already says."""
    parts = [p.strip() for p in title.split(" — ") if p.strip()]
    return [p for i, p in enumerate(parts) if any(p in earlier for earlier in parts[:i])]


def inspector_labels(nb: Any) -> list[str]:
    """The runs shown by Inspector snapshots, by the label in their heading."""
    labels = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            html = "".join(output.get("data", {}).get("text/html", ""))
            for chunk in html.split(">Inspector — ")[1:]:
                labels.append(chunk.split(" · status")[0])
    return labels


def check_readable(name: str, nb: Any) -> None:
    """Every rule of this module on one notebook (committed or freshly executed)."""
    for title in chart_titles(nb):
        assert not repeated_title_parts(title), f"{name}: the chart title repeats itself: {title!r}"
    # Every notebook, a new one too: its tables are displayed frames, shown whole.
    assert not printed_tables(nb), f"{name}: cells print a frame as text: {printed_tables(nb)}"
    assert rendered_frames(nb) >= 1, f"{name}: its tables are not shown as frames"
    assert not truncated_cells(nb), f"{name}: frames cut short: {truncated_cells(nb)[:3]}"
    if name.startswith("09-"):
        labels = inspector_labels(nb)
        shown = {label.split(" · ")[0] for label in labels}
        assert shown == set(STACKS), f"{name}: the Inspector shows {sorted(shown)}, not {STACKS}"


@pytest.mark.parametrize("name", ALL)
def test_committed_notebook_reads_well(name: str) -> None:
    check_readable(name, read(NOTEBOOKS / name))


def test_the_rules_catch_what_they_name() -> None:
    assert repeated_title_parts("Cost per call — run a: $1 in all — run a") == ["run a"]
    assert repeated_title_parts("Window map — run a (counterfactual replay)") == []
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(frame.to_string())")]
    assert printed_tables(nb) == [nb.cells[0].id]
    nb.cells[0].outputs = [
        nbformat.v4.new_output(
            "display_data", data={"text/html": "<h3>Inspector — otel · x · status done</h3>"}
        )
    ]
    assert inspector_labels(nb) == ["otel · x"]
    nb.cells[0].outputs = [
        nbformat.v4.new_output(
            "display_data", data={"text/html": f"{FRAME_HTML}<td>split-tool-pair×4, win...</td>"}
        )
    ]
    assert truncated_cells(nb) == ["split-tool-pair×4, win..."]
