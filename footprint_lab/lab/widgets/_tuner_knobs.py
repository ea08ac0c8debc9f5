"""The Tuner's knobs: their default ranges, how a strategy's knobs are read and changed, and how
a setting is written.

Layer: lab (private; :mod:`footprint_lab.lab.widgets.tuner` re-exports :func:`default_range`
and :data:`PIN_KNOB`). The pin knob has one name everywhere, ``keep_last_tool_results`` — the
one :data:`~footprint_lab.window.pins.PIN_KEY` — in sliders, titles and labels alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields, is_dataclass, replace
from typing import Any, cast

from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.pins import PIN_KEY
from footprint_lab.window.strategies import WindowStrategy

__all__ = [
    "PIN_KNOB",
    "default_range",
    "format_config",
    "knobs_of",
    "numeric",
    "parse_range",
    "with_knobs",
]

PIN_KNOB = PIN_KEY
"""The one knob that belongs to the agent, not the strategy (it is passed to ``run`` or
``replay``): the one :data:`~footprint_lab.window.pins.PIN_KEY`."""


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


def parse_range(name: str, spec: Any) -> tuple[Any, Any, Any]:
    """``(min, max, step)`` from a ``knob=(min, max)`` or ``(min, max, step)`` keyword.

    Raises:
        ValueError: not two or three numbers, ``max < min`` or ``step <= 0``.
    """
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


def knobs_of(strategy: Any) -> dict[str, Any]:
    """A strategy's knobs: ``strategy.knobs()``, else a dataclass's numeric fields."""
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


def with_knobs(strategy: Any, changes: Mapping[str, Any]) -> WindowStrategy:
    """``strategy`` with some knobs changed: ``strategy.with_knobs(...)``, else a dataclass
    ``replace``.

    Raises:
        WindowConfigError: the strategy has neither and ``changes`` is not empty.
    """
    changer = getattr(strategy, "with_knobs", None)
    if callable(changer):
        changed: WindowStrategy = changer(**changes)
        return changed
    if is_dataclass(strategy) and not isinstance(strategy, type):
        return cast(WindowStrategy, replace(strategy, **changes))
    if changes:
        raise WindowConfigError(
            f"{type(strategy).__name__} has no with_knobs(**changes): add knobs() and "
            "with_knobs() (or make it a dataclass) so the Tuner can change it"
        )
    same: WindowStrategy = strategy
    return same


def numeric(value: Any) -> bool:
    """Whether ``value`` is a number a slider can hold (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def format_config(config: Mapping[str, Any]) -> str:
    """A setting as ``k=v`` pairs, every knob by its own name (the pin knob too:
    ``keep_last_tool_results=2``), floats in their shortest form."""
    return " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in config.items())
