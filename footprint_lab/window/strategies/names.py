"""The shipped strategies by name: the one registry of their names and the one normaliser.

Layer: window core (pure). A strategy's name is what its records are filed under
(``"token-budget"``); people also write it as the function's name (``"token_budget"``).
:func:`strategy_key` turns either spelling into the registered name, and
:data:`SHIPPED_STRATEGIES` maps each registered name to the function that builds it — what a
widget that takes "a strategy, by function, name or instance" looks names and functions up in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies.base import WindowStrategy
from footprint_lab.window.strategies.clear_tool_results import clear_tool_results
from footprint_lab.window.strategies.context_editing import (
    anthropic_context_editing,
    clear_thinking,
)
from footprint_lab.window.strategies.server_compaction import (
    anthropic_compaction,
    openai_compaction,
)
from footprint_lab.window.strategies.sliding_window import sliding_window
from footprint_lab.window.strategies.summarize_oldest import summarize_oldest
from footprint_lab.window.strategies.token_budget import token_budget

__all__ = ["SHIPPED_STRATEGIES", "shipped_factory", "shipped_name_of", "strategy_key"]

SHIPPED_STRATEGIES: Mapping[str, Callable[..., WindowStrategy]] = MappingProxyType(
    {
        "sliding-window": sliding_window,
        "token-budget": token_budget,
        "summarize-oldest": summarize_oldest,
        "clear-tool-results": clear_tool_results,
        # The offline twins of the providers' own server-side policies.
        "anthropic-context-editing": anthropic_context_editing,
        "clear-thinking": clear_thinking,
        "anthropic-compaction": anthropic_compaction,
        "openai-compaction": openai_compaction,
    }
)
"""Registered name (the name records are filed under) -> the function that builds it."""


def strategy_key(name: str) -> str:
    """The registered spelling of a strategy name: ``"token_budget"``, ``"Token-Budget"`` and
    ``" token-budget "`` are all ``"token-budget"`` (underscores become hyphens, lower case,
    no surrounding space). A name that is not shipped comes back normalised the same way, so a
    scenario's own labels can be looked up with it too.

    Raises:
        TypeError: ``name`` is not text.
    """
    if not isinstance(name, str):
        raise TypeError(f"a strategy name is text, got {type(name).__name__}")
    return name.strip().lower().replace("_", "-")


def shipped_factory(name: str) -> Callable[..., WindowStrategy]:
    """The function that builds the shipped strategy ``name`` (either spelling).

    Raises:
        WindowConfigError: no shipped strategy has that name (the message lists them).
    """
    key = strategy_key(name)
    if key not in SHIPPED_STRATEGIES:
        raise WindowConfigError(
            f"no shipped strategy {name!r}; the shipped ones are "
            f"{', '.join(SHIPPED_STRATEGIES)} (with '_' or '-')"
        )
    return SHIPPED_STRATEGIES[key]


def shipped_name_of(factory: Any) -> str | None:
    """The registered name of ``factory`` when it is one of the shipped functions
    (``token_budget`` -> ``"token-budget"``), else None."""
    for key, candidate in SHIPPED_STRATEGIES.items():
        if factory is candidate:
            return key
    return None
