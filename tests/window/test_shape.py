"""``Window``: the facts read at C speed are the facts read message by message.

Properties over wild windows (parallel batches of up to 11 calls, reused and missing call ids,
results displaced into later turns or answering nothing, a leading result, system messages,
library-authored messages, stage ids that repeat in two runs or are missing): every fact a
``Window`` computes equals a plain reference computation, and every fast path of the engine
(the walk over the refusing turns only, the pins from each tool's latest result, the span
facts from the stage runs) decides exactly what the message-by-message path decides.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import Message, ToolCall, apply_window, sliding_window, token_budget
from footprint_lab.window import shape as shape_module
from footprint_lab.window.clearing import plan_clearing
from footprint_lab.window.facts import request_index_of, scan
from footprint_lab.window.pins import choose_pins
from footprint_lab.window.refusals import Guards, plan_removal
from footprint_lab.window.request import current_request_index
from footprint_lab.window.shape import Window
from footprint_lab.window.turns import bound_turns, turn_table
from tests.budget import examples
from tests.window.test_properties import histories

WORTH_REUSING = shape_module._WORTH_REUSING
IDS = [f"c{i}" for i in range(8)]
NAMES = ["read", "grep", "bad name!", None]
STAGES = ["seed#0", "call-llm#1", "tool-calls#2", "call-llm#3", "window#4", None]


@st.composite
def wild_windows(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    for _ in range(draw(st.integers(0, 24))):
        kind = draw(st.sampled_from(["user", "user", "call", "call", "call", "text", "tool"]))
        kind = draw(st.sampled_from([kind, kind, kind, "system", "notice", "many"]))
        stage = draw(st.sampled_from(STAGES))
        if kind in ("call", "many"):
            size = draw(st.integers(1, 3)) if kind == "call" else draw(st.integers(9, 11))
            calls = [ToolCall(draw(st.sampled_from(IDS)), "read", {"k": k}) for k in range(size)]
            out.append(Message.assistant("", calls, stage_id=stage))
            for call in calls:
                if draw(st.integers(0, 5)) == 0:
                    continue  # unanswered
                cid = call.id if draw(st.integers(0, 6)) else draw(st.sampled_from([*IDS, None]))
                name = draw(st.sampled_from(NAMES))
                out.append(
                    Message(
                        role="tool",
                        content="r" * draw(st.sampled_from([30, 400])),
                        tool_call_id=cid,
                        name=name,
                        stage_id=stage,
                        authored=draw(st.sampled_from([None, None, "cleared-result"])),
                    )
                )
        elif kind == "tool":
            out.append(
                Message(
                    role="tool",
                    content="orphan",
                    tool_call_id=draw(st.sampled_from([*IDS, None])),
                    name=draw(st.sampled_from(NAMES)),
                    stage_id=stage,
                )
            )
        elif kind == "user":
            out.append(
                Message.user(
                    draw(st.sampled_from(["the request", "other"])),
                    stage_id=stage,
                    name=draw(st.sampled_from([None, "bob"])),
                )
            )
        elif kind == "notice":
            out.append(
                Message(role="user", content="the request", authored="drop-notice", stage_id=stage)
            )
        elif kind == "system":
            out.append(Message.system("sys", stage_id=stage))
        else:
            out.append(Message.assistant("text " * draw(st.integers(0, 4)), stage_id=stage))
    return out


def _reference(messages: list[Message]) -> dict[str, object]:
    """The facts, message by message."""
    table = turn_table(messages)
    local, open_turns, system_turns = True, set(), set()
    for k, (a, b) in enumerate(zip(table.starts, table.ends, strict=True)):
        head = messages[a]
        if head.role == "system":
            system_turns.add(k)
        ids = [c.id for c in head.tool_calls]
        got = [m.tool_call_id for m in messages[a + 1 : b]]
        if not ids:
            local = local and b - a == 1
            continue
        if got == ids:
            continue  # answered in call order
        answered = {g for g in got if g in ids}
        if len(answered) < len(got):
            local = False  # a result answering no call of the head, or answering one twice
        if len(answered) < len(set(ids)):
            open_turns.add(k)
    return {
        "codes_len": len(messages),
        "starts": table.starts,
        "ends": table.ends,
        "local": local,
        "open_turns": open_turns if local else None,
        "system_turns": system_turns,
        "bound": None if local else bound_turns(messages, table),
        "chars": sum(m.chars for m in messages),
    }


def _unique(values: list[str | None]) -> list[str]:
    return [v for v in dict.fromkeys(values) if v is not None]


@settings(max_examples=examples(1500), deadline=None)
@given(wild_windows(), st.data())
def test_every_fact_of_a_window_is_the_fact_read_message_by_message(
    messages: list[Message], data: st.DataObject
) -> None:
    window = Window(messages)
    ref = _reference(messages)
    assert len(window.codes) == ref["codes_len"]
    assert window.starts == ref["starts"] and window.ends == ref["ends"]
    assert window.local == ref["local"]
    if window.local:
        assert set(window.open_turns) == ref["open_turns"]
    assert set(window.system_turns) == ref["system_turns"]
    assert window.bound == ref["bound"]
    assert window.chars == ref["chars"]
    n = len(messages)
    start = data.draw(st.integers(0, n))
    end = data.draw(st.integers(start, n))
    span = messages[start:end]
    assert window.span_chars(start, end) == sum(m.chars for m in span)
    assert window.span_stage_ids(start, end) == _unique([m.stage_id for m in span])
    tools = [m.name if m.role == "tool" else None for m in span]
    assert window.span_tool_names(start, end) == _unique(tools)
    names = [m.name if m.role == "tool" else None for m in messages]
    last = {name: i for i, name in enumerate(names) if name is not None}
    assert window.last_results() == last
    for request in (None, "the request", "absent"):
        assert request_index_of(window, request) == current_request_index(messages, request)


FACTS = (
    "messages",
    "codes",
    "stage_ids",
    "cum",
    "tool_names",
    "starts",
    "ends",
    "local",
    "open_turns",
    "system_turns",
    "bound",
)


@settings(max_examples=examples(1500), deadline=None)
@given(wild_windows(), wild_windows(), st.data())
def test_a_window_read_again_from_a_shared_prefix_has_the_facts_of_one_read_whole(
    before: list[Message], after: list[Message], data: st.DataObject
) -> None:
    shape_module._WORTH_REUSING = 0  # reuse at every size: these windows are short
    try:
        cut = data.draw(st.integers(0, len(before)))
        prior = Window(before)
        if data.draw(st.booleans()):
            prior.last_results()  # reuse what was computed too, each on its own
        if data.draw(st.booleans()):
            prior.first_results()
        kept = before[:cut]
        if data.draw(st.booleans()):  # equal copies share their facts as the originals do
            kept = [m.model_copy() if data.draw(st.booleans()) else m for m in kept]
        messages = kept + after
        reused = (
            Window.of(messages, reuse=prior)
            if data.draw(st.booleans())
            else (Window(kept).extended(after))
        )
        whole = Window(messages)
        for fact in FACTS:
            assert getattr(reused, fact) == getattr(whole, fact), fact
        assert reused.last_results() == whole.last_results()
        assert reused.first_results() == whole.first_results()
    finally:
        shape_module._WORTH_REUSING = WORTH_REUSING


@settings(max_examples=examples(1500), deadline=None)
@given(
    st.one_of(wild_windows(), histories().map(lambda h: h.messages)),
    st.integers(0, 7),
    st.integers(0, 3),
    st.sampled_from([None, "c1", "c3"]),
)
def test_the_engine_s_fast_paths_decide_what_the_turn_by_turn_walk_decides(
    messages: list[Message], keep: int, pins: int, paused: str | None
) -> None:
    facts = scan(messages, "the request", paused)
    fast = Guards(facts.window.messages, facts.request_index, paused, False, facts)
    slow = Guards(facts.window.messages, facts.request_index, paused, False, None)
    args = (facts.window.messages, facts.turns, keep)
    a = plan_removal(*args, guards=fast, keep_last_tool_results=pins, stand_down=False)
    b = plan_removal(*args, guards=slow, keep_last_tool_results=pins, stand_down=False)
    assert (a.span, a.span_turns, a.at_front) == (b.span, b.span_turns, b.at_front)
    assert a.refusals == b.refusals
    assert a.observations == b.observations
    request_turn = facts.request_turn
    keep_start = max(0, len(facts.turns) - keep)
    kw = {
        "request_turn": request_turn,
        "keep_start_turn": keep_start,
        "limit": pins,
        "stand_down": False,
    }
    assert choose_pins(messages, facts.turns, window=facts.window, **kw) == choose_pins(
        messages, facts.turns, **kw
    )


@settings(max_examples=examples(1000), deadline=None)
@given(histories(), st.integers(1, 6))
def test_a_window_given_as_a_window_is_trimmed_as_the_same_list(history, keep: int) -> None:  # type: ignore[no-untyped-def]
    for strategy, kw in (
        (sliding_window(keep), {}),
        (token_budget(10, keep_recent_turns=keep), {"measured_input_tokens": 99}),
    ):
        kwargs = {
            "iteration": 3,
            "request": history.request,
            "paused_call_id": history.paused_call_id,
            **kw,
        }
        as_list = apply_window(strategy, history.messages, **kwargs)
        as_window = apply_window(strategy, Window(history.messages), **kwargs)
        assert as_window.record == as_list.record
        assert [m.content for m in as_window.window] == [m.content for m in as_list.window]
        assert all(
            a is b or (a.authored and a.content == b.content)
            for a, b in zip(as_window.window, as_list.window, strict=True)
        )


@settings(max_examples=examples(1500), deadline=None)
@given(
    st.one_of(wild_windows(), histories().map(lambda h: h.messages)),
    st.integers(0, 4),
    st.integers(0, 3),
    st.integers(0, 3),
)
def test_clearing_visits_only_what_it_can_clear_and_decides_as_a_walk_of_every_turn(
    messages: list[Message], keep: int, pins: int, keep_results: int
) -> None:
    facts = scan(messages, "the request", None)
    decided = []
    for with_facts in (facts, None):
        guards = Guards(facts.window.messages, facts.request_index, None, False, with_facts)
        plan = plan_clearing(
            facts.window.messages,
            facts.turns,
            keep,
            guards=guards,
            keep_last_tool_results=pins,
            stand_down=False,
            iteration=4,
            strategy="clear-tool-results",
            keep_results=keep_results,
            clear_tool_inputs=True,
        )
        replaced = [(i, m.content, m.tool_call_id, m.tool_calls) for i, m in plan.replacements]
        decided.append((replaced, plan.refusals, plan.observations, plan.candidate_turns))
    assert decided[0] == decided[1]


@settings(max_examples=examples(1000), deadline=None)
@given(st.lists(st.integers(0, 3), max_size=40), st.lists(st.integers(0, 3), max_size=40))
def test_the_shared_prefix_is_found_by_halving_exactly(old: list[int], new: list[int]) -> None:
    expected = next(
        (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)),
    )
    assert shape_module._shared_prefix(old, new) == expected  # type: ignore[arg-type]


def test_a_long_span_s_ids_are_the_caller_s_own_and_the_kept_ones_are_never_changed() -> None:
    messages = [Message.user("the request", stage_id="seed#0")]
    for i in range(400):
        call = ToolCall(id=f"c{i}", name="t", arguments={})
        messages.append(Message.assistant("", [call], stage_id=f"call-llm#{i}"))
        messages.append(Message.tool(f"c{i}", "t", "r", stage_id=f"tool-calls#{i}"))
    window, end = Window(messages), len(messages) - 2
    expected = [m.stage_id for m in messages[1:end]]
    assert end - 1 > shape_module._SHORT_SPAN  # the first long span: kept by the window
    peeked = window.peek_span_stage_ids(1, end)
    assert peeked == expected and window.peek_span_stage_ids(1, end) is peeked
    mine = window.span_stage_ids(1, end)
    assert mine == expected and mine is not peeked
    mine.clear()  # the caller's list: changing it changes nothing the window keeps
    assert window.span_stage_ids(1, end) == expected == window.peek_span_stage_ids(1, end)
