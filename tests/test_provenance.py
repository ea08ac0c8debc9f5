"""Provenance is defined once, with the message (#25 item 6b).

What wrote a message — the library (an authored kind, or anything a ``window#`` stage
committed) or a person, a model, an environment — is known by its fields, never by its text.
``footprint_lab.messages`` holds the one definition; the window core re-exports it where it has
always been, and the message's shape (the window engine's fast read) agrees with it.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import footprint_lab
from footprint_lab import messages
from footprint_lab.messages import AUTHORED_KINDS, Message
from footprint_lab.window import notice, request
from tests.budget import examples

PACKAGE = Path(footprint_lab.__file__).parent
PREDICATES = (
    "is_library_authored",
    "is_drop_notice",
    "is_compaction_frame",
    "is_cleared_result",
    "is_stand_in",
    "is_notice_or_frame",
)


def test_the_window_core_re_exports_the_one_definition() -> None:
    for name in PREDICATES:
        assert getattr(messages, name).__module__ == "footprint_lab.messages", name
    assert request.is_library_authored is messages.is_library_authored
    for name in PREDICATES[1:]:
        assert getattr(notice, name) is getattr(messages, name), name


# An inlined copy of a provenance rule: the window stage's prefix, or a set of authored kinds
# written out again.
INLINED = re.compile(
    r"""startswith\(\s*["']window#["']\s*\)"""
    r"""|authored\s+(?:not\s+)?in\s*[({]\s*["'](?:drop-notice|compaction-frame|cleared-result)"""
)


def test_no_module_inlines_a_provenance_rule_again() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "messages.py" or path.parent != PACKAGE
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INLINED.search(line)
    ]
    assert not offenders, (
        "provenance is defined once in footprint_lab/messages.py: call is_library_authored, "
        "is_stand_in, is_notice_or_frame ... instead of writing the rule again:\n"
        + "\n".join(offenders)
    )


STAGES = st.sampled_from(
    [
        None,
        "seed#0",
        "window#1",
        "window#12",
        "call-llm#2",
        "tool-calls#3",
        "inject#4",
        "observation#5",
        "demonstration#0",
        "windows#1",
        "xwindow#1",
    ]
)


@st.composite
def any_message(draw: st.DrawFn) -> Message:
    role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    authored = draw(st.sampled_from([None, *AUTHORED_KINDS]))
    text = draw(st.sampled_from(["", "hi", "[dropped history — 3 earlier message(s)", "x" * 9]))
    stage = draw(STAGES)
    if role == "tool":
        return Message.tool("c1", "read", text, authored=authored, stage_id=stage)
    return Message(role=role, content=text, authored=authored, stage_id=stage)


@settings(max_examples=examples(1000), deadline=None)
@given(any_message())
def test_the_shape_reads_provenance_as_the_predicate_does(message: Message) -> None:
    """The shape code a message is stamped with (what the window engine reads instead of the
    fields) says 'library' exactly when the predicate does."""
    library = message.authored is not None or (
        message.stage_id is not None and message.stage_id.startswith("window#")
    )
    assert messages.is_library_authored(message) is library
    code = message.shape.code
    if message.role == "user":
        assert (code == "i") is library
    if message.role == "tool":
        assert (code == "p") is (message.authored is not None)
    assert messages.is_stand_in(message) is (message.authored in messages.STAND_IN_KINDS)
    assert messages.is_notice_or_frame(message) is (
        messages.is_drop_notice(message) or messages.is_compaction_frame(message)
    )
