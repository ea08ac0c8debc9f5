"""The spec's two stories, end to end through the agent loop."""

from __future__ import annotations

from footprint_lab import is_drop_notice
from footprint_lab.scenarios import deploy_audit, screen_driver


def test_deploy_audit_drops_d1_and_the_ledger_returns_it_verbatim() -> None:
    scenario = deploy_audit()
    run = scenario.run(scenario.strategies()["sliding-window"])
    assert run.status == "done"
    assert not any(m.content.startswith("DEPLOY d1") for m in run.window)
    # The first tool-calls commit's window holds the original, verbatim.
    log = run.ledger.commits
    first_tool_calls = next(c.index for c in log if c.stage_id.startswith("tool-calls#"))
    ledger_window = run.ledger.value_at(first_tool_calls, "window")
    original = next(m for m in ledger_window if m.content.startswith("DEPLOY d1"))
    assert len(original.content) == 1150
    # The record that removed it names the stage, and the stage resolves to the same text.
    record = next(r for r in run.records if original.stage_id in r.removed_stage_ids)
    assert run.ledger.message(original.stage_id).content == original.content
    assert record.dropped_observations == ["read_log"]
    # The request stayed at the head, and a notice took the position after it.
    assert run.window[0].content == scenario.request
    assert is_drop_notice(run.window[1])
    assert all(r.refusals[0].reason == "current-request" for r in run.records)


def test_screen_driver_keeps_the_whats_here_ids_pinned() -> None:
    scenario = screen_driver()
    run = scenario.run(scenario.strategies()["sliding-window"])
    assert run.status == "done"
    whats_here = run.ledger.messages_of("tool-calls#3")[0]
    assert whats_here.name == "whats_here"
    # In every window sent after it was produced, the ids are there.
    for i in range(1, len(run.calls)):
        assert whats_here in run.window_sent(i)
    # Older focus / pan_view results left while the pin held.
    dropped = {name for r in run.records for name in (r.dropped_observations or [])}
    assert {"focus", "pan_view"} <= dropped
    pinned = [p for r in run.records if r.observations for p in r.observations.pinned]
    assert any(p.tool_name == "whats_here" for p in pinned)
    assert any(ref.reason == "last-tool-result" for r in run.records for ref in r.refusals)


def test_screen_driver_without_pins_loses_the_ids() -> None:
    scenario = screen_driver()
    run = scenario.run(scenario.strategies()["sliding-window"], keep_last_tool_results=0)
    whats_here = run.ledger.messages_of("tool-calls#3")[0]
    assert whats_here not in run.window_sent(len(run.calls) - 1)
    assert all(r.observations is None for r in run.records)
