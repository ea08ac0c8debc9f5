"""The configurations an evidence grid replays runs under: one per strategy, dict or factory
with its knobs, and the cartesian grid of a factory's knobs.

Layer: lab (private; :mod:`footprint_lab.lab.evidence` re-exports every name, and its docstring
shows how configurations are written).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.window.pins import PIN_KEY

__all__ = ["NO_POLICY", "PIN_KEY", "EvidenceConfig", "evidence_grid", "no_policy"]

NO_POLICY = "no policy"
"""The label of :func:`no_policy`."""

_RESERVED = frozenset({"label", "strategy", "factory", PIN_KEY})


@dataclass(frozen=True)
class EvidenceConfig:
    """One window configuration to replay every run under."""

    label: str
    """The name it is shown under (unique within one ``evidence_frame`` call)."""
    strategy: Any = None
    """A strategy or an audited policy; None for no window management (unless ``factory``)."""
    keep_last_tool_results: int = 2
    """The pin limit the replay runs with (0 = pins off)."""
    knobs: Mapping[str, Any] = field(default_factory=dict)
    """Knob values, each reported in its own column; passed to ``factory`` when there is one.
    Left empty, a strategy's own ``knobs()`` fill them."""
    factory: Callable[..., Any] | None = None
    """Builds the strategy from the knobs (instead of ``strategy``)."""

    def build(self) -> Any:
        """The strategy to replay with (None: no window management)."""
        if self.factory is not None:
            return self.factory(**self.knobs)
        return self.strategy

    def knob_values(self) -> dict[str, Any]:
        """The knobs to report: the given ones, else the strategy's own ``knobs()``."""
        if self.knobs:
            return dict(self.knobs)
        strategy = self.strategy
        for candidate in (strategy, getattr(strategy, "policy", None)):
            own = getattr(candidate, "knobs", None)
            if callable(own):
                values = own()
                if isinstance(values, Mapping):
                    return dict(values)
        return {}

    @classmethod
    def coerce(cls, value: EvidenceConfig | Mapping[str, Any] | Any) -> EvidenceConfig:
        """A configuration from a dict (``label``, ``strategy`` or ``factory``,
        ``keep_last_tool_results``; every other key is a knob), or from a strategy itself
        (``sliding_window(4)``, ``clear_tool_results(...)``, an ``audit(...)``ed policy),
        labelled by its name and knobs."""
        if isinstance(value, EvidenceConfig):
            return value
        if not isinstance(value, Mapping) and callable(getattr(value, "plan", None)):
            config = cls(label="", strategy=value)
            name = str(getattr(value, "name", None) or type(value).__name__)
            knobs = config.knob_values()
            # Only the knobs that say something: no None, no empty list, no False.
            shown = {k: v for k, v in knobs.items() if v not in (None, False, (), [], frozenset())}
            text = " ".join([name, *(f"{_short(k)}={_knob_text(v)}" for k, v in shown.items())])
            return cls(label=text, strategy=value)
        if not isinstance(value, Mapping):
            raise TypeError(
                f"a configuration is a strategy, an EvidenceConfig or a dict, got {value!r}"
            )
        if "label" not in value:
            raise ValueError(f"a configuration needs a 'label': {dict(value)!r}")
        knobs = {k: v for k, v in value.items() if k not in _RESERVED}
        return cls(
            label=str(value["label"]),
            strategy=value.get("strategy"),
            keep_last_tool_results=int(value.get(PIN_KEY, 2)),
            knobs=knobs,
            factory=value.get("factory"),
        )


def no_policy(label: str = NO_POLICY) -> EvidenceConfig:
    """The baseline: every run replayed with no window management."""
    return EvidenceConfig(label=label, strategy=None, keep_last_tool_results=0)


def _short(key: str) -> str:
    # The pin knob has one name everywhere (#26): no "pins=" shorthand beside the knob's name.
    return {"keep_recent_turns": "k"}.get(key, key)


def _knob_text(value: Any) -> str:
    if isinstance(value, (tuple, list, frozenset, set)):
        return "[" + ",".join(map(str, value)) + "]"
    return str(value)


def evidence_grid(
    factory: Callable[..., Any],
    grid: Mapping[str, Iterable[Any]],
    *,
    label: Callable[[str, Mapping[str, Any]], str] | None = None,
) -> list[EvidenceConfig]:
    """Every configuration of ``grid`` (its cartesian product, in order) for ``factory``.

    Args:
        factory: Builds a strategy from the knobs (``sliding_window``, a lambda, ...).
        grid: ``{"keep_recent_turns": range(1, 9), "keep_last_tool_results": [0, 2]}``;
            ``keep_last_tool_results`` goes to the replay, the other keys to ``factory``.
        label: ``label(strategy_name, config) -> str``; default
            ``"sliding-window k=2 keep_last_tool_results=0"``.
    """
    keys = list(grid)
    values = [list(grid[k]) for k in keys]
    out: list[EvidenceConfig] = []
    for combo in itertools.product(*values):
        config = dict(zip(keys, combo, strict=True))
        knobs = {k: v for k, v in config.items() if k != PIN_KEY}
        pins = int(config.get(PIN_KEY, 2))
        name = str(getattr(factory(**knobs), "name", None) or getattr(factory, "__name__", "?"))
        text = (
            label(name, config)
            if label is not None
            else " ".join([name, *(f"{_short(k)}={v}" for k, v in config.items())])
        )
        out.append(EvidenceConfig(text, None, pins, knobs, factory))
    return out
