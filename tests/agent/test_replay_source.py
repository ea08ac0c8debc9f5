"""A run read once for many replays (``ReplaySource``): every replay of it is the replay of the
run itself, the copies its replays commit are shared only where they carry the same stage, and
no replay's ledger holds the source's own messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from footprint_lab import clear_tool_results, sliding_window, token_budget
from footprint_lab.agent.replay import ReplaySource, replay
from footprint_lab.agent.run import Run
from footprint_lab.importers import load_tau_bench
from footprint_lab.scenarios import SCENARIOS

TAU = Path(__file__).resolve().parents[2] / "data" / "tau-bench"
STRATEGIES: list[Any] = [
    None,
    sliding_window(1),
    sliding_window(3),
    sliding_window(2, slack_turns=2),
    clear_tool_results(keep_recent_turns=2),
    token_budget(2_000),
]


def _written(run: Run) -> list[Any]:
    """Everything a replay wrote: its commits (the ledger's messages by content and stage),
    the window each call sent, its calls and its records."""
    ledger = run.ledger
    return [
        [(c.index, c.stage_id, c.key) for c in ledger.commits],
        [(m.role, m.content, m.stage_id, m.tool_call_id) for m in ledger.messages],
        [[(m.content, m.stage_id) for m in run.window_sent(i)] for i in range(len(run.calls))],
        [c.model_dump() for c in run.calls],
        [r.model_dump() for r in run.records],
        run.meta,
    ]


def _runs() -> list[tuple[str, Run]]:
    tau = load_tau_bench(TAU)[:6]
    scripted = [(name, SCENARIOS[name]().run(None)) for name in sorted(SCENARIOS)[:3]]
    return [(str(r.meta.get("label")), r) for r in tau] + scripted


@pytest.mark.parametrize(("label", "run"), _runs(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_replay_of_the_source_is_the_replay_of_the_run(label: str, run: Run) -> None:
    source = ReplaySource(run)
    for pins in (0, 2):
        for strategy in STRATEGIES:
            shared = replay(source, strategy, pins, events=False)
            alone = replay(run, strategy, pins, events=False)
            assert _written(shared) == _written(alone), (label, strategy, pins)


def test_replays_share_a_copy_only_under_the_same_stage_and_never_hold_the_sources() -> None:
    run = load_tau_bench(TAU)[0]
    source = ReplaySource(run)
    first = replay(source, sliding_window(1), 0, events=False)
    second = replay(source, sliding_window(4), 2, events=False)
    unmanaged = replay(source, None, events=False)
    originals = {id(m) for m in run.ledger.messages}
    for replayed in (first, second, unmanaged):
        assert originals.isdisjoint(id(m) for m in replayed.ledger.messages)

    # Every replay keeps the source's stage ids for the source's messages (#37 item 1), so all
    # of them share each copy of the transcript, and each copy carries its original's id.
    def copies(replayed: Run) -> list[Any]:  # the transcript's copies, in transcript order
        return [m for m in replayed.ledger.messages if not (m.stage_id or "").startswith("window")]

    assert len(copies(first)) == len(copies(second)) == len(copies(unmanaged)) > 1
    assert all(a is b for a, b in zip(copies(first), copies(second), strict=True))
    assert all(a is b for a, b in zip(copies(first), copies(unmanaged), strict=True))
    assert [m.stage_id for m in copies(first)] == [m.stage_id for m in run.ledger.messages]


def test_a_source_is_read_from_a_run_only() -> None:
    with pytest.raises(TypeError, match="replay here takes a Run"):
        ReplaySource([])  # type: ignore[arg-type]
