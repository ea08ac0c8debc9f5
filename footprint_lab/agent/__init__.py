"""The agent: builder, ReAct loop, tools and runs. Layer: above providers and the window core."""

from __future__ import annotations

from footprint_lab.agent.agent import Agent
from footprint_lab.agent.builder import AgentBuilder
from footprint_lab.agent.run import CallRecord, Run, RunStatus
from footprint_lab.agent.tools import Tool, tool

__all__ = ["Agent", "AgentBuilder", "CallRecord", "Run", "RunStatus", "Tool", "tool"]
