"""Errors the window core raises. Layer: window core (see the law in ``footprint_lab.window``).

``ContextLengthError`` — a provider's rejection of a request as too long, which the core never
raises nor reads — lives with the providers (:mod:`footprint_lab.providers.base`); this module,
its old home, still gives it from where it is defined, below both
(``footprint_lab._context_length``), so the core imports no provider.
"""

from __future__ import annotations

from footprint_lab._context_length import ContextLengthError

__all__ = [
    "CompactionUnmeasurableError",
    "ContextLengthError",
    "WindowConfigError",
    "WindowStrategyError",
]


class WindowConfigError(ValueError):
    """A strategy or agent was configured in a way that cannot work; the message says the fix."""


class CompactionUnmeasurableError(RuntimeError):
    """A token-triggered strategy was handed zero reported tokens: it counts, it never guesses."""


class WindowStrategyError(RuntimeError):
    """A strategy returned a window that breaks the law, or a record that does not account for
    it. ``rule``, ``message_index`` and ``stage_id`` say which rule broke and where (None when
    the result itself is malformed)."""

    def __init__(
        self,
        message: str,
        *,
        rule: str | None = None,
        message_index: int | None = None,
        stage_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.message_index = message_index
        self.stage_id = stage_id
