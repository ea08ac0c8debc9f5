"""Notebooks run under nbval: their kernels inherit this environment.

Progress bars are quiet (``FOOTPRINT_LAB_QUIET=1``), so a checked cell's output is what the
notebook computed, not a bar's redraws; a person running the notebook sees the bars.
"""

from __future__ import annotations

import os

os.environ.setdefault("FOOTPRINT_LAB_QUIET", "1")
