"""What a Tuner tunes: a scripted scenario it re-runs, or runs it replays — and the strategy it
tunes, given as a function, a registered name (either spelling) or an instance.

Layer: lab (private, for :mod:`footprint_lab.lab.widgets.tuner`). A scenario is run live under
each setting (``scenario.run``); recorded, saved, loaded and imported runs are replayed
(:func:`~footprint_lab.replay`) — the Tuner's charts then say "counterfactual replay". Either
way a setting gives ``{label: run}``, and the source keeps, once, the runs with no window
management the readouts price against ("against no policy").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.agent.replay import replay
from footprint_lab.agent.run import Run
from footprint_lab.lab._evidence_rows import labelled_runs
from footprint_lab.pricing import estimate_ratio, estimate_tokens, source_tokens_per_char
from footprint_lab.scenarios import SCENARIOS, Scenario
from footprint_lab.window.strategies import WindowStrategy
from footprint_lab.window.strategies.names import (
    SHIPPED_STRATEGIES,
    shipped_factory,
    shipped_name_of,
    strategy_key,
)
from footprint_lab.window.strategies.server_compaction import ANTHROPIC_COMPACTION_MINIMUM
from footprint_lab.window.strategies.summarizers import extractive_summarizer

__all__ = ["TunerSource", "default_strategy", "resolve_strategy", "source_of"]

RunsLike = Run | Sequence[Run] | Mapping[str, Run]
"""Runs a Tuner replays: one, a list (labelled by ``meta['label']``) or ``{label: run}``."""

DEFAULT_KEEP_RECENT_TURNS = 6
"""The keep window of a shipped strategy named without a scenario (``token_budget``'s own
default)."""


@dataclass
class TunerSource:
    """A scenario to re-run, or runs to replay, and how one setting runs them."""

    name: str
    """What the Tuner's title names: the scenario, the run's label, or how many runs."""
    lead: str
    """The heading's lead line."""
    scenario: Scenario | None = None
    """The scenario re-run under each setting (None for runs)."""
    runs: dict[str, Run] = field(default_factory=dict)
    """The runs replayed under each setting, by label (empty for a scenario)."""
    provider_options: dict[str, Any] = field(default_factory=dict)
    """Keywords for ``scenario.provider(...)``: a fresh scripted provider for every run."""
    _baselines: dict[str, Run] | None = None

    @property
    def labels(self) -> list[str]:
        """The runs' labels, in order (one, the scenario's name, for a scenario)."""
        return [self.scenario.name] if self.scenario is not None else list(self.runs)

    def run(self, strategy: WindowStrategy | None, pins: int) -> dict[str, Run]:
        """Every run under ``strategy`` with pin limit ``pins``, by label."""
        if self.scenario is not None:
            provider = self.scenario.provider(**self.provider_options)
            run = self.scenario.run(strategy, keep_last_tool_results=pins, provider=provider)
            return {self.scenario.name: run}
        return {
            label: replay(run, strategy, keep_last_tool_results=pins)
            for label, run in self.runs.items()
        }

    def baselines(self) -> dict[str, Run]:
        """Every run with no window management (computed once): what the readouts' costs are
        relative to, and what the frontier replays."""
        if self._baselines is None:
            self._baselines = self.run(None, 0)
        return self._baselines

    def evidence_runs(self) -> dict[str, Run]:
        """The runs the frontier's grid replays: the runs themselves, or the scenario's run
        with no window management (a scripted run's replies do not depend on the window, so
        its replay sends what a live run sends)."""
        return dict(self.runs) if self.scenario is None else self.baselines()


def source_of(
    source: Scenario | str | RunsLike, provider_options: Mapping[str, Any] | None = None
) -> TunerSource:
    """The :class:`TunerSource` of a scenario, a scenario's name, a run, a list of runs or
    ``{label: run}``.

    Raises:
        ValueError: an unknown scenario name, or no runs.
        TypeError: something else.
    """
    options = dict(provider_options or {})
    if isinstance(source, str):
        if source not in SCENARIOS:
            raise ValueError(f"no scenario {source!r}; scenarios are {', '.join(SCENARIOS)}")
        source = SCENARIOS[source]()
    if isinstance(source, Scenario):
        lead = (
            f"{source.description} Each slider change re-runs the scripted scenario and "
            "redraws the charts."
        )
        return TunerSource(source.name, lead, scenario=source, provider_options=options)
    if options:
        raise ValueError(
            "provider_options= builds a scenario's scripted provider; runs are replayed, which "
            "calls no provider: leave it out"
        )
    items = [source] if isinstance(source, Run) else source
    if not isinstance(items, Mapping) and not (
        isinstance(items, Sequence) and not isinstance(items, str | bytes)
    ):
        raise TypeError(
            "Tuner takes a Scenario (or its name), a Run, a list of runs or {label: run}; got "
            f"{type(source).__name__}"
        )
    for value in items.values() if isinstance(items, Mapping) else items:
        if not isinstance(value, Run):
            raise TypeError(f"Tuner: {value!r} is a {type(value).__name__}, not a Run")
    runs = dict(labelled_runs(items))
    if not runs:
        raise ValueError("Tuner needs at least one run")
    name = next(iter(runs)) if len(runs) == 1 else f"{len(runs)} runs"
    lead = (
        "Each slider change replays the recorded run"
        + ("" if len(runs) == 1 else "s")
        + " under the new setting (no model is called: every reply is the original's) and "
        "redraws the charts."
    )
    return TunerSource(name, lead, runs=runs)


def _peak_input_tokens(runs: Sequence[Run]) -> int:
    """The largest input a call of ``runs`` sent, in tokens: reported, else its characters at
    the run's own ratio."""
    peak = 0
    for run in runs:
        ratio = estimate_ratio(source_tokens_per_char(run))
        for call in run.calls:
            usage = call.usage
            tokens = (
                usage.input_tokens
                if usage is not None and usage.reported
                else estimate_tokens(call.chars, ratio)
            )
            peak = max(peak, tokens)
    return peak


def _round(value: float) -> int:
    """``value`` to two significant figures (a slider's start that reads well)."""
    if value < 10:
        return max(1, int(value))
    power = 10 ** (math.floor(math.log10(value)) - 1)
    return int(round(value / power) * power)


def default_strategy(name: str, runs: Sequence[Run]) -> WindowStrategy:
    """The shipped strategy ``name`` (either spelling) with a starting setting for ``runs``:
    a keep window of :data:`DEFAULT_KEEP_RECENT_TURNS` turns, and a token threshold of half the
    largest input any call sent (reported, else estimated), so it engages; summarize-oldest
    summarizes with the deterministic extractive summarizer.

    Raises:
        WindowConfigError: no shipped strategy has that name.
    """
    factory = shipped_factory(name)
    key = strategy_key(name)
    if key == "sliding-window":
        return factory(keep_recent_turns=DEFAULT_KEEP_RECENT_TURNS)
    threshold = _round(max(1, _peak_input_tokens(runs)) / 2)
    if key == "summarize-oldest":
        return factory(
            threshold_tokens=threshold,
            summarizer=extractive_summarizer,
            keep_recent_turns=DEFAULT_KEEP_RECENT_TURNS,
        )
    if key == "clear-tool-results":
        return factory(threshold_tokens=threshold)
    if key == "clear-thinking":
        return factory()
    if key == "anthropic-context-editing":
        return factory(trigger=threshold)
    if key == "anthropic-compaction":  # the API's floor: it may not engage on a short run
        return factory(trigger=max(threshold, ANTHROPIC_COMPACTION_MINIMUM))
    if key == "openai-compaction":
        return factory(compact_threshold=threshold)
    return factory(threshold_tokens=threshold, keep_recent_turns=DEFAULT_KEEP_RECENT_TURNS)


def resolve_strategy(
    strategy: WindowStrategy | str | Callable[..., Any], source: TunerSource
) -> WindowStrategy:
    """The strategy to tune: an instance as it is; a registered name (``"token-budget"`` or
    ``"token_budget"``) or a shipped function (``token_budget``) as the scenario ships it,
    else with :func:`default_strategy`'s setting for the runs; any other function called with
    no arguments.

    Raises:
        ValueError: a name neither the scenario nor the library ships.
        TypeError: not a strategy, a name or a function that builds one.
    """
    if isinstance(strategy, str) or shipped_name_of(strategy) is not None:
        given = strategy if isinstance(strategy, str) else None
        key = strategy_key(given) if given is not None else shipped_name_of(strategy)
        assert key is not None  # one of the two branches above named it
        if source.scenario is not None:
            shipped = {strategy_key(k): v for k, v in source.scenario.strategies().items()}
            if key in shipped:
                return shipped[key]
            if key not in SHIPPED_STRATEGIES:
                raise ValueError(
                    f"{source.scenario.name} has no strategy {given!r}; it ships "
                    f"{', '.join(source.scenario.strategies())}"
                )
        if key not in SHIPPED_STRATEGIES:
            raise ValueError(
                f"no strategy {given!r}; the shipped ones are {', '.join(SHIPPED_STRATEGIES)} "
                "(with '_' or '-'), or pass a strategy instance"
            )
        runs = list(source.runs.values()) if source.scenario is None else []
        return default_strategy(key, runs or list(source.baselines().values()))
    if callable(getattr(strategy, "plan", None)):
        instance: WindowStrategy = strategy  # type: ignore[assignment]
        return instance
    if callable(strategy):
        built = strategy()
        if not callable(getattr(built, "plan", None)):
            raise TypeError(
                f"{getattr(strategy, '__name__', strategy)!r} built {type(built).__name__}, "
                "not a strategy (an object with name and plan(input))"
            )
        made: WindowStrategy = built
        return made
    raise TypeError(
        "the strategy is a strategy instance, its registered name ('token-budget' or "
        f"'token_budget') or the function that builds it; got {type(strategy).__name__}"
    )
