"""Tests of the Gemini CLI chat recording importer, on the recording in
``data/transcripts/gemini-cli/`` (kvsankar/agent-history's fixture, the shape Gemini CLI
writes) and on small edits of it into the other shapes Gemini CLI's own source writes
(``packages/core/src/services/chatRecordingService.ts`` and ``core/geminiChat.ts`` of
google-gemini/gemini-cli): the JSON-lines log (header, message records re-recorded as a
reply gains usage and calls, ``$set`` checkpoints, ``$rewindTo``), a compression checkpoint,
a masked tool output, results recorded twice, notices and the text the CLI writes itself.
Every number is checked against the file's own fields; faults name the file, the place and
the field; mutated recordings give runs or a TranscriptError, never another exception."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import Message, load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import TranscriptError, detect_format, load, load_gemini_cli
from footprint_lab.importers._sniff import sniff
from footprint_lab.importers.gemini_cli import FILE_FORMAT
from footprint_lab.lab import capture
from tests.importers import helpers
from tests.importers.helpers import FUZZ, history, one_run_or_transcript_error, wrong_values

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "gemini-cli"
REAL = DATA / "fixture.gemini_golden.json"
ACK = "Got it. Thanks for the additional context!"


def recording() -> dict[str, Any]:
    """The real recording, as JSON (a fresh copy)."""
    value: dict[str, Any] = json.loads(REAL.read_text("utf-8"))
    return value


def header(record: dict[str, Any]) -> dict[str, Any]:
    """The session fields of a recording: the first line of its JSON-lines form."""
    return {k: v for k, v in record.items() if k != "messages"}


def write_lines(tmp_path: Path, lines: list[Any], name: str = "session.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def write_object(tmp_path: Path, record: dict[str, Any], name: str = "session.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(record, indent=2))
    return path


def wire(messages: list[Message]) -> list[tuple[object, ...]]:
    """What each message is on the wire."""
    return [
        (m.role, m.content, m.tool_call_id, [(c.id, c.name, c.arguments) for c in m.tool_calls])
        for m in messages
    ]


def windows(run: Run) -> list[list[Message]]:
    return [list(run.ledger.window_at(c.sent_commit)) for c in run.calls]


# -- the real recording ------------------------------------------------------------------------


def expected_from_file(record: dict[str, Any]) -> list[tuple[object, ...]]:
    """The conversation the file's own messages hold, read here independently of the importer:
    a user message per user record, an assistant message per gemini record, and after it one
    tool result per call: its functionResponse's ``response.output``."""
    out: list[tuple[object, ...]] = []
    for message in record["messages"]:
        content = message["content"]
        text = content if isinstance(content, str) else "".join(p["text"] for p in content)
        if message["type"] == "user":
            out.append(("user", text, None, []))
        elif message["type"] == "gemini":
            calls = message.get("toolCalls", [])
            out.append(("assistant", text, None, [(c["id"], c["name"], c["args"]) for c in calls]))
            for call in calls:
                (part,) = call["result"]
                response = part["functionResponse"]
                assert response["id"] == call["id"]
                out.append(("tool", response["response"]["output"], call["id"], []))
    return out


def test_the_real_recording_imports_true() -> None:
    record = recording()
    (run,) = load_gemini_cli(REAL)
    assert wire(history(run)) == expected_from_file(record)
    users = [m["content"] for m in record["messages"] if m["type"] == "user"]
    assert run.requests == users and run.request == users[-1]
    assert run.import_problems == [] and run.records == []
    assert run.status == "done" and run.output == record["messages"][-1]["content"]
    # every call is answered by exactly one result, right after the reply that made it
    messages = history(run)
    for k, message in enumerate(messages):
        for n, tool_call in enumerate(message.tool_calls):
            answers = [m for m in messages if m.tool_call_id == tool_call.id]
            assert len(answers) == 1 and answers[0] is messages[k + 1 + n]
            assert answers[0].name == tool_call.name
    # usage: input + tool prompt tokens, output + thoughts, cached, per reply
    replies = [m for m in record["messages"] if m["type"] == "gemini"]
    assert len(run.calls) == len(replies)
    for made, reply in zip(run.calls, replies, strict=True):
        tokens, usage = reply["tokens"], made.usage
        assert usage is not None
        assert usage.input_tokens == tokens["input"] + tokens["tool"]
        assert usage.output_tokens == tokens["output"] + tokens["thoughts"]
        assert usage.cache_read_tokens == tokens["cached"]
    # the thought summaries are the replies' thinking parts
    thoughts = [[p.text for p in m.parts] for m in messages if m.role == "assistant"]
    assert thoughts == [
        [f"**{t['subject']}** {t['description']}" for t in reply["thoughts"]] for reply in replies
    ]
    assert run.model == replies[0]["model"] and run.provider == "gemini-cli"


def test_the_real_recordings_meta_says_what_it_holds_and_lacks() -> None:
    record = recording()
    (run,) = load_gemini_cli(REAL)
    meta = run.meta
    for key in ("sessionId", "projectHash", "startTime", "lastUpdated"):
        assert meta[key] == record[key]
    assert meta["label"] == record["sessionId"] and meta["log_file"] == str(REAL)
    assert meta["model"] == "gemini-2.5-pro" and "models" not in meta
    assert meta["form"] == "json"
    assert meta["notices"] == meta["compressions"] == meta["compression_notices"] == []
    assert run.origin.recorded.model_dump() == {
        "inputs": False,  # the object form records no window: no compression is recorded
        "usage": True,
        "tool_results": True,
        "model": True,
        "outcome": False,
    }


def test_load_detects_it_and_gives_the_same_run() -> None:
    assert detect_format(REAL) == "gemini-cli"
    (direct,) = load_gemini_cli(REAL)
    (loaded,) = load(REAL)
    assert loaded.origin.format == "gemini-cli"
    assert {k: v for k, v in loaded.meta.items() if k != "format"} == direct.meta
    assert wire(history(loaded)) == wire(history(direct))
    assert [c.usage for c in loaded.calls] == [c.usage for c in direct.calls]


def test_the_run_works_downstream(tmp_path: Path) -> None:
    (run,) = load_gemini_cli(REAL)
    replayed = replay(run, sliding_window(2))
    assert len(replayed.calls) == len(run.calls)
    frames = capture(run)
    assert len(frames.calls) == len(run.calls)
    again = load_run(run.save(tmp_path / "run.json"))
    assert wire(history(again)) == wire(history(run))
    assert again.meta == run.meta
    assert helpers.saved(run, tmp_path).requests == run.requests


def test_a_folder_imports_each_recording_in_name_order(tmp_path: Path) -> None:
    write_object(tmp_path, recording(), "b.json")
    write_lines(tmp_path, [header(recording()), *recording()["messages"]], "a.jsonl")
    runs = load_gemini_cli(tmp_path)
    assert [Path(r.meta["log_file"]).name for r in runs] == ["a.jsonl", "b.json"]
    assert wire(history(runs[0])) == wire(history(runs[1]))


# -- the JSON-lines form (small edits of the real recording) -----------------------------------


def streamed(record: dict[str, Any]) -> list[Any]:
    """The JSON-lines log Gemini CLI (v0.39+) writes for ``record``: the header, each message as
    recorded — a reply first without usage and calls, then re-recorded with its tokens, then
    with its tool calls (recordMessage, recordMessageTokens, recordToolCalls) — and the
    ``$set`` of ``lastUpdated`` after each message."""
    lines: list[Any] = [header(record)]
    for message in record["messages"]:
        if message["type"] == "gemini":
            bare = {k: v for k, v in message.items() if k not in ("tokens", "toolCalls")}
            lines.append({**bare, "tokens": None})
            lines.append({k: v for k, v in message.items() if k != "toolCalls"})
        lines.append(message)
        lines.append({"$set": {"lastUpdated": message["timestamp"]}})
    return lines


@pytest.mark.parametrize("shape", ["header and messages", "streamed", "no header"])
def test_the_json_lines_form_imports_as_the_object_does(tmp_path: Path, shape: str) -> None:
    record = recording()
    lines = (
        streamed(record)
        if shape == "streamed"
        else [header(record), *record["messages"]]
        if shape == "header and messages"
        else record["messages"]
    )
    path = write_lines(tmp_path, lines)
    assert detect_format(path) == "gemini-cli"
    (run,) = load_gemini_cli(path)
    (real,) = load_gemini_cli(REAL)
    assert wire(history(run)) == wire(history(real))
    assert [c.usage for c in run.calls] == [c.usage for c in real.calls]
    assert run.import_problems == [] and run.records == []
    assert run.meta["form"] == "json-lines"
    assert run.meta["sessionId"] == (None if shape == "no header" else record["sessionId"])
    assert run.meta["label"] == (path.stem if shape == "no header" else record["sessionId"])


def test_results_recorded_twice_are_one_result(tmp_path: Path) -> None:
    """From v0.44 Gemini CLI also records the turn that sends the results as a user record of
    functionResponse parts (geminiChat.ts: 'Record tool response as a message')."""
    record = recording()
    reply = record["messages"][1]
    echo = {
        "id": "tool-turn",
        "timestamp": reply["timestamp"],
        "type": "user",
        "content": reply["toolCalls"][0]["result"],
    }
    record["messages"].insert(2, echo)
    (run,) = load_gemini_cli(write_object(tmp_path, record))
    (real,) = load_gemini_cli(REAL)
    assert wire(history(run)) == wire(history(real))
    assert run.meta["duplicate_results"] == 1 and run.requests == real.requests


def test_the_content_form_of_a_checkpoint_reads_as_the_record_form(tmp_path: Path) -> None:
    """Gemini CLI's checkpoints (updateMessagesFromHistory) write a reply's content as the
    model's parts (thoughts, text, functionCall) and its results as a user turn of
    functionResponse parts: the same conversation."""
    record = recording()
    reply = record["messages"][1]
    call = reply["toolCalls"][0]
    reply["content"] = [
        {"text": "**File Reading Request** look", "thought": True},
        {"text": reply["content"]},
        {"functionCall": {"id": call["id"], "name": call["name"], "args": call["args"]}},
    ]
    del reply["toolCalls"]
    record["messages"].insert(
        2, {"id": "r", "timestamp": "t", "type": "user", "content": call["result"]}
    )
    (run,) = load_gemini_cli(write_object(tmp_path, record))
    (real,) = load_gemini_cli(REAL)
    assert wire(history(run)) == wire(history(real))
    assert [p.text for p in history(run)[1].parts] == ["**File Reading Request** look"]


# -- what Gemini CLI did to its window: compression, rewind, masking ---------------------------


NOTICE = "Context compressed from 61% to 9%."
"""The notice Gemini CLI (v0.33+) shows after an automatic compression."""


def compressed(record: dict[str, Any]) -> list[Any]:
    """The real recording's log, then a compression as Gemini CLI (v0.44+) records it: the
    notice it shows, and a ``$set.messages`` checkpoint holding the summary turn, the model's
    acknowledgement and the kept turns under new ids (chatCompressionService.compress,
    client.tryCompressChat -> startChat(newHistory, resumedData) ->
    updateMessagesFromHistory); then one more exchange. The checkpoint writes a kept reply as
    the parts sent (its text untrimmed: the recorder trims the text it records)."""
    first, reply, second, answer = record["messages"]
    kept = [
        {**second, "id": "kept-1", "content": [{"text": second["content"]}]},
        {"id": "kept-2", "timestamp": answer["timestamp"], "type": "gemini",
         "content": [{"text": answer["content"] + "\n"}]},
    ]  # fmt: skip
    summary = "<state_snapshot>The user read package.json: test-project 1.0.0</state_snapshot>"
    checkpoint = [
        {"id": "summary", "timestamp": "t", "type": "user", "content": [{"text": summary}]},
        {"id": "ack", "timestamp": "t", "type": "gemini", "content": [{"text": ACK}]},
        *kept,
    ]
    return [
        header(record),
        first,
        reply,
        second,
        answer,
        {"id": "n1", "timestamp": "t", "type": "info", "content": NOTICE},
        {"$set": {"messages": checkpoint, "lastUpdated": "t"}},
        {"id": "u3", "timestamp": "t", "type": "user", "content": [{"text": "And its version?"}]},
        {"id": "g3", "timestamp": "t", "type": "gemini", "content": "1.0.0", "model": "m",
         "tokens": {"input": 90, "output": 3, "cached": 0, "thoughts": 0, "tool": 0, "total": 93}},
    ]  # fmt: skip


def test_a_compression_is_an_observed_record_naming_what_left(tmp_path: Path) -> None:
    record = recording()
    lines = compressed(record)
    (run,) = load_gemini_cli(write_lines(tmp_path, lines))
    assert run.import_problems == []
    # the history holds every message once, and never the summary or the acknowledgement
    kept = history(run)
    assert wire(kept)[:5] == expected_from_file(record)
    assert [m.content for m in kept[5:]] == ["And its version?", "1.0.0"]
    summary_text = lines[6]["$set"]["messages"][0]["content"][0]["text"]
    assert all(m.content not in (summary_text, ACK) for m in kept)
    # the call after it was sent the summary, the acknowledgement, the kept turns and the new prompt
    *_, last = windows(run)
    assert [(m.role, m.content) for m in last] == [
        ("user", summary_text),
        ("assistant", ACK),
        ("user", record["messages"][2]["content"]),
        ("assistant", record["messages"][3]["content"]),
        ("user", "And its version?"),
    ]
    assert [m.authored for m in last[:2]] == ["compaction-frame"] * 2
    (observed,) = run.records
    assert observed.observed and observed.strategy == "gemini-cli" and observed.iteration == 3
    left = [run.ledger.message(stage) for stage in observed.removed_stage_ids]
    assert wire(left) == expected_from_file(record)[:3]  # the first request, its reply, its result
    assert run.request == "And its version?"
    assert run.meta["compressions"] == [
        {"line": 7, "summary_id": "summary", "summary_chars": len(summary_text)}
    ]
    assert run.meta["compression_notices"] == [{"line": 6, "type": "info", "text": NOTICE}]
    assert run.origin.recorded.inputs is True
    replay(run, sliding_window(2))
    capture(run)


def test_a_compression_notice_alone_records_no_window(tmp_path: Path) -> None:
    """Before v0.44 the recording holds only the notice Gemini CLI showed (useGeminiStream's
    handleChatCompressionEvent; an empty info record for /compress): listed, no record."""
    record = recording()
    notice = (
        "IMPORTANT: This conversation exceeded the compress threshold. A compressed context "
        "will be sent for future messages (compressed from: 1000 to 200 tokens)."
    )
    record["messages"][2:2] = [
        {"id": "n1", "timestamp": "t", "type": "info", "content": notice},
        {"id": "n2", "timestamp": "t", "type": "info", "content": ""},
    ]
    (run,) = load_gemini_cli(write_object(tmp_path, record))
    assert run.records == [] and run.origin.recorded.inputs is False
    assert run.meta["compression_notices"] == [
        {"message": 2, "type": "info", "text": notice},
        {"message": 3, "type": "info", "text": ""},
    ]
    assert run.meta["compressions"] == []


def test_a_rewind_leaves_the_history_and_names_what_left_the_window(tmp_path: Path) -> None:
    record = recording()
    first, reply, second, answer = record["messages"]
    redo = {**second, "id": "redo", "content": "Which version is it?"}
    again = {**answer, "id": "again", "content": "1.0.0"}
    lines = [header(record), first, reply, second, answer, {"$rewindTo": second["id"]}, redo, again]
    (run,) = load_gemini_cli(write_lines(tmp_path, lines))
    assert [m.content for m in history(run)][-4:] == [
        second["content"],
        answer["content"],
        "Which version is it?",
        "1.0.0",
    ]
    (observed,) = run.records
    left = [run.ledger.message(stage) for stage in observed.removed_stage_ids]
    assert [m.content for m in left] == [second["content"], answer["content"]]
    assert run.meta["rewinds"] == [{"line": 6, "to": second["id"], "found": True, "left": 2}]


def test_a_masked_tool_output_is_a_stand_in_in_place(tmp_path: Path) -> None:
    """Gemini CLI (v0.39-0.43) re-records a reply whose tool output it masked
    (updateMessagesFromHistory's masking sync): the original stays history, later calls get
    the masked text in its place."""
    record = recording()
    first, reply, second, answer = record["messages"]
    masked = copy.deepcopy(reply)
    response = masked["toolCalls"][0]["result"][0]["functionResponse"]["response"]
    response["output"] = "<tool_output_masked>saved to a file</tool_output_masked>"
    lines = [header(record), first, reply, masked, second, answer]
    (run,) = load_gemini_cli(write_lines(tmp_path, lines))
    assert wire(history(run)) == expected_from_file(record)
    (observed,) = run.records
    (cleared,) = observed.cleared_stage_ids
    original = run.ledger.message(cleared)
    assert (
        original.role == "tool"
        and original.content == '{"name": "test-project", "version": "1.0.0"}'
    )
    stand_in = next(m for m in windows(run)[1] if m.authored == "cleared-result")
    assert stand_in.content == response["output"] and stand_in.tool_call_id == original.tool_call_id
    assert run.meta["rewritten_results"] == [{"line": 4, "id": reply["id"]}]


def test_a_new_sessions_first_checkpoint_is_history(tmp_path: Path) -> None:
    """From v0.44 a session starts with a checkpoint holding its <session_context> turn: that
    turn was sent (an observation), nothing left, no record."""
    record = recording()
    context = "<session_context>\nThis is the Gemini CLI.\n</session_context>"
    boot = {
        "$set": {
            "messages": [
                {"id": "c", "timestamp": "t", "type": "user", "content": [{"text": context}]}
            ]
        }
    }
    (run,) = load_gemini_cli(write_lines(tmp_path, [header(record), boot, *record["messages"]]))
    assert history(run)[0].content == context
    assert run.records == [] and run.requests == [m["content"] for m in record["messages"][::2]]
    assert run.meta["checkpoints"][0]["line"] == 2 and run.origin.recorded.inputs is True


# -- roles: notices, text the CLI writes, results from a status -------------------------------


def test_notices_stay_in_meta_and_the_clis_own_text_is_never_a_request(tmp_path: Path) -> None:
    record = recording()
    messages = record["messages"]
    messages[2:2] = [
        {"id": "w", "timestamp": "t", "type": "warning", "content": "Loop detected"},
        {"id": "e", "timestamp": "t", "type": "error", "content": "[API Error: quota]"},
        {"id": "p", "timestamp": "t", "type": "user", "content": "Please continue."},
    ]
    messages.insert(
        0,
        {"id": "h", "timestamp": "t", "type": "user", "content": "<hook_context>x</hook_context>"},
    )
    (run,) = load_gemini_cli(write_object(tmp_path, record))
    assert run.requests == ["Read the package.json file", "What's the project name?"]
    assert [
        m.content for m in history(run) if m.stage_id and m.stage_id.startswith("observation")
    ] == [
        "<hook_context>x</hook_context>",
        "Please continue.",
    ]
    assert run.meta["notices"] == [
        {"message": 3, "type": "warning", "text": "Loop detected"},
        {"message": 4, "type": "error", "text": "[API Error: quota]"},
    ]
    assert all(
        m.content not in ("Loop detected", "[API Error: quota]") for m in run.ledger.messages
    )


def test_binary_tool_output_is_sent_as_an_observation(tmp_path: Path) -> None:
    """From v0.44 Gemini CLI sends a tool's binary output (an image a file read returned) as
    its own user turn, after a model turn it writes itself (geminiChat.ts, 'Binary
    injections'); it records them as a gemini record with that one thought and an info
    record with the parts."""
    record = recording()
    first, reply, _, answer = record["messages"]
    ack = {"text": "Binary content received. Proceeding with analysis.", "thought": True}
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo" * 4}}
    record["messages"] = [
        first,
        reply,
        {"id": "ack", "timestamp": "t", "type": "gemini", "content": [ack]},
        {"id": "img", "timestamp": "t", "type": "info", "content": [image]},
        answer,
    ]
    (run,) = load_gemini_cli(write_object(tmp_path, record))
    kept = history(run)
    assert [(m.role, m.content) for m in kept][3] == ("user", "")
    assert [p.kind for p in kept[3].parts] == ["image"] and kept[3].parts[0].data_chars == 44
    assert kept[3].stage_id is not None and kept[3].stage_id.startswith("observation")
    assert len(run.calls) == 2 and run.meta["skipped"] == {"binary-ack": 1}
    assert run.requests == [first["content"]] and run.meta["notices"] == []


def test_a_resumed_session_keeps_one_history(tmp_path: Path) -> None:
    """Resuming (v0.44+) writes a checkpoint of the old messages (same ids, a reply as the
    parts sent, its results as a user turn ``<id>_response``: sessionUtils'
    convertSessionToClientHistory) after a fresh <session_context>: the history is not
    repeated; only the fresh context is new in the window."""
    record = recording()
    first, reply, second, answer = record["messages"]
    call = reply["toolCalls"][0]
    parts = [
        {"text": reply["content"]},
        {"functionCall": {"id": call["id"], "name": call["name"], "args": call["args"]}},
    ]
    context = {"id": "ctx", "timestamp": "t", "type": "user", "content": "<session_context>"}
    checkpoint = [
        context,
        first,
        {**reply, "content": parts},
        {
            "id": f"{reply['id']}_response",
            "timestamp": "t",
            "type": "user",
            "content": call["result"],
        },
        second,
        {**answer, "content": [{"text": answer["content"]}]},
    ]
    more = [
        {"id": "u3", "timestamp": "t", "type": "user", "content": "Thanks"},
        {
            "id": "g3",
            "timestamp": "t",
            "type": "gemini",
            "content": "You're welcome.",
            "model": "m",
        },
    ]
    lines = [header(record), *record["messages"], {"$set": {"messages": checkpoint}}, *more]
    (run,) = load_gemini_cli(write_lines(tmp_path, lines))
    assert wire(history(run))[:5] == expected_from_file(record)
    assert [m.content for m in history(run)[5:]] == ["Thanks", "You're welcome."]
    (observed,) = run.records
    assert observed.removed_stage_ids == []
    assert [m.content for m in windows(run)[-1] if m.authored] == ["<session_context>"]


def test_a_call_without_a_result(tmp_path: Path) -> None:
    record = recording()
    call = record["messages"][1]["toolCalls"][0]
    del call["result"]
    call["status"], call["resultDisplay"] = "cancelled", "Tool call cancelled by user."
    (run,) = load_gemini_cli(write_object(tmp_path, record))
    result = history(run)[2]
    assert (result.role, result.tool_call_id, result.content) == (
        "tool",
        call["id"],
        "cancelled: Tool call cancelled by user.",
    )
    assert run.meta["results_from_status"] == 1 and run.import_problems == []
    call["status"] = "success"  # no result and no error: the next reply came without one
    path = write_object(tmp_path, record)
    (run,) = load_gemini_cli(path)
    assert [(p.index, p.field) for p in run.import_problems] == [(1, "toolCalls[0].id")]
    assert "unanswered call" in run.import_problems[0].problem
    with pytest.raises(TranscriptError, match="unanswered call") as caught:
        load_gemini_cli(path, strict=True)
    assert (caught.value.index, caught.value.field, caught.value.unit) == (
        1,
        "toolCalls[0].id",
        "message",
    )


def test_a_recording_that_stops_at_a_call_is_incomplete(tmp_path: Path) -> None:
    record = recording()
    del record["messages"][1]["toolCalls"][0]["result"]
    record["messages"][2:] = []
    (run,) = load_gemini_cli(write_object(tmp_path, record))
    assert run.status == "incomplete" and run.import_problems == []


# -- faults ----------------------------------------------------------------------------------


def test_problems_name_the_message_and_the_field(tmp_path: Path) -> None:
    record = recording()
    record["messages"][3]["tokens"]["input"] = -5
    record["messages"][1]["toolCalls"][0]["name"] = ""
    path = write_object(tmp_path, record)
    (run,) = load_gemini_cli(path)
    assert [(p.index, p.field, p.unit) for p in run.import_problems] == [
        (1, "toolCalls[0].name", "message"),
        (3, "tokens.input", "message"),
    ]
    assert run.calls[1].usage is None
    with pytest.raises(TranscriptError, match="empty tool name") as caught:
        load_gemini_cli(path, strict=True)
    assert (caught.value.path, caught.value.index) == (str(path), 1)


@pytest.mark.parametrize(
    ("payload", "index", "field", "says"),
    [
        ('{\n  "sessionId": "x",\n  "messages": [', None, "file", "not JSON"),
        ('{"sessionId": "s", "projectHash": "h"}\n{"id": "a", "typ', 2, "line", "not JSON"),
        (
            '{"sessionId": "s", "projectHash": "h", "messages": 3}',
            None,
            "messages",
            "expected a list",
        ),
        (
            '{"sessionId": "s", "projectHash": "h", "messages": [4]}',
            0,
            "message",
            "expected a message",
        ),
        (
            '{"sessionId": "s", "startTime": "h", '
            '"messages": [{"type": "gemini", "toolCalls": 1}]}',
            0,
            "toolCalls",
            "expected a list",
        ),
        (
            '{"sessionId": "s", "startTime": "t"}\n{"id": "a", "timestamp": "t", "type": 7}',
            2,
            "type",
            "expected one of",
        ),
        ('[{"role": "user", "content": "hi"}]', None, "file", "not a Gemini CLI chat recording"),
        ('{"type": "session", "id": "x", "parentId": null}\n', None, "file", "not a Gemini CLI"),
    ],
)
def test_a_malformed_recording_is_a_transcript_error_naming_the_place(
    tmp_path: Path, payload: str, index: int | None, field: str, says: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(payload)
    with pytest.raises(TranscriptError, match=says) as caught:
        load_gemini_cli(path)
    assert (caught.value.path, caught.value.index, caught.value.field) == (str(path), index, field)
    assert caught.value.source == "gemini-cli" and str(path) in str(caught.value)


def test_an_unknown_message_type_is_listed_not_imported(tmp_path: Path) -> None:
    record = recording()
    record["messages"].append({"id": "z", "timestamp": "t", "type": "system", "content": "x"})
    (run,) = load_gemini_cli(write_object(tmp_path, record))
    assert [(p.index, p.field) for p in run.import_problems] == [(4, "type")]
    assert run.meta["skipped"] == {"type 'system'": 1} and len(history(run)) == 5


# -- telling the format ------------------------------------------------------------------------

FOREIGN_LINES = {
    "claude-code": {"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user"}},
    "pi": {"type": "session", "version": 3, "id": "x", "timestamp": "t", "cwd": "/"},
    "pi-message": {"type": "message", "id": "a", "parentId": None, "timestamp": "t", "message": {}},
    "codex": {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}},
    "claude-like user with id": {"id": "a", "timestamp": "t", "type": "user", "uuid": "u"},
}


@pytest.mark.parametrize("name", sorted(FOREIGN_LINES))
def test_another_stacks_lines_are_not_claimed(tmp_path: Path, name: str) -> None:
    path = write_lines(tmp_path, [FOREIGN_LINES[name], FOREIGN_LINES[name]])
    assert not FILE_FORMAT.claims(sniff(path))


@pytest.mark.parametrize(
    "lines",
    [
        [{"sessionId": "s", "projectHash": "h", "startTime": "t"}],
        [{"sessionId": "s", "startTime": "t", "kind": "main"}],
        [{"id": "a", "timestamp": "t", "type": "info", "content": "hello"}],
        [{"id": "a", "timestamp": "t", "type": "user", "content": "hi", "sessionId": "s"}],
    ],
)
def test_a_recordings_first_line_is_claimed(tmp_path: Path, lines: list[Any]) -> None:
    path = write_lines(tmp_path, lines)
    assert FILE_FORMAT.claims(sniff(path)) and detect_format(path) == "gemini-cli"


def test_a_cut_recording_is_still_claimed_and_its_own_error(tmp_path: Path) -> None:
    payload = REAL.read_bytes()
    path = tmp_path / "cut.json"
    path.write_bytes(payload[: len(payload) // 2])
    assert detect_format(path) == "gemini-cli"
    with pytest.raises(TranscriptError) as caught:
        load(path)
    assert (caught.value.source, caught.value.path, caught.value.field) == (
        "gemini-cli",
        str(path),
        "file",
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"sessionId": "s", "messages": []}', "neither projectHash nor startTime"),
        (
            '{"$set": {"lastUpdated": "t"}}\n{"$set": {"lastUpdated": "u"}}\n',
            "lost its first lines",
        ),
        ('[{"role": "user", "parts": [{"text": "hi"}]}]', "/chat save"),
    ],
)
def test_a_file_that_only_looks_like_a_recording_is_refused_saying_so(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(text)
    with pytest.raises(TranscriptError, match=says) as caught:
        detect_format(path)
    assert "formats tried" in str(caught.value)


# -- fuzzing ---------------------------------------------------------------------------------

WRONG = wrong_values("user", "gemini", "info", "functionResponse", "read_file-001", ACK)
READ = frozenset(
    {
        "sessionId",
        "messages",
        "id",
        "type",
        "content",
        "text",
        "thought",
        "thoughts",
        "subject",
        "description",
        "tokens",
        "input",
        "output",
        "cached",
        "toolCalls",
        "name",
        "args",
        "result",
        "functionResponse",
        "functionCall",
        "response",
        "status",
        "model",
        "$set",
        "$rewindTo",
    }
)
"""Keys the importer reads: the walk prefers them, so mutations land where they matter."""
SOURCES: dict[str, Any] = {
    "object": recording(),
    "streamed": streamed(recording()),
    "compressed": compressed(recording()),
}


def imports_or_raises(path: Path) -> None:
    """The run, or None for a TranscriptError naming ``path`` (the importers' one oracle:
    :func:`tests.importers.helpers.one_run_or_transcript_error`)."""
    one_run_or_transcript_error(load_gemini_cli, path, "gemini-cli")


@FUZZ
@given(st.data(), st.sampled_from(sorted(SOURCES)))
def test_a_mutated_recording_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    value = copy.deepcopy(SOURCES[name])
    for _ in range(data.draw(st.integers(1, 3))):
        value = helpers.mutate(data.draw, value, WRONG, READ)
    if isinstance(value, list):
        path = tmp_path / "fuzzed.jsonl"
        path.write_text("".join(json.dumps(line, allow_nan=True) + "\n" for line in value))
    else:
        path = tmp_path / "fuzzed.json"
        path.write_text(json.dumps(value, allow_nan=True, indent=2))
    imports_or_raises(path)


@FUZZ
@given(st.data(), st.sampled_from(sorted(SOURCES)))
def test_a_recording_cut_at_any_byte_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    value = SOURCES[name]
    text = (
        "".join(json.dumps(line) + "\n" for line in value)
        if isinstance(value, list)
        else json.dumps(value, indent=2)
    )
    payload = text.encode()
    cut = data.draw(st.integers(0, len(payload)))
    path = tmp_path / ("cut.jsonl" if isinstance(value, list) else "cut.json")
    path.write_bytes(payload[:cut] + data.draw(st.sampled_from([b"", b"\n", b"\xff"])))
    imports_or_raises(path)
