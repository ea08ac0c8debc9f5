"""The site's notebooks hook, without a build: it lists every notebook in the nav, names the
entry it needs when the nav lacks it, and turns outputs into ones a page without a kernel or a
network shows (plotly's own div, deterministic; a note where a widget stood); and, with a kernel,
executes a notebook into what its page shows, reproducing its checked numbers (the suite's site
build renders the committed outputs instead: ``tests/docs/conftest.py``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import nbformat
import plotly.graph_objects as go
import pytest

from tests.test_notebooks_readable import check_readable

ROOT = Path(__file__).resolve().parents[2]
CHECK = "# NBVAL_CHECK_OUTPUT"
EXECUTED = ROOT / "notebooks" / "14-your-providers-own-policy.ipynb"
"""The notebook the hook executes here: the quickest to run that has checked numbers."""


def hook() -> ModuleType:
    """``docs/hooks/notebooks.py``, loaded as MkDocs loads a hook (a file, not a package)."""
    path = ROOT / "docs" / "hooks" / "notebooks.py"
    spec = importlib.util.spec_from_file_location("notebooks_hook", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_nav_entry_becomes_every_notebook_in_order() -> None:
    notebooks = hook()
    config = SimpleNamespace(nav=[{"Home": "index.md"}, {"Notebooks": "notebooks/index.md"}])
    notebooks.on_config(config)
    names = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert config.nav[1] == {
        "Notebooks": ["notebooks/index.md", *(f"notebooks/{n}" for n in names)]
    }


def test_a_nav_without_the_entry_is_refused_saying_what_to_add() -> None:
    with pytest.raises(ValueError, match=r"mkdocs.yml: the nav needs the entry `- Notebooks: "):
        hook().on_config(SimpleNamespace(nav=[{"Home": "index.md"}]))


def test_outputs_become_what_an_offline_page_shows() -> None:
    notebooks = hook()
    figure = go.Figure(go.Bar(y=[1, 2]), layout={"title": {"text": "sizes"}})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("fig")]
    nb.cells[0].outputs = [
        nbformat.v4.new_output(
            "display_data", data={notebooks.PLOTLY_JSON: figure.to_plotly_json()}
        ),
        nbformat.v4.new_output(
            "display_data", data={notebooks.WIDGET_VIEW: {"model_id": "x"}, "text/plain": "VBox()"}
        ),
    ]
    notebooks._offline_outputs(nb, "01-x")
    drawn, widget = nb.cells[0].outputs
    assert 'id="01-x-figure-1"' in drawn["data"]["text/html"]
    assert (
        "Plotly.newPlot" in drawn["data"]["text/html"]
        and "https://" not in drawn["data"]["text/html"]
    )
    assert notebooks.PLOTLY_JSON in drawn["data"]  # kept for the checks that read figures
    assert widget["data"] == {"text/html": notebooks.WIDGET_NOTE}


def test_the_cdn_scripts_of_nbconvert_are_dropped_from_a_notebook_page() -> None:
    notebooks = hook()
    html = (
        '<p>before</p><!-- Load mathjax -->\n<script src=""> </script>\n'
        '<!-- End of mathjax configuration --><script type="module">\n'
        '  document.addEventListener("DOMContentLoaded", async () => {\n'
        '    const diagrams = document.querySelectorAll(".jp-Mermaid > pre.mermaid");\n'
        '    const m = await import("https://cdnjs.cloudflare.com/x.mjs");\n  });\n'
        "</script><p>after</p>"
    )
    page = SimpleNamespace(file=SimpleNamespace(src_uri="notebooks/01-x.ipynb"))
    assert notebooks.on_page_content(html, page, None, None) == "<p>before</p><p>after</p>"


def printed(cell: Any) -> list[str]:
    """What a cell printed or displayed as text (what nbval compares, in order)."""
    shown: list[str] = []
    streaming = False  # consecutive stream outputs are one text, however a kernel split it
    for output in cell.outputs:
        if output.get("output_type") == "stream":
            if streaming:
                shown[-1] += output["text"]
            else:
                shown.append(output["text"])
            streaming = True
        elif "text/plain" in output.get("data", {}):
            shown.append(output["data"]["text/plain"])
            streaming = False
    return shown


@pytest.mark.docs
def test_a_notebook_the_hook_executes_reads_well_and_reproduces_its_checked_numbers(
    tmp_path: Path,
) -> None:
    target = tmp_path / "executed.ipynb"
    hook().execute(EXECUTED, target)
    executed = nbformat.read(target, as_version=4)
    check_readable(EXECUTED.name, executed)
    committed = nbformat.read(EXECUTED, as_version=4)
    checked = 0
    for mine, theirs in zip(committed.cells, executed.cells, strict=True):
        if mine.cell_type == "code":
            assert theirs.execution_count is not None, f"cell {mine.get('id')} did not run"
            assert "execution" not in theirs.metadata  # timings dropped: a rebuild is the same
            if mine.source.startswith(CHECK):
                assert printed(theirs) == printed(mine), f"cell {mine.get('id')}"
                checked += 1
    assert checked, f"{EXECUTED.name} has no cell marked {CHECK}"
    assert "widgets" not in executed.metadata


def test_a_build_executes_unless_told_not_to_and_names_what_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    notebooks = hook()
    monkeypatch.delenv(notebooks.EXECUTE, raising=False)
    assert notebooks.executing()
    monkeypatch.setenv(notebooks.EXECUTE, "0")
    assert not notebooks.executing()
    monkeypatch.setenv(notebooks.EXECUTE, "no")
    with pytest.raises(ValueError, match=r"FOOTPRINT_DOCS_EXECUTE='no': set it to 1 .* or 0"):
        notebooks.executing()
