"""Shipped window strategies and the protocol yours implements.

Layer: window core; each strategy obeys the law stated in ``footprint_lab.window``.
"""

from __future__ import annotations

from footprint_lab.window.strategies.base import (
    StrategyInput,
    StrategyResult,
    WindowStrategy,
)
from footprint_lab.window.strategies.clear_tool_results import (
    ClearToolResults,
    clear_tool_results,
)
from footprint_lab.window.strategies.context_editing import (
    AnthropicContextEditing,
    ClearThinking,
    anthropic_context_editing,
    clear_thinking,
)
from footprint_lab.window.strategies.names import SHIPPED_STRATEGIES, strategy_key
from footprint_lab.window.strategies.server_compaction import (
    ServerCompaction,
    anthropic_compaction,
    openai_compaction,
)
from footprint_lab.window.strategies.sliding_window import SlidingWindow, sliding_window
from footprint_lab.window.strategies.splice import RemovalFacts
from footprint_lab.window.strategies.summarize_oldest import (
    SummarizeOldest,
    Summarizer,
    SummaryResult,
    summarize_oldest,
)
from footprint_lab.window.strategies.token_budget import TokenBudget, token_budget

__all__ = [
    "SHIPPED_STRATEGIES",
    "AnthropicContextEditing",
    "ClearThinking",
    "ClearToolResults",
    "RemovalFacts",
    "ServerCompaction",
    "SlidingWindow",
    "StrategyInput",
    "StrategyResult",
    "SummarizeOldest",
    "Summarizer",
    "SummaryResult",
    "TokenBudget",
    "WindowStrategy",
    "anthropic_compaction",
    "anthropic_context_editing",
    "clear_thinking",
    "clear_tool_results",
    "openai_compaction",
    "sliding_window",
    "strategy_key",
    "summarize_oldest",
    "token_budget",
]
