"""footprint_lab: make an LLM agent's context window visible, auditable and tunable.

Layer: the package's front door — it only re-exports, and lazily. ``__all__`` is the curated
face: the entry points of the API contract. Every other name the root has ever exported is
still importable from it (see ``_LAZY``); each is loaded on first use, so ``import
footprint_lab`` imports nothing heavy and the window core works without pandas. The window
core is :mod:`footprint_lab.window` (where the law is stated); the lab (dataframes, charts,
widgets) is :mod:`footprint_lab.lab`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from footprint_lab._lazy import lazy_names

if TYPE_CHECKING:
    from footprint_lab._gc import bulk_work as bulk_work
    from footprint_lab.agent import Agent as Agent
    from footprint_lab.agent import AgentBuilder as AgentBuilder
    from footprint_lab.agent import CallRecord as CallRecord
    from footprint_lab.agent import Checkpoint as Checkpoint
    from footprint_lab.agent import InjectionContext as InjectionContext
    from footprint_lab.agent import PauseState as PauseState
    from footprint_lab.agent import Run as Run
    from footprint_lab.agent import RunFileError as RunFileError
    from footprint_lab.agent import Tool as Tool
    from footprint_lab.agent import after_compaction as after_compaction
    from footprint_lab.agent import ask_human as ask_human
    from footprint_lab.agent import load_checkpoint as load_checkpoint
    from footprint_lab.agent import load_run as load_run
    from footprint_lab.agent import tool as tool
    from footprint_lab.agent.explain import explain as explain
    from footprint_lab.agent.fork import fork as fork
    from footprint_lab.auditing import Violation as Violation
    from footprint_lab.auditing import audit as audit
    from footprint_lab.events import Event as Event
    from footprint_lab.events import Recorder as Recorder
    from footprint_lab.evidence.judge import Finding as Finding
    from footprint_lab.evidence.judge import judge as judge
    from footprint_lab.importers import load as load
    from footprint_lab.lab import no_policy as no_policy
    from footprint_lab.lab.sweeps import sweep as sweep
    from footprint_lab.ledger import Commit as Commit
    from footprint_lab.ledger import Ledger as Ledger
    from footprint_lab.messages import Message as Message
    from footprint_lab.messages import ToolCall as ToolCall
    from footprint_lab.messages import content_hash as content_hash
    from footprint_lab.messages import window_chars as window_chars
    from footprint_lab.providers import ContextLengthError as ContextLengthError
    from footprint_lab.providers import Provider as Provider
    from footprint_lab.providers import ProviderError as ProviderError
    from footprint_lab.providers import ProviderRequest as ProviderRequest
    from footprint_lab.providers import ProviderResponse as ProviderResponse
    from footprint_lab.providers import Reply as Reply
    from footprint_lab.providers import ScriptedProvider as ScriptedProvider
    from footprint_lab.providers import provider_summarizer as provider_summarizer
    from footprint_lab.replay import replay as replay
    from footprint_lab.usage import Usage as Usage
    from footprint_lab.window import DROP_NOTICE_PREFIX as DROP_NOTICE_PREFIX
    from footprint_lab.window import CompactionUnmeasurableError as CompactionUnmeasurableError
    from footprint_lab.window import FoldedSpan as FoldedSpan
    from footprint_lab.window import Observations as Observations
    from footprint_lab.window import Pin as Pin
    from footprint_lab.window import Refusal as Refusal
    from footprint_lab.window import StrategyInput as StrategyInput
    from footprint_lab.window import StrategyResult as StrategyResult
    from footprint_lab.window import SummaryResult as SummaryResult
    from footprint_lab.window import Turn as Turn
    from footprint_lab.window import WindowConfigError as WindowConfigError
    from footprint_lab.window import WindowRecord as WindowRecord
    from footprint_lab.window import WindowResult as WindowResult
    from footprint_lab.window import WindowStrategy as WindowStrategy
    from footprint_lab.window import WindowStrategyError as WindowStrategyError
    from footprint_lab.window import aapply_window as aapply_window
    from footprint_lab.window import anthropic_compaction as anthropic_compaction
    from footprint_lab.window import anthropic_context_editing as anthropic_context_editing
    from footprint_lab.window import apply_window as apply_window
    from footprint_lab.window import clear_thinking as clear_thinking
    from footprint_lab.window import clear_tool_results as clear_tool_results
    from footprint_lab.window import is_compaction_frame as is_compaction_frame
    from footprint_lab.window import is_drop_notice as is_drop_notice
    from footprint_lab.window import openai_compaction as openai_compaction
    from footprint_lab.window import segment_turns as segment_turns
    from footprint_lab.window import sliding_window as sliding_window
    from footprint_lab.window import summarize_oldest as summarize_oldest
    from footprint_lab.window import token_budget as token_budget

__version__ = "0.1.0"

__all__ = [  # noqa: RUF022 (the contract's order, not the alphabet)
    # The API contract's root names (see DESIGN.md), in its order.
    "Message",
    "ToolCall",
    "Agent",
    "tool",
    "ScriptedProvider",
    "Reply",
    "sliding_window",
    "token_budget",
    "summarize_oldest",
    "apply_window",
    "WindowResult",
    "WindowRecord",
    "Refusal",
    "Observations",
    "Pin",
    "segment_turns",
    "DROP_NOTICE_PREFIX",
    "is_drop_notice",
    "CompactionUnmeasurableError",
    "WindowConfigError",
    "ContextLengthError",
    # Runs, durability, replay, fork, audit and sweeps.
    "Run",
    "load_run",
    "RunFileError",
    "replay",
    "fork",
    "audit",
    "sweep",
    "provider_summarizer",
    # What a policy costs.
    "anthropic_compaction",
    "anthropic_context_editing",
    "clear_thinking",
    "clear_tool_results",
    "openai_compaction",
    # Why a message left the window, or stayed.
    "explain",
    # Any stack's file, and what its own policy did.
    "load",
    "judge",
    # The baseline every comparison starts from (evidence_frame, a corpus's grid).
    "no_policy",
]

_WINDOW = "footprint_lab.window"
_AGENT = "footprint_lab.agent"
_PROVIDERS = "footprint_lab.providers"

_LAZY: dict[str, str] = {
    # messages, ledger, events, usage: the bottom
    "Message": "footprint_lab.messages",
    "ToolCall": "footprint_lab.messages",
    "content_hash": "footprint_lab.messages",
    "window_chars": "footprint_lab.messages",
    "Commit": "footprint_lab.ledger",
    "Ledger": "footprint_lab.ledger",
    "Event": "footprint_lab.events",
    "Recorder": "footprint_lab.events",
    "Usage": "footprint_lab.usage",
    "bulk_work": "footprint_lab._gc",  # the opt-in collector pause for bulk work
    # the window core
    "DROP_NOTICE_PREFIX": _WINDOW,
    "CompactionUnmeasurableError": _WINDOW,
    "FoldedSpan": _WINDOW,
    "Observations": _WINDOW,
    "Pin": _WINDOW,
    "Refusal": _WINDOW,
    "StrategyInput": _WINDOW,
    "StrategyResult": _WINDOW,
    "SummaryResult": _WINDOW,
    "Turn": _WINDOW,
    "WindowConfigError": _WINDOW,
    "WindowRecord": _WINDOW,
    "WindowResult": _WINDOW,
    "WindowStrategy": _WINDOW,
    "WindowStrategyError": _WINDOW,
    "aapply_window": _WINDOW,
    "anthropic_compaction": _WINDOW,
    "anthropic_context_editing": _WINDOW,
    "clear_thinking": _WINDOW,
    "clear_tool_results": _WINDOW,
    "openai_compaction": _WINDOW,
    "apply_window": _WINDOW,
    "is_compaction_frame": _WINDOW,
    "is_drop_notice": _WINDOW,
    "segment_turns": _WINDOW,
    "sliding_window": _WINDOW,
    "summarize_oldest": _WINDOW,
    "token_budget": _WINDOW,
    # providers
    "ContextLengthError": _PROVIDERS,
    "Provider": _PROVIDERS,
    "ProviderError": _PROVIDERS,
    "ProviderRequest": _PROVIDERS,
    "ProviderResponse": _PROVIDERS,
    "Reply": _PROVIDERS,
    "ScriptedProvider": _PROVIDERS,
    "provider_summarizer": _PROVIDERS,
    # the agent and durable runs
    "Agent": _AGENT,
    "AgentBuilder": _AGENT,
    "CallRecord": _AGENT,
    "Checkpoint": _AGENT,
    "InjectionContext": _AGENT,
    "PauseState": _AGENT,
    "Run": _AGENT,
    "RunFileError": _AGENT,
    "Tool": _AGENT,
    "after_compaction": _AGENT,
    "ask_human": _AGENT,
    "load_checkpoint": _AGENT,
    "load_run": _AGENT,
    "tool": _AGENT,
    "replay": "footprint_lab.replay",  # the function: a run or a transcript
    "fork": "footprint_lab.agent.fork",
    "explain": "footprint_lab.agent.explain",
    # above the agent
    "Violation": "footprint_lab.auditing",
    "audit": "footprint_lab.auditing",
    "sweep": "footprint_lab.lab.sweeps",  # pandas: loaded only when asked for
    "judge": "footprint_lab.evidence.judge",
    "Finding": "footprint_lab.evidence.judge",
    "load": "footprint_lab.importers",  # every format's loader: loaded only when asked for
    "no_policy": "footprint_lab.lab",  # pandas: loaded only when asked for
}
"""Every name the root exports, and the module it comes from."""

# ``footprint_lab.replay`` is also a module: the old path of replay, a shim that imports
# nothing when it loads. Importing a submodule binds the parent's attribute of its name to the
# module, once, when the submodule first loads. So the shim is loaded here, first (whatever
# imports it later finds it loaded and binds nothing), and the binding is undone: the attribute
# ``replay`` is then served by ``__getattr__`` below, the function, as every other name is.
importlib.import_module("footprint_lab.replay")
del globals()["replay"]


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
