"""Token usage as a provider reported it. Layer: bottom (no imports from the package).

Tokens here are only ever what a provider reported for a call it served; nothing in this
package estimates the tokens of a window that has not been sent.
"""

from __future__ import annotations

from pydantic import BaseModel


class Usage(BaseModel):
    """Tokens one call (or a whole run) reported."""

    input_tokens: int = 0
    """Prompt tokens the provider reported."""
    output_tokens: int = 0
    """Completion tokens the provider reported."""
    cache_read_tokens: int | None = None
    """Prompt tokens served from the provider's cache, where the API reports them."""
    cache_write_tokens: int | None = None
    """Prompt tokens written to the provider's cache, where the API reports them."""

    @property
    def total_tokens(self) -> int:
        """Input plus output."""
        return self.input_tokens + self.output_tokens

    @property
    def reported(self) -> bool:
        """False when the provider reported zeros (a stream without usage)."""
        return self.input_tokens > 0 or self.output_tokens > 0

    def __add__(self, other: Usage) -> Usage:
        def _opt(a: int | None, b: int | None) -> int | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=_opt(self.cache_read_tokens, other.cache_read_tokens),
            cache_write_tokens=_opt(self.cache_write_tokens, other.cache_write_tokens),
        )
