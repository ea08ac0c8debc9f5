"""The one error both the providers and the window core name: a request too long for the model.

Layer: the base (beside ``messages``). A provider raises :class:`ContextLengthError`; the agent
catches it, runs its strategy once, forced, and retries. It is defined here, below both the
window core and the providers, so each can give it under its own name without importing the
other: :mod:`footprint_lab.providers.base` is its home in the API, and ``footprint_lab.window``
/ ``footprint_lab.window.errors``, its older homes, re-export it. Its ``__module__`` is this
file, where it is defined, so ``inspect.getsource`` (Jupyter's ``??``) and pickles find it.
"""

from __future__ import annotations

from footprint_lab.messages import storable_text

__all__ = ["ContextLengthError"]


class ContextLengthError(RuntimeError):
    """The provider rejected a request as longer than the model's context window: the agent
    then runs its strategy once, forced, and retries. Its message is storable text (a lone
    surrogate a server sent is escaped)."""

    def __init__(self, message: str, *, provider: str | None = None) -> None:
        super().__init__(storable_text(message))
        self.provider = provider
