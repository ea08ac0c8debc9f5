"""Suite-wide settings: progress bars stay quiet in tests, and the tests that drive a real
browser are marked ``browser`` so ``make test-quick`` can leave them out (``make test`` runs
them all)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("FOOTPRINT_LAB_QUIET", "1")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that drives Chromium through Playwright: the ``*_browser.py`` files, and
    any test using a fixture named ``browser`` (so a new browser test is marked without a list
    to keep up to date)."""
    for item in items:
        if item.path.name.endswith("_browser.py") or "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
