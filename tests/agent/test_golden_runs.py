"""Every writer writes what it wrote: the golden run files (see ``golden_runs.py``).

A run of each writer — the agent loop (three strategies, a pause and its answer), ``replay``
and the importers (a real file of every stack) — is held to the file the code before one
``RunWriter`` (#25 item 1) saved for it, and every golden file loads and saves again byte for
byte, so no run saved before the change reads differently after it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import load_run
from footprint_lab.lab import capture
from tests.agent.golden_runs import BUILDERS, FOLDER

_CLOCK_KEYS = frozenset({"at_ms", "survival_ms", "latency_ms"})
"""Readings of the wall clock: with the checkout's place, what two builds of a run may differ
in."""


_CHECKOUT = re.compile(r"^.*?/data/")
"""Where the checkout stood: an import names its file by absolute path (``meta``, problems)."""


def _without_clock(value: Any) -> Any:
    if isinstance(value, str):
        return _CHECKOUT.sub("<checkout>/data/", value)
    if isinstance(value, dict):
        return {
            k: 0 if k in _CLOCK_KEYS else _without_clock(v)
            for k, v in value.items()
            if k != "checksum"
        }
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


GOLDEN = sorted([*FOLDER.glob("*.json"), *FOLDER.glob("before-*/*.json")])
"""Today's golden files and those an older writer saved (``before-37/``: a replay that
renumbered its source's stage ids), which must load as they did."""


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_golden_file_loads_and_saves_byte_for_byte(golden: Path, tmp_path: Path) -> None:
    again = load_run(golden).save(tmp_path / golden.name)
    assert again.read_bytes() == golden.read_bytes()


def test_a_replay_saved_before_stable_ids_keeps_its_own_ids() -> None:
    """A replay saved before #37 numbered its source's messages anew and kept the map in
    ``meta['source_stage_ids']``; it still loads with the ids it was saved with."""
    old = load_run(FOLDER / "before-37" / "replay-budget.json")
    assert old.meta["source_stage_ids"]
    renamed = {k: v for k, v in old.meta["source_stage_ids"].items() if k != v}
    assert renamed, "the old replay renumbered some of its source's stages"
    assert all(old.ledger.messages_of(k) for k in renamed)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_todays_writer_saves_the_golden_document(name: str, tmp_path: Path) -> None:
    fresh = BUILDERS[name]().save(tmp_path / f"{name}.json")
    expected = _without_clock(json.loads((FOLDER / f"{name}.json").read_text()))
    assert _without_clock(json.loads(fresh.read_text())) == expected


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_golden_file_captures_as_todays_run(name: str) -> None:
    loaded = capture(load_run(FOLDER / f"{name}.json"))
    fresh = capture(BUILDERS[name]())
    for frame in ("records", "refusals", "pins", "evictions", "messages", "membership"):
        clock = list(_CLOCK_KEYS)
        left = getattr(loaded, frame).drop(columns=clock, errors="ignore")
        right = getattr(fresh, frame).drop(columns=clock, errors="ignore")
        assert left.equals(right), frame
