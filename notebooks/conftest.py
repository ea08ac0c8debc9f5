"""Notebooks run under nbval: their kernels inherit this environment.

Progress bars are quiet (``FOOTPRINT_LAB_QUIET=1``), so a checked cell's output is what the
notebook computed, not a bar's redraws; a person running the notebook sees the bars. Each cell
is one test and a notebook's cells share one kernel: under pytest-xdist (``make test`` runs two
workers, ``--dist loadgroup``) they go to one worker, in order.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("FOOTPRINT_LAB_QUIET", "1")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Group each notebook's cells."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.xdist_group(f"notebook-{item.path.stem}"))
