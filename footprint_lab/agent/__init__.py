"""The agent: builder, ReAct loop, tools, injections and durable runs.

Layer: above providers and the window core.
"""

from __future__ import annotations

from footprint_lab.agent.agent import Agent, AgentBusyError, CheckpointHook
from footprint_lab.agent.builder import AgentBuilder
from footprint_lab.agent.checkpoint import (
    Checkpoint,
    RestoredError,
    RunFileError,
    load_checkpoint,
    load_run,
)
from footprint_lab.agent.injections import (
    InjectionContext,
    InjectionRule,
    Redelivered,
    after_compaction,
)
from footprint_lab.agent.origin import Fork, Import, Live, Origin, Recorded, Replay
from footprint_lab.agent.run import CallRecord, PauseState, Run, RunStatus
from footprint_lab.agent.tools import Tool, ask_human, current_call_id, tool

__all__ = [
    "Agent",
    "AgentBuilder",
    "AgentBusyError",
    "CallRecord",
    "Checkpoint",
    "CheckpointHook",
    "Fork",
    "Import",
    "InjectionContext",
    "InjectionRule",
    "Live",
    "Origin",
    "PauseState",
    "Recorded",
    "Redelivered",
    "Replay",
    "RestoredError",
    "Run",
    "RunFileError",
    "RunStatus",
    "Tool",
    "after_compaction",
    "ask_human",
    "current_call_id",
    "load_checkpoint",
    "load_run",
    "tool",
]
