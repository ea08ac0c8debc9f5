"""``WindowResult``: what one window visit returns. Layer: window core (see the law in
``footprint_lab.window``: the result is a new window plus the record that accounts for it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from footprint_lab.messages import Message
from footprint_lab.window.records import FoldedSpan, WindowRecord
from footprint_lab.window.shape import Window


@dataclass(frozen=True, slots=True)
class WindowResult:
    """A window and the record that accounts for it."""

    window: list[Message]
    """What the next call sends."""
    record: WindowRecord | None
    """The visit's record; None when the strategy did not engage."""
    folded: list[FoldedSpan] = field(default_factory=list)
    """Spans a compaction frame now stands for (summarize-oldest)."""
    given: Window | None = field(default=None, repr=False, compare=False)
    """The window the visit was given, with its facts (hand it to the next visit as
    ``Boundary.reuse``)."""
    verified: bool = field(default=False, repr=False, compare=False)
    """Kept for compatibility and ignored: ``apply_window`` checks every result against the
    law, however it was built; no flag skips a check."""

    @property
    def changed(self) -> bool:
        """Whether the visit removed or inserted anything."""
        return self.record is not None and (
            self.record.removed_message_count > 0
            or self.record.window_chars_before != self.record.window_chars_after
        )
