"""Messages: constructors, exact sizes, immutability and content hashing."""

from __future__ import annotations

import pydantic
import pytest

from footprint_lab import Message, ToolCall, content_hash, window_chars


def test_constructors_and_fields() -> None:
    call = ToolCall(id="c1", name="read_log", arguments={"deployment": "d1"})
    a = Message.assistant("checking", tool_calls=[call])
    t = Message.tool("c1", "read_log", "DEPLOY d1 ok")
    assert (a.role, a.tool_calls[0].name, a.tool_call_id) == ("assistant", "read_log", None)
    assert (t.role, t.tool_call_id, t.name, t.authored, t.stage_id) == (
        "tool",
        "c1",
        "read_log",
        None,
        None,
    )
    assert Message.system("s").role == "system" and Message.user("u").role == "user"


def test_sizes_are_what_the_call_sends() -> None:
    # Content, plus each call's name and its arguments as compact JSON ('{}' for none).
    msgs = [Message.user("héllo"), Message.assistant("", tool_calls=[ToolCall(id="1", name="x")])]
    assert [m.chars for m in msgs] == [5, 3]
    assert window_chars(msgs) == 8
    call = ToolCall("c1", "read_log", {"deployment": "d1", "n": [1, 2]})
    assert call.chars == len("read_log") + len('{"deployment":"d1","n":[1,2]}')


def test_messages_are_immutable() -> None:
    m = Message.user("x")
    with pytest.raises(pydantic.ValidationError):
        m.content = "y"  # type: ignore[misc]


def test_content_hash_ignores_stage_but_not_content() -> None:
    a = Message.user("x")
    assert content_hash(a) == content_hash(a.with_stage("seed#0"))
    assert content_hash(a) != content_hash(Message.user("y"))
    assert content_hash(a) != content_hash(Message.system("x"))


def test_contract_models_accept_positional_fields() -> None:
    from footprint_lab import Pin, Refusal

    assert ToolCall("c1", "read_log", {"d": 1}) == ToolCall(
        id="c1", name="read_log", arguments={"d": 1}
    )
    assert Refusal("current-request", 0, 0).reason == "current-request"
    assert Pin("whats_here", 1, 1531).chars == 1531
    with pytest.raises(TypeError, match="at most 3 positional"):
        ToolCall("a", "b", {}, "extra")
    with pytest.raises(TypeError, match="twice"):
        ToolCall("a", id="b", name="c")


def test_trusted_construction_needs_every_field_and_equals_validation() -> None:
    from footprint_lab.messages import construct_trusted
    from footprint_lab.window.records import Refusal

    built = construct_trusted(
        Refusal, reason="inside-keep-window", turn_index=3, message_index=4, stage_id="s#1"
    )
    assert built == Refusal("inside-keep-window", 3, 4, "s#1")
    assert built.model_dump() == Refusal("inside-keep-window", 3, 4, "s#1").model_dump()
    with pytest.raises(TypeError, match=r"needs every field.*missing \['stage_id'\]"):
        construct_trusted(Refusal, reason="inside-keep-window", turn_index=3, message_index=4)
    with pytest.raises(TypeError, match=r"unknown \['turn'\]"):
        construct_trusted(
            Refusal, reason="inside-keep-window", turn=3, message_index=4, stage_id=None
        )


def test_a_trusted_model_that_may_be_assigned_to_owns_its_fields_set() -> None:
    """A frozen model's instances share one fields-set; a mutable one's each get their own,
    so an assignment to one (pydantic adds the name to its set) never shows in another."""
    from footprint_lab.messages import construct_trusted
    from footprint_lab.providers.base import ProviderRequest

    def request() -> ProviderRequest:
        return construct_trusted(
            ProviderRequest, model="m", system=None, messages=[], tools=[], max_output_tokens=None
        )

    first, second = request(), request()
    assert first == ProviderRequest(model="m", messages=[])
    assert first.model_fields_set == second.model_fields_set == set(ProviderRequest.model_fields)
    first.__pydantic_fields_set__.discard("system")
    assert "system" in second.model_fields_set and "system" in request().model_fields_set


def test_a_copied_call_is_measured_afresh() -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "a"})
    assert call.chars == len("read") + len('{"path":"a"}')
    copied = call.model_copy(update={"arguments": {"path": "a/longer"}})
    assert copied.chars == ToolCall(id="c1", name="read", arguments={"path": "a/longer"}).chars


def test_library_messages_carry_the_shape_a_validated_twin_computes() -> None:
    from footprint_lab.window.notice import cleared_result, notice_message

    notice = notice_message("[dropped history — 3 earlier message(s) ...]")
    twin = Message(role="user", content=notice.content, authored="drop-notice")
    assert (notice.shape, notice.chars) == (twin.shape, twin.chars)
    original = Message.tool("c1", "read_log", "x" * 500)
    placeholder = cleared_result(original, iteration=3, strategy="clear-tool-results")
    twin = Message(
        role="tool",
        content=placeholder.content,
        tool_call_id="c1",
        name="read_log",
        authored="cleared-result",
    )
    assert (placeholder.shape, placeholder.chars) == (twin.shape, twin.chars)
    assert placeholder.shape.code == "p" and placeholder == twin


def test_a_stamped_copy_is_the_message_with_its_stage_and_shares_its_fields_set() -> None:
    call = ToolCall(id="c1", name="read_log", arguments={"path": "/var/log/app.log"})
    original = Message.assistant("reading", tool_calls=[call])
    assert original.shape.stage_id is None  # computed before the stamp: refreshed by it
    stamped = original.with_stage("call-llm#3")
    assert stamped == Message.assistant("reading", tool_calls=[call], stage_id="call-llm#3")
    assert original.stage_id is None and stamped.stage_id == "call-llm#3"
    assert (
        stamped.shape
        == Message.assistant("reading", tool_calls=[call], stage_id="call-llm#3").shape
    )
    assert stamped.chars == original.chars
    assert stamped.model_fields_set == {"role", "content", "tool_calls", "stage_id"}
    other = Message.assistant("other", tool_calls=[call]).with_stage("call-llm#5")
    assert other.__pydantic_fields_set__ is stamped.__pydantic_fields_set__
    user = Message.user("go").with_stage("window#4")
    assert user.shape.code == "i"  # a window stage's user message is the library's


def test_a_copy_with_new_content_is_measured_again() -> None:
    original = Message.tool("c1", "read_log", "x" * 100)
    assert (original.chars, original.shape.chars) == (100, 100)
    changed = original.model_copy(update={"content": "y" * 7})
    assert (changed.chars, changed.shape.chars) == (7, 7)
    assert (original.chars, original.shape.chars) == (100, 100)
