"""The Tuner's live readouts for the current setting: estimated input cost against no policy,
the share a prefix cache could reuse, dependent calls whose evidence was lost, messages
removed — one row per run (the Tuner's ``summary`` frame) and their totals.

Layer: lab (private, for :mod:`footprint_lab.lab.widgets.tuner`). Nothing is computed twice or
a second way: costs are :func:`~footprint_lab.lab.costs.cost_frame`'s rows of the frames the
charts draw (priced against the same rows of the runs with no window management), lost
evidence is :func:`~footprint_lab.evidence.losses` of each run, the records in words are
:func:`~footprint_lab.lab.views.record_sentence`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.evidence import (
    Dependency,
    SentWindows,
    calls_of,
    dependencies,
    losses,
    transcript,
)
from footprint_lab.lab.costs import cost_frame
from footprint_lab.lab.frames import Frames
from footprint_lab.lab.schema import build_frame, spec
from footprint_lab.lab.views import record_sentence
from footprint_lab.pricing import CacheRule, Pricing

__all__ = [
    "TUNER_COLUMNS",
    "Dependencies",
    "Readouts",
    "input_costs",
    "readouts_of",
    "record_words",
]

TUNER_COLUMNS: tuple[str, ...] = tuple(spec("tuner").columns)
"""The columns of ``Tuner.summary`` (the ``tuner`` spec, without the knob columns)."""

_INPUT_PARTS = ("input_cost", "cached_input_cost", "cache_write_cost")
"""The parts of a cost row that price the input (output is not a window's doing)."""


def input_costs(
    frames: Sequence[Frames], pricing: Pricing | Mapping[str, Pricing] | None, cache: CacheRule
) -> list[tuple[float, int, int]]:
    """``(input cost, request chars, prefix chars)`` of each capture, in order, from one
    :func:`~footprint_lab.lab.costs.cost_frame` call (one cache rule for all)."""
    if not frames:
        return []
    rows = cost_frame(list(frames), pricing, cache=cache)
    out: list[tuple[float, int, int]] = []
    start = 0
    for f in frames:
        # cost_frame writes each capture's rows together, in the order given
        part = rows.iloc[start : start + len(f.calls)]
        start += len(f.calls)
        out.append(
            (
                float(part[list(_INPUT_PARTS)].to_numpy(dtype=float).sum()),
                int(part["request_chars"].sum()),
                int(part["prefix_chars"].sum()),
            )
        )
    return out


@dataclass(frozen=True)
class Readouts:
    """The readouts of one setting, summed over the runs."""

    input_cost: float
    """Estimated input cost of every call (the prefix cache counted, as ``cache=`` says)."""
    baseline_input_cost: float
    """The same with no window management."""
    request_chars: int
    """Characters of every request sent."""
    prefix_chars: int
    """Their common prefixes with the previous request."""
    dependent_calls: int
    """Tool calls that took an argument from earlier tool evidence."""
    lost_calls: int
    """Dependent calls produced from a window without that evidence."""
    removed_messages: int
    """Messages the records removed."""
    records: int
    """Window records filed."""
    calls: int
    """LLM calls made (or replayed)."""

    @property
    def cost_ratio(self) -> float | None:
        """``input_cost / baseline_input_cost`` (None when the baseline costs nothing)."""
        return self.input_cost / self.baseline_input_cost if self.baseline_input_cost else None

    @property
    def cache_share(self) -> float | None:
        """``prefix_chars / request_chars``: what a provider's prefix cache could reuse."""
        return self.prefix_chars / self.request_chars if self.request_chars else None


def _shape(run: Run) -> list[tuple[Any, ...]]:
    """What a run's dependencies are computed from: its transcript's roles, stage ids, texts
    and tool calls, message by message."""
    return [
        (m.role, m.stage_id, m.content, [(c.id, c.name, c.arguments) for c in m.tool_calls])
        for m in transcript(run)
    ]


class Dependencies:
    """Each run's :func:`~footprint_lab.evidence.dependencies`, kept while its transcript stays
    the same. Every replay of one run under another setting has the same transcript (the
    window stages are not part of it), and finding the dependencies indexes all of its text —
    most of a readout's cost on a long run — so they are found once and reused while the
    transcript (roles, stage ids, texts, tool calls) is equal to the one they were found in."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[list[tuple[Any, ...]], list[Dependency]]] = {}

    def of(self, label: str, run: Run) -> list[Dependency]:
        """The dependencies of ``run`` (the run labelled ``label``)."""
        shape = _shape(run)
        kept = self._kept.get(label)
        if kept is not None and kept[0] == shape:
            return kept[1]
        deps = dependencies(run)
        self._kept[label] = (shape, deps)
        return deps


def _lost(run: Run, deps: list[Dependency]) -> tuple[int, int]:
    """``(dependent calls, calls whose evidence was lost)`` of one run."""
    if not deps:
        return 0, 0
    lost = losses(run, deps, windows=SentWindows(run))
    return calls_of(deps), calls_of(lost)


def readouts_of(
    runs: Mapping[str, Run],
    frames: Sequence[Frames],
    baseline_costs: Sequence[tuple[float, int, int]],
    *,
    pricing: Pricing | Mapping[str, Pricing] | None,
    cache: CacheRule,
    strategy: str,
    knobs: Mapping[str, Any],
    pins: int,
    found: Dependencies | None = None,
) -> tuple[Readouts, pd.DataFrame]:
    """The readouts of one setting: their totals and the ``tuner`` frame (a row per run).

    Args:
        runs: The runs under the setting, by label (in the order of ``frames``).
        frames: Their captures.
        baseline_costs: :func:`input_costs` of the runs with no window management, in order.
        pricing: Prices (None: the built-in table by each run's model).
        cache: The cache rule both costs are priced on.
        strategy: The strategy's name.
        knobs: The setting's strategy knobs.
        pins: Its pin limit.
        found: The dependencies found so far (kept across settings); None finds them anew.
    """
    found = Dependencies() if found is None else found
    costs = input_costs(frames, pricing, cache)
    cols: dict[str, list[Any]] = {name: [] for name in TUNER_COLUMNS}
    knob_cols: dict[str, list[Any]] = {k: [] for k in knobs}
    for (label, run), cost, base in zip(runs.items(), costs, baseline_costs, strict=True):
        dependent, lost = _lost(run, found.of(label, run))
        cols["run"].append(label)
        cols["strategy"].append(strategy)
        cols["keep_last_tool_results"].append(pins)
        cols["calls"].append(len(run.calls))
        cols["records"].append(len(run.records))
        cols["removed_messages"].append(sum(r.removed_message_count for r in run.records))
        cols["input_cost"].append(cost[0])
        cols["baseline_input_cost"].append(base[0])
        cols["cost_ratio"].append(cost[0] / base[0] if base[0] else None)
        cols["request_chars"].append(cost[1])
        cols["prefix_chars"].append(cost[2])
        cols["cache_share"].append(cost[2] / cost[1] if cost[1] else None)
        cols["dependent_calls"].append(dependent)
        cols["lost_calls"].append(lost)
        for k, v in knobs.items():
            knob_cols[k].append(v)
    frame = build_frame("tuner", cols, knobs=knob_cols)
    totals = Readouts(
        input_cost=float(sum(cols["input_cost"])),
        baseline_input_cost=float(sum(cols["baseline_input_cost"])),
        request_chars=sum(cols["request_chars"]),
        prefix_chars=sum(cols["prefix_chars"]),
        dependent_calls=sum(cols["dependent_calls"]),
        lost_calls=sum(cols["lost_calls"]),
        removed_messages=sum(cols["removed_messages"]),
        records=sum(cols["records"]),
        calls=sum(cols["calls"]),
    )
    return totals, frame


def record_words(runs: Mapping[str, Run]) -> list[str]:
    """Every record of the runs in words (:func:`~footprint_lab.lab.views.record_sentence`),
    each run's prefixed by its label when there are several."""
    several = len(runs) > 1
    return [
        f"{label}, {record_sentence(record)}" if several else record_sentence(record)
        for label, run in runs.items()
        for record in run.records
    ]
