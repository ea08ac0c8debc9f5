"""The window core: pure rules that decide what the next LLM call re-sends.

Layer: the heart. No I/O, no provider, no pandas, no plotly. Everything above it (the agent
loop, replay, the lab, a strategy you write) goes through :func:`apply_window`, so every rule
has exactly one implementation.

The law
-------
**A window strategy edits the window, never the ledger.**

The *window* is what the next call sends. The *ledger* is the run's append-only commit log,
and the stages that wrote each message committed it before any strategy ran. So no strategy
can destroy history: it can only stop re-sending something, and it must say so in a
:class:`WindowRecord` that names, by stage id, every message that left, and names every turn
that refused to leave, with a reason. Every module in this package points back here.
"""

from __future__ import annotations

from footprint_lab.window.apply import WindowResult, aapply_window, apply_window
from footprint_lab.window.errors import (
    CompactionUnmeasurableError,
    ContextLengthError,
    WindowConfigError,
    WindowStrategyError,
)
from footprint_lab.window.notice import (
    COMPACTION_FRAME_PREFIX,
    DROP_NOTICE_PREFIX,
    is_compaction_frame,
    is_drop_notice,
)
from footprint_lab.window.records import FoldedSpan, Observations, Pin, Refusal, WindowRecord
from footprint_lab.window.strategies import (
    StrategyInput,
    StrategyResult,
    SummaryResult,
    WindowStrategy,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from footprint_lab.window.turns import RemovalPlan, Turn, current_request_index, segment_turns

__all__ = [
    "COMPACTION_FRAME_PREFIX",
    "DROP_NOTICE_PREFIX",
    "CompactionUnmeasurableError",
    "ContextLengthError",
    "FoldedSpan",
    "Observations",
    "Pin",
    "Refusal",
    "RemovalPlan",
    "StrategyInput",
    "StrategyResult",
    "SummaryResult",
    "Turn",
    "WindowConfigError",
    "WindowRecord",
    "WindowResult",
    "WindowStrategy",
    "WindowStrategyError",
    "aapply_window",
    "apply_window",
    "current_request_index",
    "is_compaction_frame",
    "is_drop_notice",
    "segment_turns",
    "sliding_window",
    "summarize_oldest",
    "token_budget",
]
