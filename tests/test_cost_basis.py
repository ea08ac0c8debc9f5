"""One cost basis: every row of a cost frame is priced on one cache rule, so an observed run and
a replay of the same windows cost the same (issue #23, item 6)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pydantic import ValidationError

from footprint_lab import Agent, Reply, ScriptedProvider, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.costs import COST_COLUMNS, PRICES, Pricing, cost_frame
from footprint_lab.importers import load, load_tau_bench
from footprint_lab.lab import Frames, evidence_frame, evidence_summary, no_policy
from footprint_lab.lab.schema import empty_frame
from footprint_lab.pricing import (
    CACHE_RULES,
    OPENAI_CACHE_MIN_TOKENS,
    OPENAI_CACHE_STEP_TOKENS,
    PREFIX_CACHE_RULES,
    cache_provider,
    prefix_cache,
    shared_prefix_tokens,
)

DATA = Path(__file__).resolve().parents[1] / "data"
OPENHANDS = DATA / "transcripts" / "openhands"
SWE_BENCH = OPENHANDS / "multi-swe-bench-example-1.jsonl"

LLAMA = Pricing(
    input_per_mtok=0.20, cached_input_per_mtok=0.02, cache_write_per_mtok=0.20, output_per_mtok=0.80
)
"""A price for the run's model (Llama 4 Maverick through OpenRouter, not in the table): cached
input at a tenth of the input price, as the providers' caches bill it."""


@pytest.fixture(scope="module")
def observed() -> Run:
    [run] = load(SWE_BENCH)
    return run


@pytest.fixture(scope="module")
def replayed(observed: Run) -> Run:
    return replay(observed, None)


def _totals(costs: pd.DataFrame) -> dict[str, float]:
    return {
        str(k): float(v) for k, v in costs.groupby("label", sort=False)["total_cost"].sum().items()
    }


# -- the OpenHands run and its replay, on each rule ---------------------------------------------


def test_the_same_windows_cost_the_same_on_one_rule(observed: Run, replayed: Run) -> None:
    """Fails on the old cost_frame: the observed run priced as reported (no cache reported, so
    nothing cached: $0.1151) against its own replay priced with a prefix cache ($0.0194), a
    6x gap (11x with a cache read near free) that was the caching assumption alone. On one rule
    (here the default, prefix) they are $0.0195 and $0.0194."""
    both = {"observed": observed, "replay": replayed}
    costs = cost_frame(both, LLAMA)
    assert costs.attrs["cache"] == "prefix"  # the run reported no cache tokens: one rule, prefix
    assert (costs["cache_rule"] == "prefix").all()
    totals = _totals(costs)
    assert totals["observed"] == pytest.approx(0.0195, abs=1e-4)
    assert totals["replay"] == pytest.approx(totals["observed"], rel=0.01)
    # The rows stay what they are: the observed input tokens are reported, the replay's
    # estimated from characters at the run's own ratio.
    observed_rows = costs[costs["label"] == "observed"]
    replay_rows = costs[costs["label"] == "replay"]
    assert not observed_rows["estimated"].any() and replay_rows["estimated"].all()
    assert observed_rows["input_tokens"].tolist() == [c.usage.input_tokens for c in observed.calls]
    assert observed_rows["input_tokens"].sum() == 565_158
    assert replay_rows["input_tokens"].sum() == 565_172  # estimated, 0.003% off
    # Priced apart on their defaults, each still lands on the prefix rule.
    apart = [cost_frame(observed, LLAMA), cost_frame(replayed, LLAMA)]
    assert [f.attrs["cache"] for f in apart] == ["prefix", "prefix"]
    assert apart[1]["total_cost"].sum() == pytest.approx(apart[0]["total_cost"].sum(), rel=0.01)


@pytest.mark.parametrize(
    ("rule", "expected"),
    [("none", 0.1151), ("prefix", 0.0195), ("reported", 0.1151)],
)
def test_each_rule_prices_the_observed_run_and_its_replay_alike(
    observed: Run, replayed: Run, rule: str, expected: float
) -> None:
    costs = cost_frame({"observed": observed, "replay": replayed}, LLAMA, cache=rule)  # type: ignore[arg-type]
    assert costs.attrs["cache"] == rule and (costs["cache_rule"] == rule).all()
    totals = _totals(costs)
    assert totals["observed"] == pytest.approx(expected, abs=1e-4)
    # Same windows, same cost: within the replay's token estimate (14 of 565,158 tokens under
    # "none"; under "prefix" the estimate's error moves a few hundred tokens between cached
    # and uncached).
    assert totals["replay"] == pytest.approx(
        totals["observed"], rel=1e-4 if rule != "prefix" else 0.01
    )
    if rule == "none":
        assert (costs["cached_input_tokens"] == 0).all() and (
            costs["cache_write_tokens"] == 0
        ).all()


def test_reported_caches_nothing_for_a_replay(observed: Run, replayed: Run) -> None:
    """A replay's usage is the original window's, so no provider reported its cache: under
    "reported" its every input token is at the full price, as under "none"."""
    reported = cost_frame({"replay": replayed}, LLAMA, cache="reported")
    none = cost_frame({"replay": replayed}, LLAMA, cache="none")
    assert reported["estimated"].all()
    assert (reported["cached_input_tokens"] == 0).all()
    assert (reported["cache_write_tokens"] == 0).all()
    assert reported["total_cost"].sum() == pytest.approx(none["total_cost"].sum())
    assert reported["total_cost"].sum() == pytest.approx(0.1151, abs=1e-4)


def test_the_default_is_reported_only_when_every_call_reported_its_cache() -> None:
    [claude] = load(OPENHANDS / "runtime-wrong_initial_state.json")  # four calls, all reported
    assert all(c.usage is not None and c.usage.cache_read_tokens is not None for c in claude.calls)
    as_billed = cost_frame(claude)
    assert as_billed.attrs["cache"] == "reported"
    assert as_billed["cached_input_tokens"].tolist() == [
        c.usage.cache_read_tokens for c in claude.calls
    ]  # type: ignore[union-attr]
    # With its replay in the same frame, nothing of the replay was reported: prefix for both.
    together = cost_frame({"observed": claude, "replay": replay(claude, None)})
    assert together.attrs["cache"] == "prefix" and (together["cache_rule"] == "prefix").all()
    # One call without usage makes the whole run prefix-priced (never row by row).
    [gui] = load(OPENHANDS / "runtime-basic_gui_mode.json")
    assert cost_frame(gui).attrs["cache"] == "prefix"
    assert cost_frame(gui, cache="reported")["cache_rule"].unique().tolist() == ["reported"]


def test_cache_rule_is_a_documented_column_and_bad_rules_say_what_is_accepted(
    observed: Run,
) -> None:
    costs = cost_frame(observed, LLAMA, cache="none")
    assert list(costs.columns) == list(COST_COLUMNS)
    assert "cache_rule" in COST_COLUMNS
    assert CACHE_RULES == ("reported", "prefix", "none")
    with pytest.raises(ValueError, match="'reported', 'prefix', 'none'"):
        cost_frame(observed, LLAMA, cache="cached")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cost_frame(observed, LLAMA, "none")  # type: ignore[misc]  # keyword-only


# -- the providers' prefix rules, on constructed frames -------------------------------------------


def _frames(
    requests: list[tuple[int, int]], *, model: str, provider: str, ratio: float = 1.0
) -> Frames:
    """Estimated calls of (request_chars, prefix_chars), at ``ratio`` tokens a character."""
    template = empty_frame("calls")
    rows: list[dict[str, Any]] = []
    for k, (request, prefix) in enumerate(requests):
        rows.append(
            {
                "call": k,
                "iteration": k + 1,
                "request_chars": request,
                "chars": request,
                "prefix_chars": prefix,
                "prefix_share": prefix / request,
                "output_tokens": 10,
                "reported": False,
                "failed": False,
                "reply_chars": 40,
            }
        )
    calls = pd.DataFrame(rows).reindex(columns=template.columns)
    calls = calls.astype({c: template[c].dtype for c in template.columns})
    info = {
        "label": provider,
        "model": model,
        "provider": provider,
        "tokens_per_char": ratio,
        "counterfactual": True,
    }
    return Frames.of({"calls": calls}, info=info)


def test_openai_reads_nothing_under_1024_tokens_and_reads_in_steps_of_128() -> None:
    assert (OPENAI_CACHE_MIN_TOKENS, OPENAI_CACHE_STEP_TOKENS) == (1024, 128)
    requests = [(900, 0), (1100, 900), (1500, 1023), (3000, 1024), (3100, 1500), (3300, 3290)]
    costs = cost_frame([_frames(requests, model="gpt-4o-mini", provider="openai")])
    assert (costs["priced_as"] == "gpt-4o-mini").all()
    # shared: 0, 900, 1023, 1024, 1500, 3290 -> cached 0 (< 1024), 0, 0, 1024, 1408, 3200
    assert costs["cached_input_tokens"].tolist() == [0, 0, 0, 1024, 1408, 3200]
    assert (costs["cache_write_tokens"] == 0).all()  # writing is free at OpenAI
    assert costs["uncached_input_tokens"].tolist() == [900, 1100, 1500, 1976, 1692, 100]
    # The plain prefix of another provider reads every shared token.
    plain = cost_frame(
        [_frames(requests, model="gpt-4o-mini", provider="vllm")],
        PRICES["gpt-4o-mini"].model_copy(update={"provider": "other"}),
    )
    assert plain["cached_input_tokens"].tolist() == [0, 900, 1023, 1024, 1500, 3290]
    assert prefix_cache(5000, 1023, "openai") == (0, 0)
    assert prefix_cache(5000, 1151, "openai") == (1024, 0)
    assert prefix_cache(5000, 1152, "openai") == (1152, 0)


def test_anthropic_reads_the_shared_prefix_and_writes_the_rest() -> None:
    requests = [(2000, 0), (2600, 2000), (2700, 100)]
    costs = cost_frame([_frames(requests, model="claude-sonnet-4-20250514", provider="x")])
    price = PRICES["claude-sonnet-4"]
    assert costs["cached_input_tokens"].tolist() == [0, 2000, 100]
    assert costs["cache_write_tokens"].tolist() == [2000, 600, 2600]
    assert (costs["uncached_input_tokens"] == 0).all()
    assert costs["cache_write_cost"].tolist() == pytest.approx(
        [n * price.cache_write_per_mtok / 1e6 for n in (2000, 600, 2600)]
    )
    assert costs["cache_write_cost"].sum() > 0
    # Under "none" the same calls write nothing and cost the full input price.
    none = cost_frame(
        [_frames(requests, model="claude-sonnet-4-20250514", provider="x")], cache="none"
    )
    assert (none["cache_write_cost"] == 0).all()
    assert none["input_cost"].tolist() == pytest.approx(
        [n * price.input_per_mtok / 1e6 for n in (2000, 2600, 2700)]
    )


def test_the_rules_are_documented_beside_the_prices() -> None:
    assert set(PREFIX_CACHE_RULES) == {"openai", "anthropic", "other"}
    assert {p.provider for name, p in PRICES.items() if name.startswith(("gpt", "o3", "o4"))} == {
        "openai"
    }
    assert {p.provider for name, p in PRICES.items() if name.startswith("claude")} == {"anthropic"}
    custom = Pricing(
        input_per_mtok=1, cached_input_per_mtok=0.1, cache_write_per_mtok=1, output_per_mtok=1
    )
    assert cache_provider(custom, "openai") == "openai"  # a custom price: the run's provider
    assert cache_provider(custom, "openhands") is None
    assert cache_provider(PRICES["gpt-4o"], "openhands") == "openai"
    # The tail (the characters after the prefix) is what is new: for an estimate, the
    # prefix's characters at the ratio, within a token.
    assert shared_prefix_tokens(250, 1000, 600, 0.25) == 150
    assert shared_prefix_tokens(3601, 762, 324, 0.735) == 3279  # the hidden tool definitions
    assert shared_prefix_tokens(3439, 324, 0, 0.735) == 0  # the first call shares nothing


# -- the evidence grid states its rule ------------------------------------------------------------


def test_evidence_frame_states_its_rule_and_refuses_reported() -> None:
    runs = load_tau_bench(DATA / "tau-bench")[:3]
    configs = [no_policy(), {"label": "k=2", "strategy": sliding_window(2)}]
    prefix = evidence_frame(runs, configs, progress=False)
    none = evidence_frame(runs, configs, progress=False, cache="none")
    assert prefix.attrs["cache"] == "prefix" and (prefix["cache_rule"] == "prefix").all()
    assert none.attrs["cache"] == "none" and (none["cache_rule"] == "none").all()
    assert (none["input_cost"] > prefix["input_cost"]).all()  # nothing cached costs more
    no = none[none["config"] == "no policy"]
    assert no["cost_ratio"].tolist() == pytest.approx([1.0] * 3)
    assert evidence_summary(none).attrs["cache"] == "none"
    with pytest.raises(ValueError, match="every row is a replay"):
        evidence_frame(runs, configs, progress=False, cache="reported")
    with pytest.raises(ValueError, match="different cache rules"):
        evidence_summary(pd.concat([prefix, none], ignore_index=True))
    # tau-bench was recorded on gpt-4o (provider 'openai'): OpenAI's 1,024 / 128 rule prices it.
    plain = evidence_frame(
        runs,
        configs,
        progress=False,
        pricing=PRICES["gpt-4o"].model_copy(update={"provider": "other"}),
    )
    openai = evidence_frame(runs, configs, progress=False, pricing=PRICES["gpt-4o"])
    assert (openai["input_cost"] >= plain["input_cost"]).all()
    assert (openai["input_cost"] > plain["input_cost"]).any()


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, -0.5])
def test_a_price_must_be_a_finite_number_at_least_zero(bad: float) -> None:
    with pytest.raises(ValidationError):
        Pricing(
            input_per_mtok=bad, cached_input_per_mtok=0, cache_write_per_mtok=0, output_per_mtok=0
        )


def test_reported_cache_tokens_above_the_prompt_are_refused() -> None:
    provider = ScriptedProvider([Reply.text("ok")])
    run = Agent.create(provider=provider, max_iterations=2).build().run("hi")
    call = run.calls[0]
    assert call.usage is not None
    run.calls[0] = call.model_copy(
        update={
            "usage": call.usage.model_copy(
                update={"cache_read_tokens": call.usage.input_tokens + 5}
            )
        }
    )
    run.provider = "recorded-api"  # a provider's report, not the scripted provider's guess
    price = Pricing(
        input_per_mtok=1, cached_input_per_mtok=0.1, cache_write_per_mtok=1, output_per_mtok=1
    )
    with pytest.raises(ValueError, match="cannot exceed the prompt's"):
        cost_frame(run, price, cache="reported")
