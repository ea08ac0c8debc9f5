"""Every writer writes what it wrote: the golden run files (see ``golden_runs.py``).

A run of each writer — the agent loop (three strategies, a pause and its answer), ``replay``
and the importers (a real file of every stack) — is held to the file saved for it, and every
golden file of today's version loads and saves again byte for byte. The files of run file
version 1 (``v1/``, saved before the origin was kept) load and read as today's runs do: a
golden file per format version.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import load_run
from footprint_lab.agent.origin import LEGACY_ORIGIN_KEYS, Import, Replay
from footprint_lab.lab import Frames, capture
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


TODAY = sorted(FOLDER.glob("*.json"))
"""Today's golden files (run file version 2: the run's origin kept)."""

V1 = FOLDER / "v1"
"""What the writers saved in run file version 1 (the origin said by meta keys): the same
builders' runs, and a replay saved before #37 that renumbered its source's stage ids."""


@pytest.mark.parametrize("golden", TODAY, ids=lambda p: p.stem)
def test_a_golden_file_loads_and_saves_byte_for_byte(golden: Path, tmp_path: Path) -> None:
    again = load_run(golden).save(tmp_path / golden.name)
    assert again.read_bytes() == golden.read_bytes()


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_version_1_file_reads_as_todays_run(name: str) -> None:
    """A run file written before the origin was kept loads: its origin is read from the meta
    keys it used, those keys leave its meta, and it captures as today's writer's run does."""
    old = load_run(V1 / f"{name}.json")
    fresh = BUILDERS[name]()
    assert type(old.origin) is type(fresh.origin)
    assert not set(old.meta) & set(LEGACY_ORIGIN_KEYS)
    if isinstance(fresh.origin, Import):
        assert isinstance(old.origin, Import)
        assert old.origin.recorded == fresh.origin.recorded
        assert old.origin.format == fresh.origin.format
    if isinstance(fresh.origin, Replay):
        assert old.origin.model_dump(exclude={"source"}) == fresh.origin.model_dump(
            exclude={"source"}
        )
    _same_capture(capture(old), capture(fresh))


def test_a_replay_saved_before_stable_ids_keeps_its_own_ids() -> None:
    """A replay saved before #37 numbered its source's messages anew and kept the map in
    ``meta['source_stage_ids']``; it still loads with the ids it was saved with, the map kept
    (the only record of it)."""
    old = load_run(V1 / "replay-budget-renumbered.json")
    assert isinstance(old.origin, Replay) and old.origin.source_id == "deploy-audit"
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
    _same_capture(capture(load_run(FOLDER / f"{name}.json")), capture(BUILDERS[name]()))


def _same_capture(loaded: Frames, fresh: Frames) -> None:
    for frame in ("records", "refusals", "pins", "evictions", "messages", "membership"):
        clock = list(_CLOCK_KEYS)
        left = getattr(loaded, frame).drop(columns=clock, errors="ignore")
        right = getattr(fresh, frame).drop(columns=clock, errors="ignore")
        assert left.equals(right), frame
