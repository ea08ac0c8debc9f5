"""The Tuner: a scripted scenario under one strategy, with a slider per knob.

Layer: lab. Every slider change re-runs the scenario and redraws the charts *in place* (the
same ``FigureWidget`` objects, new trace data, one ``batch_update``, through
:func:`~footprint_lab.lab.widgets.update_figure`). Also here: the knobs' default ranges
(:func:`default_range`) and how a strategy's knobs are read and changed. Re-runs show a
progress bar through :mod:`footprint_lab.lab.progress`, silent when
``FOOTPRINT_LAB_QUIET=1`` or when stderr is not a terminal outside a notebook. A new Tuner
replaces the last one on the same scenario and strategy (or made by the same cell) and closes
it, with all its parts (:mod:`._lifecycle`); :meth:`Tuner.snapshot` gives its charts as PNG
images for a notebook's static outputs (:mod:`._snapshot`) and :meth:`~._share.HtmlShare.to_html`
writes the report of its last run (:mod:`._share`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields, is_dataclass, replace
from typing import Any, cast

import ipywidgets as widgets

from footprint_lab.lab import plots
from footprint_lab.lab.frames import capture
from footprint_lab.lab.progress import progress
from footprint_lab.lab.summary import key_numbers
from footprint_lab.lab.widgets._figures import figure_widget, update_figure
from footprint_lab.lab.widgets._html import heading_html, label_html, note_html, records_html
from footprint_lab.lab.widgets._lifecycle import LabWidget, subject_of
from footprint_lab.lab.widgets._share import HtmlShare, SharedRuns
from footprint_lab.lab.widgets._snapshot import Snapshot
from footprint_lab.scenarios import SCENARIOS, Scenario
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.pins import PIN_KEY
from footprint_lab.window.strategies import WindowStrategy

__all__ = ["PIN_KNOB", "Tuner", "default_range"]

PIN_KNOB = PIN_KEY
"""The one knob that belongs to the agent, not the strategy (it is passed to ``run``): the one
:data:`~footprint_lab.window.pins.PIN_KEY`."""

SNAPSHOT_FIGURES: tuple[str, ...] = ("window_size", "window_map")
"""The charts :meth:`Tuner.snapshot` renders unless told others."""


def _nice_step(raw: float) -> float:
    if raw <= 0:
        return 1.0
    exp = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * exp:
            return float(factor * exp)
    return float(10 * exp)  # pragma: no cover - the loop always returns


def default_range(name: str, value: Any) -> tuple[Any, Any, Any]:
    """A sensible ``(min, max, step)`` for knob ``name`` whose current value is ``value``.

    ``keep_recent_turns`` 1 to max(8, 2 x value); ``keep_last_tool_results`` 0 to
    max(4, value); a fraction in (0, 1] from 0.05 to 1 by 0.05; any other whole number from one
    "nice" step (1, 2 or 5 x a power of ten, about value / 20) to about 3 x value.
    """
    if name == "keep_recent_turns":
        v = int(value or 1)
        return (1, max(8, 2 * v), 1)
    if name == PIN_KNOB:
        v = int(value or 0)
        return (0, max(4, v), 1)
    if isinstance(value, float):
        if 0 < value <= 1:
            return (0.05, 1.0, 0.05)
        step_f = _nice_step(abs(value) / 20)
        return (0.0, max(step_f, 3 * abs(value)), step_f)
    v = int(value or 0)
    if v <= 0:
        return (0, 10, 1)
    step = max(1, int(_nice_step(v / 20)))
    high = max(2 * step, math.ceil(3 * v / step) * step)
    return (step, high, step)


def _parse_range(name: str, spec: Any) -> tuple[Any, Any, Any]:
    if not isinstance(spec, tuple | list) or len(spec) not in (2, 3):
        raise ValueError(
            f"range for {name!r} must be a (min, max) or (min, max, step) tuple or list, "
            f"got {spec!r}"
        )
    values = list(spec)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ValueError(f"range for {name!r} must hold numbers, got {spec!r}")
    lo, hi = values[0], values[1]
    if len(values) == 3:
        step = values[2]
    else:
        step = 1 if all(isinstance(v, int) for v in values) else (hi - lo) / 20
    if hi < lo or step <= 0:
        raise ValueError(f"range for {name!r} needs min <= max and step > 0, got {spec!r}")
    return (lo, hi, step)


def _knobs_of(strategy: Any) -> dict[str, Any]:
    knobs = getattr(strategy, "knobs", None)
    if callable(knobs):
        return dict(knobs())
    if is_dataclass(strategy) and not isinstance(strategy, type):
        return {
            f.name: getattr(strategy, f.name)
            for f in fields(strategy)
            if isinstance(getattr(strategy, f.name), int | float)
            and not isinstance(getattr(strategy, f.name), bool)
        }
    return {}


def _with_knobs(strategy: Any, changes: Mapping[str, Any]) -> WindowStrategy:
    with_knobs = getattr(strategy, "with_knobs", None)
    if callable(with_knobs):
        changed: WindowStrategy = with_knobs(**changes)
        return changed
    if is_dataclass(strategy) and not isinstance(strategy, type):
        return cast(WindowStrategy, replace(strategy, **changes))
    if changes:
        raise WindowConfigError(
            f"{type(strategy).__name__} has no with_knobs(**changes): add knobs() and "
            "with_knobs() (or make it a dataclass) so the Tuner can change it"
        )
    strategy_: WindowStrategy = strategy
    return strategy_


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _format_config(config: Mapping[str, Any], short: bool = False) -> str:
    """``k=v`` pairs; ``short`` writes the pin knob as ``pins`` (for chart titles)."""
    return " ".join(
        f"{'pins' if short and k == PIN_KNOB else k}={v:g}"
        if isinstance(v, float)
        else f"{'pins' if short and k == PIN_KNOB else k}={v}"
        for k, v in config.items()
    )


class Tuner(HtmlShare, LabWidget):
    """A scripted scenario under one strategy, with a slider per knob.

    Every slider change re-runs the scenario (``scenario.run(strategy.with_knobs(...),
    keep_last_tool_results=...)``), captures it, and redraws the charts in place — the same
    ``FigureWidget`` objects get new trace data in one ``batch_update`` — with the run's
    records table underneath. Sliders update on release, so a drag costs one run.

    Parts: ``scenario``, ``base`` (the strategy as given), ``strategy`` (as last run),
    ``config`` (the knob values last run), ``run``, ``frames``, ``numbers``
    (:func:`key_numbers`), ``sliders`` (knob name -> slider), ``figures`` (``window_size``,
    ``window_map``), ``summary_html``, ``records_html``, ``error`` (the configuration error of
    the last change, or None), ``runs`` (how many runs so far).

    Making a Tuner closes the one it replaces — the last one on the same scenario and
    strategy, or in a notebook the ones the same cell made when it last ran — and
    :meth:`close` closes it with all its parts; :meth:`snapshot` renders its charts for readers
    without a kernel.

    Args:
        scenario: A :class:`~footprint_lab.scenarios.Scenario` or its name
            (``"deploy-audit"`` ...).
        strategy: The strategy to tune, or the label of one of ``scenario.strategies()``.
            Its knobs come from ``strategy.knobs()`` (a dataclass's numeric fields for a
            strategy without it) and changes go through ``strategy.with_knobs(...)``.
        values: Starting values for some knobs (default: the strategy's own; pins: 2).
        provider_options: Keywords for ``scenario.provider(...)``, which builds a fresh scripted
            provider for every run — e.g. ``{"context_window": 16_000}`` so a strategy with
            ``threshold_fraction=`` has a context window to take its fraction of.
        **ranges: ``knob=(min, max)`` or ``(min, max, step)`` (tuple or list) for any knob of
            the strategy or ``keep_last_tool_results``; knobs not named get
            :func:`default_range`. A knob whose current value is None gets a slider only when
            its range is given.
    """

    def __init__(
        self,
        scenario: Scenario | str,
        strategy: WindowStrategy | str,
        *,
        values: Mapping[str, Any] | None = None,
        provider_options: Mapping[str, Any] | None = None,
        **ranges: Any,
    ) -> None:
        super().__init__()
        subject = subject_of(scenario, strategy)
        self.provider_options: dict[str, Any] = dict(provider_options or {})
        if isinstance(scenario, str):
            if scenario not in SCENARIOS:
                raise ValueError(f"no scenario {scenario!r}; scenarios are {', '.join(SCENARIOS)}")
            scenario = SCENARIOS[scenario]()
        self.scenario: Scenario = scenario
        if isinstance(strategy, str):
            shipped = scenario.strategies()
            if strategy not in shipped:
                raise ValueError(
                    f"{scenario.name} has no strategy {strategy!r}; it ships {', '.join(shipped)}"
                )
            strategy = shipped[strategy]
        self.base: WindowStrategy = strategy
        knobs = _knobs_of(strategy)
        current: dict[str, Any] = {**knobs, PIN_KNOB: 2, **dict(values or {})}
        unknown = (set(ranges) | set(values or {})) - set(knobs) - {PIN_KNOB}
        if unknown:
            raise ValueError(
                f"{', '.join(sorted(unknown))}: not a knob of {getattr(strategy, 'name', strategy)}"
                f" (its knobs: {', '.join([*knobs, PIN_KNOB])})"
            )
        self.sliders: dict[str, Any] = {}
        for name in [*knobs, PIN_KNOB]:
            value = current.get(name)
            if name in ranges:
                lo, hi, step = _parse_range(name, ranges[name])
            elif _numeric(value):
                lo, hi, step = default_range(name, value)
            else:
                continue
            floating = any(isinstance(v, float) for v in (lo, hi, step, value))
            start = lo if not _numeric(value) else min(max(value, lo), hi)
            cls = widgets.FloatSlider if floating else widgets.IntSlider
            self.sliders[name] = cls(
                value=start,
                min=lo,
                max=hi,
                step=step,
                description=name,
                continuous_update=False,
                style={"description_width": "180px"},
                layout=widgets.Layout(width="560px"),
            )
        self.strategy: WindowStrategy = strategy
        self.config: dict[str, Any] = {}
        self.error: Exception | None = None
        self.runs = 0
        self._hold = False
        self.summary_html = widgets.HTML()
        self.records_html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.output = widgets.Output()
        try:
            self._rerun(initial=True)
        except BaseException:
            self.close()  # the sliders and panes made so far would stay open otherwise
            raise
        self.figures: dict[str, Any] = {
            "window_size": figure_widget(plots.window_size(self.frames)),
            "window_map": figure_widget(plots.window_map(self.frames)),
        }
        name = str(getattr(strategy, "name", type(strategy).__name__))
        self.title = f"Tuner — {scenario.name} · {name}"
        self.header = widgets.HTML(
            heading_html(
                self.title,
                lead=f"{scenario.description} Each slider change re-runs the scripted "
                "scenario and redraws the charts.",
            )
        )
        self.children = [
            self.header,
            widgets.VBox(list(self.sliders.values())),
            self.summary_html,
            self.output,
            self.figures["window_size"],
            self.figures["window_map"],
            widgets.HTML(label_html("Window records")),
            self.records_html,
        ]
        for slider in self.sliders.values():
            slider.observe(self._on_change, names="value")
        self._adopt(subject)

    def snapshot(self, *names: str) -> Snapshot:
        """The Tuner as it is now, as static outputs: its heading and the summary of the last
        run (HTML) and its charts as PNG images — ``names`` of :attr:`figures` (default
        :data:`SNAPSHOT_FIGURES`). Display it in the cell after the Tuner, so a notebook read
        without a kernel (on GitHub) shows the run."""
        chosen = self._chosen_figures(names, SNAPSHOT_FIGURES)
        return Snapshot.of(
            self.title,
            self.header.value + self.summary_html.value,
            chosen,
        )

    def _shared_runs(self) -> SharedRuns:
        """``to_html(path)`` writes the report of the last run, labelled by its knobs."""
        label = str(self.frames.info.get("label") or _format_config(self.config, True))
        return {self.scenario.name: {label: (self.run, self.frames)}}

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

    def _on_change(self, change: Mapping[str, Any]) -> None:
        if not self._hold:
            self._rerun()

    def _values(self) -> tuple[dict[str, Any], int]:
        knobs = {n: s.value for n, s in self.sliders.items() if n != PIN_KNOB}
        pins = self.sliders[PIN_KNOB].value if PIN_KNOB in self.sliders else 2
        return knobs, int(pins)

    def _rerun(self, *, initial: bool = False) -> None:
        knobs, pins = self._values()
        config = {**knobs, PIN_KNOB: pins}
        with self.output:
            bar = progress(total=3, desc=f"{self.scenario.name}: {_format_config(config)}")
            shown = not getattr(bar, "disable", True)  # tqdm sets disable on close
            try:
                try:
                    strategy = _with_knobs(self.base, knobs)
                    run = self.scenario.run(
                        strategy,
                        keep_last_tool_results=pins,
                        provider=self.scenario.provider(**self.provider_options),
                    )
                except (WindowConfigError, TypeError, ValueError) as exc:
                    # a configuration the strategy or the agent refuses: say so, keep the charts
                    self.error = exc
                    self.summary_html.value = note_html(str(exc), strong="Not run:", tone="error")
                    if initial:
                        raise
                    return
                bar.update(1)
                label = _format_config(config, True)  # the strategy is named in the header
                frames = capture(run, label=label)
                bar.update(1)
                self.error = None
                self.strategy = strategy
                self.config = config
                self.run = run
                self.frames = frames
                self.numbers = key_numbers(run)
                self.runs += 1
                if not initial:
                    update_figure(self.figures["window_size"], plots.window_size(frames))
                    update_figure(self.figures["window_map"], plots.window_map(frames))
                self.summary_html.value = self._summary()
                self.records_html.value = records_html(frames)
                bar.update(1)
            finally:
                bar.close()
                if shown:
                    # a closed notebook bar leaves a dead view behind in the Output
                    self.output.clear_output()

    def _summary(self) -> str:
        n = self.numbers
        parts = [
            "",
            f"status {n['status']}",
            f"{n['iterations']} iterations",
            f"{n['removals']} removal(s), {n['removed_messages']} message(s) removed",
            f"{n['refusals']} refusal(s)",
            f"{n['pins']} pin(s)",
            f"peak {n['peak_window_chars']} chars",
            f"last {n['final_window_chars']} chars sent",
        ]
        return note_html(" · ".join(parts).strip(), strong=_format_config(self.config))
