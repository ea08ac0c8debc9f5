"""Importers: OpenAI, Anthropic and LangChain transcripts round-trip into runs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from footprint_lab import replay, sliding_window
from footprint_lab.importers import TranscriptError, from_anthropic, from_langchain, from_openai

OPENAI: list[dict[str, Any]] = [
    {"role": "system", "content": "You audit deployments."},
    {"role": "user", "content": "Check d1 and d2."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_log", "arguments": json.dumps({"id": "d1"})},
            },
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "read_log", "arguments": json.dumps({"id": "d2"})},
            },
        ],
        "usage": {"prompt_tokens": 40, "completion_tokens": 12},
    },
    {"role": "tool", "tool_call_id": "c1", "content": "DEPLOY d1 ok " * 30},
    {"role": "tool", "tool_call_id": "c2", "content": "DEPLOY d2 failed " * 30},
    {
        "role": "assistant",
        "content": [{"type": "text", "text": "d2 failed."}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 5},
    },
]

ANTHROPIC: list[dict[str, Any]] = [
    {"role": "user", "content": "Check d1 and d2."},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "t1", "name": "read_log", "input": {"id": "d1"}},
            {"type": "tool_use", "id": "t2", "name": "read_log", "input": {"id": "d2"}},
        ],
        "usage": {"input_tokens": 40, "output_tokens": 12, "cache_read_input_tokens": 8},
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "DEPLOY d1 ok"},
            {
                "type": "tool_result",
                "tool_use_id": "t2",
                "content": [{"type": "text", "text": "DEPLOY d2 failed"}],
                "is_error": True,
            },
        ],
    },
    {"role": "assistant", "content": "d2 failed."},
]

LANGCHAIN: list[dict[str, Any]] = [
    {"type": "system", "data": {"content": "You audit deployments."}},
    {"type": "human", "data": {"content": "Check d1 and d2."}},
    {
        "type": "ai",
        "data": {
            "content": "",
            "tool_calls": [
                {"name": "read_log", "args": {"id": "d1"}, "id": "l1"},
                {"name": "read_log", "args": {"id": "d2"}, "id": "l2"},
            ],
            "usage_metadata": {"input_tokens": 40, "output_tokens": 12, "total_tokens": 52},
        },
    },
    {"type": "tool", "data": {"content": "DEPLOY d1 ok", "tool_call_id": "l1", "name": "read_log"}},
    {
        "type": "tool",
        "data": {"content": "DEPLOY d2 failed", "tool_call_id": "l2", "name": "read_log"},
    },
    {"type": "ai", "data": {"content": "d2 failed."}},
]


def _shape(run: Any) -> list[tuple[str, str | None, str | None]]:
    return [(m.role, m.name, m.stage_id) for m in run.ledger.messages]


def test_openai_round_trip() -> None:
    run = from_openai(OPENAI)
    assert run.system == "You audit deployments."
    assert _shape(run) == [
        ("user", None, "seed#0"),
        ("assistant", None, "call-llm#1"),
        ("tool", "read_log", "tool-calls#2"),
        ("tool", "read_log", "tool-calls#2"),
        ("assistant", None, "call-llm#3"),
    ]
    calls = run.ledger.messages[1].tool_calls
    assert [(c.id, c.arguments) for c in calls] == [("c1", {"id": "d1"}), ("c2", {"id": "d2"})]
    assert [c.usage.input_tokens for c in run.calls] == [40, 300]  # type: ignore[union-attr]
    assert run.status == "done" and run.output == "d2 failed."
    assert run.usage.output_tokens == 17


def test_anthropic_round_trip() -> None:
    run = from_anthropic(ANTHROPIC, system="sys")
    messages = run.ledger.messages
    assert [m.role for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert messages[1].content == "Reading." and len(messages[1].tool_calls) == 2
    assert messages[3].content == "error: DEPLOY d2 failed" and messages[3].name == "read_log"
    assert run.calls[0].usage is not None and run.calls[0].usage.cache_read_tokens == 8
    assert run.calls[1].usage is None
    assert run.system == "sys"


def test_langchain_round_trip() -> None:
    run = from_langchain(LANGCHAIN)
    assert [m.role for m in run.ledger.messages] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert run.calls[0].usage is not None and run.calls[0].usage.input_tokens == 40
    assert run.system == "You audit deployments."


def test_real_langchain_dump_imports() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    dumped = messages_to_dict(
        [
            HumanMessage("hi"),
            AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "a"}]),
            ToolMessage("r", tool_call_id="a", name="f"),
            AIMessage("done"),
        ]
    )
    run = from_langchain(dumped)
    assert run.output == "done" and run.ledger.messages[2].tool_call_id == "a"


@pytest.mark.parametrize("importer", [from_openai, from_langchain])
def test_imports_replay_and_capture(importer: Any) -> None:
    run = importer(OPENAI if importer is from_openai else LANGCHAIN)
    replayed = replay(run, sliding_window(1))
    assert replayed.records
    assert replayed.origin.kind == "replay"


@pytest.mark.parametrize(
    ("importer", "bad", "match"),
    [
        (
            from_openai,
            [{"role": "user", "content": "x"}, {"role": "wizard"}],
            "message 1, field 'role'",
        ),
        (
            from_openai,
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "a", "function": {"name": "f", "arguments": "{not json"}}
                    ],
                }
            ],
            "message 0, field 'tool_calls[0].function.arguments'",
        ),
        (from_openai, [{"role": "tool", "content": "x"}], "message 0, field 'tool_call_id'"),
        (from_openai, "not a list", "field 'messages'"),
        (
            from_anthropic,
            [{"role": "user", "content": [{"type": "tool_result"}]}],
            "message 0, field 'content[0].tool_use_id'",
        ),
        (from_anthropic, [{"role": "assistant", "content": 5}], "message 0, field 'content'"),
        (from_langchain, [{"type": "human"}], "message 0, field 'data'"),
        (from_langchain, [{"type": "robot", "data": {"content": ""}}], "message 0, field 'type'"),
    ],
)
def test_malformed_input_names_index_and_field(importer: Any, bad: Any, match: str) -> None:
    # strict: arguments that are not JSON are a problem (kept as text when not strict).
    with pytest.raises(
        TranscriptError,
        match=match.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)"),
    ):
        importer(bad, strict=True)
