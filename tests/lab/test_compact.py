"""Records tables say long lists briefly: a repeated reason once with its count and its turns as
ranges, repeated tool names once with their count, a long id list as its first ids and how many
more — in the widgets' records table and the report's alike (one helper,
``lab/_compact.py``, through ``views.records_view``), each shortened cell keeping the whole list
as its tooltip, and the CSV download keeping every item."""

from __future__ import annotations

import base64
import html as html_lib
import itertools
import re

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import Run
from footprint_lab.lab import capture
from footprint_lab.lab._compact import (
    ID_LIST_SHOWN,
    Abridged,
    compact_records,
    counted,
    id_list,
    number_ranges,
    split_list,
)
from footprint_lab.lab.report import render_report
from footprint_lab.lab.views import RECORD_TABLE_COLUMNS, records_view
from footprint_lab.lab.widgets._html import records_html
from footprint_lab.scenarios import SCENARIOS


def _expand(ranges: str) -> list[int]:
    """The numbers ``number_ranges`` wrote, read back."""
    out: list[int] = []
    for span in filter(None, ranges.split(", ")):
        lo, _, hi = span.partition("–")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def test_number_ranges() -> None:
    assert number_ranges([1, 2, 3, 5, 7, 8]) == "1–3, 5, 7–8"
    assert number_ranges([4]) == "4"
    assert number_ranges([]) == ""
    assert number_ranges([9, 3, 3, 2]) == "2–3, 9"


@given(st.lists(st.integers(min_value=0, max_value=60), max_size=40))
def test_number_ranges_say_exactly_the_numbers(numbers: list[int]) -> None:
    said = number_ranges(numbers)
    assert _expand(said) == sorted(set(numbers))
    # no two spans touch: a range is as long as it can be
    spans = [_expand(s) for s in filter(None, said.split(", "))]
    for left, right in itertools.pairwise(spans):
        assert right[0] > left[-1] + 1


def test_counted_keeps_first_appearance_order_with_counts_and_turns() -> None:
    assert counted(["a", "b", "b", "a", "c"]) == "a × 2, b × 2, c"
    assert counted([]) == ""
    words = ["current-request", *["inside-keep-window"] * 3]
    turns = {"current-request": [0], "inside-keep-window": [3, 1, 2]}
    assert counted(words, turns) == "current-request (turn 0), inside-keep-window × 3 (turns 1–3)"


@given(st.lists(st.sampled_from(["x", "y", "z-z"]), max_size=30))
def test_counted_loses_no_item(items: list[str]) -> None:
    said = counted(items)
    total = 0
    for part in filter(None, said.split(", ")):
        name, _, times = part.partition(" × ")
        assert name in items
        total += int(times or 1)
    assert total == len(items)


def test_id_list_shows_the_first_ids_and_counts_the_rest() -> None:
    short = [f"call#{i}" for i in range(ID_LIST_SHOWN)]
    assert id_list(short) == ", ".join(short)
    long = [f"call#{i}" for i in range(20)]
    said = id_list(long)
    assert said.startswith("call#0, call#1") and said.endswith(f"and {20 - ID_LIST_SHOWN + 1} more")
    assert "call#19" not in said
    assert split_list("") == [] and split_list(None) == [] and split_list("a, b") == ["a", "b"]


def test_abridged_is_its_short_text_and_keeps_the_whole() -> None:
    cell = Abridged("a × 2", "a, a")
    assert cell == "a × 2" and isinstance(cell, str) and cell.full == "a, a"


def _long_session() -> Run:
    scenario = SCENARIOS["long-session"]()
    return scenario.run(scenario.strategies()["summarize-oldest"])


def test_compact_records_of_a_real_run_keeps_every_item() -> None:
    frames = capture(_long_session())
    raw = records_view(frames, compact=False)
    short = records_view(frames)
    assert list(short.columns) == list(raw.columns) == list(RECORD_TABLE_COLUMNS)
    shortened = 0
    for column in ("refusal_reasons", "removed_stage_ids", "pinned_tools"):
        for said, whole in zip(short[column], raw[column], strict=True):
            if isinstance(said, Abridged):
                shortened += 1
                assert said.full == whole and len(said) < len(whole)
            else:
                assert said == whole or (pd.isna(said) and pd.isna(whole))
    assert shortened > len(frames.records)  # reasons repeat on every visit, ids are long
    # the counts agree with the refusals frame: a reason × n means n refused turns
    for (_, record), said in zip(frames.records.iterrows(), short["refusal_reasons"], strict=True):
        refused = frames.refusals[frames.refusals["record"] == record["record"]]
        counts = refused["reason"].value_counts().to_dict()
        for part in re.findall(r"([a-z-]+)(?: × (\d+))? \(turns? [^)]*\)", str(said)):
            assert counts[part[0]] == int(part[1] or 1)
    other = compact_records(frames.records, frames.refusals.iloc[0:0], ["refusal_reasons"])
    assert "(turn" not in "".join(map(str, other["refusal_reasons"]))  # no refusals: no turns


def test_widget_and_report_records_tables_say_lists_briefly() -> None:
    run = _long_session()
    frames = capture(run, label="summarize-oldest")
    widget = records_html(frames)
    page = render_report({"long-session": {"summarize-oldest": run}}).html
    report = page[page.index('<table class="dataframe records">') :]
    report = report[: report.index("</table>")]
    first = frames.records.iloc[0]
    whole = html_lib.escape(str(first["refusal_reasons"]), quote=True)
    for table in (widget, report):
        assert "inside-keep-window × 8 (turns " in table
        assert f'title="{whole}"' in table  # the whole list is the cell's tooltip
        assert " more</td>" in table  # a long id list
        assert "inside-keep-window, inside-keep-window" not in re.sub(r'title="[^"]*"', "", table)
    # the widget's CSV download holds every item, uncut
    (href,) = re.findall(r'href="data:text/csv;charset=utf-8;base64,([^"]+)"', widget)
    csv = base64.b64decode(href).decode("utf-8")
    assert csv == records_view(frames, compact=False).to_csv(index=False)
