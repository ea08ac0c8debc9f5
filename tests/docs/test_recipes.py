"""The recipe pages run: each ``python`` block of ``docs/recipes/*.md``, in order and in one
namespace per page, from the repository root against the real files in ``data/transcripts/``,
must print exactly the ``text`` block that follows it on the page.

To refresh a page's printed outputs after a change (then read the diff)::

    .venv/bin/python tests/docs/test_recipes.py docs/recipes/swe-agent.md
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from footprint_lab.importers import FORMATS

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "docs" / "recipes"
PAGES = sorted(p for p in RECIPES.glob("*.md") if p.name != "index.md")
STACKS = tuple(name for name in FORMATS if name not in ("otel", "tau-bench", "footprint-lab-run"))
"""Every stack whose own files load reads (a recipe each): the registry's formats less
OpenTelemetry traces, tau-bench's logs and our own saved runs."""
FENCE = re.compile(r"^```(?P<lang>\w*)\n(?P<body>.*?)^```\n", re.MULTILINE | re.DOTALL)
TRANSCRIPT = re.compile(r"(?:tests/)?data/(?:transcripts|openai-responses)/[\w./-]+")


def blocks(text: str) -> list[tuple[str, str | None, int]]:
    """Each ``python`` block of a page with the ``text`` block right after it (None if none)
    and the line it starts on."""
    fences = list(FENCE.finditer(text))
    found: list[tuple[str, str | None, int]] = []
    for i, fence in enumerate(fences):
        if fence.group("lang") != "python":
            continue
        after = fences[i + 1] if i + 1 < len(fences) else None
        shown = None
        between = text[fence.end() : after.start()] if after is not None else "x"
        if after is not None and after.group("lang") == "text" and not between.strip():
            shown = after.group("body")
        found.append((fence.group("body"), shown, text.count("\n", 0, fence.start()) + 1))
    return found


@contextlib.contextmanager
def _at_root() -> Iterator[None]:
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(here)


def run_page(page: Path) -> list[tuple[str, str | None, int]]:
    """Run a page's python blocks in order; each block with what it printed and what the page
    shows, and its line."""
    namespace: dict[str, object] = {"__name__": f"recipe_{page.stem}"}
    results: list[tuple[str, str | None, int]] = []
    with _at_root():
        for code, shown, line in blocks(page.read_text()):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
            results.append((out.getvalue(), shown, line))
    return results


def test_there_is_one_recipe_per_stack() -> None:
    assert sorted(p.stem for p in PAGES) == sorted(STACKS)


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_a_recipe_reads_real_files_that_exist(page: Path) -> None:
    paths = TRANSCRIPT.findall(page.read_text())
    assert paths, f"{page.name} names no file of data/transcripts/"
    for path in paths:
        assert (ROOT / path.rstrip(".")).exists(), f"{page.name}: {path} does not exist"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_each_recipe_block_prints_what_the_page_shows(page: Path) -> None:
    results = run_page(page)
    assert len(results) >= 2, f"{page.name}: a recipe answers both questions in code"
    for printed, shown, line in results:
        assert shown is not None, f"{page.name}:{line}: the block is not followed by its output"
        assert printed.strip(), f"{page.name}:{line}: the block prints nothing"
        assert printed == shown, f"{page.name}:{line}: the page shows other output than it prints"


def test_blocks_pairs_code_with_the_output_right_after_it() -> None:
    page = "```python\nprint(1)\n```\n\n```text\n1\n```\n\nwords\n\n```python\nx = 2\n```\n"
    assert blocks(page) == [("print(1)\n", "1\n", 1), ("x = 2\n", None, 11)]


def _refresh(page: Path) -> None:
    """Write each block's printed output into the text block after it."""
    text = page.read_text()
    printed = iter([out for out, _, _ in run_page(page)])
    fences = list(FENCE.finditer(text))
    pieces, at = [], 0
    for i, fence in enumerate(fences):
        if fence.group("lang") != "text" or i == 0 or fences[i - 1].group("lang") != "python":
            continue
        pieces += [text[at : fence.start()], "```text\n", next(printed), "```\n"]
        at = fence.end()
    page.write_text("".join([*pieces, text[at:]]))


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        _refresh(Path(arg).resolve())
