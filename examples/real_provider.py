"""Run the deploy-audit scenario against a real LLM API — or the scripted provider.

Which provider runs is picked from the environment (the first that applies):

    OLLAMA_MODEL=llama3.1:8b      an OpenAI-compatible local server (Ollama's /v1 endpoint;
                                  OLLAMA_BASE_URL overrides http://localhost:11434/v1). No key.
    OPENAI_API_KEY=sk-...         OpenAI Chat Completions (OPENAI_MODEL, default gpt-4o-mini)
    ANTHROPIC_API_KEY=sk-ant-...  Anthropic Messages (ANTHROPIC_MODEL, default claude-haiku-4-5)
    (none of them)                the scripted provider: no network, same story every time

    python examples/real_provider.py

The window is managed by ``summarize_oldest`` with a relative trigger: it engages once the last
call's reported input tokens plus an output reserve reach 80% of the model's context window,
and the summary is written by the same provider through ``provider_summarizer``. The key is
read from the environment by the provider and appears nowhere in the run.
"""

from __future__ import annotations

import os

from footprint_lab import Agent, Run, summarize_oldest
from footprint_lab.providers import (
    AnthropicProvider,
    OpenAIProvider,
    Provider,
    provider_summarizer,
)
from footprint_lab.scenarios import deploy_audit


def pick_provider() -> tuple[Provider | None, str]:
    """The provider and model the environment asks for (None: stay scripted)."""
    if os.environ.get("OLLAMA_MODEL"):
        base_url = os.environ.get("OLLAMA_BASE_URL", "http://localhost:11434/v1")
        # The 128k fallback is wrong for most local models: tell compaction the real window
        # (and make Ollama use it with extra_body={"options": {"num_ctx": ...}}).
        window = int(os.environ.get("OLLAMA_NUM_CTX", "8192"))
        provider = OpenAIProvider(
            base_url=base_url,
            context_window_override=window,
            extra_body={"options": {"num_ctx": window}},
            name="ollama",
        )
        return provider, os.environ["OLLAMA_MODEL"]
    if os.environ.get("OPENAI_API_KEY"):
        return OpenAIProvider(), os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
    if os.environ.get("ANTHROPIC_API_KEY"):
        return AnthropicProvider(), os.environ.get("ANTHROPIC_MODEL", "claude-haiku-4-5")
    return None, "scripted"


def main() -> Run:
    scenario = deploy_audit()
    provider, model = pick_provider()
    if provider is None:
        # Scripted: the scenario's own replies and its tuned absolute threshold.
        run = scenario.run(scenario.strategies()["summarize-oldest"])
    else:
        summarizer = provider_summarizer(provider, model, max_output_tokens=1024)
        # Reserve almost the whole window so even a short audit shows a compaction; in real
        # use leave reserve_tokens unset (it defaults to max_output_tokens, else 32768).
        window = provider.context_window(model) or 128_000
        reserve = max(0, int(0.8 * window) - 1_500)
        strategy = summarize_oldest(
            threshold_fraction=0.8,
            reserve_tokens=reserve,
            summarizer=summarizer,
            keep_recent_turns=3,
        )
        agent = (
            Agent.create(provider=provider, model=model, max_iterations=10, max_output_tokens=1024)
            .system(scenario.system)
            .tools(*scenario.tools)
            .window(strategy)
            .build()
        )
        run = agent.run(scenario.request)

    print(f"provider={run.provider} model={run.model} status={run.status}")
    if run.error is not None:
        print(f"error: {type(run.error).__name__}: {run.error}")
    print(f"output: {run.output}")
    print(f"usage: {run.usage}")
    for record in run.records:
        print(
            f"  iteration {record.iteration}: {record.strategy} removed "
            f"{record.removed_message_count} messages "
            f"(measured {record.measured_tokens} > threshold {record.threshold_tokens}; "
            f"summarizer tokens {record.summarizer_tokens})"
        )
    return run


if __name__ == "__main__":
    main()
