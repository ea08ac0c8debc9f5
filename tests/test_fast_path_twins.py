"""Every fast path is held to its general twin by a property (#25 item 6c).

The library builds models without validating them again (``footprint_lab._models``), stamps
sizes and shapes it already knows, skips work on text that cannot need it, and switches from
one-by-one lookups to an index past a threshold. Each property below draws inputs and checks
that the fast path gives exactly what the general path gives; thresholds are forced both ways.
The twins already held elsewhere: ``tests/window/test_shape.py`` (a ``Window``'s facts and its
reuse of a shared prefix, the engine's turn walk, the pins, clearing, the halving prefix),
``tests/window/test_law.py`` (the law from the window's facts against the message walk),
``tests/evidence/test_linear.py`` (baseline characters against a replay; losses against
materialised windows), ``tests/evidence/test_facts.py`` (dependencies from a transcript's flat
facts against the definition; a replay's evidence from its source's facts, and a replay with
no events, against the replay read afresh) and ``tests/test_provenance.py`` (a message's
shape code against the provenance predicates).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import Message, ToolCall, WindowRecord
from footprint_lab.messages import (
    copy_trusted,
    storable_json,
    storable_text,
    storable_value,
    update_trusted,
)
from footprint_lab.providers.base import ProviderRequest, ToolSpec
from footprint_lab.window import _law_rewrites
from footprint_lab.window import shape as shape_module
from footprint_lab.window.law import breaches
from footprint_lab.window.notice import cleared_result, notice_message
from footprint_lab.window.records import FoldedSpan, fresh_refusal, pin_of
from footprint_lab.window.request import current_request_index
from footprint_lab.window.shape import Window
from tests.budget import examples
from tests.window.test_shape import wild_windows

TEXT = st.text(st.characters(codec=None), max_size=12)  # lone surrogates too
NAME = st.one_of(st.none(), st.sampled_from(["read", "grep", "bad name!", "é"]))
STAGE = st.one_of(st.none(), st.sampled_from(["seed#0", "call-llm#1", "window#2", "tool-calls#3"]))
REASONS = st.sampled_from(
    ["current-request", "system-envelope", "unresolved-tool-call", "inside-keep-window"]
)


@contextmanager
def threshold(module: Any, name: str, value: int) -> Iterator[None]:
    """``module.name`` set to ``value`` inside the block (a path's switch forced one way)."""
    saved = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, saved)


def _same_model(fast: Any, validated: Any) -> None:
    assert type(fast) is type(validated)
    assert fast == validated
    assert fast.model_dump() == validated.model_dump()
    assert fast.model_fields_set == validated.model_fields_set | set(type(fast).model_fields)


# -- trusted construction: construct_trusted against validation ------------------------------


@settings(max_examples=examples(1000), deadline=None)
@given(REASONS, st.integers(0, 99), st.integers(0, 999), STAGE, NAME, st.integers(0, 10**6))
def test_trusted_records_are_the_validated_records(
    reason: str, turn: int, index: int, stage: str | None, tool: str | None, chars: int
) -> None:
    from footprint_lab.window.records import Pin, Refusal

    _same_model(fresh_refusal(reason, turn, index, stage), Refusal(reason, turn, index, stage))  # type: ignore[arg-type]
    if tool is not None:
        _same_model(pin_of(tool, turn, chars, stage), Pin(tool, turn, chars, stage))


@settings(max_examples=examples(1000), deadline=None)
@given(
    st.integers(0, 99),
    st.lists(st.sampled_from(["seed#0", "call-llm#1", "tool-calls#2"]), max_size=4),
    st.lists(TEXT.map(Message.user), max_size=4),
    st.one_of(st.none(), TEXT),
    st.one_of(st.none(), st.integers(1, 10**5)),
)
def test_a_trusted_span_and_request_are_the_validated_ones(
    iteration: int,
    stages: list[str],
    originals: list[Message],
    system: str | None,
    cap: int | None,
) -> None:
    from footprint_lab.messages import construct_trusted

    span = construct_trusted(
        FoldedSpan,
        iteration=iteration,
        strategy="summarize-oldest",
        removed_stage_ids=stages,
        frame_index=0,
        frame_stage_id=None,
        originals=originals,
    )
    _same_model(
        span,
        FoldedSpan(
            iteration=iteration,
            strategy="summarize-oldest",
            removed_stage_ids=stages,
            frame_index=0,
            originals=originals,
        ),
    )
    tools = [ToolSpec(name="read", description="d", parameters={"type": "object"})]
    request = construct_trusted(
        ProviderRequest,
        model="m",
        system=system,
        messages=originals,
        tools=tools,
        max_output_tokens=cap,
    )
    _same_model(
        request,
        ProviderRequest(
            model="m", system=system, messages=originals, tools=tools, max_output_tokens=cap
        ),
    )


@settings(max_examples=examples(1000), deadline=None)
@given(st.booleans(), st.booleans(), st.integers(0, 10**6), st.integers(-1, 10**6))
def test_a_record_the_writer_files_is_the_record_copied(
    forced: bool, was_forced: bool, commit: int, given: int
) -> None:
    from footprint_lab.messages import copy_trusted

    record = WindowRecord(strategy="sliding-window", iteration=3, forced=was_forced)
    changes = {"forced": forced or record.forced, "commit": commit, "given_commit": given}
    trusted = copy_trusted(record, **changes)
    copied = record.model_copy(update=changes)
    assert trusted == copied and trusted.model_dump() == copied.model_dump()
    assert trusted.model_fields_set == copied.model_fields_set


@settings(max_examples=examples(1000), deadline=None)
@given(TEXT, TEXT, TEXT, st.lists(TEXT, max_size=4), st.integers(0, 10**6))
def test_a_trusted_dependency_is_the_validated_dependency(
    call_id: str, tool: str, value: str, stages: list[str], index: int
) -> None:
    from footprint_lab.evidence import Dependency
    from footprint_lab.messages import construct_trusted

    values = {
        "call_id": call_id,
        "tool_name": tool,
        "value": value,
        "source_stage_ids": stages,
        "message_index": index,
    }
    _same_model(construct_trusted(Dependency, **values), Dependency(**values))


# -- copies: copy_trusted, update_trusted, the refreshed size and shape ----------------------


@st.composite
def messages(draw: st.DrawFn) -> Message:
    role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    text = draw(TEXT)
    stage = draw(STAGE)
    authored = draw(st.sampled_from([None, None, "drop-notice", "cleared-result"]))
    if role == "assistant":
        calls = [
            ToolCall(f"c{k}", "read", {"k": draw(TEXT)}) for k in range(draw(st.integers(0, 3)))
        ]
        return Message.assistant(text, calls, stage_id=stage, authored=authored)
    if role == "tool":
        return Message.tool("c0", draw(NAME) or "read", text, stage_id=stage, authored=authored)
    return Message(role=role, content=text, stage_id=stage, authored=authored)


def _fields(message: Message) -> dict[str, Any]:
    return {name: getattr(message, name) for name in Message.model_fields}


@settings(max_examples=examples(1000), deadline=None)
@given(messages(), STAGE, st.booleans(), st.sampled_from(["content", "stage_id", "authored"]))
def test_copies_measure_what_a_validated_message_measures(
    original: Message, stage: str | None, measured: bool, field: str
) -> None:
    if measured:  # sizes and shapes computed before the copy are carried, then refreshed
        _ = original.shape, original.chars
    twin = Message(**{**_fields(original), "stage_id": stage or "seed#9"})
    stamped = original.with_stage(stage or "seed#9")
    assert stamped == twin and (stamped.chars, stamped.shape) == (twin.chars, twin.shape)
    value = {"content": "changed text", "stage_id": "window#7", "authored": "injection"}[field]
    copied = original.model_copy(update={field: value})
    twin = Message(**{**_fields(original), field: value})
    assert copied == twin and (copied.chars, copied.shape) == (twin.chars, twin.shape)
    trusted = copy_trusted(original, **{field: value})
    assert trusted == twin and trusted.model_fields_set == set(Message.model_fields) & (
        original.model_fields_set | {field}
    )


@settings(max_examples=examples(1000), deadline=None)
@given(st.lists(st.sampled_from(["seed#0", "call-llm#1", "tool-calls#2"]), max_size=4))
def test_a_record_updated_in_place_is_the_record_copied(stage_ids: list[str]) -> None:
    def record() -> WindowRecord:
        return WindowRecord(strategy="sliding-window", iteration=3)

    updated = record()
    update_trusted(updated, removed_stage_ids=stage_ids, cleared_stage_ids=stage_ids)
    copied = record().model_copy(
        update={"removed_stage_ids": stage_ids, "cleared_stage_ids": stage_ids}
    )
    assert updated == copied and updated.model_fields_set == copied.model_fields_set


@settings(max_examples=examples(1000), deadline=None)
@given(TEXT, NAME, st.integers(0, 99))
def test_library_messages_stamped_at_birth_are_their_validated_twins(
    text: str, tool: str | None, iteration: int
) -> None:
    notice = notice_message(text)
    twin = Message(role="user", content=text, authored="drop-notice")
    assert notice == twin and (notice.chars, notice.shape) == (twin.chars, twin.shape)
    original = Message.tool("c1", tool or "read", text)
    placeholder = cleared_result(original, iteration=iteration, strategy="clear-tool-results")
    twin = Message.tool("c1", tool or "read", placeholder.content, authored="cleared-result")
    assert placeholder == twin
    assert (placeholder.chars, placeholder.shape) == (twin.chars, twin.shape)


# -- text: the ASCII and no-escape shortcuts -------------------------------------------------


@settings(max_examples=examples(2000), deadline=None)
@given(st.text(st.characters(codec=None), max_size=40))
def test_storable_text_is_the_general_escape(text: str) -> None:
    assert storable_text(text) == text.encode("utf-8", "backslashreplace").decode("utf-8")


@settings(max_examples=examples(1000), deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(st.characters(codec=None))),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.text(st.characters(codec=None), max_size=4), inner, max_size=4),
        ),
        max_leaves=12,
    )
)
def test_storable_json_skips_the_walk_only_where_it_changes_nothing(value: Any) -> None:
    """Text decoded from a file or a stream is valid text: a lone surrogate reaches it only
    as a JSON escape, which is what the shortcut looks for."""
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        if storable_text(text) != text:
            continue  # not decoded text (a lone surrogate as a character): never a file's
        assert storable_json(text) == storable_value(json.loads(text))


# -- a window's lookups: few positions, short spans, user indices ----------------------------


@settings(max_examples=examples(1000), deadline=None)
@given(wild_windows(), st.data())
def test_a_window_s_lookups_agree_on_either_side_of_their_thresholds(
    messages: list[Message], data: st.DataObject
) -> None:
    window = Window(messages)
    n = len(messages)
    start = data.draw(st.integers(0, n))
    end = data.draw(st.integers(start, n))
    other = data.draw(st.integers(0, n))
    other_end = data.draw(st.integers(other, n))
    stranger = Message.user("not in the window")
    probes = [*messages[:3], stranger]
    answers = []
    for few, short in ((0, 0), (10**6, 10**6)):
        fresh = Window(messages)
        with (
            threshold(shape_module, "_FEW_POSITIONS", few),
            threshold(shape_module, "_SHORT_SPAN", short),
            threshold(shape_module, "_FEW_TOOLS", few),
        ):
            # a window's first long span is read whole, asked again it is remembered, another
            # span finds the window's runs; a span's tools are read whole until each tool's
            # first result is known, then looked up
            spans = [
                fresh.span_stage_ids(start, end),
                fresh.span_stage_ids(start, end),
                fresh.span_stage_ids(other, other_end),
                fresh.span_stage_ids(start, end),
            ]
            tools = [fresh.span_tool_names(start, end)]
            fresh.first_results()
            tools.append(fresh.span_tool_names(start, end))
            # with the latest results known, each tool's first is found by a scan per tool
            known = Window(messages)
            known.last_results()
            tools.append(known.span_tool_names(start, end))
            firsts = [fresh.first_results(), known.first_results()]
            answers.append(
                (
                    [fresh.holds(m) for m in probes],
                    spans,
                    tools,
                    firsts,
                    fresh.all_stamped(start, end),
                )
            )
    held = [any(m is p for m in messages) for p in probes]
    stamped = all(m.stage_id is not None for m in messages[start:end])
    ids = window.span_stage_ids(start, end)
    named = [m.name for m in messages[start:end] if m.role == "tool"]
    tools = [name for name in dict.fromkeys(named) if name is not None]
    every = [m.name if m.role == "tool" else None for m in messages]
    first = {name: every.index(name) for name in every if name is not None}
    spans = [ids, ids, window.span_stage_ids(other, other_end), ids]
    expected = (held, spans, [tools] * 3, [first] * 2)
    assert answers[0] == answers[1] == (*expected, stamped)
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    for request in (None, "the request", "absent"):
        assert current_request_index(messages, request, users) == current_request_index(
            messages, request
        )


@st.composite
def rewrites(draw: st.DrawFn) -> tuple[list[Message], list[Message]]:
    """A given window, and a returned one mixing its messages (kept, moved, repeated) with
    new ones (notices, copies, invented messages)."""
    given = draw(wild_windows())
    pool = [
        *given,
        notice_message("[dropped history — 2 earlier message(s)]"),
        Message.user("invented"),
        *(m.model_copy() for m in given[:2]),
    ]
    returned = draw(st.lists(st.sampled_from(pool), max_size=24)) if pool else []
    return given, returned


@settings(max_examples=examples(1000), deadline=None)
@given(rewrites())
def test_the_law_finds_the_same_breaches_by_index_or_one_by_one(
    case: tuple[list[Message], list[Message]],
) -> None:
    given, returned = case
    record = WindowRecord(strategy="x", iteration=1, removed_stage_ids=[])
    request = current_request_index(given, "the request")
    found = []
    for few in (0, 10**6):
        with threshold(_law_rewrites, "_FEW_INSERTED", few):
            found.append(breaches(given, returned, record, request_index=request))
    assert found[0] == found[1]
