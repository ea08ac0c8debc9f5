"""Suite-wide settings: progress bars stay quiet in tests."""

from __future__ import annotations

import os

os.environ.setdefault("FOOTPRINT_LAB_QUIET", "1")
