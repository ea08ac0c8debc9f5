"""What a corpus overview shows, read from a corpus store: small frames, never every run.

Layer: lab. The lab specifies the tables a corpus store holds (``corpus_runs`` and the capture
frames with :data:`~footprint_lab.lab.schema.CORPUS_KEYS` in front, :mod:`.schema`), so it can
read them; it does not import :mod:`footprint_lab.corpus` (a layer above it): anything shaped
like a :class:`~footprint_lab.corpus.Corpus` (:class:`CorpusLike`: ``frame``, ``sql``,
``results``, ``runs``) will do. :func:`overview_frames` reads only the columns the overview
draws — one row per run of ``runs`` (a handful of columns), one row per source format of the
records (aggregated in DuckDB, the records never loaded), and a grid's result table when one
was written — so its cost grows with the number of runs, not with their size.

A run's **outcome** (:func:`outcome_of`) is the source's own verdict where it recorded one
(``reward``: ``passed`` when above 0, else ``failed``), otherwise how the run ended (its
``status``: ``done``, ``incomplete``, ``error``, ...).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.lab.schema import column, spec

__all__ = [
    "EVIDENCE_COLUMNS",
    "GRID_HOWTO",
    "RUNS_LISTED",
    "RUN_COLUMNS",
    "VIOLATION_PREFIX",
    "CorpusLike",
    "OverviewFrames",
    "grid_tables",
    "listed_runs",
    "outcome_of",
    "overview_frames",
]

RUNS_LISTED = 200
"""Runs an overview lists (the report gives each a page) unless told otherwise."""

VIOLATION_PREFIX = "violations_"
"""The prefix of the ``runs`` columns counting one kind of violation each."""

RUN_COLUMNS: tuple[str, ...] = (
    "run_id",
    "source_path",
    "format",
    "model",
    "label",
    "status",
    "reward",
    "strategy",
    "calls",
    "peak_window_chars",
)
"""The columns of the ``runs`` frame the overview reads (and the violation counts)."""

EVIDENCE_COLUMNS: frozenset[str] = frozenset(
    {"run", "config", "strategy", "dependent_calls", "lost_calls", "cost_ratio"}
)
"""The columns that make a result table an evidence grid the frontier can draw."""

GRID_HOWTO = (
    "No grid has been run over this corpus, so there is no cost/evidence frontier to draw. "
    "Run one and it is written back into the store, where this overview finds it: "
    "corpus.evidence_frame(evidence_grid(sliding_window, {'keep_recent_turns': [2, 4, 8], "
    "'keep_last_tool_results': [0, 2]})) (evidence_grid from footprint_lab.lab, "
    "sliding_window from footprint_lab.window.strategies)."
)
"""What the overview says in place of the frontier when the store holds no evidence grid."""


class CorpusLike(Protocol):
    """What the overview reads from a corpus (:class:`footprint_lab.corpus.Corpus` is one)."""

    @property
    def path(self) -> str:
        """The store's folder."""

    def frame(
        self, name: str, columns: Sequence[str] | None = None, where: Any = None
    ) -> pd.DataFrame:
        """One frame of the store (only ``columns``, only the rows ``where`` keeps)."""

    def sql(self, query: str) -> pd.DataFrame:
        """A DuckDB query over the store's frames and result tables."""

    def results(self) -> list[str]:
        """The result tables grids wrote back."""

    def runs(self, where: Any = None) -> Iterator[Run]:
        """The runs ``where`` keeps, lazily."""


@dataclass(frozen=True)
class OverviewFrames:
    """The frames a corpus overview draws."""

    runs: pd.DataFrame
    """One row per run: :data:`RUN_COLUMNS`, ``outcome`` and the ``violations_*`` counts."""
    observed: pd.DataFrame
    """One row per source format (every format of the corpus): ``runs``, ``observed_runs``
    (runs with observed records), ``records`` (observed records), ``removed_messages`` and
    ``chars_removed`` by the source's own policy."""
    violations: pd.DataFrame
    """One row per source format × violation kind with any: ``format``, ``kind``,
    ``violations`` (how many the source's own policy committed)."""
    findings: pd.DataFrame
    """One row per source format × judge rule with any (:func:`footprint_lab.judge`):
    ``format``, ``rule``, ``compactions`` (how many of the stack's compactions the rule names)
    and ``findings``."""
    grid: pd.DataFrame | None
    """The evidence grid's result table (None when no grid was run)."""
    grid_name: str | None
    """Its name in the store."""


def outcome_of(status: Any, reward: Any) -> str:
    """A run's outcome: ``passed``/``failed`` by its recorded reward, else its status."""
    if reward is not None and not pd.isna(reward):
        return "passed" if float(reward) > 0 else "failed"
    return "unknown" if status is None or pd.isna(status) else str(status)


def grid_tables(corpus: CorpusLike) -> list[str]:
    """The result tables of ``corpus`` that are evidence grids (``evidence`` first)."""
    found = []
    for name in corpus.results():
        columns = set(corpus.sql(f'select * from "{name}" limit 0').columns)
        if columns >= EVIDENCE_COLUMNS:
            found.append(name)
    return sorted(found, key=lambda n: (n != "evidence", n))


def _violation_kinds() -> list[str]:
    return [c for c in spec("corpus_runs").columns if c.startswith(VIOLATION_PREFIX)]


def overview_frames(corpus: CorpusLike, grid: str | None = None) -> OverviewFrames:
    """Read what the overview draws from ``corpus`` (see the module).

    Args:
        corpus: The corpus.
        grid: The result table to draw the frontier of (default: ``evidence`` when it is an
            evidence grid, else the first one that is; none when the store holds none).

    Raises:
        ValueError: ``grid`` names no evidence grid of the store (the message lists them).
    """
    kinds = _violation_kinds()
    runs = corpus.frame("runs", columns=[*RUN_COLUMNS, *kinds])
    runs.insert(
        len(RUN_COLUMNS),
        "outcome",
        column(
            [outcome_of(s, r) for s, r in zip(runs["status"], runs["reward"], strict=True)],
            "string",
        ),
    )
    formats = list(dict.fromkeys(runs["format"].astype(str).tolist()))
    observed = corpus.sql(
        "select r.format as format, count(distinct x.run_id) as observed_runs, "
        "count(*) as records, sum(x.removed_message_count) as removed_messages, "
        "sum(x.chars_removed) as chars_removed "
        "from records x join runs r on x.run_id = r.run_id "
        "where x.observed group by r.format"
    ).set_index("format")
    counts = runs.groupby("format", sort=False, observed=True).size()
    table = pd.DataFrame({"format": formats})
    table["runs"] = [int(counts.get(f, 0)) for f in formats]
    for name in ("observed_runs", "records", "removed_messages", "chars_removed"):
        got = observed[name] if name in observed.columns else pd.Series(dtype="Int64")
        table[name] = column([int(got.get(f, 0) or 0) for f in formats], "Int64")
    rows = []
    for fmt, part in runs.groupby("format", sort=False, observed=True):
        for kind in kinds:
            total = int(part[kind].fillna(0).sum())
            if total:
                rows.append((str(fmt), kind.removeprefix(VIOLATION_PREFIX), total))
    violations = pd.DataFrame(
        {
            "format": column([r[0] for r in rows], "string"),
            "kind": column([r[1] for r in rows], "string"),
            "violations": column([r[2] for r in rows], "Int64"),
        }
    )
    findings = corpus.sql(
        "select r.format as format, f.rule as rule, "
        "count(distinct f.run_id || ':' || cast(f.record as varchar)) as compactions, "
        "count(*) as findings from findings f join runs r on f.run_id = r.run_id "
        "group by r.format, f.rule order by r.format, f.rule"
    )
    findings = pd.DataFrame(
        {
            "format": column(findings["format"].astype(str).tolist(), "string"),
            "rule": column(findings["rule"].astype(str).tolist(), "string"),
            "compactions": column([int(v) for v in findings["compactions"]], "Int64"),
            "findings": column([int(v) for v in findings["findings"]], "Int64"),
        }
    )
    grids = grid_tables(corpus)
    if grid is not None and grid not in grids:
        raise ValueError(
            f"{corpus.path}: no evidence grid {grid!r} in the store; its evidence grids are "
            f"{grids} (corpus.evidence_frame(configs, name=...) writes one)"
        )
    chosen = grid if grid is not None else (grids[0] if grids else None)
    frame = None
    if chosen is not None:
        frame = corpus.frame(chosen)
    return OverviewFrames(
        runs=runs.reset_index(drop=True),
        observed=table,
        violations=violations,
        findings=findings,
        grid=frame,
        grid_name=chosen,
    )


def listed_runs(runs: pd.DataFrame, limit: int) -> pd.DataFrame:
    """At most ``limit`` rows of ``runs``, spread over the source formats: each format's first
    run, then each one's second, ... (store order within a format)."""
    if limit < 0:
        raise ValueError(f"max_runs must be 0 or more, got {limit}")
    rank = runs.groupby("format", sort=False, observed=True).cumcount()
    order = rank.sort_values(kind="stable").index
    return runs.loc[order[:limit]].sort_index()
