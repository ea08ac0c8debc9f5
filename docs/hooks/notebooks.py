"""MkDocs hook (documentation tooling, outside the package): every notebook in ``notebooks/``
becomes a page of the site, executed, its outputs rendered offline.

* **Nav.** The ``Notebooks`` entry of ``mkdocs.yml`` names one page (``notebooks/index.md``);
  :func:`on_config` turns it into a section holding that page and every ``notebooks/*.ipynb``
  in name order, so a new notebook appears without editing ``mkdocs.yml``.
* **Executed once, reused.** :func:`on_files` runs each notebook top to bottom in the
  project's ``python3`` kernel (nbclient, from ``notebooks/``, progress bars quiet as under
  nbval) and keeps the result in ``.cache/docs-notebooks/notebooks/``, beside the hash of the
  notebook's bytes and every file of the package: a second build reuses it until either
  changes. mkdocs-jupyter then
  renders the executed copy (its own ``execute`` stays off: one execution, not two).
* **Offline outputs.** A plotly figure's JSON output becomes the ``<div>`` plotly writes for it,
  drawn by the ``plotly.min.js`` this hook writes into the site from the installed plotly (the
  notebook pages load it: ``docs/overrides/main.html``); a widget view, which needs a live
  kernel, becomes a note saying so; and the MathJax and Mermaid scripts nbconvert's template
  would fetch from a CDN are dropped (no notebook uses either).

``FOOTPRINT_DOCS_CACHE`` moves the cache. ``FOOTPRINT_DOCS_EXECUTE=0`` renders each notebook
from its committed outputs instead of executing it (into ``<cache>/committed/``, never mistaken
for an execution): the suite's build, since ``make test`` executes every notebook under nbval
already and one execution of each is enough there; ``make docs`` executes them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

import nbformat
import plotly.io as pio
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from nbclient import NotebookClient

log = logging.getLogger("mkdocs.hooks.notebooks")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
PACKAGE = ROOT / "footprint_lab"
SECTION = "Notebooks"
INDEX = "notebooks/index.md"
PLOTLY_JS = "assets/javascripts/plotly.min.js"
PLOTLY_JSON = "application/vnd.plotly.v1+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TIMEOUT_S = 1200
"""A cell's time limit: the longest cells (evidence grids over 50 runs) take a minute or two."""

WIDGET_NOTE = (
    '<p class="footprint-widget-note"><em>An interactive widget: run this notebook in '
    "JupyterLab (<code>make lab</code>) to use it; a snapshot follows where the notebook "
    "keeps one.</em></p>"
)
# nbconvert's template writes a MathJax loader (here with an empty src: the page itself) and a
# Mermaid loader importing from cdnjs: a page that works offline has neither.
CDN_SCRIPTS = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->"
    r"|<script type=\"module\">\s*document\.addEventListener\(\"DOMContentLoaded\","
    r" async \(\) => \{\s*const diagrams = document\.querySelectorAll\(\"\.jp-Mermaid.*?</script>",
    re.DOTALL,
)


EXECUTE = "FOOTPRINT_DOCS_EXECUTE"
"""The variable choosing between executing the notebooks (``1``, the default) and rendering their
committed outputs (``0``)."""


def executing() -> bool:
    """Whether this build executes the notebooks (see :data:`EXECUTE`).

    Raises:
        ValueError: the variable holds something else than ``0`` or ``1``.
    """
    value = os.environ.get(EXECUTE, "1")
    if value not in ("0", "1"):
        raise ValueError(
            f"{EXECUTE}={value!r}: set it to 1 (execute every notebook, the default) or 0 "
            "(render each notebook's committed outputs)"
        )
    return value == "1"


def notebooks() -> list[Path]:
    """Every notebook of ``notebooks/``, in name (teaching) order."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def cache_dir() -> Path:
    """Where executed notebooks are kept (``FOOTPRINT_DOCS_CACHE`` or ``.cache/docs-notebooks``)."""
    return Path(os.environ.get("FOOTPRINT_DOCS_CACHE", ROOT / ".cache" / "docs-notebooks"))


def _package_digest() -> str:
    """One hash of every file of the package: an execution is reused only for the same code."""
    digest = hashlib.sha256()
    files = (p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in sorted(files):
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def executed_path(notebook: Path) -> Path:
    """Where the executed copy of ``notebook`` is kept: ``<cache>/notebooks/<name>``."""
    return cache_dir() / "notebooks" / notebook.name


def execution_key(notebook: Path, package: str | None = None) -> str:
    """What an execution depends on: the notebook's bytes and the package's files."""
    digest = hashlib.sha256(notebook.read_bytes())
    digest.update((package or _package_digest()).encode())
    return digest.hexdigest()


def committed_path(notebook: Path) -> Path:
    """Where ``notebook`` as committed, its outputs made offline, is kept for a build that does
    not execute it: ``<cache>/committed/notebooks/<name>``."""
    return cache_dir() / "committed" / "notebooks" / notebook.name


def _key_file(notebook: Path) -> Path:
    return executed_path(notebook).with_suffix(".key")


def _offline_outputs(nb: Any, stem: str) -> None:
    """Plotly JSON to plotly's own HTML (drawn by the site's plotly.min.js; the div ids numbered,
    so a rebuild writes the same page), widget views to a note: what a page without a kernel or
    a network can show."""
    figures = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            data = output.get("data", {})
            if PLOTLY_JSON in data:
                figures += 1
                # the JSON stays too (no HTML exporter renders it; tests read the figure)
                figure = pio.from_json(json.dumps(data[PLOTLY_JSON]))
                div = f"{stem}-figure-{figures}"
                data["text/html"] = pio.to_html(
                    figure, include_plotlyjs=False, full_html=False, div_id=div
                )
            if PLOTLY_JSON in data:  # a lab figure: its themed widget needs a kernel, its JSON not
                data.pop(WIDGET_VIEW, None)
            elif WIDGET_VIEW in data:
                output["data"] = {"text/html": WIDGET_NOTE}
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)


def render_committed(notebook: Path, target: Path) -> None:
    """Write ``notebook`` as committed, its outputs made offline, to ``target`` (not executed)."""
    _write_offline(nbformat.read(notebook, as_version=4), notebook, target)


def execute(notebook: Path, target: Path) -> None:
    """Run ``notebook`` in a fresh ``python3`` kernel from ``notebooks/`` and write the result,
    its outputs made offline, to ``target``.

    Raises:
        nbclient.exceptions.CellExecutionError: a cell raised (the notebook is broken: the
            build stops, naming the cell).
    """
    nb = nbformat.read(notebook, as_version=4)
    env_quiet = os.environ.get("FOOTPRINT_LAB_QUIET")
    os.environ["FOOTPRINT_LAB_QUIET"] = "1"  # as under nbval: outputs without progress bars
    try:
        where = {"metadata": {"path": NOTEBOOKS}}
        NotebookClient(nb, kernel_name="python3", timeout=TIMEOUT_S, resources=where).execute()
    finally:
        if env_quiet is None:
            os.environ.pop("FOOTPRINT_LAB_QUIET")
        else:
            os.environ["FOOTPRINT_LAB_QUIET"] = env_quiet
    _write_offline(nb, notebook, target)


def _write_offline(nb: Any, notebook: Path, target: Path) -> None:
    """Write ``nb`` (``notebook``'s, executed or as committed) to ``target``, its outputs made
    offline."""
    _offline_outputs(nb, notebook.stem)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Expand the ``Notebooks`` nav entry into its index page and every notebook."""
    pages = [f"notebooks/{path.name}" for path in notebooks()]
    for position, item in enumerate(config.nav or []):
        if isinstance(item, dict) and item.get(SECTION) == INDEX:
            config.nav[position] = {SECTION: [INDEX, *pages]}
            return config
    raise ValueError(
        f"mkdocs.yml: the nav needs the entry `- {SECTION}: {INDEX}` (this hook fills it)"
    )


@event_priority(50)  # before mkdocs-jupyter's own on_files, which makes pages of notebooks
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add every notebook — executed (or its reused execution), or as committed when the build
    does not execute (:func:`executing`) — and plotly's script."""
    run = executing()
    package = _package_digest() if run else ""
    for notebook in notebooks():
        if run:
            _execute_or_reuse(notebook, package)
            source = cache_dir()
        else:
            log.info("notebook %s: its committed outputs (%s=0)", notebook.name, EXECUTE)
            render_committed(notebook, committed_path(notebook))
            source = cache_dir() / "committed"
        # A plain file of the cache folder, so mkdocs-jupyter makes a page of it as of any other.
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(source),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    files.append(File.generated(config, PLOTLY_JS, content=pio_js()))
    return files


def _execute_or_reuse(notebook: Path, package: str) -> None:
    """Execute ``notebook`` into the cache, unless its execution there is of the same notebook
    and the same package."""
    target, key = executed_path(notebook), execution_key(notebook, package)
    stored = _key_file(notebook)
    if target.exists() and stored.exists() and stored.read_text() == key:
        log.info("notebook %s: reusing its execution (same notebook, same code)", notebook.name)
        return
    log.info("notebook %s: executing", notebook.name)
    stored.unlink(missing_ok=True)
    execute(notebook, target)
    stored.write_text(key)  # written last: a killed execution is never reused


def pio_js() -> str:
    """The installed plotly's JavaScript bundle (the figures' outputs name no CDN)."""
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Drop the CDN scripts nbconvert's template writes into every notebook page."""
    if page.file.src_uri.startswith("notebooks/") and page.file.src_uri.endswith(".ipynb"):
        return CDN_SCRIPTS.sub("", html)
    return html
