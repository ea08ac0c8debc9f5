"""How many examples a property test draws.

The full count in CI and ``make test``; about a tenth (at least 10) in ``make test-quick``,
which sets ``FOOTPRINT_LAB_EXAMPLES=quick`` — the same properties, checked less deeply while
you work. A test names its full count once: ``@settings(max_examples=examples(1000))``.
"""

from __future__ import annotations

import os

__all__ = ["QUICK", "examples"]

QUICK = os.environ.get("FOOTPRINT_LAB_EXAMPLES", "full") == "quick"
"""True under ``make test-quick``."""


def examples(full: int) -> int:
    """``full``, or about a tenth of it (at least 10) under ``make test-quick``."""
    return max(10, full // 10) if QUICK else full
