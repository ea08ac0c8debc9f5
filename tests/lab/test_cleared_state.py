"""A cleared tool result in the lab: its own state in every frame and on the window map."""

from __future__ import annotations

from footprint_lab import clear_tool_results, replay
from footprint_lab.importers import from_openai
from footprint_lab.lab import capture, plots
from footprint_lab.lab.schema import IN_WINDOW_STATES
from tests.builders import EVIDENCE_TRANSCRIPT


def test_cleared_results_are_cleared_and_their_placeholders_are_in_the_window() -> None:
    run = replay(
        from_openai(EVIDENCE_TRANSCRIPT),
        clear_tool_results(keep_recent_turns=1, keep_results=0),
        keep_last_tool_results=0,
    )
    frames = capture(run)
    cleared = {sid for r in run.records for sid in r.cleared_stage_ids}
    assert cleared
    ev = frames.evictions
    assert set(ev["how"]) == {"cleared"}
    assert set(ev["stage_id"]) == cleared
    left = frames.messages.set_index("stage_id")["left"]
    assert all(left[sid] == "cleared" for sid in cleared)
    states = frames.membership["state"].astype(str)
    assert "placeholder" in set(states) and "cleared" in set(states)
    assert "placeholder" in IN_WINDOW_STATES and "cleared" not in IN_WINDOW_STATES
    rows = frames.membership[states == "cleared"]
    assert not rows["in_window"].any()
    assert frames.records["cleared_stage_ids"].str.len().gt(0).any()
    fig = plots.window_map(frames)
    assert fig.data  # the map draws the new states with their own colours
