"""Usage with cache fields, over the real SDKs and the loopback servers, lands in
``cost_frame`` as reported — never estimated."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from footprint_lab.agent import Agent, tool
from footprint_lab.costs import Pricing, cost_frame
from footprint_lab.providers import Reply
from tests.providers.servers import MODEL, WireServer, provider_for

Wire = Callable[..., WireServer]

PRICE = Pricing(
    input_per_mtok=3.0, cached_input_per_mtok=0.3, cache_write_per_mtok=3.75, output_per_mtok=15.0
)


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: " + "many " * 40


@pytest.mark.parametrize("writes", [0, 3])
def test_cache_fields_are_reported_not_estimated(wire: Wire, writes: int) -> None:
    server = wire(
        [Reply.tool_call("lookup", city="Bergen"), Reply.text("Bergen has many people.")],
        cache_read_tokens=4,
        cache_write_tokens=writes,
    )
    run = (
        Agent.create(provider=provider_for(server), model=MODEL[server.kind])
        .system("You look cities up.")
        .tool(lookup)
        .build()
        .run("Look up Bergen.")
    )
    run.raise_for_error()
    costs = cost_frame(run, PRICE)
    assert len(costs) == len(run.calls) == 2
    assert not costs["estimated"].any()
    openai = server.kind == "openai"
    for row, call in zip(costs.itertuples(), run.calls, strict=True):
        usage = call.usage
        assert usage is not None
        assert row.input_tokens == usage.input_tokens
        assert row.cached_input_tokens == usage.cache_read_tokens == 4
        # OpenAI reports no cache writes; Anthropic's cache_creation_input_tokens land as sent.
        assert row.cache_write_tokens == (0 if openai else writes)
        uncached = usage.input_tokens - 4 - row.cache_write_tokens
        assert row.uncached_input_tokens == uncached > 0
        expected = (
            uncached * 3.0 + 4 * 0.3 + row.cache_write_tokens * 3.75 + usage.output_tokens * 15.0
        ) / 1e6
        assert row.total_cost == pytest.approx(expected)
