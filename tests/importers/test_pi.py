"""Tests of the pi coding agent session importer.

The real file (``data/transcripts/pi/real.session-01.jsonl``, kvsankar/agent-history's redacted
pi session, version 3) has a header, ``session_info``, ``model_change``,
``thinking_level_change``, one user and one assistant message with usage and cost: every
number below is checked against the file's own lines. It has no tool call, no compaction and
no branch, so those are built as *small edits of the real file* (its first four lines kept,
entries appended) in the entry shapes pi documents — ``packages/coding-agent/docs/session.md``
and ``src/core/session-manager.ts`` / ``src/core/messages.ts`` of badlogic/pi-mono @ 83378aad
(message, toolCall / toolResult, thinking, bashExecution, custom_message, compaction with
``firstKeptEntryId``, branch_summary, label); the version 1 shape (no ids,
``firstKeptEntryIndex``) from ``session-manager.ts`` before c58d5f20; ``retainedTail`` from
``docs/session-format.md`` of earendil-works/pi; the JSON event stream from ``docs/json.md``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import TranscriptError, detect_format, load, load_pi
from footprint_lab.importers.recorded import unrecorded_notes
from footprint_lab.lab import capture
from tests.importers import helpers
from tests.importers.helpers import FUZZ, history, one_run_or_transcript_error, sites, wrong_values

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "pi"
REAL = DATA / "real.session-01.jsonl"
PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
SUFFIX = "\n</summary>"


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def write(tmp_path: Path, rows: list[Any], name: str = "session.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def windows(run: Run) -> list[list[Any]]:
    return [list(run.ledger.window_at(c.sent_commit)) for c in run.calls]


# -- the real file ---------------------------------------------------------------------------


def test_the_real_session_imports_true_to_its_lines() -> None:
    rows = lines_of(REAL)
    header, info, change, level, said, reply = rows
    (run,) = load_pi(REAL)
    assert run.import_problems == []
    assert run.request == said["message"]["content"][0]["text"]
    assert run.requests == [run.request]
    assert [(m.role, m.content) for m in history(run)] == [
        ("user", said["message"]["content"][0]["text"]),
        ("assistant", reply["message"]["content"][0]["text"]),
    ]
    assert run.status == "done" and run.output == reply["message"]["content"][0]["text"]
    given = reply["message"]["usage"]
    (call,) = run.calls
    assert call.usage is not None
    assert call.usage.input_tokens == given["input"] + given["cacheRead"] + given["cacheWrite"]
    assert call.usage.output_tokens == given["output"]
    assert call.usage.cache_read_tokens == given["cacheRead"]
    assert call.usage.cache_write_tokens == given["cacheWrite"]
    assert run.model == reply["message"]["model"] == change["modelId"]
    meta = run.meta
    assert meta["session_id"] == header["id"] and meta["version"] == header["version"]
    assert meta["cwd"] == header["cwd"] and meta["timestamp"] == header["timestamp"]
    assert meta["name"] == info["name"] == meta["label"]
    assert meta["provider"] == reply["message"]["provider"]
    assert meta["model_changes"] == [f"{change['provider']}/{change['modelId']}"]
    assert meta["thinking_levels"] == [level["thinkingLevel"]]
    assert meta["reported_cost"]["total"] == pytest.approx(given["cost"]["total"])
    assert meta["stop_reasons"] == {reply["message"]["stopReason"]: 1}
    assert meta["leaf"] == reply["id"] and meta["abandoned_branches"] == []
    assert meta["compactions"] == [] and run.records == []
    assert meta["log_file"] == str(REAL)


def test_the_real_session_says_what_it_does_not_record() -> None:
    (run,) = load_pi(REAL)
    assert run.origin.recorded.model_dump() == {
        "inputs": False,
        "usage": True,
        "tool_results": False,
        "model": True,
        "outcome": False,
    }
    notes = unrecorded_notes(run)
    assert any("tool results" in n for n in notes) and any("was sent" in n for n in notes)


def test_the_real_session_is_detected_and_loads_as_pi(tmp_path: Path) -> None:
    assert detect_format(REAL) == "pi"
    (direct,) = load_pi(REAL)
    (loaded,) = load(REAL)
    assert loaded.meta == direct.meta and loaded.origin.format == "pi"
    assert [m.content for m in loaded.ledger.messages] == [
        m.content for m in direct.ledger.messages
    ]
    renamed = tmp_path / "data.jsonl"
    renamed.write_bytes(REAL.read_bytes())
    assert detect_format(renamed) == "pi"
    assert [r.meta["label"] for r in load_pi(DATA)] == [direct.meta["label"]]


def test_the_real_session_works_downstream(tmp_path: Path) -> None:
    (run,) = load_pi(REAL)
    replayed = replay(run, sliding_window(2))
    assert len(replayed.calls) == len(run.calls)
    capture(run)
    back = load_run(run.save(tmp_path / "run.json"))
    assert back.meta == run.meta
    assert [m.content for m in back.ledger.messages] == [m.content for m in run.ledger.messages]


# -- sessions built from the real file and pi's documented entry shapes -----------------------


def entry(kind: str, entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-06-05T05:25:00.000Z",
        **fields,
    }


def user(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    message = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}
    return entry("message", entry_id, parent, message=message)


def reply(
    entry_id: str,
    parent: str | None,
    *blocks: dict[str, Any],
    stop: str = "stop",
    tokens: tuple[int, int, int, int] = (100, 10, 0, 0),
) -> dict[str, Any]:
    uncached, out, read, written = tokens
    message = {
        "role": "assistant",
        "content": list(blocks),
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": {
            "input": uncached,
            "output": out,
            "cacheRead": read,
            "cacheWrite": written,
            "totalTokens": sum(tokens),
            "cost": {
                "input": 0.001,
                "output": 0.002,
                "cacheRead": 0,
                "cacheWrite": 0,
                "total": 0.003,
            },
        },
        "stopReason": stop,
        "timestamp": 2,
    }
    return entry("message", entry_id, parent, message=message)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def result(
    entry_id: str, parent: str, call_id: str, name: str, output: str, error: bool = False
) -> dict[str, Any]:
    message = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": output}],
        "isError": error,
        "timestamp": 3,
    }
    return entry("message", entry_id, parent, message=message)


def real_start() -> list[dict[str, Any]]:
    """The real file's header and its first three entries (session_info, model_change,
    thinking_level_change); the last of them, ``4e3d2034``, is where built entries attach."""
    return lines_of(REAL)[:4]


BASE = "4e3d2034"
SUMMARY = "## Goal\nFix app.py and add a test.\n## Progress\n- [x] Fixed app.py"


def compacted_session() -> list[dict[str, Any]]:
    """A session with tool calls, a failed call, thinking, a compaction that keeps the second
    request on, a ``!`` command, an extension's message, an abandoned branch, a branch
    summary and a label."""
    return [
        *real_start(),
        user("u1", BASE, "Fix the bug in app.py"),  # 5
        reply(
            "a1",
            "u1",
            {"type": "thinking", "thinking": "Read it first.", "thinkingSignature": "sig-1"},
            text("Reading."),
            call("c1", "read", path="app.py"),
            call("c2", "bash", command="ls"),
        ),  # 6
        result("r1", "a1", "c1", "read", "print('hi')"),  # 7
        result("r2", "r1", "c2", "bash", "ls: cannot access", error=True),  # 8
        reply("a2", "r2", text("Fixed."), tokens=(50, 5, 400, 20)),  # 9
        user("u2", "a2", "Now add a test"),  # 10
        reply("a3", "u2", call("c3", "write", path="test_app.py", content="assert True")),  # 11
        result("r3", "a3", "c3", "write", "written"),  # 12
        entry(
            "compaction",
            "k1",
            "r3",
            summary=SUMMARY,
            firstKeptEntryId="u2",
            tokensBefore=52000,
            details={"readFiles": ["app.py"], "modifiedFiles": ["test_app.py"]},
        ),  # 13
        reply("a4", "k1", text("Test written.")),  # 14
        entry(
            "message",
            "b1",
            "a4",
            message={
                "role": "bashExecution",
                "command": "pytest",
                "output": "1 failed",
                "exitCode": 1,
                "cancelled": False,
                "truncated": False,
                "timestamp": 4,
            },
        ),  # 15
        entry(
            "message",
            "b2",
            "b1",
            message={
                "role": "bashExecution",
                "command": "cat secrets",
                "output": "x",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "excludeFromContext": True,
                "timestamp": 5,
            },
        ),  # 16
        entry(
            "custom_message", "m1", "b2", customType="todo", content="Open todos: 1", display=True
        ),  # 17
        user("u3", "m1", "Make it pass"),  # 18
        reply("a5", "u3", text("Trying approach A.")),  # 19 (abandoned)
        user("x1", "a5", "No, not like that"),  # 20 (abandoned)
        entry(
            "branch_summary", "s1", "u3", fromId="x1", summary="Approach A broke the build."
        ),  # 21
        reply("a6", "s1", text("Approach B: it passes now.")),  # 22
        entry("label", "l1", "a6", targetId="u1", label="start"),  # 23
    ]


def test_every_call_is_paired_with_its_result_and_kept_as_given(tmp_path: Path) -> None:
    (run,) = load_pi(write(tmp_path, compacted_session()))
    assert run.import_problems == []
    calls = [c for m in history(run) for c in m.tool_calls]
    results = {m.tool_call_id: m for m in history(run) if m.role == "tool"}
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("c1", "read", {"path": "app.py"}),
        ("c2", "bash", {"command": "ls"}),
        ("c3", "write", {"path": "test_app.py", "content": "assert True"}),
    ]
    assert [(cid, results[cid].name, results[cid].content) for cid in ("c1", "c2", "c3")] == [
        ("c1", "read", "print('hi')"),
        ("c2", "bash", "error: ls: cannot access"),
        ("c3", "write", "written"),
    ]
    first = next(m for m in history(run) if m.tool_calls)
    (thinking,) = first.parts
    assert (thinking.kind, thinking.text) == ("thinking", "Read it first.")
    assert thinking.original["thinkingSignature"] == "sig-1"
    usage = run.calls[1].usage
    assert usage is not None and (usage.input_tokens, usage.cache_read_tokens) == (470, 400)
    assert run.origin.recorded.tool_results and run.origin.recorded.usage


def test_requests_are_the_persons_and_what_pi_wrote_is_an_observation(tmp_path: Path) -> None:
    (run,) = load_pi(write(tmp_path, compacted_session()))
    assert run.requests == ["Fix the bug in app.py", "Now add a test", "Make it pass"]
    observations = [m for m in history(run) if m.stage_id and m.stage_id.startswith("observation#")]
    assert [m.content for m in observations] == [
        "Ran `pytest`\n```\n1 failed\n```\n\nCommand exited with code 1",
        "Open todos: 1",
        "The following is a summary of a branch that this conversation came back from:"
        "\n\n<summary>\nApproach A broke the build.</summary>",
    ]
    assert run.meta["excluded_bash"] == 1
    assert all("cat secrets" not in m.content for m in run.ledger.messages)
    assert run.meta["custom_messages"] == {"todo": 1}
    assert run.meta["labels"] == {"u1": "start"}
    assert run.status == "done" and run.output == "Approach B: it passes now."


def test_the_compaction_is_an_observed_record_naming_what_left(tmp_path: Path) -> None:
    rows = compacted_session()
    (run,) = load_pi(write(tmp_path, rows))
    (record,) = run.records
    assert record.observed and record.strategy == "pi" and record.iteration == 4
    # Everything before the first kept entry (u2) left: the first request and its turns (a
    # batch of results is one stage: it is named once per message it committed).
    assert record.removed_stage_ids == [m.stage_id for m in history(run)[:5]]
    stages = dict.fromkeys(record.removed_stage_ids)
    removed = [m for stage_id in stages for m in run.ledger.messages_of(stage_id)]
    assert [(m.role, m.content) for m in removed] == [
        ("user", "Fix the bug in app.py"),
        ("assistant", "Reading."),
        ("tool", "print('hi')"),
        ("tool", "error: ls: cannot access"),
        ("assistant", "Fixed."),
    ]
    after = windows(run)[3]
    stand_in, *kept = after
    assert (stand_in.role, stand_in.content) == ("user", PREFIX + SUMMARY + SUFFIX)
    assert stand_in.authored == "compaction-frame" and stand_in.stage_id.startswith("window#")
    assert [m.content for m in kept] == ["Now add a test", "", "written"]
    assert all(m.content != stand_in.content for m in history(run))
    (compaction,) = run.meta["compactions"]
    assert compaction == {
        "line": 13,
        "id": "k1",
        "firstKeptEntryId": "u2",
        "tokensBefore": 52000,
        "fromHook": None,
        "kept_messages": 3,
        "observed": True,
        "details": {"readFiles": ["app.py"], "modifiedFiles": ["test_app.py"]},
    }
    assert run.origin.recorded.inputs
    replay(run, sliding_window(2))
    capture(run)


def test_an_abandoned_branch_is_listed_and_never_sent(tmp_path: Path) -> None:
    (run,) = load_pi(write(tmp_path, compacted_session()))
    (branch,) = run.meta["abandoned_branches"]
    assert branch == {"from": "u3", "entry_ids": ["a5", "x1"], "lines": [19, 20], "messages": 2}
    gone = {"Trying approach A.", "No, not like that"}
    assert all(m.content not in gone for m in run.ledger.messages)
    assert all(m.content not in gone for w in windows(run) for m in w)
    assert run.meta["leaf"] == "l1"
    assert run.meta["branch_summaries"] == [{"line": 21, "id": "s1", "fromId": "x1"}]


def test_each_compaction_replaces_what_the_previous_kept(tmp_path: Path) -> None:
    rows = [
        *real_start(),
        user("u1", BASE, "one"),
        reply("a1", "u1", text("A")),
        user("u2", "a1", "two"),
        reply("a2", "u2", text("B")),
        entry("compaction", "k1", "a2", summary="S1", firstKeptEntryId="u2", tokensBefore=9),
        user("u3", "k1", "three"),
        reply("a3", "u3", text("C")),
        entry("compaction", "k2", "a3", summary="S2", firstKeptEntryId="u3", tokensBefore=9),
        reply("a4", "k2", text("D")),
    ]
    (run,) = load_pi(write(tmp_path, rows))
    sent = [[m.content for m in w] for w in windows(run)]
    assert sent == [
        ["one"],
        ["one", "A", "two"],
        [PREFIX + "S1" + SUFFIX, "two", "B", "three"],
        [PREFIX + "S2" + SUFFIX, "three", "C"],
    ]
    kept = history(run)
    first, second = run.records
    assert first.removed_stage_ids == [kept[0].stage_id, kept[1].stage_id]
    assert second.removed_stage_ids == [
        windows(run)[2][0].stage_id,
        kept[2].stage_id,
        kept[3].stage_id,
    ]


def test_a_version_1_session_is_a_list_and_compacts_by_index(tmp_path: Path) -> None:
    """Shape of pi before its tree (session-manager.ts before c58d5f20): a header without
    ``version``, entries without ids, a compaction's ``firstKeptEntryIndex`` counting the
    header as entry 0."""
    header = {"type": "session", "id": "v1", "timestamp": "2025-11-20T10:00:00.000Z", "cwd": "/w"}
    rows = [
        header,
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "one"}},
        {"type": "message", "timestamp": "t", "message": reply("", None, text("A"))["message"]},
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "two"}},
        {
            "type": "compaction",
            "timestamp": "t",
            "summary": "S",
            "firstKeptEntryIndex": 3,
            "tokensBefore": 5,
        },
        {"type": "message", "timestamp": "t", "message": reply("", None, text("B"))["message"]},
    ]
    (run,) = load_pi(write(tmp_path, rows))
    assert run.import_problems == [] and run.meta["version"] == 1
    assert [[m.content for m in w] for w in windows(run)] == [
        ["one"],
        [PREFIX + "S" + SUFFIX, "two"],
    ]
    (record,) = run.records
    assert [run.ledger.message(s).content for s in record.removed_stage_ids] == ["one", "A"]


def test_a_retained_tail_is_what_a_newer_compaction_kept(tmp_path: Path) -> None:
    """Shape from earendil-works/pi ``docs/session-format.md``: ``retainedTail``."""
    tail = [
        {"role": "user", "content": "two"},
        reply("", None, text("B"))["message"],
    ]
    rows = [
        *real_start(),
        user("u1", BASE, "one"),
        reply("a1", "u1", text("A")),
        user("u2", "a1", "two"),
        reply("a2", "u2", text("B")),
        entry("compaction", "k1", "a2", summary="S", tokensBefore=9, retainedTail=tail),
        user("u3", "k1", "three"),
        reply("a3", "u3", text("C")),
    ]
    (run,) = load_pi(write(tmp_path, rows))
    assert [m.content for m in windows(run)[2]] == [PREFIX + "S" + SUFFIX, "two", "B", "three"]
    (record,) = run.records
    assert [run.ledger.message(s).content for s in record.removed_stage_ids] == ["one", "A"]
    assert run.meta["compactions"][0]["retainedTail"] == 2


def test_an_aborted_reply_keeps_its_unrun_call_as_a_part(tmp_path: Path) -> None:
    rows = [
        *real_start(),
        user("u1", BASE, "go"),
        reply("a1", "u1", text("Let me"), call("c1", "bash", command="rm"), stop="aborted"),
        user("u2", "a1", "stop, do this instead"),
        reply("a2", "u2", text("ok")),
        user("u3", "a2", "again"),
        reply("a3", "u3", stop="error", tokens=(0, 0, 0, 0)),
    ]
    rows[-1]["message"]["errorMessage"] = "overloaded"
    (run,) = load_pi(write(tmp_path, rows))
    assert run.import_problems == []
    aborted = history(run)[1]
    assert aborted.tool_calls == [] and [p.kind for p in aborted.parts] == ["toolCall"]
    assert run.meta["unexecuted_tool_calls"] == [
        {"line": 6, "id": "c1", "name": "bash", "stopReason": "aborted"}
    ]
    assert run.status == "incomplete" and run.meta["ended"] == "error: overloaded"


def test_a_version_2_session_its_hook_messages_and_a_compaction_nothing_followed(
    tmp_path: Path,
) -> None:
    """Version 2 shapes (session-manager.ts ``migrateV2ToV3``): the ``hookMessage`` role, which
    version 3 renamed ``custom``; a role pi does not send; a compaction at the end."""
    header = {**lines_of(REAL)[0], "version": 2}
    hook = {"role": "hookMessage", "customType": "h", "content": "Remember X.", "display": True}
    rows = [
        header,
        user("u1", None, "go"),
        entry("message", "h1", "u1", message=hook),
        entry("message", "n1", "h1", message={"role": "notification", "text": "ping"}),
        reply("a1", "n1", text("ok")),
        entry("compaction", "k1", "a1", summary="S", firstKeptEntryId="a1", tokensBefore=3),
    ]
    (run,) = load_pi(write(tmp_path, rows))
    assert run.import_problems == [] and run.meta["version"] == 2
    assert [(m.role, m.content) for m in history(run)] == [
        ("user", "go"),
        ("user", "Remember X."),
        ("assistant", "ok"),
    ]
    assert run.requests == ["go"] and run.meta["harness_roles"] == {"hookMessage": 1}
    assert run.meta["unsent_roles"] == {"notification": 1}
    assert run.records == [] and run.meta["compactions"][0]["observed"] is False


def test_the_json_event_stream_is_read_from_its_message_ends(tmp_path: Path) -> None:
    """Shape from pi-mono ``docs/json.md`` (``pi --mode json``)."""
    asked = {"role": "user", "content": [text("List files")], "timestamp": 1}
    listing = reply("", None, call("c1", "ls", path="."), stop="toolUse")["message"]
    listed = result("", "", "c1", "ls", "a.py")["message"]
    answer = reply("", None, text("One file: a.py."))["message"]
    compaction = {"summary": "S", "firstKeptEntryId": "abcd1234", "tokensBefore": 9}
    rows = [
        lines_of(REAL)[0],
        {"type": "agent_start"},
        {"type": "turn_start"},
        {"type": "message_start", "message": asked},
        {"type": "message_end", "message": asked},
        {"type": "message_start", "message": listing},
        {"type": "message_update", "message": listing, "assistantMessageEvent": {"type": "x"}},
        {"type": "message_end", "message": listing},
        {"type": "tool_execution_start", "toolCallId": "c1", "toolName": "ls", "args": {}},
        {"type": "tool_execution_end", "toolCallId": "c1", "toolName": "ls", "isError": False},
        {"type": "message_end", "message": listed},
        {"type": "turn_end", "message": listing, "toolResults": [listed]},
        {"type": "auto_compaction_end", "result": compaction, "aborted": False, "willRetry": False},
        {"type": "message_end", "message": answer},
        {"type": "agent_end", "messages": [asked, listing, listed, answer]},
    ]
    path = write(tmp_path, rows)
    assert detect_format(path) == "pi"
    (run,) = load_pi(path)
    assert [(m.role, m.content) for m in history(run)] == [
        ("user", "List files"),
        ("assistant", ""),
        ("tool", "a.py"),
        ("assistant", "One file: a.py."),
    ]
    assert run.request == "List files" and len(run.calls) == 2
    assert run.meta["stream_events"]["message_end"] == 4
    (problem,) = run.import_problems
    assert (problem.index, problem.field) == (13, "result.firstKeptEntryId")


# -- faults ----------------------------------------------------------------------------------


def test_faults_name_the_file_the_line_and_the_field(tmp_path: Path) -> None:
    rows = compacted_session()
    broken = copy.deepcopy(rows)
    del broken[5]["message"]["content"][2]["id"]
    path = write(tmp_path, broken)
    with pytest.raises(TranscriptError) as caught:
        load_pi(path)
    error = caught.value
    assert (error.path, error.source, error.unit) == (str(path), "pi", "line")
    assert (error.index, error.field) == (6, "message.content[2].id")
    no_id = copy.deepcopy(rows)
    del no_id[9]["id"]
    with pytest.raises(TranscriptError) as caught:
        load_pi(write(tmp_path, no_id))
    assert (caught.value.index, caught.value.field) == (10, "id")
    path.write_text(REAL.read_text("utf-8") + '{"type": "message", "id": "x"\n')
    with pytest.raises(TranscriptError) as caught:
        load_pi(path)
    assert (caught.value.index, caught.value.field) == (7, "line")


def test_what_pi_would_read_but_is_wrong_is_kept_and_listed(tmp_path: Path) -> None:
    rows = [
        *real_start(),
        user("u1", BASE, "go"),
        reply("a1", "u1", call("c1", "read")),
        result("r1", "a1", "zz", "read", "orphan"),
        reply("a2", "r1", text("?")),
        entry("compaction", "k1", "a2", summary="S", firstKeptEntryId="nowhere", tokensBefore=1),
        reply("a3", "k1", text("!")),
    ]
    path = write(tmp_path, rows)
    (run,) = load_pi(path)
    assert [(p.index, p.field) for p in run.import_problems] == [
        (7, "message.toolCallId"),  # an orphan result
        (6, "message.content[0].id"),  # a call no result answered before the next reply
        (9, "firstKeptEntryId"),  # a first kept entry not on the path: nothing kept
    ]
    assert [m.content for m in windows(run)[2]] == [PREFIX + "S" + SUFFIX]
    with pytest.raises(TranscriptError) as caught:
        load_pi(path, strict=True)
    assert (caught.value.index, caught.value.field) == (7, "message.toolCallId")


def test_broken_links_end_the_path_as_pis_walk_ends(tmp_path: Path) -> None:
    rows = [
        *real_start(),
        user("u1", BASE, "lost"),
        user("u2", "gone", "dangling"),
        reply("a2", "u2", text("ok")),
    ]
    (run,) = load_pi(write(tmp_path, rows))
    assert [m.content for m in history(run)] == ["dangling", "ok"]
    assert [(p.index, p.field) for p in run.import_problems] == [(6, "parentId")]
    assert [b["entry_ids"] for b in run.meta["abandoned_branches"]] == [
        ["13b3bc17", "7265100e", BASE, "u1"]
    ]
    looped = [*real_start(), user("u1", "a1", "x"), reply("a1", "u1", text("y"))]
    (run,) = load_pi(write(tmp_path, looped))
    assert [p.field for p in run.import_problems] == ["parentId"]
    assert "cycle" in run.import_problems[0].problem


def test_other_stacks_json_lines_are_not_claimed(tmp_path: Path) -> None:
    claude = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "claude-code"
    assert detect_format(claude / "edge_cases.jsonl") == "claude-code"
    droid = [
        {"type": "session_start", "id": "d1", "title": "t", "cwd": "/w"},
        {"type": "message", "id": "m1", "parentId": None, "message": {"role": "user"}},
        {
            "type": "message",
            "id": "m2",
            "parentId": "m1",
            "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]},
        },
    ]
    for rows in (droid, droid[1:]):
        with pytest.raises(TranscriptError, match="not a format"):
            detect_format(write(tmp_path, rows))
    headless = write(tmp_path, compacted_session()[1:])
    assert detect_format(headless) == "pi"
    (run,) = load_pi(headless)
    assert (
        run.import_problems[0].field == "type"
        and "no session header" in run.import_problems[0].problem
    )


# -- fuzzing ---------------------------------------------------------------------------------

WRONG = wrong_values("message", "compaction", "toolCall", "toolResult", "assistant", "user")
READ = frozenset(
    {
        "type",
        "id",
        "parentId",
        "message",
        "role",
        "content",
        "text",
        "toolCallId",
        "toolName",
        "isError",
        "arguments",
        "name",
        "usage",
        "input",
        "output",
        "cacheRead",
        "cost",
        "summary",
        "firstKeptEntryId",
        "version",
        "stopReason",
        "thinking",
    }
)
SESSIONS = {"real": lines_of(REAL), "compacted": compacted_session()}


def imports_or_raises(path: Path) -> None:
    """The run, or None for a TranscriptError naming ``path`` (the importers' one oracle:
    :func:`tests.importers.helpers.one_run_or_transcript_error`)."""
    run = one_run_or_transcript_error(load_pi, path, "pi")
    if run is not None:
        run.save(path.with_suffix(".run.json"))


@FUZZ
@given(st.data(), st.sampled_from(sorted(SESSIONS)))
def test_mutated_sessions_import_or_raise_a_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    rows = copy.deepcopy(SESSIONS[name])
    for _ in range(data.draw(st.integers(1, 3))):
        k = data.draw(st.integers(0, len(rows) - 1))
        rows[k] = helpers.mutate(data.draw, rows[k], WRONG, READ)
    path = tmp_path / "fuzzed.jsonl"
    path.write_text("".join(json.dumps(r, allow_nan=True) + "\n" for r in rows))
    imports_or_raises(path)


def test_every_single_change_to_the_real_session_imports_or_raises(tmp_path: Path) -> None:
    path = tmp_path / "changed.jsonl"
    base = lines_of(REAL)
    values: tuple[Any, ...] = (None, True, -1, 10**400, float("nan"), "x", [], {}, "delete")
    for k in range(len(sites(base))):
        for value in values:
            rows = copy.deepcopy(base)
            parent, key = sites(rows)[k]
            if value == "delete":
                del parent[key]
            else:
                parent[key] = value
            path.write_text("".join(json.dumps(r, allow_nan=True) + "\n" for r in rows))
            imports_or_raises(path)
