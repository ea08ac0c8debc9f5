"""Hypothesis properties of the overview's charts: every run is counted once, in its own
category (the rare ones folded into one ``other`` bar) and in one bin of each histogram."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab.lab import plots
from footprint_lab.lab.plots.corpus_runs import CATEGORIES_SHOWN

_RUNS = st.lists(
    st.tuples(
        st.integers(0, 40),  # the model: up to 41, beyond the bars shown
        st.sampled_from(["passed", "failed", "done", "incomplete", "error"]),
        st.integers(0, 300),  # calls
        st.integers(0, 2_000_000),  # peak window chars
        st.sampled_from(["tau-bench", "inspect", "swe-agent"]),
    ),
    max_size=120,
)


def _frame(rows: list[tuple[int, str, int, int, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": pd.array([f"m{r[0]}" for r in rows], dtype="string"),
            "outcome": pd.array([r[1] for r in rows], dtype="string"),
            "calls": pd.array([r[2] for r in rows], dtype="Int64"),
            "peak_window_chars": pd.array([r[3] for r in rows], dtype="Int64"),
            "format": pd.array([r[4] for r in rows], dtype="string"),
        }
    )


@settings(max_examples=60, deadline=None)
@given(_RUNS)
def test_every_run_is_in_one_bar_of_its_category(
    rows: list[tuple[int, str, int, int, str]],
) -> None:
    runs = _frame(rows)
    fig = plots.runs_by(runs, "model")
    categories = fig.layout.meta["categories"]
    totals = runs["model"].value_counts()
    assert len(categories) <= CATEGORIES_SHOWN + 1
    counted = {
        c: sum(dict(zip(t.y, t.x, strict=True)).get(c, 0) for t in fig.data) for c in categories
    }
    assert sum(counted.values()) == len(runs)
    named = [c for c in categories if not c.startswith("other (")]
    for c in named:
        assert counted[c] == totals[c]
    # the bars shown are the categories with the most runs
    if len(totals) > CATEGORIES_SHOWN:
        assert min(totals[c] for c in named) >= max(
            totals[c] for c in totals.index if c not in named
        )


@settings(max_examples=60, deadline=None)
@given(_RUNS)
def test_every_run_is_in_one_bin_of_each_histogram(
    rows: list[tuple[int, str, int, int, str]],
) -> None:
    runs = _frame(rows)
    fig = plots.run_distributions(runs)
    for axis, column in (("x", "peak_window_chars"), ("x2", "calls")):
        edges = np.asarray(fig.layout.meta["edges"][column])
        assert np.all(np.diff(edges) > 0)
        bars = [t for t in fig.data if t.xaxis == axis]
        assert sum(sum(t.y) for t in bars) == len(runs)
        for trace in bars:
            mine = runs.loc[runs["format"] == trace.name, column].astype("float64").to_numpy()
            assert list(trace.y) == np.histogram(mine, bins=edges)[0].tolist()
