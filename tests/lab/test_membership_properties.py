"""Property: for any scenario, strategy and knobs, the frames agree with the run.

In particular a message marked dropped/folded at iteration k is absent from the window sent at
k, every message sent at k has an in-window state, the current request is never dropped, and
pins/refusals in ``membership`` are exactly those the record of iteration k names.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import sliding_window, summarize_oldest, token_budget
from footprint_lab.lab import capture
from footprint_lab.scenarios import SCENARIOS, extractive_summarizer
from tests.lab.invariants import check_all

SMALL_SCENARIOS = sorted(n for n in SCENARIOS if n != "long-session")


def _strategy(kind: str, keep: int, threshold: int) -> Any:
    if kind == "sliding-window":
        return sliding_window(keep_recent_turns=keep)
    if kind == "token-budget":
        return token_budget(threshold_tokens=threshold, keep_recent_turns=keep)
    if kind == "summarize-oldest":
        return summarize_oldest(
            threshold_tokens=threshold, summarizer=extractive_summarizer, keep_recent_turns=keep
        )
    return None


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    scenario=st.sampled_from(SMALL_SCENARIOS),
    kind=st.sampled_from(["none", "sliding-window", "token-budget", "summarize-oldest"]),
    keep=st.integers(min_value=1, max_value=4),
    threshold=st.integers(min_value=100, max_value=2_500),
    pins=st.integers(min_value=0, max_value=3),
    mode=st.sampled_from(["full", "window"]),
)
def test_frames_agree_with_the_run(
    scenario: str, kind: str, keep: int, threshold: int, pins: int, mode: str
) -> None:
    story = SCENARIOS[scenario]()
    run = story.run(_strategy(kind, keep, threshold), keep_last_tool_results=pins)
    frames = capture(run, membership=mode)  # type: ignore[arg-type]
    assert frames.membership_mode == mode
    check_all(run, frames)
