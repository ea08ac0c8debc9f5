"""A light front door (#25 item 3): the names that left a layer live in their new homes and stay
importable from their old paths."""

from __future__ import annotations

import footprint_lab._async
import footprint_lab.window.apply


def test_run_sync_lives_below_the_window_core_and_the_core_re_exports_it() -> None:
    assert footprint_lab.window.apply.run_sync is footprint_lab._async.run_sync
    assert footprint_lab._async.run_sync.__module__ == "footprint_lab._async"
