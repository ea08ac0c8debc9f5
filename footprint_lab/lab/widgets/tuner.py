"""The Tuner: a scripted scenario, or your own runs, under one strategy, with a slider per knob.

Layer: lab. Every slider change re-runs the scenario — or replays the recorded, saved, loaded
or imported runs (:mod:`._tuner_source`) — and redraws in place: the same ``FigureWidget``
objects get new trace data in one ``batch_update`` (:func:`~footprint_lab.lab.widgets.
update_figure`), and live readouts for the setting (:mod:`._tuner_readouts`: estimated input
cost against no policy, the cache share, dependent calls whose evidence was lost, messages
removed) and the records in words follow. A frontier pane (:mod:`._tuner_frontier`) draws the
grid of the sliders' values by cost against evidence lost; clicking a point sets the sliders
to it. Knob ranges and names: :mod:`._tuner_knobs` (the pin knob is
``keep_last_tool_results`` everywhere). Re-runs show a progress bar through
:mod:`footprint_lab.lab.progress`; a new Tuner replaces the last one on the same subject
(:mod:`._lifecycle`); :meth:`Tuner.snapshot` gives its charts as PNG images (:mod:`._snapshot`)
and :meth:`~._share.HtmlShare.to_html` writes the report of its last run (:mod:`._share`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets
import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.lab import plots
from footprint_lab.lab._evidence_rows import RELATIVE_PRICING
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.lab.progress import progress
from footprint_lab.lab.summary import key_numbers
from footprint_lab.lab.views import counterfactual_banner
from footprint_lab.lab.widgets._figures import figure_widget, update_figure
from footprint_lab.lab.widgets._html import (
    heading_html,
    label_html,
    note_html,
    pairs_html,
    records_html,
    sentences_html,
)
from footprint_lab.lab.widgets._lifecycle import LabWidget, subject_of
from footprint_lab.lab.widgets._share import HtmlShare, SharedRuns
from footprint_lab.lab.widgets._snapshot import Snapshot
from footprint_lab.lab.widgets._tuner_frontier import CURRENT, FRONTIER_VALUES, Frontier
from footprint_lab.lab.widgets._tuner_frontier import setting_grid as setting_grid
from footprint_lab.lab.widgets._tuner_knobs import (
    PIN_KNOB,
    default_range,
    format_config,
    knobs_of,
    numeric,
    parse_range,
    with_knobs,
)
from footprint_lab.lab.widgets._tuner_readouts import (
    Dependencies,
    Readouts,
    input_costs,
    readouts_of,
)
from footprint_lab.lab.widgets._tuner_readouts import record_words as record_words
from footprint_lab.lab.widgets._tuner_source import RunsLike, resolve_strategy, source_of
from footprint_lab.pricing import CacheRule, Pricing, check_cache
from footprint_lab.scenarios import Scenario
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies import WindowStrategy

__all__ = ["PIN_KNOB", "SNAPSHOT_FIGURES", "Tuner", "default_range"]

SNAPSHOT_FIGURES: tuple[str, ...] = ("window_size", "window_map")
"""The charts :meth:`Tuner.snapshot` renders unless told others."""


def cost_text(amount: float, pricing: Pricing) -> str:
    """An input cost with its unit: uncached-token equivalents under the default relative
    price (one unit a token, cached input a tenth), else US dollars (cents shown, and more
    digits below a cent, so a small cost is never printed as 0)."""
    if pricing == RELATIVE_PRICING:
        return f"{amount:,.0f} uncached-token equivalents"
    if amount and abs(amount) < 0.01:
        return f"${amount:,.4f}"
    return f"${amount:,.2f}"


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


class Tuner(HtmlShare, LabWidget):
    """A scenario or your own runs under one strategy, with a slider per knob.

    Every slider change re-runs the scenario (``scenario.run(strategy.with_knobs(...),
    keep_last_tool_results=...)``) or replays each run (``replay(run, ...)``), captures it, and
    redraws the charts in place — the same ``FigureWidget`` objects get new trace data — with
    the readouts of the setting, the records table and the records in words underneath.
    Sliders update on release, so a drag costs one run.

    Parts: ``source`` (what is run), ``scenario`` (or None for runs), ``base`` (the strategy
    as resolved), ``strategy`` (as last run), ``config`` (the knob values last run),
    ``setting_runs`` (label -> run under the setting), ``run`` and ``frames`` (the run the
    charts show), ``numbers`` (:func:`key_numbers` of it), ``readouts``
    (:class:`~footprint_lab.lab.widgets._tuner_readouts.Readouts`, summed over the runs),
    ``summary`` (the ``tuner`` frame: the readouts, a row per run), ``sentences`` (the records
    in words), ``sliders``, ``figures`` (``window_size``, ``window_map``, ``frontier``),
    ``frontier`` (the drawn grid, or None), ``summary_html``, ``readouts_html``,
    ``records_html``, ``words_html``, ``latency_ms`` (how long the last redraw took, also in
    ``latency_html``), ``error`` (the configuration error of the last change, or None),
    ``runs`` (how many settings were run so far).

    Args:
        source: A :class:`~footprint_lab.scenarios.Scenario` or its name (``"deploy-audit"``);
            or a run (recorded, ``load_run``, imported), a list of runs or ``{label: run}``.
        strategy: The strategy to tune: an instance, the function that builds it
            (``token_budget``) or its registered name (``"token-budget"`` or
            ``"token_budget"``). A name or function means the scenario's own strategy of that
            name, else the shipped one with a starting setting for the runs. Its knobs come
            from ``strategy.knobs()`` (a dataclass's numeric fields without it); changes go
            through ``strategy.with_knobs(...)``.
        values: Starting values for some knobs (default: the strategy's own; pins: 2).
        provider_options: Keywords for ``scenario.provider(...)`` (a scenario only), e.g.
            ``{"context_window": 16_000}`` for a ``threshold_fraction=`` strategy.
        pricing: Prices for the cost readout and the frontier (one ``Pricing``); default one
            unit per uncached input token, cached input at a tenth.
        cache: The cache rule both costs are priced on (``"prefix"`` or ``"none"``).
        frontier: Draw the frontier pane now (else :meth:`draw_frontier` or its button).
        frontier_values: Values of each slider the frontier's grid takes.
        **ranges: ``knob=(min, max)`` or ``(min, max, step)`` for any knob of the strategy or
            ``keep_last_tool_results``; others get :func:`default_range`. A knob whose value
            is None gets a slider only when its range is given.
    """

    def __init__(
        self,
        source: Scenario | str | RunsLike,
        strategy: WindowStrategy | str | Callable[..., Any],
        *,
        values: Mapping[str, Any] | None = None,
        provider_options: Mapping[str, Any] | None = None,
        pricing: Pricing | None = None,
        cache: CacheRule = "prefix",
        frontier: bool = True,
        frontier_values: int = FRONTIER_VALUES,
        **ranges: Any,
    ) -> None:
        super().__init__()
        self.add_class("footprint-tuner")
        subject = subject_of(source, strategy)
        rule = check_cache(cache)
        if rule not in ("prefix", "none"):
            raise ValueError(
                f"cache must be 'prefix' or 'none' (a replay reports none), got {cache!r}"
            )
        if pricing is not None and not isinstance(pricing, Pricing):
            raise TypeError(f"pricing must be a Pricing or None, got {type(pricing).__name__}")
        self.cache: CacheRule = rule
        self.pricing: Pricing = RELATIVE_PRICING if pricing is None else pricing
        self.source = source_of(source, provider_options)
        self.scenario: Scenario | None = self.source.scenario
        self.provider_options = self.source.provider_options
        self.base: WindowStrategy = resolve_strategy(strategy, self.source)
        self.sliders: dict[str, Any] = self._make_sliders(values, ranges)
        self.strategy: WindowStrategy = self.base
        self.config: dict[str, Any] = {}
        self.error: Exception | None = None
        self.runs = 0
        self.latency_ms: float | None = None
        self.frontier: Frontier | None = None
        self.frontier_values = frontier_values
        self._hold = False
        self._dependencies = Dependencies()
        self.summary_html = widgets.HTML().add_class("footprint-tuner-summary")
        self.readouts_html = widgets.HTML()
        self.latency_html = widgets.HTML().add_class("footprint-tuner-latency")
        self.records_html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.words_html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.output = widgets.Output()
        self.shown = widgets.Dropdown(
            options=self.source.labels, description="run", layout={"width": "560px"}
        )
        self.frontier_button = widgets.Button(description="Draw the frontier")
        try:
            baselines = self.source.baselines()
            self._baseline_costs = input_costs(
                [capture(r, membership="window") for r in baselines.values()],
                self.pricing,
                self.cache,
            )
            self._rerun(initial=True)
        except BaseException:
            self.close()  # the sliders and panes made so far would stay open otherwise
            raise
        self.figures: dict[str, Any] = {
            "window_size": figure_widget(plots.window_size(self.frames)),
            "window_map": figure_widget(plots.window_map(self.frames)),
            "frontier": figure_widget(plots.policy_frontier(pd.DataFrame(columns=["lost_share"]))),
        }
        self.title = f"Tuner — {self.source.name} · {getattr(self.base, 'name', '?')}"
        # a replay says so, as the Inspector's heading does: its replies are the original's
        banner = counterfactual_banner(self.run)
        self.header = widgets.HTML(
            heading_html(
                self.title, banners=[banner] if banner is not None else [], lead=self.source.lead
            )
        )
        self.children = [
            self.header,
            widgets.VBox(list(self.sliders.values())),
            *([self.shown] if len(self.source.labels) > 1 else []),
            self.summary_html,
            self.readouts_html,
            self.latency_html,
            self.output,
            self.figures["window_size"],
            self.figures["window_map"],
            widgets.HTML(label_html("Frontier: the grid of the sliders' values")),
            self.frontier_button,
            self.figures["frontier"],
            widgets.HTML(label_html("Window records")),
            self.records_html,
            widgets.HTML(label_html("The records in words")),
            self.words_html,
        ]
        for slider in self.sliders.values():
            slider.observe(self._on_change, names="value")
        self.shown.observe(self._on_shown, names="value")
        self.frontier_button.on_click(lambda _: self.draw_frontier())
        if frontier:
            self.draw_frontier()
        self._adopt(subject)

    def _make_sliders(
        self, values: Mapping[str, Any] | None, ranges: Mapping[str, Any]
    ) -> dict[str, Any]:
        knobs = knobs_of(self.base)
        current: dict[str, Any] = {**knobs, PIN_KNOB: 2, **dict(values or {})}
        unknown = (set(ranges) | set(values or {})) - set(knobs) - {PIN_KNOB}
        if unknown:
            raise ValueError(
                f"{', '.join(sorted(unknown))}: not a knob of {getattr(self.base, 'name', '?')}"
                f" (its knobs: {', '.join([*knobs, PIN_KNOB])})"
            )
        sliders: dict[str, Any] = {}
        for name in [*knobs, PIN_KNOB]:
            value = current.get(name)
            if name in ranges:
                lo, hi, step = parse_range(name, ranges[name])
            elif numeric(value):
                lo, hi, step = default_range(name, value)
            else:
                continue
            floating = any(isinstance(v, float) for v in (lo, hi, step, value))
            start = lo if not numeric(value) else min(max(value, lo), hi)
            cls = widgets.FloatSlider if floating else widgets.IntSlider
            sliders[name] = cls(
                value=start,
                min=lo,
                max=hi,
                step=step,
                description=name,
                continuous_update=False,
                style={"description_width": "180px"},
                layout=widgets.Layout(width="560px"),
            ).add_class(f"footprint-knob-{name}")
        return sliders

    def snapshot(self, *names: str) -> Snapshot:
        """The Tuner as it is now, as static outputs: its heading and the summary of the last
        run (HTML) and its charts as PNG images — ``names`` of :attr:`figures` (default
        :data:`SNAPSHOT_FIGURES`). Display it in the cell after the Tuner, so a notebook read
        without a kernel (on GitHub) shows the run."""
        chosen = self._chosen_figures(names, SNAPSHOT_FIGURES)
        html = self.header.value + self.summary_html.value + self.readouts_html.value
        return Snapshot.of(self.title, html, chosen)

    def _shared_runs(self) -> SharedRuns:
        """``to_html(path)`` writes the report of the current setting: every run the Tuner
        shows (the scenario's run, or each source run replayed), labelled as its charts are."""
        frames = self.setting_frames
        return {
            self.source.name: {
                str(frames[label].info.get("label") or label): (run, frames[label])
                for label, run in self.setting_runs.items()
            }
        }

    def set(self, **values: Any) -> Tuner:
        """Move several sliders at once and re-run once. Returns the tuner."""
        unknown = set(values) - set(self.sliders)
        if unknown:
            raise ValueError(
                f"no slider for {', '.join(sorted(unknown))}; sliders: {', '.join(self.sliders)}"
            )
        self._hold = True
        try:
            for name, value in values.items():
                self.sliders[name].value = value
        finally:
            self._hold = False
        self._rerun()
        return self

    def draw_frontier(self) -> Tuner:
        """Replay every setting of the sliders' grid (:attr:`frontier_values` values of each
        slider) and draw the frontier pane, the current setting marked. Returns the tuner."""
        ranges = {n: (s.min, s.max, s.step) for n, s in self.sliders.items()}
        # knobs without a slider keep the strategy's own values (with_knobs changes only these)
        grid = setting_grid(ranges, self.frontier_values)
        with self.output:
            drawn = Frontier.draw(
                self.source.evidence_runs(),
                self.base,
                grid,
                pricing=self.pricing,
                cache=self.cache,
            )
        self.frontier = drawn
        widget = self.figures["frontier"]
        update_figure(widget, drawn.figure)
        for trace in widget.data:
            trace.on_click(self.on_frontier_click)
        self._mark_current()
        self.frontier_button.description = "Redraw the frontier"
        return self

    def on_frontier_click(self, trace: Any, points: Any, selector: Any = None) -> None:
        """A click on the frontier: set the sliders to the clicked point's setting (and re-run
        once). What plotly calls with the clicked trace and its ``Points``."""
        if self.frontier is None:
            return
        for index in getattr(points, "point_inds", []) or []:
            setting = self.frontier.setting_of(trace, int(index))
            if setting is not None:
                self.set(**{k: v for k, v in setting.items() if k in self.sliders})
                return

    def _on_change(self, change: Mapping[str, Any]) -> None:
        if not self._hold:
            self._rerun()

    def _on_shown(self, change: Mapping[str, Any]) -> None:
        if self.config:
            self._show(str(change["new"]))

    def _values(self) -> tuple[dict[str, Any], int]:
        knobs = {n: s.value for n, s in self.sliders.items() if n != PIN_KNOB}
        pins = self.sliders[PIN_KNOB].value if PIN_KNOB in self.sliders else 2
        return knobs, int(pins)

    def _label(self, label: str, config: Mapping[str, Any]) -> str:
        """A chart's label: the setting (and the run's label when the Tuner replays runs)."""
        text = format_config(config)
        return text if self.scenario is not None else f"{label} · {text}"

    def _rerun(self, *, initial: bool = False) -> None:
        started = time.perf_counter()
        knobs, pins = self._values()
        config = {**knobs, PIN_KNOB: pins}
        with self.output:
            bar = progress(total=3, desc=f"{self.source.name}: {format_config(config)}")
            shown = not getattr(bar, "disable", True)  # tqdm sets disable on close
            try:
                try:
                    strategy = with_knobs(self.base, knobs)
                    setting_runs = self.source.run(strategy, pins)
                except (WindowConfigError, TypeError, ValueError) as exc:
                    # a configuration the strategy or the agent refuses: say so, keep the charts
                    self.error = exc
                    self.summary_html.value = note_html(str(exc), strong="Not run:", tone="error")
                    if initial:
                        raise
                    return
                bar.update(1)
                frames = {
                    label: capture(run, label=self._label(label, config), membership="window")
                    for label, run in setting_runs.items()
                }
                bar.update(1)
                self.error = None
                self.strategy = strategy
                self.config = config
                self.setting_runs = setting_runs
                self.setting_frames = frames
                self.runs += 1
                name = str(getattr(strategy, "name", type(strategy).__name__))
                self.readouts, self.summary = readouts_of(
                    setting_runs,
                    list(frames.values()),
                    self._baseline_costs,
                    pricing=self.pricing,
                    cache=self.cache,
                    strategy=name,
                    knobs=knobs,
                    pins=pins,
                    found=self._dependencies,
                )
                self.readouts_html.value = pairs_html(
                    self._readout_pairs(self.readouts, self.pricing)
                )
                self._show(str(self.shown.value), redraw=not initial)
                self._mark_current()
                bar.update(1)
            finally:
                bar.close()
                if shown:
                    # a closed notebook bar leaves a dead view behind in the Output
                    self.output.clear_output()
        self.latency_ms = (time.perf_counter() - started) * 1000
        self.latency_html.value = note_html(
            f"{self.latency_ms:.0f} ms (replay, capture, readouts and redraw)",
            strong="Last redraw:",
            tone="muted",
        )

    def _show(self, label: str, *, redraw: bool = True) -> None:
        """Show run ``label`` of the current setting: its charts, numbers and records."""
        self.run: Run = self.setting_runs[label]
        self.frames: Frames = self.setting_frames[label]
        self.numbers = key_numbers(self.run)
        if redraw:
            update_figure(self.figures["window_size"], plots.window_size(self.frames))
            update_figure(self.figures["window_map"], plots.window_map(self.frames))
        self.summary_html.value = self._summary()
        self.records_html.value = records_html(self.frames)
        self.sentences = record_words({label: self.run})
        self.words_html.value = sentences_html(self.sentences)

    def _mark_current(self) -> None:
        """Put the frontier's current-setting marker where the readouts say the setting is."""
        if self.frontier is None or not hasattr(self, "figures"):
            return
        r = self.readouts
        lost = r.lost_calls / r.dependent_calls if r.dependent_calls else 0.0
        for trace in self.figures["frontier"].data:
            if trace.name == CURRENT:
                with self.figures["frontier"].batch_update():
                    trace.x, trace.y = [r.cost_ratio], [lost]

    @staticmethod
    def _readout_pairs(r: Readouts, pricing: Pricing = RELATIVE_PRICING) -> list[tuple[str, str]]:
        return [
            (
                "estimated input cost",
                f"{cost_text(r.input_cost, pricing)} — {_percent(r.cost_ratio)} of no policy's "
                f"{cost_text(r.baseline_input_cost, pricing)}",
            ),
            (
                "cache share",
                f"{_percent(r.cache_share)} of request characters a prefix cache could reuse",
            ),
            (
                "evidence lost",
                f"{r.lost_calls:,} of {r.dependent_calls:,} dependent calls sent without it",
            ),
            ("messages removed", f"{r.removed_messages:,} by {r.records:,} record(s)"),
        ]

    def _summary(self) -> str:
        n = self.numbers
        parts = [
            "",  # the line starts "· status ...", after the setting in bold
            f"status {n['status']}",
            f"{n['iterations']} iterations",
            f"{n['removals']} removal(s), {n['removed_messages']} message(s) removed",
            f"{n['refusals']} refusal(s)",
            f"{n['pins']} pin(s)",
            f"peak {n['peak_window_chars']} chars",
            f"last {n['final_window_chars']} chars sent",
        ]
        return note_html(" · ".join(parts).strip(), strong=format_config(self.config))
