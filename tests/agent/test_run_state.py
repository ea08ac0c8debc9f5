"""One run-state model: Run and Checkpoint share RunState's fields, named once."""

from __future__ import annotations

import dataclasses

import pytest

from footprint_lab import sliding_window
from footprint_lab.agent.run import STATE_FIELDS, Checkpoint, Run, RunState
from footprint_lab.scenarios import SCENARIOS, deploy_audit


def test_a_run_carries_every_field_of_the_shared_state() -> None:
    run_fields = {f.name for f in dataclasses.fields(Run)}
    assert set(STATE_FIELDS) <= run_fields
    assert issubclass(Checkpoint, RunState)
    # What only one side has: the live ledger, window and fault, or their stored forms.
    assert run_fields - set(STATE_FIELDS) == {"ledger", "window", "error", "agent"}
    only_checkpoint = set(Checkpoint.model_fields) - set(STATE_FIELDS)
    assert only_checkpoint == {"format", "version", "error", "ledger", "window"}


def test_the_shared_state_round_trips_field_for_field() -> None:
    scenario = deploy_audit()
    run = scenario.run(scenario.strategies()["sliding-window"])
    checkpoint = run.checkpoint()
    for name in STATE_FIELDS:
        assert getattr(checkpoint, name) == getattr(run, name), name


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_checkpoint_equals_itself_after_a_json_round_trip(name: str) -> None:
    """#37 item 5: a record's ``given_commit`` is never saved (the ledger says it), and the
    checkpoint read back tells each record its own again, so the two are equal."""
    run = SCENARIOS[name]().run(sliding_window(keep_recent_turns=2))
    assert run.records
    cp = run.checkpoint()
    back = Checkpoint.model_validate_json(cp.model_dump_json())
    assert back == cp
    assert [r.given_commit for r in back.records] == [r.given_commit for r in cp.records]
