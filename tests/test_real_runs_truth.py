"""Real runs, true answers: on the real files of ``data/``, token policies engage on runs
without usage (estimated, and marked so), a policy that cannot apply says why, and an imported
run says what its file does not record — in ``meta``, frames, the Inspector and the report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from footprint_lab import (
    Agent,
    CompactionUnmeasurableError,
    Reply,
    ScriptedProvider,
    clear_tool_results,
    replay,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)
from footprint_lab.agent.run import Run
from footprint_lab.applicability import NOT_APPLICABLE_REASONS, reasons_of
from footprint_lab.importers import load, load_tau_bench
from footprint_lab.importers.recorded import Recorded, recorded_of
from footprint_lab.lab import Inspector, capture, write_report
from footprint_lab.lab.views import run_notes, strategy_facts

DATA = Path(__file__).resolve().parent.parent / "data"
TAU = DATA / "tau-bench" / "gpt-4o-airline-dev.json"
TRANSCRIPTS = DATA / "transcripts"


@pytest.fixture(scope="module")
def tau() -> list[Run]:
    return load_tau_bench(TAU)


def _one(path: str) -> Run:
    runs = load(TRANSCRIPTS / path)
    assert len(runs) == 1
    return runs[0]


# -- 4. token policies on runs without usage engage, estimated -------------------------------


@pytest.mark.parametrize(
    "strategy",
    [
        lambda: token_budget(threshold_tokens=1500, keep_recent_turns=2),
        lambda: summarize_oldest(
            threshold_tokens=1500, keep_recent_turns=2, summarizer=lambda ms: f"{len(ms)} left"
        ),
        lambda: clear_tool_results(threshold_tokens=1500, keep_recent_turns=1, keep_results=1),
    ],
    ids=["token_budget", "summarize_oldest", "clear_tool_results"],
)
def test_token_policies_engage_on_tau_bench_estimated(tau: list[Run], strategy: object) -> None:
    run = tau[0]
    assert all(c.usage is None for c in run.calls)  # tau-bench records no usage
    replayed = replay(run, strategy())  # type: ignore[operator]
    assert replayed.records, "a token policy engages on a run whose source reported no usage"
    assert {r.tokens_from for r in replayed.records} == {"estimated"}
    assert any(r.removed_message_count for r in replayed.records)
    assert replayed.origin.estimated_calls == len(replayed.calls)
    assert replayed.origin.estimated_tokens_per_char == 0.25
    assert {c.tokens_from for c in replayed.calls} == {"estimated"}
    frames = capture(replayed)
    assert set(frames.records["tokens_from"].dropna()) == {"estimated"}
    notes = run_notes(replayed)
    assert [n.kind for n in notes].count("estimated") == 1
    # The estimate is the request's characters at the stated ratio, for the window replayed.
    system = len(run.system or "")
    for call in replayed.calls:
        assert call.usage is not None
        assert call.usage.input_tokens == max(1, -(-(system + call.chars) // 4))


def test_a_stated_ratio_moves_the_estimate(tau: list[Run]) -> None:
    run = tau[0]
    quarter = replay(run, token_budget(threshold_tokens=1500, keep_recent_turns=2))
    half = replay(
        run, token_budget(threshold_tokens=1500, keep_recent_turns=2), tokens_per_char=0.5
    )
    assert half.origin.estimated_tokens_per_char == 0.5
    system = len(run.system or "")
    first = half.calls[0]
    assert first.usage is not None
    assert first.usage.input_tokens == -(-(system + first.chars) // 2)
    # Twice the tokens per character: the threshold is crossed at least as early, and the
    # estimated figures handed to the strategy are larger.
    assert min(r.iteration for r in half.records) <= min(r.iteration for r in quarter.records)
    assert max(r.measured_tokens or 0 for r in half.records) > max(
        r.measured_tokens or 0 for r in quarter.records
    )


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "0.25"])
def test_a_bad_ratio_is_refused_saying_what_to_pass(tau: list[Run], bad: object) -> None:
    from footprint_lab import WindowConfigError

    with pytest.raises(WindowConfigError, match="tokens_per_char must be a positive number"):
        replay(tau[0], token_budget(threshold_tokens=1500), tokens_per_char=bad)  # type: ignore[arg-type]


def test_a_live_run_keeps_the_rule_counted_not_guessed() -> None:
    @tool
    def probe(x: str) -> str:
        """Probe."""
        return x * 50

    provider = ScriptedProvider(
        [Reply.tool_call("probe", x="a"), Reply.tool_call("probe", x="b"), Reply.text("ok")],
        report_usage=False,
    )
    agent = (
        Agent.create(provider=provider, max_iterations=5)
        .tool(probe)
        .window(token_budget(threshold_tokens=10, keep_recent_turns=1))
        .build()
    )
    run = agent.run("go")
    assert run.status == "error"
    assert isinstance(run.error, CompactionUnmeasurableError)


# -- 5. a policy that cannot apply says so --------------------------------------------------


def test_no_usage_and_no_estimate_allowed_says_so(tau: list[Run]) -> None:
    replayed = replay(run := tau[0], token_budget(threshold_tokens=10), estimate=False)
    assert replayed.records == [] and len(replayed.calls) == len(run.calls)
    reasons = reasons_of(replayed)
    assert [r.reason for r in reasons] == ["no-usage"]
    assert "no estimate" in reasons[0].detail


def test_a_relative_threshold_without_a_context_window_says_so(tau: list[Run]) -> None:
    replayed = replay(tau[0], token_budget(threshold_fraction=0.5, keep_recent_turns=2))
    assert replayed.records == []
    assert [r.reason for r in reasons_of(replayed)] == ["no-context-window"]
    given = replay(
        tau[0], token_budget(threshold_fraction=0.5, keep_recent_turns=2), context_window=4000
    )
    assert given.records and reasons_of(given) == []
    assert {r.context_window for r in given.records} == {4000}


def test_a_keep_window_larger_than_the_run_says_so() -> None:
    run = _one("openhands/runtime-basic.json")
    replayed = replay(run, sliding_window(keep_recent_turns=50))
    (reason,) = reasons_of(replayed)
    assert reason.reason == "keep-window-covers-run"
    assert "keeps 50 turns" in reason.detail
    slack = replay(run, sliding_window(keep_recent_turns=1, slack_turns=50))
    assert [r.reason for r in reasons_of(slack)] == ["keep-window-covers-run"]
    assert reasons_of(replay(run, sliding_window(keep_recent_turns=1))) == []


def test_tool_policies_on_a_run_with_no_tool_results_say_so() -> None:
    run = _one("openhands/runtime-basic_interactions.json")
    assert not any(m.role == "tool" for m in run.ledger.messages)
    replayed = replay(run, clear_tool_results(keep_recent_turns=1, keep_results=1))
    assert [r.reason for r in reasons_of(replayed)] == [
        "no-tool-results",
        "pins-without-tool-results",
    ]
    # Pins off: only the strategy's own reason.
    bare = replay(run, clear_tool_results(keep_recent_turns=1), keep_last_tool_results=0)
    assert [r.reason for r in reasons_of(bare)] == ["no-tool-results"]


def test_every_reason_is_one_of_the_closed_set(tau: list[Run]) -> None:
    for run in tau[:5]:
        for strategy in (
            sliding_window(keep_recent_turns=100),
            token_budget(threshold_fraction=0.9),
            clear_tool_results(keep_recent_turns=100),
        ):
            for reason in reasons_of(replay(run, strategy, estimate=False)):
                assert reason.reason in NOT_APPLICABLE_REASONS


def test_the_report_and_the_inspector_say_why_once(tmp_path: Path, tau: list[Run]) -> None:
    replayed = replay(tau[0], token_budget(threshold_tokens=10), estimate=False)
    detail = reasons_of(replayed)[0].detail
    path = tmp_path / "report.html"
    write_report({"tau": {"cannot": replayed}}, path)
    html = path.read_text(encoding="utf-8")
    assert html.count(detail) == 1
    inspector = Inspector(replayed)
    assert inspector.overview_html.value.count(detail) == 1


# -- 7. say what a file does not record -------------------------------------------------------


# Per file: which facts it records (inputs, usage, tool results, model, outcome) and the
# status the one rule gives it. Read from the files themselves.
RECORDED = {
    "claude-code/edge_cases.jsonl": ("model tool_results usage", "incomplete"),
    # Ends on a reply that asks for no tool; no boundary, so no inputs.
    "claude-code/fixture.claude_forked_session.jsonl": ("model tool_results usage", "done"),
    # The calls after its boundary were sent the summary and what followed: inputs.
    "claude-code/fixture.session_with_compaction.jsonl": (
        "inputs model tool_results usage",
        "done",
    ),
    "claude-code/representative_messages.jsonl": ("model tool_results usage", "incomplete"),
    "inspect/browser.json": ("inputs model outcome tool_results usage", "done"),
    "inspect/log_streaming.eval": ("inputs model outcome usage", "done"),
    "inspect/popularity-a.eval": ("inputs model usage", "done"),
    "inspect/popularity.json": ("inputs model outcome usage", "done"),
    # vitals' replies made tool calls the log holds no result of: no tool results.
    "inspect/vitals.An-R-Eval_solvers_1da30c33.json": ("inputs model outcome usage", "done"),
    "openhands/multi-swe-bench-example-1.jsonl": ("model outcome tool_results usage", "done"),
    "openhands/runtime-basic.json": ("model outcome tool_results usage", "done"),
    "openhands/runtime-basic_gui_mode.json": ("model tool_results usage", "done"),
    "openhands/runtime-basic_interactions.json": ("model outcome usage", "done"),
    "openhands/runtime-wrong_initial_state.json": ("model outcome tool_results usage", "done"),
    "swe-agent/ctf__crypto__BabyEncryption.traj": ("outcome tool_results", "done"),
    "swe-agent/ctf__crypto__BabyTimeCapsule.traj": ("outcome tool_results", "done"),
    "swe-agent/ctf__forensics__flash.traj": ("outcome tool_results", "done"),
    "swe-agent/ctf__web__i_got_id_demo.traj": ("outcome tool_results", "done"),
    # No exit status, and the file ends on a tool result: mid-loop.
    "swe-agent/function_calling_simple.traj": ("tool_results", "incomplete"),
    "swe-agent/gpt4.swe-agent-test-repo-1c2844.traj": ("model outcome tool_results", "done"),
    "swe-agent/humanevalfix-python-0.human-thought.traj": ("outcome tool_results", "done"),
    "swe-agent/marshmallow-1867.default-from-source.traj": ("outcome tool_results", "done"),
    "swe-agent/marshmallow-1867.function-calling-replace-from-source.traj": (
        "inputs model outcome tool_results",
        "done",
    ),
    "swe-agent/marshmallow-1867.xml-cursors-window100.traj": ("outcome tool_results", "done"),
}


@pytest.mark.parametrize("path", sorted(RECORDED))
def test_each_file_says_what_it_recorded(path: str) -> None:
    expected, status = RECORDED[path]
    for run in load(TRANSCRIPTS / path):
        facts = recorded_of(run)
        assert facts is not None
        assert {k for k, v in facts.model_dump().items() if v} == set(expected.split())
        assert run.status == status
        missing = set(Recorded.model_fields) - set(expected.split())
        assert len([n for n in run_notes(run) if n.kind == "not recorded"]) == len(missing)


def test_tau_bench_records_its_outcome_and_model_but_not_inputs_or_usage(tau: list[Run]) -> None:
    for run in tau:
        facts = recorded_of(run)
        has_results = any(m.role == "tool" for m in run.ledger.messages)
        assert facts == Recorded(
            inputs=False, usage=False, tool_results=has_results, model=True, outcome=True
        )
        assert run.status == "done"
        assert run.meta["ended"] == f"reward {run.meta['reward']}"


def test_an_imported_run_prints_no_library_default_as_its_setting(tau: list[Run]) -> None:
    run = tau[0]
    facts = strategy_facts(capture(run), run)
    assert facts == [("strategy", "not recorded")]  # no pin limit the source never had
    html = Inspector(run).overview_html.value
    assert "does not record what each call was sent" in html
    replayed = replay(run, sliding_window(keep_recent_turns=2))
    names = [k for k, _ in strategy_facts(capture(replayed), replayed)]
    assert names == ["strategy", "keep_recent_turns", "keep_last_tool_results"]  # the replay's
    # A replay's windows are its own: the source's missing inputs are not said of it.
    assert not any("what each call was sent" in n.text for n in run_notes(replayed))


STACKS = ("claude-code", "inspect", "openhands", "swe-agent")
"""The stacks the table covers; today's stacks check meta["recorded"] in their own tests
(tests/importers/test_codex.py, test_pi.py, ... and test_todays_stacks_everywhere.py)."""


def test_every_real_file_is_in_the_table() -> None:
    found = {
        str(p.relative_to(TRANSCRIPTS))
        for p in TRANSCRIPTS.glob("*/*")
        if p.parent.name in STACKS and not p.name.startswith("LICENSE") and p.suffix != ".md"
    }
    assert found == set(RECORDED)


def test_swe_agent_exit_statuses_follow_the_rule() -> None:
    from footprint_lab.importers.swe_agent._meta import status_of_exit as _status_of_exit

    assert _status_of_exit("submitted") == "done"
    assert _status_of_exit("submitted (exit_cost)") == "done"
    assert _status_of_exit("exit_cost") == "max-iterations"
    assert _status_of_exit("exit_context") == "max-iterations"
    assert _status_of_exit("exit_format") == "incomplete"
    assert _status_of_exit("early_exit") == "incomplete"


def test_an_inspect_error_or_limit_follows_the_rule() -> None:
    from footprint_lab.importers.inspect import _outcome

    assert _outcome({"error": "boom"}) == ("incomplete", "error: boom")
    assert _outcome({"limit": "token"}) == ("max-iterations", "limit: token")
    assert _outcome({"scores": {"match": "C"}}) == ("done", "scored")
    assert _outcome({}) == (None, None)


def test_evidence_frame_rows_carry_the_reason_not_a_ratio_of_one(tau: list[Run]) -> None:
    from footprint_lab.lab import evidence_frame
    from footprint_lab.lab.evidence import evidence_summary

    runs = tau[:4]
    configs = [
        {"label": "keep 100", "strategy": sliding_window(keep_recent_turns=100)},
        {"label": "keep 2", "strategy": sliding_window(keep_recent_turns=2)},
        {"label": "budget", "strategy": token_budget(threshold_tokens=1500, keep_recent_turns=2)},
    ]
    frame = evidence_frame(runs, configs)
    wide = frame[frame["config"] == "keep 100"]
    assert wide["cost_ratio"].isna().all()
    assert wide["not_applicable"].str.contains("cannot remove anything").all()
    narrow = frame[frame["config"] == "keep 2"]
    assert narrow["cost_ratio"].notna().all()
    # A run without tool results says its pins pin nothing; the strategy still applies.
    said = narrow["not_applicable"].dropna()
    assert said.str.startswith("keep_last_tool_results=2 pins nothing").all()
    budget = frame[frame["config"] == "budget"]
    assert (budget["estimated_calls"] > 0).all()  # token policies engage, estimated
    assert budget["cost_ratio"].notna().all()
    summary = evidence_summary(frame).set_index("config")
    assert pd.isna(summary.loc["keep 100", "cost_ratio"])
    assert summary.loc["keep 100", "not_applicable_runs"] == len(runs)
    assert not summary.loc["keep 100", "cost_pareto"]
    assert summary.loc["keep 2", "not_applicable_runs"] == 0


def test_a_sweep_of_a_real_run_says_which_settings_cannot_apply(tau: list[Run]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from footprint_lab import sweep

    with ThreadPoolExecutor(max_workers=1) as pool:
        frame = sweep(
            tau[0], sliding_window, {"keep_recent_turns": [2, 100]}, executor=pool, progress=False
        )
    by_keep = frame.set_index("keep_recent_turns")
    assert pd.isna(by_keep.loc[100, "cost_ratio"])
    assert "holds every window" in by_keep.loc[100, "not_applicable"]
    assert pd.isna(by_keep.loc[2, "not_applicable"]) and by_keep.loc[2, "cost_ratio"] < 1


def test_the_inspector_prints_no_default_and_no_zero_for_what_a_file_lacks(
    tau: list[Run],
) -> None:
    """#37 item 3: tau-bench records no pin limit and no token usage; the Inspector says so
    instead of the library's default pin limit and a peak of 0 tokens "reported"."""
    pairs = dict(Inspector(tau[0])._key_pairs())
    assert pairs["pin limit"] == "not recorded"
    assert pairs["peak input tokens"] == "none reported"
    assert not any(key.startswith("peak input tokens (") for key in pairs)
    replayed = replay(tau[0], sliding_window(keep_recent_turns=2))
    again = dict(Inspector(replayed)._key_pairs())
    assert again["pin limit"] == 2  # the replay's own setting
    assert "peak input tokens (estimated)" in again
