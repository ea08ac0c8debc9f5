"""Costs: prices, the built-in table, and priced rows — reported or estimated, never mixed."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from footprint_lab import replay, sliding_window
from footprint_lab.agent import Agent, tool
from footprint_lab.costs import (
    DEFAULT_TOKENS_PER_CHAR,
    PRICES,
    Pricing,
    PricingError,
    cost_frame,
    pricing_for,
)
from footprint_lab.importers import from_openai, load_tau_bench
from footprint_lab.lab import capture
from footprint_lab.pricing import MAX_PRICE_PER_MTOK, run_tokens_per_char, shared_prefix_tokens
from footprint_lab.providers import Reply, ScriptedProvider
from tests.builders import EVIDENCE_TRANSCRIPT
from tests.evidence.test_evidence import DATA

PRICE = Pricing(
    input_per_mtok=2.0, cached_input_per_mtok=0.5, cache_write_per_mtok=2.0, output_per_mtok=8.0
)


def test_a_call_is_priced_part_by_part() -> None:
    parts = PRICE.cost(
        input_tokens=1_000_000,
        cached_tokens=400_000,
        cache_write_tokens=100_000,
        output_tokens=10_000,
    )
    assert parts.input_cost == pytest.approx(1.0)  # 500k uncached at $2
    assert parts.cached_input_cost == pytest.approx(0.2)
    assert parts.cache_write_cost == pytest.approx(0.2)
    assert parts.output_cost == pytest.approx(0.08)
    assert parts.total_cost == pytest.approx(1.48)


def test_the_table_matches_the_longest_model_prefix() -> None:
    assert pricing_for("gpt-4o-mini-2024-07-18").model == "gpt-4o-mini"
    assert pricing_for("gpt-4o-2024-08-06").model == "gpt-4o"
    assert pricing_for("claude-sonnet-4-20250514").model == "claude-sonnet-4"
    assert pricing_for("openai/gpt-4o-mini").model == "gpt-4o-mini"  # a router's prefix
    assert pricing_for("claude-3-sonnet-20240229").model == "claude-3-sonnet"
    sonnet = PRICES["claude-sonnet-4"]
    assert sonnet.cached_input_per_mtok == pytest.approx(sonnet.input_per_mtok * 0.1)
    with pytest.raises(PricingError, match="pricing=Pricing"):
        pricing_for("scripted")
    with pytest.raises(ValueError, match="input_per_mtok"):
        Pricing(
            input_per_mtok=-1, cached_input_per_mtok=0, cache_write_per_mtok=0, output_per_mtok=0
        )


@tool
def read(k: int) -> str:
    """Read part k."""
    return f"part {k} " + "r" * 400


def _scripted(strategy: object = None):  # type: ignore[no-untyped-def]
    script = [Reply.tool_call("read", k=k) for k in range(6)] + [Reply.text("done")]
    builder = Agent.create(provider=ScriptedProvider(script), max_iterations=10).tool(read)
    if strategy is not None:
        builder = builder.window(strategy)
    return builder.system("Be brief.").build().run("the request")


def test_a_scripted_run_is_estimated_from_characters_and_its_prefix() -> None:
    run = _scripted(sliding_window(1))
    costs = cost_frame(run, PRICE)
    calls = capture(run).calls
    assert costs["estimated"].all()
    ratio = run_tokens_per_char(run)
    assert ratio is not None and 0.2 < ratio < 0.3  # the scripted provider's own 4 chars/token
    for row, call in zip(costs.itertuples(), calls.itertuples(), strict=True):
        assert row.input_tokens == math.ceil(call.request_chars * ratio)
        # The shared prefix: the request's tokens less its new tail's, within a token of the
        # prefix's characters at the ratio (a custom price: the plain prefix, no writes).
        assert row.cached_input_tokens == shared_prefix_tokens(
            row.input_tokens, call.request_chars, call.prefix_chars, ratio
        )
        assert abs(row.cached_input_tokens - math.floor(call.prefix_chars * ratio)) <= 1
        assert row.cache_write_tokens == 0
    assert costs["total_cost"].sum() == pytest.approx(
        costs[["input_cost", "cached_input_cost", "cache_write_cost", "output_cost"]].sum().sum()
    )


def test_a_replay_is_estimated_at_its_originals_ratio() -> None:
    transcript = [dict(m) for m in EVIDENCE_TRANSCRIPT]
    for k, message in enumerate(transcript):
        if message["role"] == "assistant":
            message["usage"] = {"prompt_tokens": 100 + 60 * k, "completion_tokens": 5}
    source = from_openai(transcript)
    source.model = "gpt-4o"
    reported = cost_frame(source)  # priced from the table, as reported
    assert not reported["estimated"].any()
    assert (reported["priced_as"] == "gpt-4o").all()
    assert reported["input_tokens"].tolist() == [c.usage.input_tokens for c in source.calls]
    replayed = replay(source, sliding_window(1), keep_last_tool_results=0)
    ratio = run_tokens_per_char(source)
    assert ratio is not None and replayed.origin.tokens_per_char == pytest.approx(ratio)
    estimated = cost_frame({"replayed": replayed})
    assert estimated["estimated"].all()
    assert estimated["label"].unique().tolist() == ["replayed"]
    calls = capture(replayed).calls
    assert estimated["input_tokens"].tolist() == [
        math.ceil(chars * ratio) for chars in calls["request_chars"]
    ]
    # Trimming sends less: the counterfactual's estimated input is below the original's.
    assert estimated["input_tokens"].sum() < reported["input_tokens"].sum()
    # tau-bench reports no usage: its runs are estimated at four characters a token.
    tau = cost_frame(load_tau_bench(DATA)[0])
    assert tau["estimated"].all() and (tau["priced_as"] == "gpt-4o").all()


def test_no_usage_at_all_falls_back_to_four_chars_a_token() -> None:
    run = (
        Agent.create(provider=ScriptedProvider([Reply.text("hi")], report_usage=False))
        .build()
        .run("hello")
    )
    costs = cost_frame(run, PRICE)
    assert costs["estimated"].all()
    assert costs["input_tokens"].iloc[0] == math.ceil(
        capture(run).calls["request_chars"].iloc[0] * DEFAULT_TOKENS_PER_CHAR
    )


def test_bad_arguments_say_what_is_accepted() -> None:
    with pytest.raises(PricingError, match="Pricing"):
        cost_frame(_scripted(), pricing={"gpt": 1})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="Run"):
        cost_frame("run.json")  # type: ignore[arg-type]
    with pytest.raises(PricingError, match="scripted"):
        cost_frame(_scripted())


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        ("3", "valid number"),
        (True, "valid number"),
        (1e308, "less than or equal to 10000"),
        (math.inf, "finite number"),
        (math.nan, "finite number"),
        (-0.5, "greater than or equal to 0"),
    ],
)
def test_a_price_is_a_sane_finite_number_never_a_string_or_a_boolean(
    value: object, rule: str
) -> None:
    prices = {
        "input_per_mtok": 3.0,
        "cached_input_per_mtok": 0.3,
        "cache_write_per_mtok": 3.75,
        "output_per_mtok": 15,  # an int is a number
    }
    assert Pricing(**prices).output_per_mtok == 15.0  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=rule) as refused:
        Pricing(**{**prices, "cached_input_per_mtok": value})  # type: ignore[arg-type]
    assert "cached_input_per_mtok" in str(refused.value)  # the field is named
    assert Pricing(**{**prices, "input_per_mtok": MAX_PRICE_PER_MTOK}).input_per_mtok == 10_000
