"""The one writer of runs (#25 item 1): nothing else appends a run's commits, and every record
it files names the window its visit was given."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import footprint_lab
from footprint_lab import load_run, replay, sliding_window, token_budget
from footprint_lab.agent.writer import RunWriter
from footprint_lab.scenarios import deploy_audit, parallel_tools, screen_driver
from tests.agent.golden_runs import BUILDERS

_PACKAGE = Path(footprint_lab.__file__).parent
_WRITES = frozenset({"append", "put", "set_window", "begin_stage"})
"""The ledger's writing methods."""
_OWNERS = {_PACKAGE / "ledger" / "log.py", _PACKAGE / "agent" / "writer.py"}


def _ledger_writes(path: Path) -> list[str]:
    """Calls of a ledger's writing methods in ``path``: ``<x>.ledger.append(...)``,
    ``ledger.put(...)``, ``<anything>.begin_stage(...)`` / ``.set_window(...)``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method, receiver = node.func.attr, node.func.value
        named = (
            receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        )
        if method in ("begin_stage", "set_window") or (
            method in _WRITES and "ledger" in str(named).lower()
        ):
            found.append(f"{path.relative_to(_PACKAGE)}:{node.lineno} {ast.unparse(node.func)}")
    return found


def test_only_the_run_writer_appends_a_runs_commits() -> None:
    modules = sorted(p for p in _PACKAGE.rglob("*.py") if p not in _OWNERS)
    assert len(modules) > 100
    assert [w for p in modules for w in _ledger_writes(p)] == []
    # The scan finds what it looks for: the writer itself is full of it.
    assert len(_ledger_writes(_PACKAGE / "agent" / "writer.py")) >= 6


def _runs() -> dict[str, footprint_lab.Run]:
    return {name: build() for name, build in BUILDERS.items()}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_record_names_its_commit_and_the_window_it_was_given(name: str) -> None:
    run = BUILDERS[name]()
    for record in run.records:
        assert record.commit is not None and record.given_commit is not None
        assert run.ledger.commits[record.commit].key == "record"
        assert record.given_commit < record.commit
        # The given window is what the visit measured, and the window after is what it left.
        given = run.ledger.window_at(record.given_commit)
        assert sum(m.chars for m in given) == record.window_chars_before
        after = run.ledger.window_at(record.commit)
        assert sum(m.chars for m in after) == record.window_chars_after


_STRATEGIES = st.sampled_from(
    [
        lambda: sliding_window(keep_recent_turns=1),
        lambda: sliding_window(keep_recent_turns=3),
        lambda: token_budget(threshold_tokens=300, keep_recent_turns=1),
        lambda: token_budget(threshold_tokens=700, keep_recent_turns=2),
    ]
)
_SCENARIOS = st.sampled_from([deploy_audit, parallel_tools, screen_driver])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=_SCENARIOS, strategy=_STRATEGIES, keep=st.integers(0, 3), live=st.booleans())
def test_a_saved_run_reads_back_the_records_its_writer_filed(
    tmp_path_factory: pytest.TempPathFactory, scenario, strategy, keep: int, live: bool
) -> None:
    """Live or replayed, the records (their commits and given windows included) a run's
    writer filed are the ones ``load_run`` reads back from the ledger."""
    if live:
        run = scenario().run(strategy(), keep_last_tool_results=keep)
    else:
        run = replay(scenario().run(), strategy(), keep_last_tool_results=keep)
    loaded = load_run(run.save(tmp_path_factory.mktemp("w") / "run.json"))
    assert loaded.records == run.records
    assert [r.given_commit for r in loaded.records] == [r.given_commit for r in run.records]


def test_a_writer_keeps_the_window_its_next_call_sends() -> None:
    run = footprint_lab.Run(request="", ledger=footprint_lab.Ledger())
    writer = RunWriter(run)
    writer.seed([footprint_lab.Message.user("hello")], system="be brief")
    stage = writer.stage("call-llm")
    call = writer.call(stage, 1)
    writer.reply(stage, footprint_lab.Message.assistant("hi"), None)
    assert [m.content for m in writer.window] == ["hello", "hi"]
    assert run.ledger.window_at(call.sent_commit) == writer.window[:1]
    assert [c.key for c in run.ledger.commits] == ["system", "history", "history"]
