"""Evidence on many runs: what each window configuration costs in lost tool evidence, as a
DataFrame (one row per run × configuration) and a per-configuration aggregate.

Layer: lab (on top of ``replay`` and :mod:`footprint_lab.evidence`, which stays pure). Every
configuration replays every run (:func:`footprint_lab.replay`) and measures
:func:`footprint_lab.evidence.losses` on the replay — how many dependent tool calls were
produced from a window that no longer held the tool result their arguments came from — next to
what the configuration saved in characters sent, and what it sent that a provider would reject
(:func:`footprint_lab.evidence.wire_problems`) or that held no current request.

A configuration is an :class:`EvidenceConfig`, or a dict with the same keys: ``label``,
``strategy`` (a strategy, an audited policy, or None for no window management) *or*
``factory`` (called with the knobs), ``keep_last_tool_results`` (the pin limit, default 2);
every other key is a knob, reported in its own column. :func:`evidence_grid` builds the
cartesian product of a factory's knobs (``keep_last_tool_results`` included), so a grid plus a
few audited peers is one list::

    configs = [
        *evidence_grid(sliding_window, {"keep_recent_turns": range(1, 9),
                                        "keep_last_tool_results": [0, 2]}),
        {"label": "keep-last-6 (audited)", "strategy": audit(keep_last_messages(6)), "n": 6},
    ]
    frame = evidence_frame(runs, configs)
    summary = evidence_summary(frame)

Results are deterministic: rows come in configuration order, then run order, whatever the
executor. By default the work runs inline — replaying 50 real runs under 16 configurations
takes about a second, less than a process pool needs to start — and any
``concurrent.futures.Executor`` runs one job per configuration instead (runs are shipped as
checkpoints, configurations with cloudpickle): both go through the one grid runner,
:func:`footprint_lab.lab.experiments.run_jobs`, as :func:`footprint_lab.sweep` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np
import pandas as pd

from footprint_lab._gc import in_bulk_work
from footprint_lab.agent.replay import ReplaySource
from footprint_lab.agent.run import Run
from footprint_lab.evidence import DEFAULT_MIN_CHARS, transcript_facts
from footprint_lab.lab._evidence_configs import NO_POLICY as NO_POLICY
from footprint_lab.lab._evidence_configs import PIN_KEY as PIN_KEY
from footprint_lab.lab._evidence_configs import EvidenceConfig as EvidenceConfig
from footprint_lab.lab._evidence_configs import evidence_grid as evidence_grid
from footprint_lab.lab._evidence_configs import no_policy as no_policy
from footprint_lab.lab._evidence_rows import (
    RELATIVE_PRICING,
    job,
    labelled_runs,
    measure_config,
    run_facts,
)
from footprint_lab.lab._evidence_rows import (
    baseline_window_chars as baseline_window_chars,
)
from footprint_lab.lab._evidence_rows import measure as measure
from footprint_lab.lab.experiments import run_jobs
from footprint_lab.lab.schema import build_frame, knobs_of, spec
from footprint_lab.pricing import CacheRule, Pricing, check_cache

__all__ = [
    "EVIDENCE_COLUMNS",
    "EVIDENCE_SUMMARY_COLUMNS",
    "SUMMARY_COLUMNS",
    "EvidenceConfig",
    "evidence_frame",
    "evidence_frame_of",
    "evidence_grid",
    "evidence_setup",
    "evidence_summary",
    "measure",
    "no_policy",
    "pareto_front",
    "run_facts",
]

EVIDENCE_COLUMNS: dict[str, str] = spec("evidence").dtypes()
"""The columns of :func:`evidence_frame` and their dtypes, from its spec
(:func:`footprint_lab.lab.schema.spec` ``("evidence")``; knob columns sit between ``strategy``
and ``keep_last_tool_results`` and are named in ``frame.attrs["knobs"]``; ``task_id`` is
``string`` when some id is not an integer):

* ``run`` — the run's label (``meta['label']``, else its key or index); ``task_id``, ``trial``,
  ``reward`` — from ``run.meta`` (<NA> when absent);
* ``config`` — the configuration's label; ``strategy`` — the strategy's name ('none' without
  one); the knobs; ``keep_last_tool_results`` — the pin limit replayed with;
* ``tool_calls`` — tool calls in the run's transcript; ``dependent_calls`` — calls that took an
  argument from earlier tool evidence (:func:`~footprint_lab.evidence.dependencies`);
  ``lost_calls`` — dependent calls produced from a window without that evidence
  (:func:`~footprint_lab.evidence.losses`, counted by call); ``lost_values`` — (call, value)
  pairs lost; ``kept_by_summary`` — lost calls whose every lost value a compaction frame in that
  window still stated;
* ``windows`` — calls replayed; ``mean_window_chars`` / ``peak_window_chars`` /
  ``window_chars`` — characters sent per call (mean, max, sum); ``baseline_window_chars`` — the
  sum with no window management; ``chars_saved`` — baseline minus ``window_chars``;
* ``wire_violations`` — windows sent that a provider would reject
  (:func:`~footprint_lab.evidence.wire_problems` non-empty); ``request_lost`` — windows sent
  with no current request; ``violations`` — rules an audited policy broke (its records'
  ``violations``); ``removed_messages`` — messages its records removed;
* the cache lens and the price, estimated (no provider reported the counterfactual windows'
  tokens): ``request_chars`` / ``prefix_chars`` — characters of every request (system prompt
  included) and of their common prefixes with the previous request
  (:mod:`footprint_lab.evidence.prefix`); ``cache_share`` — prefix over request, what a
  provider's prefix cache could reuse; ``input_cost`` — the input priced with the cached
  prefix at the cached price (tokens from characters at the ratio the run's own reported usage
  shows, else four characters a token; in uncached-token equivalents by default, in dollars
  with ``pricing=``); ``baseline_input_cost`` — the same with no window management (every
  request reuses all of the previous one); ``cost_ratio`` — ``input_cost`` over it;
  ``cache_rule`` — the cache rule both were priced on (``cache=`` of :func:`evidence_frame`,
  one for every row; also ``frame.attrs["cache"]``): ``'prefix'``, the shared prefix read from
  the cache under the provider's own rules (the price's provider, else the run's: OpenAI's
  reads nothing under 1,024 tokens and reads in steps of 128, Anthropic's writes what it does
  not read; see :mod:`footprint_lab.pricing`), or ``'none'``, nothing cached;
* ``estimated_calls`` — calls whose tokens the replay estimated from characters for its token
  strategy (no provider reported them: tau-bench, SWE-agent); ``not_applicable`` — why the
  configuration cannot apply to the run, in words (``replay``'s ``meta['not_applicable']``,
  :mod:`footprint_lab.applicability`), <NA> when it can. A configuration that cannot engage at
  all (no tool results to clear, no tokens, no context window, a keep window holding the whole
  run) has ``cost_ratio`` <NA>, never a ratio of 1.0 that reads "costs the same as none".
"""

EVIDENCE_SUMMARY_COLUMNS: tuple[str, ...] = tuple(spec("evidence_summary").columns)
"""The columns of :func:`evidence_summary` (its spec, without the knob columns, which sit
after ``strategy`` and are named in ``summary.attrs["knobs"]``): sums over runs per
configuration, plus
``lost_share`` (lost_calls / dependent_calls), ``mean_window_chars`` (window_chars / windows),
``peak_window_chars`` (max over runs), ``chars_saved_share`` (chars_saved /
baseline_window_chars), ``cache_share`` (prefix over request characters), ``cost_ratio``
(input_cost / baseline_input_cost, over the runs the configuration applies to; <NA> when it
applies to none), ``not_applicable_runs`` (runs it cannot engage on), ``pareto`` (on the
front of saving most while losing least) and ``cost_pareto`` (on the front of costing least
while losing least, the front :func:`~footprint_lab.lab.plots.policy_frontier` draws; a
configuration with no cost ratio is never on it)."""

SUMMARY_COLUMNS = EVIDENCE_SUMMARY_COLUMNS
"""The old name of :data:`EVIDENCE_SUMMARY_COLUMNS` (``lab.summary`` has a different
``SUMMARY_COLUMNS``, now ``KEY_NUMBER_COLUMNS``)."""

_MEASURES = (
    "dependent_calls",
    "lost_calls",
    "lost_values",
    "kept_by_summary",
    "windows",
    "mean_window_chars",
    "peak_window_chars",
    "window_chars",
    "wire_violations",
    "request_lost",
    "violations",
    "removed_messages",
    "request_chars",
    "prefix_chars",
    "input_cost",
)


def evidence_frame(
    runs: Sequence[Run] | Mapping[str, Run],
    configs: Sequence[EvidenceConfig | Mapping[str, Any] | Any] | Mapping[str, Any],
    *,
    executor: Executor | None = None,
    min_chars: int = DEFAULT_MIN_CHARS,
    progress: bool = True,
    pricing: Pricing | None = None,
    cache: CacheRule | None = None,
) -> pd.DataFrame:
    """Replay every run under every configuration and measure what evidence it lost.

    Args:
        runs: Runs (labelled by ``meta['label']``) or ``{label: run}`` — recorded, imported
            (``load_tau_bench``) or from an agent.
        configs: Strategies (``sliding_window(4)``, ``clear_tool_results(...)``, an
            ``audit(...)``ed policy), :class:`EvidenceConfig` objects or dicts (see the module
            docstring), or one ``{label: strategy}`` mapping (None: no policy);
            :func:`evidence_grid` builds a grid, :func:`no_policy` the baseline.
        executor: Any ``concurrent.futures.Executor`` runs one job per configuration; None
            (default) runs inline, which is fastest at this size (see the module docstring).
        min_chars: The shortest argument value that counts as evidence.
        progress: Show a progress bar (quiet with ``FOOTPRINT_LAB_QUIET=1``).
        pricing: Prices for ``input_cost`` (one :class:`~footprint_lab.lab.costs.Pricing` for every
            run); None prices in uncached-token equivalents, cached input at a tenth.
        cache: The cache rule of ``input_cost`` and ``baseline_input_cost`` for every row (the
            ``cache_rule`` column): ``"prefix"`` (the default, also for None) reads the prefix
            shared with the previous request under the provider's rules, ``"none"`` caches
            nothing. Every row is a replay, which no provider reported, so ``"reported"`` is
            refused (in :func:`footprint_lab.lab.costs.cost_frame` it prices observed runs).

    Returns:
        One row per configuration × run, in that order; columns :data:`EVIDENCE_COLUMNS`
        with the knob columns after ``strategy``, named in ``frame.attrs["knobs"]``;
        ``frame.attrs["cache"]`` names the cache rule.

    Raises:
        ValueError: ``cache`` is ``"reported"`` or not a rule; two configurations share a label.
    """
    cfgs, price, rule = evidence_setup(configs, pricing, cache)
    labelled = labelled_runs(runs)
    run_list = [run for _, run in labelled]
    # Each run's transcript read once, for its own columns and for every configuration.
    read = [transcript_facts(run)[0] for run in run_list]
    facts = [
        run_facts(label, run, price, rule, fact)
        for (label, run), fact in zip(labelled, read, strict=True)
    ]
    weights = [len(run_list)] * len(cfgs)
    results: list[list[dict[str, Any]]]
    if executor is None:  # inline: the runs as they are, no checkpoints
        # Each run read once for its replays under every configuration, which share the
        # stamped copies they commit alike.
        sources = [ReplaySource(run) for run in run_list]
        results = run_jobs(
            lambda config: measure_config(sources, config, min_chars, price, rule, read),
            cfgs,
            executor="inline",
            progress=progress,
            desc="evidence",
            weights=weights,
        )
    else:
        shipped = [run.checkpoint().model_dump_json() for run in run_list]
        results = run_jobs(
            job,
            [(shipped, config, min_chars, price, rule, in_bulk_work()) for config in cfgs],
            executor=executor,
            progress=progress,
            desc="evidence",
            weights=weights,
        )
    return evidence_frame_of(cfgs, facts, results, rule)


def evidence_setup(
    configs: Sequence[EvidenceConfig | Mapping[str, Any] | Any] | Mapping[str, Any],
    pricing: Pricing | None = None,
    cache: CacheRule | None = None,
) -> tuple[list[EvidenceConfig], Pricing, CacheRule]:
    """The arguments of :func:`evidence_frame` checked: the configurations coerced, the price
    (:data:`RELATIVE_PRICING` for None) and the cache rule (a corpus's grid checks them so).

    Raises:
        ValueError: ``cache`` is ``"reported"`` or not a rule; two configurations share a label.
        TypeError: ``pricing`` is not a :class:`Pricing`.
    """
    rule: CacheRule = check_cache(cache) or "prefix"
    if rule == "reported":
        raise ValueError(
            "evidence_frame: cache='reported' prices nothing here — every row is a replay, and "
            "no provider reported a replay's cache; use cache='prefix' (the shared prefix, "
            "under the provider's rules) or cache='none' (nothing cached)"
        )
    if isinstance(configs, Mapping):  # {label: strategy}, the labels the caller chose
        configs = [
            {"label": str(label), "strategy": strategy} for label, strategy in configs.items()
        ]
    cfgs = [EvidenceConfig.coerce(c) for c in configs]
    seen: set[str] = set()
    for c in cfgs:
        if c.label in seen:
            raise ValueError(f"two configurations are labelled {c.label!r}")
        seen.add(c.label)
    price = RELATIVE_PRICING if pricing is None else pricing
    if not isinstance(price, Pricing):
        raise TypeError(f"pricing must be a Pricing or None, got {type(pricing).__name__}")
    return cfgs, price, rule


def evidence_frame_of(
    cfgs: Sequence[EvidenceConfig],
    facts: Sequence[Mapping[str, Any]],
    results: Sequence[list[dict[str, Any]]],
    rule: CacheRule = "prefix",
) -> pd.DataFrame:
    """The evidence frame of measured rows: ``facts`` per run (``run_facts``), ``results`` per
    configuration, one measure per run (``measure``), wherever they were measured."""
    frame = _frame(cfgs, facts, results, rule)
    frame.attrs["cache"] = rule
    return frame


def _knob_keys(cfgs: Sequence[EvidenceConfig]) -> list[str]:
    keys: dict[str, None] = {}
    for c in cfgs:
        for k in c.knob_values():
            if k not in EVIDENCE_COLUMNS:
                keys.setdefault(k, None)
    return list(keys)


def _frame(
    cfgs: Sequence[EvidenceConfig],
    facts: Sequence[Mapping[str, Any]],
    results: Sequence[list[dict[str, Any]]],
    rule: CacheRule = "prefix",
) -> pd.DataFrame:
    knob_keys = _knob_keys(cfgs)
    cols: dict[str, list[Any]] = {name: [] for name in EVIDENCE_COLUMNS}
    knob_cols: dict[str, list[Any]] = {k: [] for k in knob_keys}
    for config, rows in zip(cfgs, results, strict=True):
        strategy = config.build()
        name = str(getattr(strategy, "name", None) or "none") if strategy is not None else "none"
        knobs = config.knob_values()
        for fact, row in zip(facts, rows, strict=True):
            for key in ("run", "task_id", "trial", "reward", "tool_calls"):
                cols[key].append(fact[key])
            cols["baseline_window_chars"].append(fact["baseline_window_chars"])
            cols["config"].append(config.label)
            cols["strategy"].append(name)
            cols["keep_last_tool_results"].append(config.keep_last_tool_results)
            for key in _MEASURES:
                cols[key].append(row[key])
            cols["chars_saved"].append(fact["baseline_window_chars"] - row["window_chars"])
            baseline = fact["baseline_input_cost"]
            cols["baseline_input_cost"].append(baseline)
            cols["cost_ratio"].append(
                row["input_cost"] / baseline if baseline and not row["blocked"] else None
            )
            cols["estimated_calls"].append(row["estimated_calls"])
            cols["not_applicable"].append(row["not_applicable"])
            cols["cache_share"].append(
                row["prefix_chars"] / row["request_chars"] if row["request_chars"] else None
            )
            cols["cache_rule"].append(rule)
            for k in knob_keys:
                knob_cols[k].append(knobs.get(k))
    task_ids = cols["task_id"]
    whole = all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in task_ids)
    return build_frame(
        "evidence",
        cols,
        knobs=knob_cols,
        dtypes=None if whole else {"task_id": "string"},
    )


# -- aggregating -----------------------------------------------------------------------------


def pareto_front(x: Any, y: Any) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Which points no other point beats: a point is on the front unless another has
    ``x`` at least as large **and** ``y`` at least as small, one of them strictly (more saved,
    less lost). Equal points are all on the front. A point with a NaN coordinate (a
    configuration with no cost ratio) is never on it and beats none.

    One sort and one sweep (O(n log n) time, O(n) memory): walking the points from the largest
    ``x`` down, a point is beaten by a larger ``x`` exactly when the least ``y`` seen among
    larger ``x`` is at most its own, and within one ``x`` by any smaller ``y``.
    """
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    front = np.zeros(len(xs), dtype=bool)
    valid = np.flatnonzero(~(np.isnan(xs) | np.isnan(ys)))
    if not len(valid):
        return front
    order = valid[np.lexsort((ys[valid], -xs[valid]))]  # x descending, then y ascending
    best_above = np.inf  # the least y among points of strictly larger x
    k = 0
    while k < len(order):
        group_x = xs[order[k]]
        end = k
        while end < len(order) and xs[order[end]] == group_x:
            end += 1
        least = ys[order[k]]  # the group's least y (sorted ascending within the group)
        if least < best_above:  # no larger x has y at most this: the least-y points stand
            j = k
            while j < end and ys[order[j]] == least:
                front[order[j]] = True
                j += 1
        best_above = min(best_above, least)
        k = end
    return front


def _share(part: pd.Series, whole: pd.Series) -> np.ndarray[Any, np.dtype[np.float64]]:
    p = part.to_numpy(dtype=np.float64, na_value=np.nan)
    w = whole.to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(w > 0, p / w, 0.0)
    return out


def evidence_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration (in the frame's order): sums over its runs, the share of
    dependent calls lost, characters saved against no policy, and whether it is on the Pareto
    front of saving most while losing least. Columns: :data:`EVIDENCE_SUMMARY_COLUMNS`, the
    frame's knob columns after ``strategy`` (named in ``summary.attrs["knobs"]``);
    ``summary.attrs["cache"]`` is the frame's cache rule.

    Raises:
        ValueError: not an :func:`evidence_frame`, or rows priced on different cache rules
            (their costs do not compare: price them in one ``evidence_frame`` call).
    """
    if "config" not in frame.columns:
        raise ValueError("evidence_summary takes the frame evidence_frame returns")
    rules = (
        sorted(frame["cache_rule"].dropna().astype(str).unique())
        if "cache_rule" in frame.columns
        else []
    )
    if len(rules) > 1:
        raise ValueError(
            "evidence_summary: the rows were priced on different cache rules "
            f"({', '.join(rules)}), so their costs do not compare; build the frame with one "
            "evidence_frame(cache=...)"
        )
    knob_keys = knobs_of(frame, "evidence")
    order = list(dict.fromkeys(frame["config"].astype(str).tolist()))
    grouped = frame.groupby("config", sort=False, observed=True)
    sums = grouped[
        [
            "tool_calls",
            "dependent_calls",
            "lost_calls",
            "kept_by_summary",
            "windows",
            "window_chars",
            "baseline_window_chars",
            "chars_saved",
            "wire_violations",
            "request_lost",
            "violations",
            "request_chars",
            "prefix_chars",
            "input_cost",
            "baseline_input_cost",
        ]
    ].sum()
    first = grouped[["strategy", *knob_keys, "keep_last_tool_results"]].first()
    out = pd.concat([first, grouped.size().rename("runs"), sums], axis=1).reindex(order)
    out["peak_window_chars"] = grouped["peak_window_chars"].max().reindex(order)
    out["lost_share"] = _share(out["lost_calls"], out["dependent_calls"])
    out["mean_window_chars"] = _share(out["window_chars"], out["windows"])
    out["chars_saved_share"] = _share(out["chars_saved"], out["baseline_window_chars"])
    out["cache_share"] = _share(out["prefix_chars"], out["request_chars"])
    # A row that cannot engage has no cost ratio: its costs stay out of the configuration's.
    applies = frame["cost_ratio"].notna()
    costs = frame.loc[applies].groupby("config", sort=False, observed=True)[
        ["input_cost", "baseline_input_cost"]
    ]
    applied = costs.sum().reindex(order)
    ratio = _share(applied["input_cost"].fillna(0), applied["baseline_input_cost"].fillna(0))
    none_apply = (~applies).groupby(frame["config"], sort=False, observed=True).all()
    out["cost_ratio"] = np.where(none_apply.reindex(order).to_numpy(dtype=bool), np.nan, ratio)
    out["not_applicable_runs"] = (
        (~applies).groupby(frame["config"], sort=False, observed=True).sum().reindex(order)
    )
    out["pareto"] = pareto_front(out["chars_saved_share"], out["lost_share"])
    # A configuration with no cost ratio (NaN) is never on the cost front.
    out["cost_pareto"] = pareto_front(
        -out["cost_ratio"].to_numpy(dtype=np.float64), out["lost_share"]
    )
    out = out.reset_index(names="config")
    summary = build_frame(
        "evidence_summary",
        {name: out[name] for name in EVIDENCE_SUMMARY_COLUMNS},
        knobs={k: out[k].array for k in knob_keys},
    )
    summary.attrs["cache"] = rules[0] if rules else frame.attrs.get("cache")
    return summary
