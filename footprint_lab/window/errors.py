"""Errors the window core raises. Layer: window core (see the law in ``footprint_lab.window``)."""

from __future__ import annotations

from footprint_lab.messages import storable_text


class WindowConfigError(ValueError):
    """A strategy or agent was configured in a way that cannot work; the message says the fix."""


class CompactionUnmeasurableError(RuntimeError):
    """A token-triggered strategy was handed zero reported tokens: it counts, it never guesses."""


class ContextLengthError(RuntimeError):
    """The provider rejected a request as longer than the model's context window. Its message
    is storable text (a lone surrogate a server sent is escaped)."""

    def __init__(self, message: str, *, provider: str | None = None) -> None:
        super().__init__(storable_text(message))
        self.provider = provider


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
