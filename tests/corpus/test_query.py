"""Querying a corpus: frames with columns and filters pushed to the scan, DuckDB SQL over the
datasets, and runs read lazily, one at a time, usable wherever a run is."""

from __future__ import annotations

import types

import pandas as pd
import pyarrow.dataset as ds
import pytest

from footprint_lab import replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.corpus import FRAMES, Corpus
from footprint_lab.corpus.store import Store
from footprint_lab.lab import capture
from footprint_lab.lab.schema import spec


def test_columns_reads_only_those_columns_in_the_specs_dtypes(real_corpus: Corpus) -> None:
    calls = real_corpus.frame("calls", columns=["run_id", "input_tokens", "prefix_share"])
    assert list(calls.columns) == ["run_id", "input_tokens", "prefix_share"]
    assert calls["input_tokens"].dtype == spec("calls").columns["input_tokens"].dtype
    assert calls["run_id"].dtype == "string"
    whole = real_corpus.frame("calls")
    pd.testing.assert_frame_equal(calls, whole[list(calls.columns)], check_exact=True)
    with pytest.raises(KeyError, match="has no column"):
        real_corpus.frame("calls", columns=["nope"])
    with pytest.raises(KeyError, match="frames are runs, calls"):
        real_corpus.frame("membership")


@pytest.mark.parametrize(
    "where",
    [
        {"format": "swe-agent"},
        {"format": ["swe-agent", "inspect"]},
        [("format", "=", "swe-agent")],
        [("calls", ">", 5), ("format", "!=", "tau-bench")],
        ds.field("format") == "swe-agent",
    ],
    ids=["equal", "isin", "filters", "two-filters", "expression"],
)
def test_where_filters_the_rows_as_pandas_would(real_corpus: Corpus, where: object) -> None:
    whole = real_corpus.frame("runs")
    got = real_corpus.frame("runs", where=where)  # type: ignore[arg-type]
    if isinstance(where, dict):
        keep = pd.Series(True, index=whole.index)
        for column, value in where.items():
            values = value if isinstance(value, list) else [value]
            keep &= whole[column].isin(values)
    elif isinstance(where, list) and len(where) == 2:
        keep = (whole["calls"] > 5) & (whole["format"] != "tau-bench")
    else:
        keep = whole["format"] == "swe-agent"
    expected = whole[keep.fillna(False).astype(bool)].reset_index(drop=True)
    assert 0 < len(got) < len(whole)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_a_filter_on_a_column_not_read_is_applied_in_the_scan(real_corpus: Corpus) -> None:
    ids = real_corpus.frame("runs", columns=["run_id"], where={"format": "claude-code"})
    assert list(ids.columns) == ["run_id"] and len(ids) == 4
    calls = real_corpus.frame("calls", columns=["call"], where={"run_id": ids["run_id"].tolist()})
    whole = real_corpus.frame("calls")
    assert len(calls) == whole["run_id"].isin(ids["run_id"]).sum() > 0


def test_sql_runs_duckdb_over_every_frame(real_corpus: Corpus) -> None:
    by_format = real_corpus.sql(
        "select format, count(*) as runs, sum(calls) as calls from runs group by format "
        "order by format"
    )
    runs = real_corpus.frame("runs")
    expected = runs.groupby("format").agg(runs=("run_id", "size"), calls=("calls", "sum"))
    assert by_format["format"].tolist() == expected.index.tolist()
    assert by_format["runs"].tolist() == expected["runs"].tolist()
    assert by_format["calls"].tolist() == expected["calls"].tolist()
    joined = real_corpus.sql(
        "select r.format, coalesce(sum(c.input_tokens), 0) as tokens from calls c join runs r "
        "using (run_id) "
        "group by r.format order by r.format"
    )
    calls = real_corpus.frame("calls").merge(runs[["run_id", "format"]], on="run_id")
    tokens = calls.groupby("format")["input_tokens"].sum()
    assert joined.set_index("format")["tokens"].astype("Int64").to_dict() == tokens.to_dict()
    for name in FRAMES:
        counted = real_corpus.sql(f"select count(*) as n from {name}")["n"].iloc[0]
        assert counted == len(real_corpus.frame(name)), name


def test_sql_over_an_empty_frame_has_its_columns(real_corpus: Corpus) -> None:
    refusals = real_corpus.sql("select * from refusals limit 0")
    assert list(refusals.columns) == list(real_corpus.frame("refusals").columns)


def test_runs_is_a_generator_that_reads_one_run_at_a_time(
    real_corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Store.read_run
    read: list[str] = []

    def counting(self: Store, run_id: str) -> object:
        read.append(run_id)
        return real(self, run_id)

    monkeypatch.setattr(Store, "read_run", counting)
    runs = real_corpus.runs(where={"format": "swe-agent"})
    assert isinstance(runs, types.GeneratorType) and read == []
    first = next(runs)
    assert len(read) == 1 and first.origin.format == "swe-agent"
    rest = list(runs)
    assert len(read) == 1 + len(rest) == 10


def test_a_corpus_run_replays_as_the_run_the_importer_gives(
    real_corpus: Corpus, real_runs: dict[str, Run]
) -> None:
    for run in real_corpus.runs(where=[("format", "=", "swe-agent"), ("calls", "<", 20)]):
        [run_id] = [k for k, r in real_runs.items() if r.meta == run.meta]
        mine = capture(replay(run, sliding_window(2)))
        theirs = capture(replay(real_runs[run_id], sliding_window(2)))
        for name in ("records", "calls", "refusals"):
            pd.testing.assert_frame_equal(mine[name], theirs[name], check_exact=True)
        assert len(mine.records) > 0


def test_reopening_a_store_reads_the_same_corpus(real_corpus: Corpus) -> None:
    again = Corpus.open(real_corpus.path)
    assert again.last_build is None and len(again) == len(real_corpus)
    pd.testing.assert_frame_equal(again.frame("runs"), real_corpus.frame("runs"))
    assert repr(again).startswith(f"<Corpus {real_corpus.path}:")
