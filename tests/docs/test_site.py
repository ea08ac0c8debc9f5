"""The documentation site: ``mkdocs build --strict`` succeeds (a broken reference, a missing
snippet or nav page fails it), every notebook of ``notebooks/`` is a page with its outputs, the
recipe and API pages are there, and nothing on the site comes from the network —
checked in the built files and, in headless Chromium with every http(s) request refused, on
the pages themselves (their figures still draw).

The build runs here, in pytest (the ``site`` fixture of ``tests/docs/conftest.py``, once per
session), rather than as a ``make`` prerequisite of ``test``: one build serves the strict check,
the checks of what it built and the browser tests of the site opened from disk
(``test_site_from_disk.py``), and a failure is reported with mkdocs' own warnings among the
suite's results (``make test-quick`` leaves it out: marker ``docs``). The notebooks' pages show
their committed outputs (see ``conftest.py``: nbval executes every notebook in the same run, and
``test_hook.py`` checks the hook's own execution).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.docs.pages import open_offline
from tests.docs.test_hook import hook as notebooks_hook
from tests.docs.test_hook import printed
from tests.test_notebooks_readable import check_readable

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CDN_HOSTS = re.compile(
    r"fonts\.googleapis\.com|fonts\.gstatic\.com|cdn\.jsdelivr\.net|unpkg\.com"
    r"|cdnjs\.cloudflare\.com|cdn\.plot\.ly|polyfill\.io|mathjax\.org"
)
# a tag loading a resource from elsewhere, a module import of a URL, a CSS url()/@import of one
EXTERNAL_LOAD = re.compile(
    r"<(?:script|img|iframe|source|embed|audio|video)\b[^>]*\bsrc=[\"']?(?:https?:)?//"
    r"|<link\b[^>]*\bhref=[\"']?(?:https?:)?//"
    r"|import\(\s*[\"'](?:https?:)?//"
    r"|url\(\s*[\"']?(?:https?:)?//"
    r"|@import\s+[\"'](?:https?:)?//",
    re.IGNORECASE,
)


def _file(site: Path, path: str) -> Path:
    """The file of the page ``path`` (``"."`` the home page): ``<path>.html``, since the site is
    opened from disk (``use_directory_urls: false``)."""
    return site / ("index.html" if path == "." else f"{path}.html")


def _page(site: Path, path: str) -> str:
    page = _file(site, path)
    assert page.is_file(), f"no page {path}.html in the site"
    return page.read_text()


def test_every_notebook_is_a_page_listed_in_the_nav(site: Path) -> None:
    home = _page(site, ".")
    for notebook in NOTEBOOKS:
        nb = nbformat.read(notebook, as_version=4)
        title = nb.cells[0].source.splitlines()[0].removeprefix("# ")
        page = _page(site, f"notebooks/{notebook.stem}")
        assert "jp-Notebook" in page and "jp-OutputArea" in page, f"{notebook.name}: not rendered"
        assert title.split(" · ")[1][:20] in page, f"{notebook.name}: its heading is missing"
        assert f"notebooks/{notebook.stem}.html" in home, f"{notebook.name}: not in the nav"


def test_recipes_and_the_api_reference_are_pages(site: Path) -> None:
    for stack in ("swe-agent", "openhands", "inspect", "claude-code"):
        assert "data/transcripts/" in _page(site, f"recipes/{stack}")
    window = _page(site, "api/window")
    assert "doc-heading" in window and "apply_window" in window  # rendered by mkdocstrings
    concepts = _page(site, "concepts")
    assert "A window strategy edits the window, never the ledger." in concepts  # README snippet


def test_no_file_of_the_site_loads_anything_from_the_network(site: Path) -> None:
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix not in (".html", ".css"):
            continue
        text = path.read_text(errors="replace")
        for match in [*EXTERNAL_LOAD.finditer(text), *CDN_HOSTS.finditer(text)]:
            found.append(f"{path.relative_to(site)}: {text[match.start() : match.end() + 60]!r}")
    assert not found, "the site names the network:\n" + "\n".join(found[:20])


def test_each_notebook_page_is_the_committed_notebook_made_offline(
    site: Path, docs_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOOTPRINT_DOCS_CACHE", str(docs_cache))
    hook = notebooks_hook()
    for notebook in NOTEBOOKS:
        rendered = nbformat.read(hook.committed_path(notebook), as_version=4)
        check_readable(notebook.name, rendered)
        committed = nbformat.read(notebook, as_version=4)
        for mine, shown in zip(committed.cells, rendered.cells, strict=True):
            assert shown.source == mine.source, f"{notebook.name} cell {mine.get('id')}"
            if mine.cell_type == "code":
                assert printed(shown) == printed(mine), f"{notebook.name} cell {mine.get('id')}"


@pytest.mark.parametrize(
    "path", [".", "concepts", "api/window", "notebooks/10-what-a-policy-costs"]
)
def test_a_page_works_with_the_network_refused(site: Path, browser: Any, path: str) -> None:
    page, asked, errors = open_offline(browser, _file(site, path).as_uri())
    if path.startswith("notebooks/"):
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
        assert page.locator(".js-plotly-plot").count() >= 5  # every figure drew, offline
    page.close()
    assert not asked, f"{path}: the page asked the network for {asked}"
    assert not errors, f"{path}: page errors {errors}"
