"""The site's notebooks hook, without a build: it lists every notebook in the nav, names the
entry it needs when the nav lacks it, and turns outputs into ones a page without a kernel or a
network shows (plotly's own div, deterministic; a note where a widget stood)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType, SimpleNamespace

import nbformat
import plotly.graph_objects as go
import pytest

ROOT = Path(__file__).resolve().parents[2]


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
