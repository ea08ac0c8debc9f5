"""footprint_lab: make an LLM agent's context window visible, auditable and tunable.

Layer: the package's front door — it only re-exports. The window core is
:mod:`footprint_lab.window` (where the law is stated); the lab (dataframes, charts, widgets)
is :mod:`footprint_lab.lab`.
"""

from __future__ import annotations

from footprint_lab.agent import (
    Agent,
    AgentBuilder,
    CallRecord,
    Checkpoint,
    InjectionContext,
    PauseState,
    Run,
    RunFileError,
    Tool,
    after_compaction,
    ask_human,
    load_checkpoint,
    load_run,
    tool,
)
from footprint_lab.auditing import Violation, audit
from footprint_lab.counterfactual import replay
from footprint_lab.events import Event, Recorder
from footprint_lab.ledger import Commit, Ledger
from footprint_lab.messages import Message, ToolCall, content_hash, window_chars
from footprint_lab.providers import (
    Provider,
    ProviderError,
    ProviderRequest,
    ProviderResponse,
    Reply,
    ScriptedProvider,
    provider_summarizer,
)
from footprint_lab.sweeps import sweep
from footprint_lab.usage import Usage
from footprint_lab.window import (
    DROP_NOTICE_PREFIX,
    CompactionUnmeasurableError,
    ContextLengthError,
    FoldedSpan,
    Observations,
    Pin,
    Refusal,
    StrategyInput,
    StrategyResult,
    SummaryResult,
    Turn,
    WindowConfigError,
    WindowRecord,
    WindowResult,
    WindowStrategy,
    WindowStrategyError,
    aapply_window,
    apply_window,
    is_compaction_frame,
    is_drop_notice,
    segment_turns,
    sliding_window,
    summarize_oldest,
    token_budget,
)

__version__ = "0.1.0"

__all__ = [
    "DROP_NOTICE_PREFIX",
    "Agent",
    "AgentBuilder",
    "CallRecord",
    "Checkpoint",
    "Commit",
    "CompactionUnmeasurableError",
    "ContextLengthError",
    "Event",
    "FoldedSpan",
    "InjectionContext",
    "Ledger",
    "Message",
    "Observations",
    "PauseState",
    "Pin",
    "Provider",
    "ProviderError",
    "ProviderRequest",
    "ProviderResponse",
    "Recorder",
    "Refusal",
    "Reply",
    "Run",
    "RunFileError",
    "ScriptedProvider",
    "StrategyInput",
    "StrategyResult",
    "SummaryResult",
    "Tool",
    "ToolCall",
    "Turn",
    "Usage",
    "Violation",
    "WindowConfigError",
    "WindowRecord",
    "WindowResult",
    "WindowStrategy",
    "WindowStrategyError",
    "__version__",
    "aapply_window",
    "after_compaction",
    "apply_window",
    "ask_human",
    "audit",
    "content_hash",
    "is_compaction_frame",
    "is_drop_notice",
    "load_checkpoint",
    "load_run",
    "provider_summarizer",
    "replay",
    "segment_turns",
    "sliding_window",
    "summarize_oldest",
    "sweep",
    "token_budget",
    "tool",
    "window_chars",
]
