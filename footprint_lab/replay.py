"""The old home of replay, now :mod:`footprint_lab.agent.replay`: every name it had, loaded on
first use.

Layer: a shim (top). It imports nothing when it loads, because the root imports it first (see
``footprint_lab/__init__.py``): ``footprint_lab.replay`` names both this module and the
root's function, and the root keeps the attribute the function that way. ``from
footprint_lab.replay import replay`` (or ``areplay``, ``as_run``, ...) loads the replay then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from footprint_lab.agent.replay import COUNTERFACTUAL_NOTE as COUNTERFACTUAL_NOTE
    from footprint_lab.agent.replay import Transcript as Transcript
    from footprint_lab.agent.replay import areplay as areplay
    from footprint_lab.agent.replay import as_run as as_run
    from footprint_lab.agent.replay import replay as replay
    from footprint_lab.agent.replay import transcript_of as transcript_of

__all__ = [
    "COUNTERFACTUAL_NOTE",
    "Transcript",
    "areplay",
    "as_run",
    "replay",
    "transcript_of",
]


def __getattr__(name: str) -> Any:
    if name.startswith("_"):
        raise AttributeError(f"module 'footprint_lab.replay' has no attribute {name!r}")
    from footprint_lab.agent import replay as module

    try:
        value = getattr(module, name)
    except AttributeError:
        raise AttributeError(
            f"module 'footprint_lab.replay' (now footprint_lab.agent.replay) has no attribute "
            f"{name!r}"
        ) from None
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
