"""Evidence: which tool calls depended on earlier tool results, and what a window policy cost
them.

Layer: evidence (pure; no pandas — ``footprint_lab.lab.evidence_frame`` turns it into frames).
"""

from __future__ import annotations

from footprint_lab.agent.transcript import transcript
from footprint_lab.evidence.dependencies import (
    DEFAULT_MIN_CHARS,
    Dependency,
    argument_leaves,
    dependencies,
    dependencies_in,
    named,
    tool_calls_in,
    transcript_facts,
)
from footprint_lab.evidence.facts import Link, TranscriptFacts
from footprint_lab.evidence.judge import FINDING_RULES, Finding, FindingRule, judge
from footprint_lab.evidence.losses import (
    Loss,
    WireCheck,
    calls_of,
    losses,
    request_lost,
    request_lost_calls,
    wire_problem_calls,
    wire_problems,
)
from footprint_lab.evidence.windows import SentWindow, SentWindows

__all__ = [
    "DEFAULT_MIN_CHARS",
    "FINDING_RULES",
    "Dependency",
    "Finding",
    "FindingRule",
    "Link",
    "Loss",
    "SentWindow",
    "SentWindows",
    "TranscriptFacts",
    "WireCheck",
    "argument_leaves",
    "calls_of",
    "dependencies",
    "dependencies_in",
    "judge",
    "losses",
    "named",
    "request_lost",
    "request_lost_calls",
    "tool_calls_in",
    "transcript",
    "transcript_facts",
    "wire_problem_calls",
    "wire_problems",
]
