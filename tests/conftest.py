"""Suite-wide settings: progress bars stay quiet in tests, and the tests that drive a real
browser are marked ``browser`` so ``make test-quick`` can leave them out (``make test`` runs
them all). Under pytest-xdist (``make test`` runs two workers) the browser tests and the
documentation build go to one worker, one after another: one Chromium at a time, and the site
built once, while the other worker takes the rest (``notebooks/conftest.py`` keeps each
notebook's cells together)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.chromium import launched_chromium

os.environ.setdefault("FOOTPRINT_LAB_QUIET", "1")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that drives Chromium through Playwright: the ``*_browser.py`` files, and
    any test using a fixture named ``browser`` (so a new browser test is marked without a list
    to keep up to date)."""
    for item in items:
        if item.path.name.endswith("_browser.py") or "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("browser") or item.get_closest_marker("docs"):
            item.add_marker(pytest.mark.xdist_group("browser"))  # read by --dist loadgroup


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module (:func:`tests.chromium.launched_chromium`)."""
    with launched_chromium() as launched:
        yield launched
