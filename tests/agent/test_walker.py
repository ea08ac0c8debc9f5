"""One walker, ids that mean one thing everywhere (#37 item 1).

``replay`` and every importer's ``build_run`` commit a recorded conversation through one loop
(:class:`~footprint_lab.agent.transcript.Walk`), one tool result per commit as the live agent
commits them, and a replay keeps its source's stage ids. So, on every run in ``data/``, every
scenario and 1,000 generated runs:

- ``replay(run, None)`` of a run whose windows nobody managed has exactly the source's commits
  (stage id, key and value), calls and windows — but for the usage it *estimates* where the
  source reported none, which its calls carry labelled ``tokens_from="estimated"`` (a replay
  hands a token strategy those, see :mod:`footprint_lab.agent.replay`) and its ledger does not;
- with a strategy, or on a run whose source policy removed messages, every source id names the
  same message in both runs, the replay's own stages are numbered after every id the source
  allocated, and ``explain`` of an id speaks of the same message in both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import explain, fork, sliding_window
from footprint_lab.agent.replay import replay
from footprint_lab.agent.run import Run
from footprint_lab.importers import as_run, load
from footprint_lab.ledger.commit import stage_number
from footprint_lab.messages import Message
from footprint_lab.scenarios import SCENARIOS
from footprint_lab.window.strategies import WindowStrategy
from tests.budget import examples
from tests.test_replay_live import _agent, _family, _replies, _script

DATA = Path(__file__).resolve().parents[2] / "data"
REQUEST = "Audit every deployment and report what you find."


def _message(m: Message) -> dict[str, Any]:
    return m.model_dump(exclude={"chars"})


def _value(run: Run, index: int) -> Any:
    ledger = run.ledger
    commit = ledger.commits[index]
    if commit.key == "history":
        start, end = commit.stored
        return [_message(m) for m in ledger.messages[start:end]]
    if commit.key == "window":
        return [m.stage_id for m in ledger.window_at(index)]
    value = ledger.value_at(index, commit.key)
    return value.model_dump() if hasattr(value, "model_dump") else value


def _estimated_stages(run: Run) -> set[str]:
    return {c.stage_id for c in run.calls if c.tokens_from == "estimated"}


def _written(run: Run, *, skip_usage_of: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    """What a run committed, filed and sent, by stage id and value (clock readings aside)."""
    commits = [(c.stage_id, c.key, _value(run, c.index)) for c in run.ledger.commits]
    return {
        "commits": commits,
        "calls": [
            (
                c.stage_id,
                c.iteration,
                c.messages,
                c.chars,
                None if c.stage_id in skip_usage_of else c.usage,
            )
            for c in run.calls
        ],
        "windows": [[m.stage_id for m in run.window_sent(i)] for i in range(len(run.calls))],
        "window": [m.stage_id for m in run.window],
        "requests": run.requests,
        "iterations": run.iterations,
    }


def _check_unmanaged_replay(run: Run) -> None:
    again = replay(run, None, events=False)
    estimated = _estimated_stages(again)
    ours = _written(again, skip_usage_of=estimated)
    theirs = _written(run, skip_usage_of=estimated)
    assert ours["commits"] == theirs["commits"]
    assert ours == theirs
    assert again.ledger.stage_count == run.ledger.stage_count


def _check_ids_resolve(run: Run, replayed: Run) -> None:
    """Every source message that is not a window stage's names the same message in the
    replay; the replay's own stages are new numbers."""
    source_ledger, ledger = run.ledger, replayed.ledger
    kept = [m for m in source_ledger.messages if not (m.stage_id or "").startswith("window#")]
    for m in kept:
        assert m.stage_id is not None
        theirs = sorted(map(str, map(_message, source_ledger.messages_of(m.stage_id))))
        ours = sorted(map(str, map(_message, ledger.messages_of(m.stage_id))))
        if m.authored is None:
            assert ours == theirs, m.stage_id
    source_ids = {c.stage_id for c in source_ledger.commits}
    for commit in ledger.commits:
        if commit.stage_id not in source_ids:
            number = stage_number(commit.stage_id)
            assert number is not None and number >= source_ledger.stage_count, commit.stage_id


def _unmanaged(run: Run) -> bool:
    return not run.records and not any(
        (m.stage_id or "").startswith(("window#", "inject#")) for m in run.ledger.messages
    )


# -- every run in data/ ----------------------------------------------------------------------

RUNS = load(DATA)


def test_data_holds_runs_of_both_kinds() -> None:
    assert sum(map(_unmanaged, RUNS)) > 100
    assert sum(1 for run in RUNS if run.records) > 10


@pytest.mark.parametrize("index", range(len(RUNS)), ids=lambda i: f"{i}")
def test_a_replay_of_every_run_in_data_keeps_its_commits_and_ids(index: int) -> None:
    run = RUNS[index]
    if _unmanaged(run):
        _check_unmanaged_replay(run)
    replayed = replay(run, sliding_window(2), events=False)
    _check_ids_resolve(run, replayed)
    _check_ids_resolve(run, replay(run, None, events=False))


def test_a_reimport_gives_the_same_ids() -> None:
    first = load(DATA / "transcripts" / "swe-agent")
    second = load(DATA / "transcripts" / "swe-agent")
    for a, b in zip(first, second, strict=True):
        assert [m.stage_id for m in a.ledger.messages] == [m.stage_id for m in b.ledger.messages]


# -- every scenario ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_replays_commit_for_commit(name: str) -> None:
    scenario = SCENARIOS[name]()
    unmanaged = scenario.run(None)
    _check_unmanaged_replay(unmanaged)
    again = replay(unmanaged, None, events=False)
    for m in unmanaged.ledger.messages:
        assert m.stage_id is not None
        assert explain(again, m.stage_id) == explain(unmanaged, m.stage_id)
    for strategy in scenario.strategies().values():
        replayed = replay(unmanaged, strategy, events=False)
        _check_ids_resolve(unmanaged, replayed)
        _check_explain_agrees(unmanaged, replayed)
        # A run made under a strategy replays with its source's ids too.
        managed = scenario.run(strategy)
        _check_ids_resolve(managed, replay(managed, strategy, events=False))


def _check_explain_agrees(run: Run, replayed: Run) -> None:
    """``explain`` of a source id speaks of the same message in both runs: its sentence opens
    with the same id and the same kind of message (``tool-calls#4 (a result of read_log)``)."""
    for stage in dict.fromkeys(m.stage_id for m in run.ledger.messages):
        if stage is None or stage.startswith("window#"):
            continue
        ours, theirs = explain(replayed, stage), explain(run, stage)
        head = theirs.partition(")")[0]
        assert head.startswith(f"{stage} (") and ours.startswith(head), (ours, theirs)


# -- 1,000 generated runs ----------------------------------------------------------------------


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_runs_replay_commit_for_commit(data: st.DataObject) -> None:
    """Scripted runs with parallel batches (their results commit in the order they finish):
    the unmanaged replay is the run, commit for commit; a strategy's replay keeps every id."""
    script = _script(data.draw(_replies))
    pins = data.draw(st.integers(0, 3))
    run = _agent(script, None, pins).run(REQUEST)
    _check_unmanaged_replay(run)
    strategy: WindowStrategy = _family(data.draw, data.draw(st.sampled_from(["sliding", "clear"])))
    _check_ids_resolve(run, replay(run, strategy, keep_last_tool_results=pins, events=False))


def test_an_import_and_its_replay_commit_alike() -> None:
    """The issue's case: a five-message import with two parallel results has as many commits
    as its replay with no strategy (4 and 7 before: the import committed both results at once,
    the replay each alone and two estimated usages)."""
    messages = [
        {"role": "user", "content": "check both"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "A"},
        {"role": "tool", "tool_call_id": "b", "content": "B"},
        {"role": "assistant", "content": "both fine"},
    ]
    run = as_run(messages)
    again = replay(run, None, events=False)
    assert len(run.ledger) == len(again.ledger) == 5
    _check_unmanaged_replay(run)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_fork_keeps_its_parents_ids_and_numbers_its_own_after_them(name: str) -> None:
    """The parent's messages up to the fork keep their ids in the fork; the stages the fork
    adds are numbered after every id the parent allocated, so no id names two things."""
    scenario = SCENARIOS[name]()
    parent = scenario.run(None)
    at = max(1, min(3, len(parent.calls)))
    forked = fork(parent, at=at, strategy=sliding_window(1), provider=scenario.provider())
    kept = {m.stage_id for m in forked.ledger.messages} & {
        m.stage_id for m in parent.ledger.messages
    }
    assert kept
    for stage in kept:
        assert stage is not None
        ours = [_message(m) for m in forked.ledger.messages_of(stage)]
        theirs = [_message(m) for m in parent.ledger.messages_of(stage)]
        assert ours == theirs[: len(ours)], stage
    parent_ids = {c.stage_id for c in parent.ledger.commits}
    for commit in forked.ledger.commits:
        if commit.stage_id not in parent_ids:
            number = stage_number(commit.stage_id)
            assert number is not None and number >= parent.ledger.stage_count, commit.stage_id
