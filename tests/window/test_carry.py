"""A boundary that costs what changed decides what the boundary read whole decides (#41 item 2).

In a running loop each visit is handed the window it sent last time plus the newest batch,
and the last visit's window to reuse (``Boundary.reuse``): the window's facts are kept for the
turns the two share, and a clearing walk carries its outcome for the turns that did not change
(:mod:`footprint_lab.window._carry`). The oracle is the same visit with nothing to reuse: on
every boundary of generated runs and of the real runs in ``data/`` the two give the same
window and the same record — what left, every refusal, the pins.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Message,
    ToolCall,
    anthropic_context_editing,
    clear_tool_results,
    replay,
    sliding_window,
    token_budget,
)
from footprint_lab.importers import load
from footprint_lab.window import Boundary, apply_boundary
from footprint_lab.window import clearing as clearing_module
from footprint_lab.window import shape as shape_module
from footprint_lab.window._carry import carried_prefix
from footprint_lab.window.notice import cleared_result_text
from footprint_lab.window.records import WindowRecord
from tests.budget import examples
from tests.importers.test_load import real_files
from tests.window.test_properties import TOOLS, histories


@contextmanager
def reuse_at_every_size() -> Iterator[None]:
    """Reuse a window's facts however short it is (generated windows are short)."""
    saved = shape_module._WORTH_REUSING
    shape_module._WORTH_REUSING = 0
    try:
        yield
    finally:
        shape_module._WORTH_REUSING = saved


@contextmanager
def reuse_never() -> Iterator[None]:
    """Read every window whole: the oracle."""
    saved = shape_module._WORTH_REUSING
    shape_module._WORTH_REUSING = 10**12
    try:
        yield
    finally:
        shape_module._WORTH_REUSING = saved


clearing = st.one_of(
    st.builds(
        lambda k, r, at_least, excluded, inputs: clear_tool_results(
            keep_recent_turns=k,
            keep_results=r,
            clear_at_least_chars=at_least,
            exclude_tools=excluded,
            clear_tool_inputs=inputs,
        ),
        st.integers(1, 3),
        st.integers(0, 4),
        st.sampled_from([0, 0, 250, 400, 1_000]),
        st.lists(st.sampled_from(TOOLS), max_size=2).map(tuple),
        st.booleans(),
    ),
    st.builds(
        lambda k: anthropic_context_editing(trigger=1, keep=k),
        st.integers(0, 3),
    ),
    st.builds(sliding_window, st.integers(1, 4)),
    st.builds(lambda k: token_budget(40, keep_recent_turns=k), st.integers(1, 4)),
)


ITERATIONS = st.sampled_from([5, 9, 10, 11, 99, 100, 995, 1_000])


def _sized_near_placeholders(history: Any, data: st.DataObject) -> list[Message]:
    """The history with some results resized to about a placeholder's size (189 to 210
    characters, as the tool and the iteration the placeholder names vary): whether a result
    is worth clearing then turns on the iteration's digits."""
    out = []
    for message in history.messages:
        if message.role == "tool" and data.draw(st.booleans()):
            size = data.draw(st.one_of(st.integers(186, 212), st.sampled_from([260, 300])))
            assert message.tool_call_id is not None and message.name is not None
            message = Message.tool(
                message.tool_call_id, message.name, "x" * size, stage_id=message.stage_id
            )
        out.append(message)
    return out


def _turn_starts(messages: list[Message]) -> list[int]:
    """Where a boundary may fall: before each message that is not a tool result, and at the
    end (an agent calls its model once a batch's results are in)."""
    return [
        i for i in range(1, len(messages) + 1) if i == len(messages) or messages[i].role != "tool"
    ]


def _visit(
    strategy: Any, window: list[Message], facts: dict[str, Any], reuse: Any
) -> tuple[list[Message], WindowRecord | None, Any]:
    result = apply_boundary(strategy, window, Boundary(**facts, reuse=reuse))
    return list(result.window), result.record, result.given


@settings(max_examples=examples(1000), deadline=None)
@given(
    histories(),
    clearing,
    st.integers(0, 2),
    st.data(),
)
def test_every_boundary_carried_forward_decides_what_the_boundary_read_whole_decides(
    history: Any, strategy: Any, pins: int, data: st.DataObject
) -> None:
    messages = _sized_near_placeholders(history, data)
    points = _turn_starts(messages)
    cuts = sorted(set(data.draw(st.lists(st.sampled_from(points), min_size=1, max_size=8))))
    if cuts[-1] != len(messages):
        cuts.append(len(messages))
    window: list[Message] = []
    reuse = None
    records: list[WindowRecord] = []
    done = 0
    for cut in cuts:
        window = [*window, *messages[done:cut]]
        done = cut
        facts = {
            # Placeholders name the iteration: across a digit they grow (or, in a visit made
            # out of order, shrink), and a result near their size is then worth clearing.
            "iteration": data.draw(ITERATIONS),
            "request": history.request,
            "keep_last_tool_results": pins,
            "prior_records": tuple(records),
            "paused_call_id": history.paused_call_id if cut == len(messages) else None,
            "measured_input_tokens": 10_000,
        }
        with reuse_at_every_size():
            carried, record, given_window = _visit(strategy, window, facts, reuse)
        with reuse_never():
            whole, whole_record, _ = _visit(strategy, list(window), facts, None)
        assert carried == whole
        assert record == whole_record
        if record is not None:
            records.append(record)
        window, reuse = carried, given_window


def _real_runs() -> list[Any]:
    runs = []
    for path, _ in real_files():
        runs.extend(load(path))
    return runs


REAL = _real_runs()


@pytest.mark.parametrize(
    "strategy",
    [
        clear_tool_results(keep_recent_turns=1, keep_results=1),
        clear_tool_results(keep_recent_turns=2, keep_results=3, clear_tool_inputs=True),
        clear_tool_results(keep_recent_turns=1, keep_results=0, clear_at_least_chars=4_000),
        anthropic_context_editing(trigger=1, keep=2),
        sliding_window(3),
    ],
    ids=lambda s: s.name,
)
def test_every_real_run_replays_carried_forward_as_read_whole(
    strategy: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(REAL) >= 10, "the real runs in data/ were not found"
    carried_turns = []

    def counted(*args: Any) -> Any:
        found = carried_prefix(*args)
        carried_turns.append(found[0])
        return found

    monkeypatch.setattr(clearing_module, "carried_prefix", counted)
    for run in REAL:
        with reuse_at_every_size():
            carried = replay(run, strategy, events=False)
        with reuse_never():
            whole = replay(run, strategy, events=False)
        assert carried.records == whole.records, run.meta.get("label")
        assert carried.window == whole.window
    if strategy.name != "sliding-window":  # the clearing walks carried turns forward
        assert sum(carried_turns) > 0


def _reads(sizes: list[int]) -> list[Message]:
    """A request, then one ``read`` call and its result per size."""
    out = [Message.user("the request", stage_id="seed#1")]
    for i, size in enumerate(sizes):
        call = ToolCall(id=f"c{i}", name="read", arguments={})
        out.append(Message.assistant("", tool_calls=[call], stage_id=f"call-llm#{i}"))
        out.append(Message.tool(call.id, "read", "x" * size, stage_id=f"tool-calls#{i}"))
    return out


def _two_visits(
    strategy: Any, messages: list[Message], cut: int, iterations: tuple[int, int]
) -> None:
    """A visit over ``messages[:cut]``, then one over what it returned plus the rest, carried
    forward and read whole: the two must agree."""
    first, second = iterations
    with reuse_at_every_size():
        window, _, given_window = _visit(strategy, messages[:cut], {"iteration": first}, None)
        carried = _visit(strategy, window + messages[cut:], {"iteration": second}, given_window)
    with reuse_never():
        whole = _visit(strategy, window + messages[cut:], {"iteration": second}, None)
    assert carried[:2] == whole[:2]


def test_a_result_left_at_one_iteration_is_cleared_when_a_shorter_placeholder_fits() -> None:
    # At iteration 1,000 a placeholder is longer than at 5: a result of its size was not worth
    # clearing then and is now (a visit out of order: a fork, a replay from a boundary).
    size = len(
        cleared_result_text(tool_name="read", iteration=1_000, strategy="clear-tool-results")
    )
    messages = _reads([size, 10, 10, 10, 10, 10])
    _two_visits(clear_tool_results(keep_recent_turns=1, keep_results=1), messages, 9, (1_000, 5))


def test_a_clearing_too_small_to_make_is_made_once_it_is_large_enough() -> None:
    # The first visit finds one result to clear, below clear-at-least, and leaves it; the next
    # finds a second, and the two together are worth it: the first is cleared too.
    messages = _reads([400, 10, 400, 10, 10])
    strategy = clear_tool_results(keep_recent_turns=1, keep_results=1, clear_at_least_chars=300)
    _two_visits(strategy, messages, 5, (3, 4))
