"""The site works where the README sends you: ``site/index.html`` opened from disk, a
``file://`` URL, with no server. Every recipe in the nav opens its page (a link names an
``.html`` file, not a folder Chromium would list: ``use_directory_urls: false``), and the
search box finds pages and opens them (Material's ``offline`` plugin inlines the index; the
search worker runs through the vendored iframe-worker shim, so nothing comes from the network).

The site is the one ``tests/docs/conftest.py`` builds once per session; each page here is
opened with every http(s) request refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from tests.docs.pages import open_offline

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parents[2]


def _recipes() -> list[tuple[str, str]]:
    """Each stack's recipe in the nav of ``mkdocs.yml``: its link text and its page."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    [section] = [entry["Recipes"] for entry in config["nav"] if "Recipes" in entry]
    return [next(iter(item.items())) for item in section if isinstance(item, dict)]


RECIPES = _recipes()


def _title(source: str) -> str:
    """The h1 a page of the site should show: the first line of its Markdown page or of its
    notebook's first cell, less the ``# ``."""
    path = ROOT / source
    if path.suffix == ".ipynb":
        text = nbformat.read(path, as_version=4).cells[0].source
    else:
        text = path.read_text()
    return text.splitlines()[0].removeprefix("# ").strip()


def _heading(page: Any) -> str:
    """The page's h1 as read (the permalink's ``¶`` left out)."""
    return str(page.locator(".md-content h1").first.inner_text()).removesuffix("¶").strip()


def test_the_nav_lists_every_stacks_recipe() -> None:
    stacks = [name for name, _ in RECIPES]
    assert stacks == [
        "SWE-agent",
        "mini-swe-agent",
        "OpenHands",
        "OpenHands V1",
        "Inspect",
        "Claude Code",
        "Codex CLI",
        "Gemini CLI",
        "OpenAI Responses",
        "Aider",
        "pi",
    ]


def test_the_site_names_files_not_folders(site: Path) -> None:
    home = (site / "index.html").read_text()
    for _, source in RECIPES:
        target = source.removesuffix(".md")
        assert f'href="{target}.html"' in home, f"the home page's nav has no link to {target}.html"
        assert not (site / target).is_dir(), f"{target}/ is a folder: the site uses directory URLs"
    assert (site / "search" / "search_index.js").is_file(), "no inlined index: search needs HTTP"


@pytest.mark.parametrize("stack,source", RECIPES, ids=[s for s, _ in RECIPES])
def test_a_recipe_opens_from_the_nav_of_the_page_on_disk(
    site: Path, browser: Any, stack: str, source: str
) -> None:
    page, asked, errors = open_offline(browser, (site / "index.html").as_uri())
    nav = page.locator("nav.md-nav--primary")
    with page.expect_navigation(wait_until="load"):
        nav.get_by_role("link", name=stack, exact=True).click()
    url, title, heading = page.url, page.title(), _heading(page)
    page.close()
    assert url == (site / source.replace(".md", ".html")).as_uri(), f"{stack}: landed on {url}"
    assert not title.startswith("Index of"), f"{stack}: a directory listing, not its page"
    assert heading == _title(f"docs/{source}"), f"{stack}: the page's h1 is {heading!r}"
    assert not asked, f"{stack}: the page asked the network for {asked}"
    assert not errors, f"{stack}: page errors {errors}"


@pytest.mark.parametrize(
    "query,target,source",
    [
        (
            "compaction",
            "notebooks/13-was-my-compaction-worth-it.html",
            "notebooks/13-was-my-compaction-worth-it.ipynb",
        ),
        ("architect", "recipes/aider.html", "docs/recipes/aider.md"),  # one page holds it
    ],
    ids=["compaction", "architect"],
)
def test_search_finds_a_page_and_opens_it_from_disk(
    site: Path, browser: Any, query: str, target: str, source: str
) -> None:
    page, asked, errors = open_offline(browser, (site / "index.html").as_uri())
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(query)
    page.wait_for_selector(".md-search-result__item", timeout=30_000)
    links = page.locator(".md-search-result__item > a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    expected = (site / target).as_uri()
    assert expected in hrefs, f"searching {query!r} gives {hrefs}, not {target}"
    with page.expect_navigation(wait_until="load"):
        links.nth(hrefs.index(expected)).click()
    url, heading = page.url, _heading(page)
    page.close()
    assert url == expected, f"the result opened {url}"
    assert heading == _title(source), f"{target}: the page's h1 is {heading!r}"
    assert not asked, f"searching {query!r}: the pages asked the network for {asked}"
    assert not errors, f"searching {query!r}: page errors {errors}"
