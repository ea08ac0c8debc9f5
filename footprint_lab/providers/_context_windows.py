"""Context-window lookup tables for the real providers.

Layer: providers. Compaction's relative threshold is a share of ``provider.context_window(model)``,
so every provider answers with a number: the longest known model-id prefix wins, and anything
unknown gets the provider's documented fallback. Dated snapshots (``gpt-4o-2024-08-06``,
``claude-3-5-sonnet-20241022``) match their family's prefix.
"""

from __future__ import annotations

from collections.abc import Mapping

OPENAI_FALLBACK_CONTEXT_WINDOW = 128_000
"""Window assumed for a model the OpenAI table does not know (OpenAI-compatible servers too).

For models served by Ollama, vLLM, Groq, DeepSeek or OpenRouter this is often wrong: pass
``context_window_override=`` to ``OpenAIProvider``."""

ANTHROPIC_FALLBACK_CONTEXT_WINDOW = 200_000
"""Window assumed for a Claude model the Anthropic table does not know."""

OPENAI_CONTEXT_WINDOWS: Mapping[str, int] = {
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "chatgpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4-1106": 128_000,
    "gpt-4-0125": 128_000,
    "gpt-4-32k": 32_768,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "o1-mini": 128_000,
    "o1-preview": 128_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
}
"""Known OpenAI models by id prefix (tokens)."""

ANTHROPIC_CONTEXT_WINDOWS: Mapping[str, int] = {
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-haiku-4": 200_000,
    "claude-3-7-sonnet": 200_000,
    "claude-3-5-sonnet": 200_000,
    "claude-3-5-haiku": 200_000,
    "claude-3-opus": 200_000,
    "claude-3-sonnet": 200_000,
    "claude-3-haiku": 200_000,
    "claude-2.1": 200_000,
    "claude-2.0": 100_000,
    "claude-instant-1": 100_000,
}
"""Known Claude models by id prefix (tokens)."""


def lookup_context_window(table: Mapping[str, int], model: str, fallback: int) -> int:
    """The window of ``model``: the entry with the longest prefix of the id, else ``fallback``.

    Args:
        table: Model-id prefixes to windows in tokens.
        model: The model id as sent to the API (case-insensitive; a leading ``provider/``
            namespace, as OpenRouter uses, is ignored).
        fallback: The answer for an unknown model.
    """
    key = model.strip().lower().rsplit("/", 1)[-1]
    best: str | None = None
    for prefix in table:
        if key.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return table[best] if best is not None else fallback


Override = int | Mapping[str, int] | None
"""A provider's ``context_window_override``: one window for every model, or one per model id."""


def check_override(override: object) -> None:
    """Raise ``ValueError`` unless ``override`` is a whole number >= 1, a mapping, or None."""
    if isinstance(override, bool) or (isinstance(override, int) and override < 1):
        raise ValueError(
            "context_window_override must be a whole number of tokens >= 1 or a mapping "
            f"of model id to window, got {override!r}"
        )


def resolve_context_window(
    override: Override, table: Mapping[str, int], model: str, fallback: int
) -> int:
    """The override (for every model, or for this model id), else the table, else fallback."""
    if isinstance(override, int):
        return override
    if override is not None and model in override:
        return override[model]
    return lookup_context_window(table, model, fallback)
