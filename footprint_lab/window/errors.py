"""Errors the window core raises. Layer: window core (see the law in ``footprint_lab.window``)."""

from __future__ import annotations


class WindowConfigError(ValueError):
    """A strategy or agent was configured in a way that cannot work; the message says the fix."""


class CompactionUnmeasurableError(RuntimeError):
    """A token-triggered strategy was handed zero reported tokens: it counts, it never guesses."""


class ContextLengthError(RuntimeError):
    """The provider rejected a request as longer than the model's context window."""

    def __init__(self, message: str, *, provider: str | None = None) -> None:
        super().__init__(message)
        self.provider = provider


class WindowStrategyError(RuntimeError):
    """A custom strategy returned a window its record does not account for."""
