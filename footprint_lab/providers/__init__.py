"""Providers: the scripted default and (in their own modules) real APIs.

Layer: providers — above the window core, below the agent.
"""

from __future__ import annotations

from footprint_lab.providers.base import (
    ContextLengthError,
    Provider,
    ProviderError,
    ProviderRequest,
    ProviderResponse,
    ToolSpec,
)
from footprint_lab.providers.scripted import Reply, ScriptedProvider, echo_provider

__all__ = [
    "ContextLengthError",
    "Provider",
    "ProviderError",
    "ProviderRequest",
    "ProviderResponse",
    "Reply",
    "ScriptedProvider",
    "ToolSpec",
    "echo_provider",
]
