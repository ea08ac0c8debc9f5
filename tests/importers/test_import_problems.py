"""What importers used to accept silently is kept as it is and listed as an import problem
(strict imports raise instead); malformed input is a TranscriptError naming source, index and
field, never a raw exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from footprint_lab.importers import (
    TranscriptError,
    build_run,
    from_anthropic,
    from_langchain,
    from_openai,
    load_claude_code,
    load_inspect,
    load_openhands,
    load_otel,
    load_swe_agent,
    load_tau_bench,
)
from footprint_lab.messages import Message
from footprint_lab.providers.base import UNPARSED_ARGUMENTS_KEY
from tests.importers.helpers import fields, openai_tool_call, saved

# -- what was accepted silently is kept as it is, and listed ------------------------------

ORPHANS: list[tuple[Any, Any, str]] = [
    (from_openai, [{"role": "tool", "tool_call_id": "ghost", "content": "x"}], "tool_call_id"),
    (
        from_anthropic,
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "ghost"}]}],
        "content[0].tool_use_id",
    ),
    (
        from_langchain,
        [{"type": "tool", "data": {"content": "x", "tool_call_id": "ghost"}}],
        "data.tool_call_id",
    ),
]

DUPLICATES: list[tuple[Any, Any, str]] = [
    (
        from_openai,
        [
            {
                "role": "assistant",
                "tool_calls": [openai_tool_call("d", "f", "{}"), openai_tool_call("d", "g", "{}")],
            }
        ],
        "tool_calls[1].id",
    ),
    (
        from_anthropic,
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "d", "name": "f", "input": {}},
                    {"type": "tool_use", "id": "d", "name": "g", "input": {}},
                ],
            }
        ],
        "content[1].id",
    ),
    (
        # Other blocks between the calls: the duplicate is named by its block, not by its
        # place among the calls (content[3], not content[1]).
        from_anthropic,
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "two calls"},
                    {"type": "tool_use", "id": "d", "name": "f", "input": {}},
                    {"type": "thinking", "thinking": "again", "signature": "s"},
                    {"type": "tool_use", "id": "d", "name": "g", "input": {}},
                ],
            }
        ],
        "content[3].id",
    ),
    (
        from_langchain,
        [
            {
                "type": "ai",
                "data": {
                    "content": "",
                    "tool_calls": [
                        {"name": "f", "args": {}, "id": "d"},
                        {"name": "g", "args": {}, "id": "d"},
                    ],
                },
            }
        ],
        "data.tool_calls[1].id",
    ),
]


@pytest.mark.parametrize(("importer", "raw", "field"), ORPHANS + DUPLICATES)
def test_orphans_and_duplicate_ids_are_kept_and_listed(importer: Any, raw: Any, field: str) -> None:
    run = importer(raw)
    assert len(run.ledger.messages) == 1
    assert fields(run) == [field]
    assert run.import_problems[0].index == 0
    with pytest.raises(TranscriptError) as caught:
        importer(raw, strict=True)
    assert (caught.value.index, caught.value.field) == (0, field)


def test_a_call_id_reused_across_messages_is_kept_and_listed() -> None:
    # #24 item 13: listed, never renamed (tau-bench and SWE-agent files do this).
    turn: list[dict[str, Any]] = [
        {"role": "assistant", "tool_calls": [openai_tool_call("c", "f", "{}")]},
        {"role": "tool", "tool_call_id": "c", "content": "r"},
    ]
    run = from_openai([{"role": "user", "content": "go"}, *turn, *turn])
    assert len(run.ledger.messages) == 5
    assert [m.tool_calls[0].id for m in run.ledger.messages if m.tool_calls] == ["c", "c"]
    assert [(p.index, p.field) for p in run.import_problems] == [(3, "tool_calls[0].id")]
    assert "duplicate call id 'c': an earlier assistant message" in run.import_problems[0].problem
    with pytest.raises(TranscriptError, match=r"message 3, field 'tool_calls\[0\]\.id'"):
        from_openai([{"role": "user", "content": "go"}, *turn, *turn], strict=True)


@pytest.mark.parametrize(
    ("arguments", "kept"),
    [
        ("[1, 2]", "[1, 2]"),
        ("0", "0"),
        ("null", "null"),
        ('"text"', '"text"'),
        ("{not json", "{not json"),
        ('{"x": NaN}', '{"x": NaN}'),
        (0, "0"),
        (None, "null"),
        ([1, {"a": True}], '[1,{"a":true}]'),
        ("[" * 5000 + "]" * 5000, "[" * 5000 + "]" * 5000),
    ],
)
def test_openai_arguments_that_are_not_an_object_are_kept_as_text(
    arguments: Any, kept: str
) -> None:
    raw = [{"role": "assistant", "tool_calls": [openai_tool_call("c", "f", arguments)]}]
    run = from_openai(raw)
    assert run.ledger.messages[0].tool_calls[0].arguments == {UNPARSED_ARGUMENTS_KEY: kept}
    assert fields(run) == ["tool_calls[0].function.arguments"]
    with pytest.raises(TranscriptError, match=r"tool_calls\[0\]\.function\.arguments"):
        from_openai(raw, strict=True)


def test_empty_or_absent_arguments_are_no_arguments() -> None:
    for fn in ({"name": "f", "arguments": ""}, {"name": "f"}):
        raw = [{"role": "assistant", "tool_calls": [{"id": "c", "function": fn}]}]
        run = from_openai(raw, strict=True)
        assert run.ledger.messages[0].tool_calls[0].arguments == {}


def test_anthropic_and_langchain_arguments_not_an_object() -> None:
    run = from_anthropic(
        [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": 0}],
            }
        ]
    )
    assert run.ledger.messages[0].tool_calls[0].arguments == {UNPARSED_ARGUMENTS_KEY: "0"}
    assert fields(run) == ["content[0].input"]
    run = from_langchain(
        [
            {
                "type": "ai",
                "data": {"content": "", "tool_calls": [{"name": "f", "args": [1], "id": "l"}]},
            }
        ]
    )
    assert run.ledger.messages[0].tool_calls[0].arguments == {UNPARSED_ARGUMENTS_KEY: "[1]"}
    assert fields(run) == ["data.tool_calls[0].args"]


@pytest.mark.parametrize(
    ("importer", "raw", "field"),
    [
        (
            from_openai,
            [{"role": "user", "content": [{"type": "text", "text": None}]}],
            "content[0].text",
        ),
        (from_openai, [{"role": "user", "content": None}], "content"),
        (
            from_anthropic,
            [{"role": "user", "content": [{"type": "text", "text": None}]}],
            "content[0].text",
        ),
        (from_anthropic, [{"role": "user", "content": [{"type": "text"}]}], "content[0].text"),
        (from_langchain, [{"type": "human", "data": {"content": None}}], "data.content"),
    ],
)
def test_null_text_is_empty_text_not_none(importer: Any, raw: Any, field: str) -> None:
    run = importer(raw)
    assert run.ledger.messages[0].content == ""
    assert fields(run) == [field]
    with pytest.raises(TranscriptError):
        importer(raw, strict=True)


@pytest.mark.parametrize(
    ("importer", "raw", "field"),
    [
        (
            from_openai,
            [{"role": "assistant", "tool_calls": [openai_tool_call("c", "", "{}")]}],
            "tool_calls[0].function.name",
        ),
        (
            from_anthropic,
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "", "input": {}}],
                }
            ],
            "content[0].name",
        ),
        (
            from_langchain,
            [
                {
                    "type": "ai",
                    "data": {"content": "", "tool_calls": [{"name": "", "args": {}, "id": "l"}]},
                }
            ],
            "data.tool_calls[0].name",
        ),
    ],
)
def test_empty_names_are_kept_and_listed(importer: Any, raw: Any, field: str) -> None:
    run = importer(raw)
    assert run.ledger.messages[0].tool_calls[0].name == ""
    assert fields(run) == [field]
    with pytest.raises(TranscriptError):
        importer(raw, strict=True)


@pytest.mark.parametrize(
    ("importer", "raw", "field"),
    [
        (
            from_openai,
            [{"role": "assistant", "content": "x", "usage": {"prompt_tokens": -3}}],
            "usage.prompt_tokens",
        ),
        (
            from_anthropic,
            [
                {
                    "role": "assistant",
                    "content": "x",
                    "usage": {"input_tokens": -3, "output_tokens": 1},
                }
            ],
            "usage.input_tokens",
        ),
        (
            from_langchain,
            [{"type": "ai", "data": {"content": "x", "usage_metadata": {"input_tokens": -3}}}],
            "data.usage_metadata.input_tokens",
        ),
    ],
)
def test_negative_usage_is_listed_with_the_report_as_given(
    importer: Any, raw: Any, field: str, tmp_path: Path
) -> None:
    run = importer(raw)
    # A run file holds no negative counts: the reply is recorded as not reporting usage, and
    # the report, exactly as given, is in the problem.
    assert run.calls[0].usage is None
    assert fields(run) == [field]
    assert "negative token count -3" in run.import_problems[0].problem
    assert "-3" in run.import_problems[0].problem.split("as given:")[1]
    assert saved(run, tmp_path).import_problems == run.import_problems
    with pytest.raises(TranscriptError):
        importer(raw, strict=True)


def test_problems_survive_save_and_load(tmp_path: Path) -> None:
    run = from_openai(ORPHANS[0][1])
    loaded = saved(run, tmp_path)
    assert loaded.import_problems == run.import_problems != []
    assert loaded.checkpoint().import_problems == run.import_problems


# -- malformed input is a TranscriptError, never a raw exception --------------------------


@pytest.mark.parametrize(
    ("importer", "raw", "field"),
    [
        (
            from_openai,
            [{"role": "assistant", "usage": {"prompt_tokens": "12"}}],
            "usage.prompt_tokens",
        ),
        (
            from_openai,
            [{"role": "assistant", "usage": {"prompt_tokens": 1e309}}],
            "usage.prompt_tokens",
        ),
        (
            from_openai,
            [{"role": "assistant", "usage": {"prompt_tokens": float("nan")}}],
            "usage.prompt_tokens",
        ),
        (
            from_openai,
            [{"role": "assistant", "usage": {"prompt_tokens": 1e300}}],
            "usage.prompt_tokens",
        ),
        (
            from_openai,
            [{"role": "assistant", "usage": {"prompt_tokens": 1.5}}],
            "usage.prompt_tokens",
        ),
        (
            from_anthropic,
            [{"role": "assistant", "content": "", "usage": {"output_tokens": [1]}}],
            "usage.output_tokens",
        ),
        (
            from_langchain,
            [{"type": "ai", "data": {"usage_metadata": {"input_tokens": {}}}}],
            "data.usage_metadata.input_tokens",
        ),
        (
            from_openai,
            [{"role": "assistant", "tool_calls": [openai_tool_call("c", 5, "{}")]}],
            "tool_calls[0].function.name",
        ),
        (
            from_openai,
            [{"role": "assistant", "tool_calls": [{"id": 7, "function": {"name": "f"}}]}],
            "tool_calls[0]",
        ),
        (
            from_langchain,
            [{"type": "ai", "data": {"tool_calls": [{"name": "f", "id": 7}]}}],
            "data.tool_calls[0].id",
        ),
        (from_openai, [{"role": "tool", "tool_call_id": "c", "name": 3, "content": ""}], "name"),
        (
            from_openai,
            [{"role": "user", "content": [{"type": "text", "text": 5}]}],
            "content[0].text",
        ),
        (from_langchain, [{"type": "human", "data": {"content": [5]}}], "data.content[0]"),
        (
            from_anthropic,
            [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "t", "name": "f", "input": {"x": float("inf")}}
                    ],
                }
            ],
            "content[0].input",
        ),
        (
            from_anthropic,
            [
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t",
                            "name": "f",
                            "input": json.loads("[" * 500 + "]" * 500),
                        }
                    ],
                }
            ],
            "content[0].input",
        ),
        (from_openai, [{"role": "assistant", "tool_calls": {"a": 1}}], "tool_calls"),
    ],
)
def test_malformed_values_raise_transcript_errors(importer: Any, raw: Any, field: str) -> None:
    with pytest.raises(TranscriptError) as caught:
        importer(raw)
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.index, error.field) == (0, field)
    assert error.source in ("openai", "anthropic", "langchain") and error.problem
    assert f"message 0, field {field!r}" in str(error)


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        (b"\xff\xfe[]", "not UTF-8"),
        (b"[{", "not JSON"),
        (b'[{"task_id": 1, "traj": [', "not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
        (b'{"a": 1}', "trajectories"),
    ],
)
def test_a_bad_tau_file_is_a_transcript_error_naming_the_file(
    tmp_path: Path, payload: bytes, says: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(payload)
    with pytest.raises(TranscriptError, match=says) as caught:
        load_tau_bench(path)
    assert caught.value.path == str(path) and str(path) in str(caught.value)


def test_a_bad_tau_trajectory_names_entry_and_message(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    traj = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "usage": {"prompt_tokens": "a"}},
    ]
    path.write_text(json.dumps([{"task_id": 1, "traj": traj}]))
    with pytest.raises(TranscriptError) as caught:
        load_tau_bench(path)
    assert (caught.value.index, caught.value.field) == (0, "traj[1].usage.prompt_tokens")
    assert "entry 0, field 'traj[1].usage.prompt_tokens'" in str(caught.value)
    # The orphan is message 1 of entry 2: a problem and the strict error name the same place.
    orphan = [
        {"role": "user", "content": "x"},
        {"role": "tool", "tool_call_id": "x", "content": "r"},
    ]
    clean = [{"task_id": 1, "trial": k, "traj": [{"role": "user", "content": "x"}]} for k in (0, 1)]
    path.write_text(json.dumps([*clean, {"task_id": 2, "traj": orphan}]))
    runs = load_tau_bench(path)
    assert [(p.source, p.index, p.field) for p in runs[2].import_problems] == [
        ("tau-bench", 2, "traj[1].tool_call_id")
    ]
    with pytest.raises(TranscriptError) as strict:
        load_tau_bench(path, strict=True)
    assert (strict.value.index, strict.value.field) == (2, "traj[1].tool_call_id")
    assert strict.value.problem == runs[2].import_problems[0].problem
    assert "entry 2, field 'traj[1].tool_call_id'" in str(strict.value)


def test_build_run_rejects_what_is_not_a_message() -> None:
    with pytest.raises(TranscriptError, match="message 0, field 'message'"):
        build_run([{"role": "user"}], [], system=None, source="x")  # type: ignore[list-item]
    with pytest.raises(TranscriptError, match="usages"):
        build_run([Message.user("a")], ["u"], system=None, source="x")  # type: ignore[list-item]
    with pytest.raises(TranscriptError, match="meta"):
        build_run([], [], system=None, source="x", meta={"a": float("nan")})
    same = Message.user("again")
    assert len(build_run([same, same], [], system=None, source="x").ledger.messages) == 2


def test_an_otel_duplicate_call_id_names_its_part_and_the_span(tmp_path: Path) -> None:
    # The repeated call is part 2 of the output message (call 1 of its calls): the part is
    # named, and the index counts spans.
    user = {"role": "user", "parts": [{"type": "text", "content": "go"}]}
    output = {
        "role": "assistant",
        "parts": [
            {"type": "text", "content": "two calls"},
            {"type": "tool_call", "id": "d", "name": "f", "arguments": {}},
            {"type": "tool_call", "id": "d", "name": "g", "arguments": {}},
        ],
    }
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "chat m",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps([user])}},
            {"key": "gen_ai.output.messages", "value": {"stringValue": json.dumps([output])}},
        ],
    }
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    field = "attributes['gen_ai.output.messages'][0].parts[2].id"
    (run,) = load_otel(path)
    assert [(p.index, p.field) for p in run.import_problems] == [(0, field)]
    with pytest.raises(TranscriptError, match="duplicate call id") as caught:
        load_otel(path, strict=True)
    assert (caught.value.index, caught.value.field, caught.value.unit) == (0, field, "span")
    assert f"span 0, field {field!r}" in str(caught.value)


@pytest.mark.parametrize("unit", ["message", "entry", "line", "sample", "event", "span"])
def test_a_transcript_error_says_what_its_index_counts(unit: str) -> None:
    error = TranscriptError("x", 12, "f", "wrong", path="a.json", unit=unit)
    assert str(error) == f"a.json: x: {unit} 12, field 'f': wrong"
    assert (error.source, error.index, error.field, error.problem, error.path, error.unit) == (
        "x",
        12,
        "f",
        "wrong",
        "a.json",
        unit,
    )
    whole = TranscriptError("x", None, "f", "wrong", unit=unit)
    assert str(whole) == "x: transcript, field 'f': wrong"
    assert TranscriptError("x", 3, "f", "wrong").unit == "message"


@pytest.mark.parametrize(
    ("load", "name", "unit"),
    [
        (load_swe_agent, "bad.traj", "entry"),
        (load_openhands, "bad.json", "event"),
        (load_inspect, "bad.json", "sample"),
        (load_claude_code, "bad.jsonl", "line"),
    ],
)
def test_each_file_importer_names_its_own_unit(
    tmp_path: Path, load: Any, name: str, unit: str
) -> None:
    # A fault in the second item of each format's own list (entry, event, sample, line).
    bad = {"role": "robot", "content": "x"}
    documents: dict[str, Any] = {
        "entry": {"history": [{"role": "user", "content": "a"}, bad]},
        "event": [
            {"id": 0, "source": "user", "action": "message", "args": {"content": "a"}},
            {"id": 1, "source": "user"},
        ],
        "sample": {
            "eval": {"task": "t"},
            "samples": [{"id": 1, "epoch": 1, "messages": []}, {"id": 2, "messages": [bad]}],
        },
    }
    path = tmp_path / name
    if unit == "line":
        path.write_text('{"type": "user", "message": {"role": "user", "content": "a"}}\n{bad\n')
    else:
        path.write_text(json.dumps(documents[unit]))
    with pytest.raises(TranscriptError) as caught:
        load(path)
    error = caught.value
    assert error.unit == unit and error.path == str(path)
    assert f"{unit} {error.index}, field {error.field!r}" in str(error)
    assert error.index in (1, 2)  # the second item (lines count from 1)
