"""The judge (#36): every compaction a transcript records, checked against the law and the bill.

Each rule is checked on a real file of ``data/`` where it occurs there, else on a small edit of
a real file (each test says which and what was edited); a run without observed records has no
finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Finding,
    audit,
    clear_tool_results,
    judge,
    load,
    replay,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from footprint_lab.agent.run import Run
from footprint_lab.auditing import keep_last_messages
from footprint_lab.evidence.judge import FINDING_RULES, context_window_of
from footprint_lab.export import to_otel
from footprint_lab.importers import load_otel, load_tau_bench
from footprint_lab.lab import capture
from footprint_lab.pricing import run_tokens_per_char
from footprint_lab.scenarios import SCENARIOS

DATA = Path(__file__).resolve().parents[2] / "data"
TRANSCRIPTS = DATA / "transcripts"
MASKING = TRANSCRIPTS / "swe-agent" / "marshmallow-1867.function-calling-replace-from-source.traj"
CLAUDE = TRANSCRIPTS / "claude-code" / "fixture.session_with_compaction.jsonl"


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write_lines(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def one(path: Path) -> Run:
    [run] = load(path)
    return run


# -- no compaction, no finding ---------------------------------------------------------------


def test_the_rules_are_a_closed_kebab_case_set() -> None:
    assert len(FINDING_RULES) == len(set(FINDING_RULES)) == 12
    assert all(rule == rule.lower() and " " not in rule for rule in FINDING_RULES)
    assert {"context-grew", "request-lost", "refetched", "cache-cost"} <= set(FINDING_RULES)


def test_no_finding_on_tau_bench_runs_which_record_no_compaction() -> None:
    for run in load_tau_bench(DATA / "tau-bench"):
        assert not any(r.observed for r in run.records)
        assert judge(run) == []
        assert capture(run).findings.empty


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize(
    "strategy",
    [
        lambda: sliding_window(keep_recent_turns=2),
        lambda: token_budget(threshold_tokens=400, keep_recent_turns=2),
        lambda: summarize_oldest(
            threshold_tokens=400, keep_recent_turns=2, summarizer=lambda ms: f"{len(ms)} left"
        ),
        lambda: clear_tool_results(keep_recent_turns=1, keep_results=1),
    ],
    ids=["sliding_window", "token_budget", "summarize_oldest", "clear_tool_results"],
)
def test_our_runs_have_no_finding_here_nor_after_an_otel_round_trip(
    tmp_path: Path, name: str, strategy: Any
) -> None:
    """Our own records are not a foreign stack's: the judge has nothing to judge, and a run
    exported to OTLP and read back carries its records exactly as they were (not observed)."""
    run = SCENARIOS[name]().run(strategy())
    assert judge(run) == []
    [back] = load_otel(to_otel(run, tmp_path / "run.otel.json"))
    assert [r.model_dump() for r in back.records] == [r.model_dump() for r in run.records]
    assert judge(back) == []


RULE_OF = {
    "lost-current-request": "request-lost",
    "split-tool-pair": "split-tool-pair",
    "non-contiguous-removal": "non-contiguous-removal",
    "window-opens-on-non-user": "window-opens-on-non-user",
    "system-dropped": "system-dropped",
    "rewritten-without-frame": "rewritten-without-frame",
}


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.sampled_from(sorted(SCENARIOS)),
    st.integers(1, 6),
    st.sampled_from(["audited", "shipped"]),
)
def test_after_an_otel_round_trip_the_judge_finds_exactly_the_records_violations(
    tmp_path: Path, name: str, keep: int, kind: str
) -> None:
    """Our own runs replayed, exported to OTLP and read back: under an audited foreign trimmer
    (keep the last ``keep`` messages, whatever they are; an agent refuses it, replay records
    what it broke) the judge's violation findings are exactly the violations its records
    carry, record by record; under the shipped sliding window there are none. The round trip
    changes no finding."""
    policy = audit(keep_last_messages(keep)) if kind == "audited" else sliding_window(keep)
    run = replay(SCENARIOS[name]().run(None), policy)
    [back] = load_otel(to_otel(run, tmp_path / f"{name}-{keep}-{kind}.otel.json"))
    assert judge(back) == judge(run)
    found = sorted((f.record_index, f.rule) for f in judge(back) if f.rule in set(RULE_OF.values()))
    carried = sorted(
        (k, RULE_OF[v.kind])
        for k, record in enumerate(back.records)
        for v in record.violations or ()
        if v.kind in RULE_OF
    )
    # A lost request the trimmer's inserted summary quotes is no finding; keep_last inserts none.
    assert found == carried
    if kind == "shipped":
        assert judge(back) == []


def test_an_audited_trimmer_breaks_rules_the_judge_names() -> None:
    """The property above is not empty: keeping the last message only splits pairs and loses
    the request on a real scenario."""
    run = replay(SCENARIOS["deploy-audit"]().run(None), audit(keep_last_messages(1)))
    rules = {f.rule for f in judge(run)}
    assert {"request-lost", "split-tool-pair"} <= rules


# -- context-grew ------------------------------------------------------------------------------


def test_context_grew_is_said_in_characters_where_no_call_reported_usage() -> None:
    """SWE-agent's observation masking (a real file, no usage): each finding compares the
    characters of the first call after the masking with those of the last call before it."""
    run = one(MASKING)
    grew = [f for f in judge(run) if f.rule == "context-grew"]
    assert grew, "the real file has maskings after which the window grew"
    for finding in grew:
        record = run.records[finding.record_index]
        assert record.observed and finding.iteration == record.iteration
        before = max(
            (c for c in run.calls if c.iteration < record.iteration), key=lambda c: c.iteration
        )
        after = min(
            (c for c in run.calls if c.iteration >= record.iteration), key=lambda c: c.iteration
        )
        assert finding.figure == after.chars - before.chars > 0
        assert finding.unit == "characters"
        assert (finding.tokens_before, finding.tokens_after) == (None, None)
        assert "said in characters" in finding.detail
    # Every masking after which the window did not grow has no such finding.
    for k, record in enumerate(run.records):
        before = [c for c in run.calls if c.iteration < record.iteration]
        after = [c for c in run.calls if c.iteration >= record.iteration]
        if before and after and after[0].chars <= before[-1].chars:
            assert not [f for f in grew if f.record_index == k]


def test_findings_are_a_frame_of_the_capture_and_frozen_models() -> None:
    run = one(MASKING)
    findings = judge(run)
    frame = capture(run).findings
    assert len(frame) == len(findings)
    assert frame["rule"].tolist() == [f.rule for f in findings]
    assert frame["policy"].unique().tolist() == ["swe-agent"]
    assert isinstance(findings[0], Finding)
    with pytest.raises(Exception):  # noqa: B017 (pydantic's frozen-instance error)
        findings[0].rule = "request-lost"  # type: ignore[misc]


def test_the_context_window_is_the_files_or_the_tables_never_a_guess() -> None:
    run = one(MASKING)
    run.model = "gpt-4o-2024-08-06"
    assert context_window_of(run) == 128_000
    run.model = "some-local-model"
    assert context_window_of(run) is None
    run.meta["model_context_window"] = 258_400
    assert context_window_of(run) == 258_400


# -- the CLI ---------------------------------------------------------------------------------


def test_the_cli_prints_a_line_per_finding_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    from footprint_lab.cli import main

    findings = judge(one(MASKING))
    assert main(["judge", str(MASKING)]) == 0
    out = capsys.readouterr().out
    assert out.count("context-grew") == sum(f.rule == "context-grew" for f in findings) > 0
    assert f"{len(findings)} finding(s) about 7 observed compaction(s) in 1 run(s)" in out
    assert all(len(line) <= 80 for line in out.splitlines())
    assert main(["judge", "--json", str(MASKING)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["rule"] for r in rows] == [f.rule for f in findings]
    assert all(set(r) >= {"file", "run", "rule", "iteration", "stage_ids", "detail"} for r in rows)


def test_the_cli_says_a_file_it_cannot_read_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from footprint_lab.cli import main

    bad = tmp_path / "notes.json"
    bad.write_text('{"zzz": 1}')
    assert main(["judge", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "formats tried" in err


# -- each rule on a real compaction (edits of real files where the rule does not occur) --------

CODEX = TRANSCRIPTS / "codex" / "fixture.session_with_compaction.jsonl"


def test_the_claude_code_compaction_shrank_the_context_so_nothing_is_found() -> None:
    """The real compaction: the last call before it was billed 100,000 input tokens, the first
    after it 2,000; 155,116 tokens is 78% of claude-sonnet-4's 200,000, not late."""
    run = one(CLAUDE)
    assert [r.observed for r in run.records] == [True]
    assert judge(run) == []


def test_a_compaction_after_which_the_call_bills_more_is_context_grew(tmp_path: Path) -> None:
    """Edit of the real Claude Code session: the first call after the boundary reports 120,000
    input tokens (the file has 2,000), more than the 100,000 of the last call before it."""
    entries = lines_of(CLAUDE)
    after = [e for e in entries if e.get("type") == "assistant"]
    first_after = next(e for e in after if e["message"]["usage"]["input_tokens"] == 2000)
    first_after["message"]["usage"]["input_tokens"] = 120_000
    run = one(write_lines(tmp_path / "session.jsonl", entries))
    [grew] = [f for f in judge(run) if f.rule == "context-grew"]
    assert (grew.tokens_before, grew.tokens_after) == (100_000, 120_000)
    assert (grew.figure, grew.unit) == (20_000.0, "tokens (reported)")
    assert grew.iteration == run.records[grew.record_index].iteration == 5


def test_cache_writes_after_a_compaction_that_cost_more_than_it_saved(tmp_path: Path) -> None:
    """Edit of the real Claude Code session: the first call after the boundary wrote 150,000
    tokens to the prompt cache again (the file reports no cache use); its one later call
    cannot repay that at the cached-input price."""
    entries = lines_of(CLAUDE)
    first_after = next(
        e
        for e in entries
        if e.get("type") == "assistant" and e["message"]["usage"]["input_tokens"] == 2000
    )
    first_after["message"]["usage"]["cache_creation_input_tokens"] = 150_000
    run = one(write_lines(tmp_path / "session.jsonl", entries))
    [cost] = [f for f in judge(run) if f.rule == "cache-cost"]
    assert cost.unit == "USD" and cost.figure is not None and cost.figure > 0
    assert "150,000 tokens written to the cache again" in cost.detail


def test_a_compaction_at_the_edge_of_the_window_is_late(tmp_path: Path) -> None:
    """Edit of the real Claude Code session: the boundary records 196,000 tokens before it
    (the file has 155,116): 98% of claude-sonnet-4's 200,000-token window."""
    entries = lines_of(CLAUDE)
    boundary = next(e for e in entries if e.get("subtype") == "compact_boundary")
    boundary["compactMetadata"]["preTokens"] = 196_000
    run = one(write_lines(tmp_path / "session.jsonl", entries))
    [late] = [f for f in judge(run) if f.rule == "late-trigger"]
    assert late.tokens_before == 196_000
    assert late.figure == pytest.approx(0.98) and late.unit == "share of the context window"


def test_a_compaction_that_drops_the_only_copy_of_the_request_is_request_lost(
    tmp_path: Path,
) -> None:
    """Edit of the real Codex rollout: the user message after the ``compacted`` line is left
    out, so the next call is sent the summary alone; the request it was working on ("Now add
    product endpoints") left and the summary does not quote it."""
    entries = lines_of(CODEX)
    at = next(i for i, e in enumerate(entries) if e["type"] == "compacted")
    assert entries[at + 1]["payload"]["role"] == "user"
    del entries[at + 1]
    run = one(write_lines(tmp_path / "rollout.jsonl", entries))
    [lost] = [f for f in judge(run) if f.rule == "request-lost"]
    record = run.records[lost.record_index]
    assert record.observed and lost.stage_ids == record.removed_stage_ids
    left = [run.ledger.message(s) for s in record.removed_stage_ids]
    assert "Now add product endpoints" in [m.content for m in left]


def test_the_same_call_after_the_compaction_is_refetched(tmp_path: Path) -> None:
    """Edit of the real Codex rollout: after the ``compacted`` line the agent runs the same
    ``shell`` command as before it (``cat src/routes.py``) and gets the same output."""
    entries = lines_of(CODEX)
    call = next(e for e in entries if e["payload"].get("type") == "function_call")
    output = next(e for e in entries if e["payload"].get("type") == "function_call_output")
    at = next(i for i, e in enumerate(entries) if e["type"] == "compacted") + 2
    again = json.loads(json.dumps(call))
    again["payload"]["call_id"] = "call_again"
    result = json.loads(json.dumps(output))
    result["payload"]["call_id"] = "call_again"
    entries[at:at] = [again, result]
    run = one(write_lines(tmp_path / "rollout.jsonl", entries))
    [refetch] = [f for f in judge(run) if f.rule == "refetched"]
    gone, new = (run.ledger.message(s) for s in refetch.stage_ids)
    assert gone.role == "tool" and gone.tool_call_id == "call_compact_001"
    assert [c.id for c in new.tool_calls] == ["call_again"]
    chars = len(output["payload"]["output"])
    ratio = run_tokens_per_char(run)  # the run reports usage: its own tokens per character
    assert ratio is not None and refetch.unit == "tokens (estimated)"
    assert refetch.figure == round(chars * ratio)


def test_the_codex_compaction_grew_the_window_and_says_so_in_characters() -> None:
    """The real Codex fixture: its summary is longer than what it replaced, and the file
    reports usage once (at its end), so the finding is in characters."""
    run = one(CODEX)
    [grew] = judge(run)
    assert grew.rule == "context-grew" and grew.unit == "characters"
    record = run.records[grew.record_index]
    assert record.window_chars_after > record.window_chars_before
    assert f"from {record.window_chars_before:,} to {record.window_chars_after:,}" in grew.detail


def test_a_condensation_that_forgot_nothing_is_an_empty_summary(tmp_path: Path) -> None:
    """Edit of the real OpenHands V1 conversation: after the finish observation, a
    ``Condensation`` whose ``forgotten_event_ids`` is empty (shape from the SDK's
    ``event/condenser.py``): a condenser call paid for, nothing removed."""
    from tests.importers.test_openhands_v1 import CONV, condensation, real_events

    events = real_events()
    empty = condensation([], summary="Nothing to forget yet.", summary_offset=2)
    edited = [*events[:6], empty, *events[6:]]
    conversation = tmp_path / "conversation"
    (conversation / "events").mkdir(parents=True)
    (conversation / "base_state.json").write_bytes((CONV / "base_state.json").read_bytes())
    for k, event in enumerate(edited):
        name = f"event-{k:05d}-{event['id']}.json"
        (conversation / "events" / name).write_text(json.dumps(event), encoding="utf-8")
    run = one(conversation)
    observed = [r for r in run.records if r.observed]
    assert observed and observed[0].removed_message_count == 0
    [empty_summary] = [f for f in judge(run) if f.rule == "empty-summary"]
    assert "removed nothing" in empty_summary.detail


@pytest.mark.parametrize(
    ("threshold", "trigger", "rule"),
    [
        (120_000, "auto", "late-trigger"),
        (200_000, "auto", "early-trigger"),
        (200_000, "manual", None),
    ],
)
def test_a_recorded_threshold_names_a_late_or_early_trigger(
    threshold: int, trigger: str, rule: str | None
) -> None:
    """No importer records a stack's compaction threshold today (Claude Code writes only the
    tokens it compacted at, ``preTokens`` 155,116), so the real run's compaction is given one in
    its meta here: past it by more than the slack is late, short of it early (automatic
    compactions only: a person's /compact is never early)."""
    run = one(CLAUDE)
    run.meta["compactions"][0].update(threshold=threshold, trigger=trigger)
    found = [f for f in judge(run) if f.rule in ("late-trigger", "early-trigger")]
    assert [f.rule for f in found] == ([rule] if rule else [])
    if rule:
        assert found[0].figure == pytest.approx(155_116 / threshold)
        assert found[0].unit == "share of the threshold"
