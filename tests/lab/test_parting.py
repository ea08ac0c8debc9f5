"""Where runs part (#26 item 2): ``Compare(original, fork)`` says the first iteration whose
window differs and the first whose reply differs; and (#26 item 8) a Compare of two replays of
one run shows their shared counterfactual banner once."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from footprint_lab import (
    Reply,
    Run,
    ScriptedProvider,
    fork,
    lab,
    replay,
    sliding_window,
    token_budget,
)
from footprint_lab.lab import Compare
from footprint_lab.lab.parting import parting, parting_frame, parting_words
from footprint_lab.lab.schema import spec
from footprint_lab.scenarios import deploy_audit, parallel_tools
from tests.chromium import launched_chromium


@pytest.fixture(scope="module")
def original() -> Run:
    return deploy_audit().run()


def _fork(original: Run, at: int, replies: list[Reply]) -> Run:
    return fork(original, at=at, strategy=sliding_window(2), provider=ScriptedProvider(replies))


def test_a_fork_parts_where_it_forked_windows_and_replies(original: Run) -> None:
    forked = _fork(original, 4, [Reply.text("asked again: d4")])
    found = parting(original, forked)
    assert found.windows_part_at == 4  # sliding_window(2) had dropped the oldest turns by 4
    assert found.replies_part_at == 4
    assert found.shared_iterations == 4
    assert found.chars == (original.calls[3].chars, forked.calls[3].chars)
    assert found.chars[1] < found.chars[0]


def test_a_fork_that_says_what_the_original_said_parts_only_in_its_window(original: Run) -> None:
    # the original's own replies from iteration 5 on: the windows part at 5, the replies never
    rest = [Reply.tool_call("read_log", deployment=d) for d in ("d5", "d6")]
    rest.append(Reply.text(original.output or ""))
    forked = _fork(original, 5, rest)
    found = parting(original, forked)
    assert (found.windows_part_at, found.replies_part_at) == (5, None)
    # no strategy and the same replies: never part at all
    same = fork(original, at=5, strategy=None, provider=ScriptedProvider(rest))
    assert parting(original, same) == parting(original, original)
    assert parting(original, same).windows_part_at is None


def test_runs_of_different_lengths_part_where_one_stops(original: Run) -> None:
    shorter = _fork(original, 2, [Reply.text("stop early")])
    found = parting(original, shorter)
    assert found.replies_part_at == 2
    strategies = parallel_tools()
    a, b = strategies.run(), strategies.run(token_budget(threshold_tokens=300))
    assert parting(a, b).replies_part_at is None  # scripted replies never depend on the window


def test_the_parting_frame_holds_to_its_spec_and_reads_as_a_sentence(original: Run) -> None:
    forked = _fork(original, 4, [Reply.text("asked again")])
    frame = parting_frame({"original": original, "fork": forked, "replay": replay(original, None)})
    assert list(frame.columns) == list(spec("parting").columns)
    for name, column in spec("parting").columns.items():
        assert frame[name].dtype == column.dtype, name
    assert frame["run"].tolist() == ["fork", "replay"]
    assert frame["fork_at"].tolist() == [4, pd.NA]
    assert frame["windows_part_at"].tolist() == [4, pd.NA]
    rows = frame.to_dict("records")
    assert parting_words(rows[0]) == (
        "fork (forked at iteration 4) parts from original: the windows at iteration 4 "
        f"({original.calls[3].chars:,} → {forked.calls[3].chars:,} chars sent), the replies at "
        "iteration 4"
    )
    assert parting_words(rows[1]) == (
        "replay and original never part: the same windows and the same replies over all 7 "
        "iterations"
    )
    assert parting_frame({"only": original}).empty
    assert lab.parting_frame is parting_frame


def test_compare_original_and_fork_shows_where_they_part(original: Run) -> None:
    forked = _fork(original, 4, [Reply.text("asked again")])
    compare = Compare(original, forked)
    assert list(compare.runs) == ["none", "sliding-window (fork at 4)"]
    assert compare.parting_html in compare.children
    text = compare.parting_html.value
    assert "Where they part" in text
    assert "sliding-window (fork at 4) parts from none: the windows at iteration 4" in text
    assert "the replies at iteration 4" in text
    # one run: nothing to part from, the pane is empty
    assert Compare(original).parting_html.value.strip() == ""
    assert list(Compare([original, forked]).runs) == list(compare.runs)
    with pytest.raises(TypeError, match="one by one"):
        Compare([original], forked)


def test_two_replays_of_one_run_show_their_banner_once(original: Run) -> None:
    replays = {
        "sliding": replay(original, sliding_window(2)),
        "budget": replay(original, token_budget(threshold_tokens=900)),
    }
    assert Compare(replays).header.value.count("Counterfactual replay") == 1
    other = parallel_tools().run()
    other.meta["scenario"] = "parallel-tools"
    mixed = Compare({**replays, "other": replay(other, sliding_window(2))})
    assert mixed.header.value.count("Counterfactual replay") == 2  # two sources, two banners


def test_the_parting_line_and_one_banner_are_visible_in_chromium(
    original: Run, tmp_path: Path
) -> None:
    forked = _fork(original, 4, [Reply.text("asked again")])
    compare = Compare(
        {"original": replay(original, None), "again": replay(original, None), "fork": forked}
    )
    page_html = tmp_path / "compare.html"
    page_html.write_text(
        f"<!doctype html><meta charset='utf-8'><body>{compare.header.value}"
        f"{compare.parting_html.value}</body>",
        encoding="utf-8",
    )
    with launched_chromium() as browser:
        page = browser.new_page()
        page.goto(page_html.resolve().as_uri())
        assert page.locator(".counterfactual").count() == 1
        assert page.locator(".counterfactual").is_visible()
        lines = page.locator(".parting p")
        assert lines.count() == 2 and lines.first.is_visible()
        assert (
            lines.nth(1)
            .inner_text()
            .startswith(
                "fork (forked at iteration 4) parts from original: the windows at iteration 4"
            )
        )


def test_call_ids_do_not_make_runs_part(original: Run) -> None:
    scenario = deploy_audit()
    provider = scenario.provider()
    provider.restore_state({"calls": 0, "call_ids": 100})  # mints call_101, call_102, ...
    renamed = scenario.run(provider=provider)
    assert renamed.ledger.messages[1].tool_calls[0].id == "call_101"
    assert parting(original, renamed) == parting(original, original)
