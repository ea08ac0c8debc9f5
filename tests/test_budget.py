"""The property tests' example budget: the full count unless ``make test-quick`` asks for a
tenth (``FOOTPRINT_LAB_EXAMPLES=quick``), read once, when the tests are collected."""

from __future__ import annotations

import os
import subprocess
import sys

from tests import budget


def test_the_full_count_unless_quick_is_asked_for() -> None:
    quick = os.environ.get("FOOTPRINT_LAB_EXAMPLES") == "quick"
    assert budget.QUICK is quick
    expected = {1000: 100, 150: 15, 60: 10} if quick else {1000: 1000, 150: 150, 60: 60}
    assert {n: budget.examples(n) for n in expected} == expected
    code = "from tests.budget import examples; print(examples(1000), examples(40))"
    for mode, printed in (("quick", "100 10"), ("full", "1000 40")):
        env = {**os.environ, "FOOTPRINT_LAB_EXAMPLES": mode}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        assert done.stdout.split() == printed.split()
