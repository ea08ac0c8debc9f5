"""Providers: the scripted default and the real APIs (OpenAI-compatible and Anthropic).

Layer: providers — above the window core, below the agent. ``OpenAIProvider`` and
``AnthropicProvider`` load their SDKs on first use, so importing footprint_lab stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from footprint_lab._lazy import lazy_names
from footprint_lab.providers._common import MissingAPIKeyError
from footprint_lab.providers._context_windows import (
    ANTHROPIC_CONTEXT_WINDOWS,
    ANTHROPIC_FALLBACK_CONTEXT_WINDOW,
    OPENAI_CONTEXT_WINDOWS,
    OPENAI_FALLBACK_CONTEXT_WINDOW,
    lookup_context_window,
)
from footprint_lab.providers.base import (
    ContextLengthError,
    Provider,
    ProviderError,
    ProviderRequest,
    ProviderResponse,
    TokenCounter,
    ToolSpec,
    count_tokens,
)
from footprint_lab.providers.scripted import Reply, ScriptedProvider, echo_provider
from footprint_lab.providers.summarizer import (
    DEFAULT_SUMMARY_INSTRUCTIONS,
    ProviderSummarizer,
    provider_summarizer,
)

if TYPE_CHECKING:
    from footprint_lab.providers.anthropic import AnthropicProvider
    from footprint_lab.providers.openai import OpenAIProvider

__all__ = [
    "ANTHROPIC_CONTEXT_WINDOWS",
    "ANTHROPIC_FALLBACK_CONTEXT_WINDOW",
    "DEFAULT_SUMMARY_INSTRUCTIONS",
    "OPENAI_CONTEXT_WINDOWS",
    "OPENAI_FALLBACK_CONTEXT_WINDOW",
    "AnthropicProvider",
    "ContextLengthError",
    "MissingAPIKeyError",
    "OpenAIProvider",
    "Provider",
    "ProviderError",
    "ProviderRequest",
    "ProviderResponse",
    "ProviderSummarizer",
    "Reply",
    "ScriptedProvider",
    "TokenCounter",
    "ToolSpec",
    "count_tokens",
    "echo_provider",
    "lookup_context_window",
    "provider_summarizer",
]

_LAZY = {
    "OpenAIProvider": "footprint_lab.providers.openai",
    "AnthropicProvider": "footprint_lab.providers.anthropic",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
