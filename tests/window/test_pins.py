"""Pins: one per tool name, newest first, batches cost one slot, keep window is free,
yielded counting, the request boundary, and stand-down."""

from __future__ import annotations

from footprint_lab import Message, WindowRecord, apply_window, sliding_window
from footprint_lab.window.pins import blocked_by_pins
from footprint_lab.window.records import Refusal
from tests.builders import call, calls, result, user


def _loop(tools: list[str], size: int = 200) -> list[Message]:
    window: list[Message] = [user("req")]
    for i, name in enumerate(tools):
        window += [
            call(f"c{i}", name, stage=f"a{i}"),
            result(f"c{i}", name, "x" * size, stage=f"t{i}"),
        ]
    return window


def test_latest_result_per_tool_is_pinned_newest_first_up_to_limit() -> None:
    window = [*_loop(["a", "b", "c", "a", "d"]), Message.assistant("k")]
    out = apply_window(sliding_window(1), window, iteration=9, request="req")
    obs = out.record.observations  # type: ignore[union-attr]
    assert obs is not None
    # latest results: d (turn 5), a (turn 4), c (turn 3), b (turn 2); limit 2 → d, a pinned.
    assert [(p.tool_name, p.turn_index) for p in obs.pinned] == [("d", 5), ("a", 4)]
    assert obs.yielded == 2
    assert obs.limit == 2
    assert obs.pinned[0].chars == 200


def test_parallel_batch_costs_one_slot() -> None:
    window = [
        user("req"),
        call("c0", "old", stage="a0"),
        result("c0", "old", "o" * 100),
        calls([("c1", "x"), ("c2", "y")], stage="a1"),
        result("c1", "x", "x" * 100),
        result("c2", "y", "y" * 100),
        Message.assistant("k"),
    ]
    out = apply_window(
        sliding_window(1), window, iteration=4, request="req", keep_last_tool_results=1
    )
    obs = out.record.observations  # type: ignore[union-attr]
    assert obs is not None
    assert sorted(p.tool_name for p in obs.pinned) == ["x", "y"]
    assert {p.turn_index for p in obs.pinned} == {2}
    assert obs.yielded == 1  # 'old' found no slot


def test_pins_inside_keep_window_cost_nothing() -> None:
    window = _loop(["a", "b", "c"])
    out = apply_window(sliding_window(2), window, iteration=4, request="req")
    obs = out.record.observations  # type: ignore[union-attr]
    assert obs is not None
    # c and b live in the keep window (free); a takes a slot.
    assert [(p.tool_name, p.turn_index) for p in obs.pinned] == [("a", 1)]
    assert obs.yielded == 0


def test_nothing_at_or_before_the_current_request_is_pinnable() -> None:
    window = [
        user("old request"),
        call("c0", "a", stage="a0"),
        result("c0", "a", "x" * 300, stage="t0"),
        user("req"),
        Message.assistant("k1"),
        Message.assistant("k2"),
    ]
    out = apply_window(sliding_window(1), window, iteration=4, request="req")
    record = out.record
    assert record is not None
    assert record.observations is not None and record.observations.pinned == []
    assert "a0" in record.removed_stage_ids and "t0" in record.removed_stage_ids


def _blocked(iteration: int) -> WindowRecord:
    """A visit its pins blocked: it removed nothing, a pin refused, and the window was above
    its floor (a budget the request, the pins and the keep window exceed)."""
    return WindowRecord(
        strategy="sliding-window",
        iteration=iteration,
        refusals=[Refusal(reason="last-tool-result", turn_index=1, message_index=1)],
        over_budget=True,
    )


def test_a_visit_at_the_floor_is_not_blocked_by_its_pins() -> None:
    """#37 item 4: sliding_window(1) and (2) over distinct tools, two pins. A visit that fills
    the pins removes nothing and names last-tool-result, but the window is at its floor
    (request + pins + keep window): it was not blocked, and the pins never stand down. Before,
    they stood down every third visit (window sizes 1, 3, 5, 7, 3, 5, 7, ...)."""
    from footprint_lab import Agent, Reply, ScriptedProvider, tool

    tools = []
    for k in range(12):

        def look(n: int) -> str:
            return f"r{n} " + "x" * 50

        look.__name__, look.__doc__ = f"t{k}", "Look."
        tools.append(tool(look))
    replies = [Reply.tool_calls([(f"t{i}", {"n": i})]) for i in range(12)]
    for keep in (1, 2):
        run = (
            Agent.create(provider=ScriptedProvider([*replies, Reply.text("done")]))
            .tools(*tools)
            .window(sliding_window(keep))
            .build()
            .run("go")
        )
        floor = 1 + 2 * (2 + keep)  # the request, and two messages a round: 2 pins + keep
        sizes = [c.messages for c in run.calls]
        growing = list(range(1, floor, 2))
        assert sizes == [*growing, *[floor] * (len(sizes) - len(growing))]
        assert not any(r.observations and r.observations.stand_down for r in run.records)
        assert not any(blocked_by_pins(r) for r in run.records)


def test_a_pin_that_keeps_a_budget_above_the_floor_still_stands_down() -> None:
    at_floor = WindowRecord(
        strategy="sliding-window",
        iteration=3,
        turns_before=2,
        refusals=[
            Refusal(reason="current-request", turn_index=0, message_index=0),
            Refusal(reason="last-tool-result", turn_index=1, message_index=1),
        ],
    )
    assert not blocked_by_pins(at_floor)
    assert blocked_by_pins(at_floor.model_copy(update={"over_budget": True}))
    # A turn refused for a reason that is not the floor's: the window was above it.
    above = at_floor.model_copy(
        update={
            "turns_before": 3,
            "refusals": [
                *at_floor.refusals,
                Refusal(reason="unresolved-tool-call", turn_index=2, message_index=3),
            ],
        }
    )
    assert blocked_by_pins(above)


def test_stand_down_after_two_blocked_visits() -> None:
    window = [*_loop(["a"]), Message.assistant("k")]
    prior = [_blocked(3), _blocked(4)]
    out = apply_window(sliding_window(1), window, iteration=5, request="req", prior_records=prior)
    record = out.record
    assert record is not None
    assert record.observations is not None and record.observations.stand_down is True
    assert record.observations.pinned == []
    assert record.removed_message_count == 2
    # Only one blocked visit before: no stand-down.
    out = apply_window(
        sliding_window(1), window, iteration=5, request="req", prior_records=prior[-1:]
    )
    assert out.record is not None and out.record.observations is not None
    assert out.record.observations.stand_down is False
    assert out.record.removed_message_count == 0
