"""Tests of the Claude Code session importer: both shared sessions import with the counts
their own lines hold, split replies merge, a compaction's summary is only ever a sent window
(never history), faults name the file, the line and the field, and fuzzed sessions never raise
anything but TranscriptError."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import evidence, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers._parts import TranscriptError
from footprint_lab.importers.claude_code import load_claude_code
from footprint_lab.lab import capture
from tests.importers import helpers
from tests.importers.helpers import (
    FUZZ,
    history,
    one_run_or_transcript_error,
    run_counts,
    sites,
    wrong_values,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "claude-code"
FILES = ("edge_cases.jsonl", "representative_messages.jsonl")

# Per file: (messages, tool calls, tool results, model calls), and the lines skipped as
# unreadable entries (each listed as a problem).
PINNED: dict[str, tuple[tuple[int, int, int, int], list[int]]] = {
    "edge_cases.jsonl": ((11, 3, 1, 4), [10, 11, 13, 14, 15, 16, 18]),
    "representative_messages.jsonl": ((11, 2, 2, 5), []),
}


# -- counting the raw lines, independently of the importer -----------------------------------


def raw_entries(path: Path) -> list[tuple[int, Any]]:
    lines = path.read_text("utf-8").split("\n")
    return [(n, json.loads(line)) for n, line in enumerate(lines, 1) if line.strip()]


def readable(entry: Any) -> bool:
    """A main-conversation user/assistant entry whose message has content of typed blocks."""
    if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
        return False
    message = entry.get("message")
    if not isinstance(message, dict) or entry.get("isSidechain") is True:
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(b, dict) and isinstance(b.get("type"), str) for b in content
    )


def raw_counts(path: Path) -> tuple[int, int, int, int]:
    """(messages, tool calls, tool results, replies) over the file's readable entries: a run
    of assistant entries sharing one message id is one reply; a user entry is one tool message
    per tool_result plus one user message for the rest (or for nothing)."""
    messages = calls = results = replies = 0
    last_reply: Any = object()
    for _, entry in raw_entries(path):
        if not readable(entry) or entry.get("isCompactSummary") is True:
            continue
        content = entry["message"]["content"]
        blocks = content if isinstance(content, list) else [{"type": "text"}]
        if entry["type"] == "assistant":
            calls += sum(b["type"] == "tool_use" for b in blocks)
            reply_id = entry["message"].get("id")
            if reply_id is None or reply_id != last_reply:
                messages += 1
                replies += 1
            last_reply = reply_id
            continue
        last_reply = object()
        tool = sum(b["type"] == "tool_result" for b in blocks)
        results += tool
        messages += tool + (tool < len(blocks) or tool == 0)
    return messages, calls, results, replies


def other_type(entry: Any) -> bool:
    """A summary or system entry: read, but not a message."""
    return isinstance(entry, dict) and entry.get("type") in ("summary", "system")


# -- the shared sessions ---------------------------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_every_shared_session_imports_with_the_counts_its_lines_hold(name: str) -> None:
    path = DATA / name
    (run,) = load_claude_code(path)
    counts, skipped = PINNED[name]
    assert run_counts(run) == counts
    assert run_counts(run) == raw_counts(path)
    assert [p.index for p in run.import_problems if "skipped" in p.problem] == skipped
    assert all(p.source == "claude-code" for p in run.import_problems)
    unreadable = [n for n, e in raw_entries(path) if not readable(e) and not other_type(e)]
    assert unreadable == skipped
    assert run.meta["log_file"] == str(path)
    assert run.provider == "claude-code"
    assert run.records == []


def test_session_meta_model_usage_and_summaries() -> None:
    (run,) = load_claude_code(DATA / "representative_messages.jsonl")
    assert run.model == "claude-3-sonnet-20240229"
    assert {k: run.meta[k] for k in ("sessionId", "model", "cwd", "version")} == {
        "sessionId": "test_session",
        "model": "claude-3-sonnet-20240229",
        "cwd": "/tmp",
        "version": "1.0.0",
    }
    (summary,) = run.meta["summaries"]
    assert summary["leafUuid"] == "msg_011" and summary["summary"].startswith("User learned")
    assert run.meta["compactions"] == []
    assert all(m.content != summary["summary"] for m in run.ledger.messages)
    assert [(c.usage.input_tokens, c.usage.output_tokens) for c in run.calls if c.usage] == [
        (25, 120),
        (45, 85),
        (78, 95),
        (25, 35),
        (45, 110),
    ]
    tools = [m for m in run.ledger.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.name) for m in tools] == [("tool_001", "Edit"), ("tool_002", "Bash")]


def test_edge_cases_meta_and_what_was_skipped() -> None:
    (run,) = load_claude_code(DATA / "edge_cases.jsonl")
    assert run.meta["sessionId"] == "edge_cases"
    assert run.meta["session_ids"] == ["edge_cases", "todowrite_session"]
    assert run.meta["models"] == ["claude-3-sonnet-20240229", "claude-sonnet-4"]
    assert [p.field for p in run.import_problems] == [
        "message.content",
        "message",
        "entry",
        "type",
        "entry",
        "entry",
        "message.content[0]",
        "message.content[1].id",  # a call the next reply came without an answer to
    ]
    error = next(m for m in run.ledger.messages if m.role == "tool")
    assert error.content.startswith("error: ") and error.name == "FailingTool"
    with pytest.raises(TranscriptError, match="the entry is skipped") as caught:
        load_claude_code(DATA / "edge_cases.jsonl", strict=True)
    path = str(DATA / "edge_cases.jsonl")
    assert (caught.value.path, caught.value.index, caught.value.field) == (
        path,
        10,
        "message.content",
    )


def test_a_folder_imports_every_session_in_name_order() -> None:
    runs = load_claude_code(DATA)
    assert [Path(r.meta["log_file"]).name for r in runs] == sorted(
        p.name for p in DATA.glob("*.jsonl")
    )


@pytest.mark.parametrize("name", FILES)
def test_runs_pass_capture_replay_and_evidence(name: str) -> None:
    for run in load_claude_code(DATA / name):
        capture(run)
        replayed = replay(run, sliding_window(keep_recent_turns=2))
        assert len(replayed.calls) == len(run.calls)
        evidence.dependencies(run)


# -- sessions built here ---------------------------------------------------------------------


def entry(kind: str, message: Any = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": kind,
        "sessionId": "s1",
        "cwd": "/work",
        "version": "1.0.90",
        "gitBranch": "main",
        "isSidechain": False,
        **extra,
    }
    if message is not None:
        out["message"] = message
    return out


def said(text: Any) -> dict[str, Any]:
    return entry("user", {"role": "user", "content": text})


def reply(reply_id: str, *blocks: dict[str, Any], usage: Any = None) -> dict[str, Any]:
    message = {
        "id": reply_id,
        "role": "assistant",
        "model": "claude-sonnet-4",
        "content": list(blocks),
    }
    if usage is not None:
        message["usage"] = usage
    return entry("assistant", message)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def use(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def answer(call_id: str, content: Any) -> dict[str, Any]:
    return said([{"type": "tool_result", "tool_use_id": call_id, "content": content}])


def usage(tokens_in: int, tokens_out: int) -> dict[str, int]:
    return {"input_tokens": tokens_in, "output_tokens": tokens_out, "cache_read_input_tokens": 7}


def write(tmp_path: Path, entries: list[Any], name: str = "session.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


SUMMARY = "This session is being continued from a previous conversation. Summary: app.py fixed."


def compacted_session() -> list[Any]:
    return [
        said("Fix the bug in app.py"),  # 1
        reply("m1", text("Let me look."), usage=usage(10, 3)),  # 2  (one reply, two lines)
        reply("m1", use("t1", "Read", file_path="app.py"), usage=usage(10, 9)),  # 3
        answer("t1", "print('hi')"),  # 4
        reply("m2", text("Found it."), usage=usage(30, 4)),  # 5
        {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "auto", "preTokens": 1234},
            "parentUuid": None,
            "sessionId": "s1",
        },  # 6
        entry("user", {"role": "user", "content": SUMMARY}, isCompactSummary=True),  # 7
        said("Now add a test"),  # 8
        reply("m3", use("t2", "Write", file_path="test_app.py"), usage=usage(50, 4)),  # 9
        answer("t2", "written"),  # 10
        reply("m4", text("Done."), usage=usage(60, 2)),  # 11
        {"type": "summary", "summary": "Fixing app.py", "leafUuid": "x"},  # 12
    ]


def test_a_compaction_keeps_history_and_sends_the_summary_after_it(tmp_path: Path) -> None:
    path = write(tmp_path, compacted_session())
    (run,) = load_claude_code(path)
    assert run.import_problems == []
    kept = history(run)
    assert [(m.role, m.content) for m in kept] == [
        ("user", "Fix the bug in app.py"),
        ("assistant", "Let me look."),
        ("tool", "print('hi')"),
        ("assistant", "Found it."),
        ("user", "Now add a test"),
        ("assistant", ""),
        ("tool", "written"),
        ("assistant", "Done."),
    ]
    assert all(m.content != SUMMARY for m in kept)
    assert run_counts(run) == raw_counts(path) == (8, 2, 2, 4)
    before, after = kept[:4], kept[4:]
    windows = [run.ledger.window_at(c.sent_commit) for c in run.calls]
    assert [len(w) for w in windows] == [1, 3, 2, 4]
    assert windows[1] == before[:3]
    for window, upto in zip(windows[2:], (1, 3), strict=True):
        stand_in, *rest = window
        assert (stand_in.role, stand_in.content) == ("user", SUMMARY)
        assert stand_in.authored is not None
        assert rest == after[:upto]
    (record,) = run.records
    assert record.observed and record.strategy == "claude-code"
    assert record.removed_stage_ids == [m.stage_id for m in before]
    assert run.meta["compactions"] == [
        {"boundary_line": 6, "trigger": "auto", "preTokens": 1234, "summary_line": 7}
    ]
    assert run.meta["summaries"] == [{"summary": "Fixing app.py", "leafUuid": "x", "line": 12}]
    capture(run)
    replay(run, sliding_window(keep_recent_turns=2))
    evidence.dependencies(run)


def test_each_compaction_replaces_the_part_before_it(tmp_path: Path) -> None:
    def boundary(tokens: int) -> dict[str, Any]:
        meta = {"trigger": "manual", "preTokens": tokens}
        return {"type": "system", "subtype": "compact_boundary", "compactMetadata": meta}

    def summary(value: str) -> dict[str, Any]:
        return entry("user", {"role": "user", "content": value}, isCompactSummary=True)

    entries = [
        summary("S0"),  # a summary with no boundary before it (a continued session)
        said("a"),
        reply("m1", text("A")),
        boundary(5),
        summary("S1"),
        said("b"),
        reply("m2", text("B")),
        boundary(9),
        summary("S2"),
        said("c"),
        reply("m3", text("C")),
    ]
    (run,) = load_claude_code(write(tmp_path, entries))
    assert [m.content for m in history(run)] == ["a", "A", "b", "B", "c", "C"]
    windows = [run.ledger.window_at(c.sent_commit) for c in run.calls]
    assert [[m.content for m in w] for w in windows] == [["S0", "a"], ["S1", "b"], ["S2", "c"]]
    kept = history(run)
    assert [r.strategy for r in run.records] == ["claude-code"] * 3
    assert [r.removed_stage_ids for r in run.records] == [
        [],
        [windows[0][0].stage_id, kept[0].stage_id, kept[1].stage_id],
        [windows[1][0].stage_id, kept[2].stage_id, kept[3].stage_id],
    ]
    assert [(c["boundary_line"], c["summary_line"]) for c in run.meta["compactions"]] == [
        (None, 1),
        (4, 5),
        (8, 9),
    ]


def test_split_reply_entries_merge_into_one_message(tmp_path: Path) -> None:
    entries = [
        said("Read both"),
        reply("m1", {"type": "thinking", "thinking": "two files", "signature": "s"}),
        reply("m1", text("Reading.")),
        reply("m1", use("a", "Read", file_path="a.py")),
        reply("m1", use("b", "Read", file_path="b.py"), usage=usage(40, 12)),
        answer("a", "A"),
        answer("b", [{"type": "text", "text": "B"}]),
        reply("m2", text("Both read.")),
        reply("m3", text("A second reply.")),
    ]
    (run,) = load_claude_code(write(tmp_path, entries))
    _, merged, ra, rb, done, second = run.ledger.messages
    assert merged.content == "Reading." and [c.id for c in merged.tool_calls] == ["a", "b"]
    assert [p.kind for p in merged.parts] == ["thinking"]
    assert [(m.tool_call_id, m.content) for m in (ra, rb)] == [("a", "A"), ("b", "B")]
    assert (done.content, second.content) == ("Both read.", "A second reply.")
    usages = [c.usage for c in run.calls]
    assert usages[0] is not None and (usages[0].input_tokens, usages[0].cache_read_tokens) == (
        40,
        7,
    )
    assert usages[1:] == [None, None]


def test_sidechains_system_notices_and_meta_entries(tmp_path: Path) -> None:
    entries = [
        said("Go"),
        entry("user", {"role": "user", "content": "sub-agent task"}, isSidechain=True),
        entry("assistant", {"id": "x", "role": "assistant", "content": "sub"}, isSidechain=True),
        {"type": "system", "subtype": "informational", "content": "Running hook"},
        {"type": "file-history-snapshot", "snapshot": {}},
        entry("user", {"role": "user", "content": "Caveat: local command output"}, isMeta=True),
        reply("m1", text("Done")),
    ]
    (run,) = load_claude_code(write(tmp_path, entries))
    assert [m.content for m in run.ledger.messages] == [
        "Go",
        "Caveat: local command output",
        "Done",
    ]
    assert run.meta["sidechain_entries"] == 2
    assert run.meta["ignored_entries"] == {"system": 1, "file-history-snapshot": 1}
    assert run.meta["gitBranch"] == "main" and run.import_problems == []


def test_problems_name_the_line_and_the_block(tmp_path: Path) -> None:
    entries = [
        said("Go"),
        reply("m1", text("a")),
        reply("m1", use("c1", "Read"), usage={"input_tokens": -1, "output_tokens": 1}),
        answer("nope", "orphan"),
    ]
    path = write(tmp_path, entries)
    (run,) = load_claude_code(path)
    assert [(p.index, p.field) for p in run.import_problems] == [
        (3, "message.usage.input_tokens"),
        (4, "message.content[0].tool_use_id"),
    ]
    with pytest.raises(TranscriptError, match="negative token count") as caught:
        load_claude_code(path, strict=True)
    assert (caught.value.path, caught.value.index, caught.value.field) == (
        str(path),
        3,
        "message.usage.input_tokens",
    )


def test_a_duplicate_call_id_names_the_line_and_the_block_that_repeats_it(
    tmp_path: Path,
) -> None:
    # One reply over three entries: the repeated id is block 1 of line 4 (block 3 of the
    # merged reply, call 1 of its calls), so neither the call's place nor the merged index.
    entries = [
        said("Go"),
        reply("m1", text("a"), use("c1", "Read")),
        reply("m1", text("b")),
        reply("m1", text("c"), use("c1", "Read")),
        answer("c1", "ok"),
    ]
    path = write(tmp_path, entries)
    (run,) = load_claude_code(path)
    assert [(p.index, p.field) for p in run.import_problems] == [(4, "message.content[1].id")]
    with pytest.raises(TranscriptError, match="duplicate call id") as caught:
        load_claude_code(path, strict=True)
    assert (caught.value.index, caught.value.field) == (4, "message.content[1].id")
    assert "line 4, field 'message.content[1].id'" in str(caught.value)


@pytest.mark.parametrize(
    ("payload", "index", "field", "says"),
    [
        (b'{"type": "user"}\n{"type": "assist', 2, "line", "not JSON"),
        (b'{"type": "user"}\n\n\nnot json\n', 4, "line", "not JSON"),
        (b"\xff\xfe", None, "file", "not UTF-8"),
        (
            b'{"type": "system", "subtype": "compact_boundary", '
            b'"compactMetadata": {"preTokens": NaN}}',
            1,
            "compactMetadata.preTokens",
            "not a JSON number",
        ),
    ],
)
def test_a_bad_line_is_a_transcript_error_naming_file_and_line(
    tmp_path: Path, payload: bytes, index: int | None, field: str, says: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(payload)
    with pytest.raises(TranscriptError, match=says) as caught:
        load_claude_code(path)
    assert (caught.value.path, caught.value.index, caught.value.field) == (str(path), index, field)
    assert str(path) in str(caught.value)
    assert ("transcript" if index is None else f"line {index},") in str(caught.value)


def test_a_missing_file_is_a_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="cannot read") as caught:
        load_claude_code(tmp_path / "missing.jsonl")
    assert caught.value.path == str(tmp_path / "missing.jsonl")


def test_an_empty_session_is_an_empty_run(tmp_path: Path) -> None:
    (run,) = load_claude_code(write(tmp_path, []))
    assert run.calls == [] and run.ledger.messages == () and run.meta["sessionId"] is None


# -- fuzzing ---------------------------------------------------------------------------------

WRONG = wrong_values("user", "assistant", "system", "summary", "compact_boundary", "tool_use")


READ = frozenset(
    {
        "message",
        "content",
        "type",
        "usage",
        "id",
        "input",
        "name",
        "tool_use_id",
        "is_error",
        "isCompactSummary",
        "compactMetadata",
        "preTokens",
        "subtype",
        "isSidechain",
        "text",
        "summary",
        "sessionId",
        "model",
        "input_tokens",
    }
)
"""Keys the importer reads: the walk prefers them, so mutations land where they matter."""


def mutate(draw: Any, root: Any) -> Any:
    """``root`` with one value deleted or replaced by one of the wrong type (see
    :func:`tests.importers.helpers.mutate`)."""
    return helpers.mutate(draw, root, WRONG, READ)


SESSIONS = {name: [e for _, e in raw_entries(DATA / name)] for name in FILES}
SESSIONS["compacted"] = compacted_session()


def imports_or_raises(path: Path) -> Run | None:
    """The run, or None for a TranscriptError naming ``path`` (the importers' one oracle:
    :func:`tests.importers.helpers.one_run_or_transcript_error`)."""
    run = one_run_or_transcript_error(load_claude_code, path, "claude-code")
    return run


SINGLE = (None, True, -1, 10**400, float("nan"), "x", [], {})
"""What every place of a small session is replaced by, one at a time (beside being deleted)."""


def test_every_single_change_to_a_small_session_imports_or_raises(tmp_path: Path) -> None:
    path = tmp_path / "changed.jsonl"
    for k in range(len(sites(SESSIONS["compacted"]))):
        for value in (*SINGLE, "delete"):
            entries = copy.deepcopy(SESSIONS["compacted"])
            parent, key = sites(entries)[k]
            if value == "delete":
                del parent[key]
            else:
                parent[key] = value
            path.write_text("".join(json.dumps(e, allow_nan=True) + "\n" for e in entries))
            imports_or_raises(path)


@FUZZ
@given(st.data(), st.sampled_from(sorted(SESSIONS)))
def test_a_mutated_session_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    entries = copy.deepcopy(SESSIONS[name])
    for _ in range(data.draw(st.integers(1, 3))):
        entries = mutate(data.draw, entries)
    lines = entries if isinstance(entries, list) else [entries]
    path = tmp_path / "fuzzed.jsonl"
    path.write_text("".join(json.dumps(e, allow_nan=True) + "\n" for e in lines))
    imports_or_raises(path)


@FUZZ
@given(st.data(), st.sampled_from(sorted(SESSIONS)))
def test_a_session_cut_at_any_byte_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    payload = "".join(json.dumps(e) + "\n" for e in SESSIONS[name]).encode()
    cut = data.draw(st.integers(0, len(payload)))
    path = tmp_path / "cut.jsonl"
    path.write_bytes(payload[:cut] + data.draw(st.sampled_from([b"", b"\n", b"\xff"])))
    imports_or_raises(path)
