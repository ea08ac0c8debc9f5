"""The per-run measurement behind :func:`footprint_lab.lab.evidence_frame`: replay one run under
one configuration and count the tool evidence its windows lost, what they sent, and what a
provider would reject.

Layer: lab (on top of ``replay`` and the pure :mod:`footprint_lab.evidence`). Each function
here returns plain dicts, one per run; :mod:`footprint_lab.lab.evidence` turns them into the
typed frame. This module names :class:`~footprint_lab.lab.evidence.EvidenceConfig` only for
type checking, so it imports nothing of the public module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from footprint_lab._gc import bulk_work
from footprint_lab._models import construct_trusted
from footprint_lab.agent.checkpoint import Checkpoint, run_from_checkpoint
from footprint_lab.agent.origin import Replay
from footprint_lab.agent.replay import ReplaySource, replay
from footprint_lab.agent.run import Run
from footprint_lab.applicability import blocked, reasons_of, reasons_text
from footprint_lab.evidence import (
    SentWindows,
    TranscriptFacts,
    calls_of,
    losses,
    named,
    request_lost_calls,
    transcript_facts,
    wire_problem_calls,
)
from footprint_lab.evidence.prefix import call_prefixes
from footprint_lab.pricing import (
    CacheRule,
    Pricing,
    cache_provider,
    estimate_ratio,
    estimate_tokens,
    prefix_cache,
    shared_prefix_tokens,
    source_tokens_per_char,
)

# Built unchecked on purpose: its unit is one uncached token, not a dollar, so it lies far
# above the dollar prices a Pricing takes from a caller (pricing.MAX_PRICE_PER_MTOK).
RELATIVE_PRICING = construct_trusted(
    Pricing,
    input_per_mtok=1_000_000.0,
    cached_input_per_mtok=100_000.0,
    cache_write_per_mtok=1_000_000.0,
    output_per_mtok=0.0,
    model=None,
    provider=None,
)
"""The grid's default price: one unit per uncached input token, a tenth of one per cached token
(cached input costs about a tenth of uncached at the providers), output not counted — so
``input_cost`` reads in uncached-token equivalents."""

if TYPE_CHECKING:
    from footprint_lab.lab._evidence_configs import EvidenceConfig


def _meta_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def run_ratio(run: Run) -> float:
    """Input tokens per character the run's own reported usage shows (a replay: its source's)."""
    return estimate_ratio(source_tokens_per_char(run))


def input_cost(
    request_chars: int,
    prefix_chars: int,
    ratio: float,
    pricing: Pricing,
    cache: CacheRule = "prefix",
    provider: str | None = None,
) -> float:
    """The estimated input cost of one request: its characters at ``ratio`` tokens each; under
    ``cache="prefix"`` the common prefix with the previous request read from the cache by
    ``provider``'s rules (:func:`~footprint_lab.pricing.prefix_cache`, cache writes priced
    too), else (``"none"``, or ``"reported"``: nothing is reported for an estimate) nothing
    cached."""
    tokens = estimate_tokens(request_chars, ratio)
    cached = written = 0
    if cache == "prefix":
        shared = shared_prefix_tokens(tokens, request_chars, prefix_chars, ratio)
        cached, written = prefix_cache(tokens, shared, provider)
    return pricing.input_cost(input_tokens=tokens, cached_tokens=cached, cache_write_tokens=written)


def estimated_input_cost(
    run: Run,
    pricing: Pricing = RELATIVE_PRICING,
    windows: SentWindows | None = None,
    cache: CacheRule = "prefix",
) -> dict[str, Any]:
    """``request_chars``, ``prefix_chars`` and the estimated ``input_cost`` of every call of
    ``run``, summed (the cache lens of :mod:`footprint_lab.evidence.prefix`, priced under the
    cache rule ``cache``, by the rules of the provider the price or the run names)."""
    requests, prefixes = call_prefixes(run, windows)
    ratio = run_ratio(run)
    provider = cache_provider(pricing, run.provider)
    return {
        "request_chars": sum(requests),
        "prefix_chars": sum(prefixes),
        "input_cost": sum(
            input_cost(r, p, ratio, pricing, cache, provider)
            for r, p in zip(requests, prefixes, strict=True)
        ),
    }


def baseline_input_cost(
    run: Run,
    pricing: Pricing = RELATIVE_PRICING,
    cache: CacheRule = "prefix",
    facts: TranscriptFacts | None = None,
) -> float:
    """What the calls of ``run`` would cost in input with no window management: each request is
    the previous one plus what was appended, so all of the previous one is a cached prefix
    (priced under the cache rule ``cache``, as :func:`estimated_input_cost`; ``facts``: the
    run's transcript facts, when already read)."""
    ratio = run_ratio(run)
    provider = cache_provider(pricing, run.provider)
    system = len(run.system or "")
    total = 0.0
    previous: int | None = None
    for sent in _transcript(run, facts).baseline_sends():
        request = system + sent
        total += input_cost(request, previous or 0, ratio, pricing, cache, provider)
        previous = request
    return total


def run_facts(
    label: str,
    run: Run,
    pricing: Pricing = RELATIVE_PRICING,
    cache: CacheRule = "prefix",
    facts: TranscriptFacts | None = None,
) -> dict[str, Any]:
    """What a run contributes regardless of the configuration (``facts``: its transcript's,
    when already read)."""
    meta = run.meta if isinstance(run.meta, dict) else {}
    reward = meta.get("reward")
    facts = _transcript(run, facts)
    return {
        "run": label,
        "task_id": meta.get("task_id"),
        "trial": _meta_int(meta.get("trial")),
        "reward": float(reward) if isinstance(reward, int | float) else None,
        "tool_calls": facts.tool_calls,
        "baseline_window_chars": baseline_window_chars(run, facts),
        "baseline_input_cost": baseline_input_cost(run, pricing, cache, facts),
    }


def baseline_window_chars(run: Run, facts: TranscriptFacts | None = None) -> int:
    """Characters every call of ``run`` would send with no window management: what
    ``sum(c.chars for c in replay(run, None).calls)`` gives, without replaying.

    With no strategy the replay sends, before each recorded reply, every transcript message
    before it, so the sum is a running total — one pass, where the replay copies and commits
    every message again (``facts``: the run's transcript facts, when already read).
    """
    return sum(_transcript(run, facts).baseline_sends())


def _transcript(run: Run, facts: TranscriptFacts | None) -> TranscriptFacts:
    return transcript_facts(run)[0] if facts is None else facts


def measure(
    run: Run | ReplaySource,
    strategy: Any,
    keep_last_tool_results: int,
    min_chars: int,
    pricing: Pricing = RELATIVE_PRICING,
    cache: CacheRule = "prefix",
    facts: TranscriptFacts | None = None,
) -> dict[str, Any]:
    """Replay ``run`` under one configuration and measure it (one row's numbers).

    ``facts`` are ``run``'s transcript facts, read once for every configuration: the replay's
    transcript is the run's committed again, so its dependencies are the run's links named by
    the replay's stage ids (checked; a replay that differs is read afresh). ``run`` may be a
    :class:`~footprint_lab.agent.replay.ReplaySource` read once for every configuration too.
    """
    source = ReplaySource.of(run)
    # No events: a row reads the replay's windows, calls and records, never its events.
    replayed = replay(source, strategy, keep_last_tool_results=keep_last_tool_results, events=False)
    own, stage_ids = transcript_facts(replayed, _transcript(source.run, facts))
    deps = named(own, min_chars, stage_ids)
    # One position-level view of every sent window, walked once: materialising each window
    # (``window_sent``) is quadratic in the run's length when windows are not managed.
    windows = SentWindows(replayed)
    lost = losses(replayed, deps, windows=windows, facts=own)
    by_call: dict[tuple[int, str], bool] = {}
    for item in lost:
        key = (item.message_index, item.call_id)
        by_call[key] = by_call.get(key, True) and item.kept_by_summary
    chars = [c.chars for c in replayed.calls]
    wire = len(wire_problem_calls(replayed, windows))
    no_request = len(request_lost_calls(replayed, windows))
    return {
        **estimated_input_cost(replayed, pricing, windows, cache),
        "dependent_calls": calls_of(deps),
        "lost_calls": calls_of(lost),
        "lost_values": len(lost),
        "kept_by_summary": sum(by_call.values()),
        "windows": len(chars),
        # Exact int sum, one division: what np.mean gives for sizes under 2**53, without it.
        "mean_window_chars": sum(chars) / len(chars) if chars else 0.0,
        "peak_window_chars": max(chars, default=0),
        "window_chars": sum(chars),
        "wire_violations": wire,
        "request_lost": no_request,
        "violations": sum(len(r.violations or ()) for r in replayed.records),
        "removed_messages": sum(r.removed_message_count for r in replayed.records),
        **applicability(replayed),
    }


def applicability(replayed: Run) -> dict[str, Any]:
    """A replay's ``not_applicable`` (the reasons in words, None when its policy applies),
    whether they keep the policy from engaging (``blocked``: no cost ratio then), and how
    many of its calls' tokens were estimated."""
    reasons = reasons_of(replayed)
    origin = replayed.origin
    estimated = origin.estimated_calls if isinstance(origin, Replay) else 0
    return {
        "not_applicable": reasons_text(reasons),
        "blocked": blocked(reasons),
        "estimated_calls": estimated if isinstance(estimated, int) else 0,
    }


def measure_config(
    runs: Sequence[Run | ReplaySource],
    config: EvidenceConfig,
    min_chars: int,
    pricing: Pricing = RELATIVE_PRICING,
    cache: CacheRule = "prefix",
    facts: Sequence[TranscriptFacts] | None = None,
) -> list[dict[str, Any]]:
    """One configuration over every run (``facts``: the runs' transcript facts, read once for
    every configuration; read here when None; ``runs`` may be read once for every
    configuration too, as :class:`~footprint_lab.agent.replay.ReplaySource`)."""
    strategy = config.build()
    sources = [ReplaySource.of(run) for run in runs]
    read = [transcript_facts(s.run)[0] for s in sources] if facts is None else facts
    return [
        measure(source, strategy, config.keep_last_tool_results, min_chars, pricing, cache, fact)
        for source, fact in zip(sources, read, strict=True)
    ]


def job(
    job: tuple[Sequence[str], EvidenceConfig, int, Pricing, CacheRule, bool],
) -> list[dict[str, Any]]:
    """One configuration over every run, in a worker (runs arrive as checkpoints); its last
    item says whether the caller was inside :func:`~footprint_lab.bulk_work`, which the job
    then keeps in the worker too."""
    shipped, config, min_chars, pricing, cache, bulk = job
    with bulk_work() if bulk else nullcontext():
        runs = [run_from_checkpoint(Checkpoint.model_validate_json(text)) for text in shipped]
        return measure_config(runs, config, min_chars, pricing, cache)


def labelled_runs(runs: Sequence[Run] | Mapping[str, Run]) -> list[tuple[str, Run]]:
    if isinstance(runs, Mapping):
        return [(str(k), r) for k, r in runs.items()]
    out: list[tuple[str, Run]] = []
    for i, run in enumerate(runs):
        meta = run.meta if isinstance(run.meta, dict) else {}
        out.append((str(meta.get("label") or f"run-{i}"), run))
    return out
