"""Errors the window core raises. Layer: window core (see the law in ``footprint_lab.window``).

``ContextLengthError`` — a provider's rejection of a request as too long, which the core never
raises nor reads — lives with the providers (:mod:`footprint_lab.providers.base`); this module,
its old home, still gives it, imported on first use so the core loads no provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from footprint_lab.providers.base import ContextLengthError as ContextLengthError


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


def __getattr__(name: str) -> Any:
    if name == "ContextLengthError":
        from footprint_lab.providers.base import ContextLengthError

        return ContextLengthError
    raise AttributeError(f"module 'footprint_lab.window.errors' has no attribute {name!r}")
