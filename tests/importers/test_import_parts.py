"""Importers keep typed content (images, documents, thinking, refusals, legacy function calls,
invalid tool calls, system blocks) as parts that count in sizes, survive save/load and show in
the Inspector and the report; and import is linear in the number of messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from footprint_lab.agent.run import ImportProblem
from footprint_lab.importers import (
    TranscriptError,
    build_run,
    from_anthropic,
    from_langchain,
    from_openai,
)
from footprint_lab.messages import Message, ToolCall, window_chars
from footprint_lab.usage import Usage
from tests.importers.helpers import PNG, URL, fields, openai_tool_call, saved

# -- typed content is kept, counted and saved ---------------------------------------------


def test_openai_image_file_audio_and_refusal_parts(tmp_path: Path) -> None:
    run = from_openai(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": URL, "detail": "low"}},
                    {"type": "file", "file": {"file_data": PNG, "filename": "a.pdf"}},
                    {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
                ],
            },
            {"role": "assistant", "content": None, "refusal": "I can't help with that."},
            {"role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]},
        ]
    )
    user, first, second = run.ledger.messages
    assert [(p.kind, p.data_chars) for p in user.parts] == [
        ("image", len(URL)),
        ("document", len(PNG)),
        ("audio", 5),
    ]
    assert user.parts[0].original == {
        "type": "image_url",
        "image_url": {"url": URL, "detail": "low"},
    }
    assert user.chars == len("What is this?") + len(URL) + len(PNG) + 5
    assert [(p.kind, p.text) for p in first.parts] == [("refusal", "I can't help with that.")]
    assert first.chars == len("I can't help with that.")
    assert [(p.kind, p.text) for p in second.parts] == [("refusal", "No.")]
    assert run.calls[1].chars == user.chars + first.chars
    assert run.import_problems == []
    loaded = saved(run, tmp_path)
    assert [m.parts for m in loaded.ledger.messages] == [m.parts for m in run.ledger.messages]
    assert [m.chars for m in loaded.ledger.messages] == [m.chars for m in run.ledger.messages]


def test_anthropic_image_document_and_thinking_parts(tmp_path: Path) -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    document = {"type": "document", "source": {"type": "url", "url": "https://x.test/a.pdf"}}
    run = from_anthropic(
        [
            {"role": "user", "content": [image, document]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Let me look.", "signature": "sig"},
                    {"type": "redacted_thinking", "data": "ENCRYPTED"},
                    {"type": "text", "text": "A chart."},
                ],
            },
        ]
    )
    user, reply = run.ledger.messages
    assert user.content == "" and [p.kind for p in user.parts] == ["image", "document"]
    assert user.chars == len(PNG) + len("https://x.test/a.pdf")
    assert [(p.kind, p.text, p.data_chars) for p in reply.parts] == [
        ("thinking", "Let me look.", 0),
        ("redacted-thinking", None, len("ENCRYPTED")),
    ]
    assert reply.chars == len("A chart.") + len("Let me look.") + len("ENCRYPTED")
    loaded = saved(run, tmp_path)
    assert loaded.ledger.messages[1].parts == reply.parts
    assert loaded.ledger.messages[0].parts[0].original == image


def test_anthropic_image_inside_a_tool_result_stays_on_the_tool_message() -> None:
    run = from_anthropic(
        [
            {"role": "user", "content": "Screenshot please."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "shot"}]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t",
                        "content": [
                            {"type": "text", "text": "here"},
                            {"type": "image", "source": {"type": "base64", "data": PNG}},
                        ],
                    }
                ],
            },
        ]
    )
    tool = run.ledger.messages[2]
    assert tool.role == "tool" and tool.content == "here" and tool.parts[0].kind == "image"
    assert run.ledger.messages[1].tool_calls[0].arguments == {}


def test_an_anthropic_user_message_of_only_an_image_is_not_dropped() -> None:
    image = {"type": "image", "source": {"type": "base64", "data": PNG}}
    run = from_anthropic(
        [{"role": "user", "content": [image]}, {"role": "assistant", "content": []}]
    )
    assert [m.role for m in run.ledger.messages] == ["user", "assistant"]


def test_legacy_function_call_is_the_call_when_there_are_no_tool_calls(tmp_path: Path) -> None:
    run = from_openai(
        [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "weather", "arguments": '{"city": "Oslo"}'},
            },
            {"role": "function", "name": "weather", "content": "rain"},
            {"role": "assistant", "content": "Rain."},
        ]
    )
    _, ask, result, _ = run.ledger.messages
    assert ask.tool_calls == [
        ToolCall(id="function_call-1", name="weather", arguments={"city": "Oslo"})
    ]
    assert (result.role, result.tool_call_id, result.name) == ("tool", "function_call-1", "weather")
    assert run.import_problems == [] and run.status == "done"
    assert saved(run, tmp_path).ledger.messages[1].tool_calls == ask.tool_calls


def test_legacy_function_call_beside_tool_calls_is_kept_as_a_part() -> None:
    legacy = {"name": "old", "arguments": "{}"}
    raw = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [openai_tool_call("c1", "new", "{}")],
            "function_call": legacy,
        }
    ]
    run = from_openai(raw)
    message = run.ledger.messages[0]
    assert [c.name for c in message.tool_calls] == ["new"]
    assert [(p.kind, p.data_chars, p.original) for p in message.parts] == [
        ("function-call", len("old") + len("{}"), legacy)
    ]
    assert fields(run) == ["function_call"]
    with pytest.raises(TranscriptError, match="field 'function_call'"):
        from_openai(raw, strict=True)


def test_langchain_invalid_tool_calls_and_image_blocks(tmp_path: Path) -> None:
    bad = {
        "name": "f",
        "args": '{"x": ',
        "id": "i1",
        "error": "bad json",
        "type": "invalid_tool_call",
    }
    run = from_langchain(
        [
            {
                "type": "human",
                "data": {"content": ["look", {"type": "image_url", "image_url": {"url": URL}}]},
            },
            {"type": "ai", "data": {"content": "", "invalid_tool_calls": [bad]}},
        ]
    )
    user, ai = run.ledger.messages
    assert user.content == "look" and user.parts[0].data_chars == len(URL)
    assert [(p.kind, p.data_chars, p.original) for p in ai.parts] == [
        ("invalid-tool-call", len("f") + len('{"x": '), bad)
    ]
    assert ai.chars == len("f") + len('{"x": ')
    assert saved(run, tmp_path).ledger.messages[1].parts == ai.parts


def test_anthropic_list_of_blocks_system(tmp_path: Path) -> None:
    system: list[dict[str, Any]] = [
        {"type": "text", "text": "You audit.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": " Be brief."},
    ]
    run = from_anthropic([{"role": "user", "content": "hi"}], system=system)
    assert run.system == "You audit. Be brief."
    assert run.meta["system_blocks"] == system
    assert run.import_problems == []
    loaded = saved(run, tmp_path)
    assert loaded.system == run.system and loaded.meta["system_blocks"] == system


def test_anthropic_non_text_system_block_is_a_part_and_a_problem(tmp_path: Path) -> None:
    image = {"type": "image", "source": {"type": "base64", "data": PNG}}
    system: list[dict[str, Any]] = [{"type": "text", "text": "sys"}, image]
    run = from_anthropic([{"role": "user", "content": "hi"}], system=system)
    lead = run.ledger.messages[0]
    assert (lead.role, lead.content, lead.parts[0].original) == ("system", "", image)
    assert lead.chars == len(PNG) and run.calls == []
    assert run.import_problems == [
        ImportProblem(
            source="anthropic",
            index=None,
            field="system[1]",
            problem="a system block that is not text; kept as a part",
        )
    ]
    assert saved(run, tmp_path).import_problems == run.import_problems
    with pytest.raises(TranscriptError, match=r"field 'system\[1\]'"):
        from_anthropic([{"role": "user", "content": "hi"}], system=system, strict=True)


# -- shown in the Inspector and the report ------------------------------------------------


def test_parts_show_as_badges_and_problems_are_listed() -> None:
    from footprint_lab.lab import Inspector
    from footprint_lab.lab.report import render_report
    from footprint_lab.lab.widgets import _preview

    run = from_openai(
        [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": URL}}]},
            {"role": "tool", "tool_call_id": "ghost", "content": "r"},
            {"role": "assistant", "content": "done"},
        ]
    )
    badge = f"[image {len(URL):,} chars]"
    assert _preview(run.ledger.messages[0]) == badge
    assert _preview(run.ledger.messages[0].model_copy(update={"content": "x" * 500})).endswith(
        badge
    )
    page = render_report({"imported": {"as recorded": run}}).html
    assert "Import problems" in page and "orphan result" in page
    assert "Import problems" in Inspector(run)._overview()
    clean = from_openai([{"role": "user", "content": "hi"}])
    assert "Import problems" not in render_report({"s": {"l": clean}}).html


# -- import is linear ---------------------------------------------------------------------


class _Counted(Message):
    reads: int = 0

    @property
    def chars(self) -> int:
        _Counted.reads += 1
        return len(self.content)


def test_build_run_reads_each_message_size_a_bounded_number_of_times() -> None:
    n = 2_000
    messages: list[Message] = []
    for k in range(n // 2):
        messages.append(_Counted(role="user", content=f"u{k}"))
        messages.append(_Counted(role="assistant", content=f"a{k}"))
    _Counted.reads = 0
    run = build_run(messages, [Usage(input_tokens=1)] * (n // 2), system=None, source="x")
    assert _Counted.reads <= 2 * n  # a quadratic import reads ~n**2 / 4 sizes
    assert run.calls[-1].chars == window_chars(run.window[:-1])


def test_fifty_thousand_messages_import_whole() -> None:
    # A quadratic import of this many messages takes tens of seconds; linear takes about one.
    n = 50_000
    raw: list[dict[str, Any]] = [{"role": "system", "content": "sys"}]
    for k in range(n // 4):
        raw.append({"role": "user", "content": f"question {k}"})
        raw.append(
            {"role": "assistant", "tool_calls": [openai_tool_call(f"c{k}", "look", '{"k": 1}')]}
        )
        raw.append({"role": "tool", "tool_call_id": f"c{k}", "content": f"result {k}"})
        raw.append({"role": "assistant", "content": f"answer {k}", "usage": {"prompt_tokens": k}})
    run = from_openai(raw, strict=True)
    assert len(run.ledger.messages) == n and len(run.calls) == n // 2
    total = 0
    sizes = [m.chars for m in run.window]
    expected = []
    for message, size in zip(run.window, sizes, strict=True):
        if message.role == "assistant":
            expected.append(total)
        total += size
    assert [c.chars for c in run.calls] == expected
