"""Tests of the OpenAI Responses API / Agents SDK importer (``openai-responses``).

No real file of this format is public, so every input here is **built from the vendor's
documented shapes** (content written for the test), never recorded by the API:

* the item and Response shapes of the openai SDK's types, ``src/openai/types/responses/*.py``
  (openai/openai-python @ e43b422412a9e96c9cc5192c61fffbe2d7e04836: ``ResponseInputItem``,
  ``ResponseOutputItem``, ``Response``, ``ResponseUsage``, ``ResponseCompactionItem``,
  ``CompactedResponse``) — every file in ``tests/data/openai-responses/`` validates against
  the installed SDK's own models (the first test);
* what an Agents SDK session stores (``SQLiteSession.get_items()``: the person's input as a
  plain ``{"content", "role"}``, model output as ``model_dump(exclude_unset=True)``, handoffs
  as function calls) and what ``OpenAIResponsesCompactionSession`` leaves after
  ``responses.compact`` (openai/openai-agents-python @
  7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7, ``src/agents/memory/``);
* the compaction rules of developers.openai.com/api/docs/guides/compaction (server-side
  compaction emits a ``compaction`` item and prunes the context; items before the latest
  compaction item may be dropped; ``responses.compact`` returns the user messages and one
  compaction item).

The files: ``agents-sdk-session.json`` (a session dump), ``stateless-with-compaction.json``
(a stateless input list with a server-side compaction item), ``responses-log.json`` (input
items, each followed by the Response it got, with usage), ``responses-only.jsonl`` (Response
objects alone, one a line). Other cases are small edits of these, built in the tests.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.responses import Response
from openai.types.responses.response_input_item import ResponseInputItem
from pydantic import TypeAdapter

from footprint_lab import Message, judge, load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import TranscriptError, detect_format, load
from footprint_lab.importers._sniff import sniff
from footprint_lab.importers.chat._responses_shape import claims, head_items
from footprint_lab.importers.chat.responses import from_openai_responses, load_openai_responses
from footprint_lab.lab import capture
from tests.budget import examples
from tests.importers.helpers import history, mutate, wrong_values

DATA = Path(__file__).resolve().parents[1] / "data" / "openai-responses"
SESSION = DATA / "agents-sdk-session.json"
COMPACTED = DATA / "stateless-with-compaction.json"
LOG = DATA / "responses-log.json"
ONLY = DATA / "responses-only.jsonl"
FILES = (SESSION, COMPACTED, LOG, ONLY)
ASSISTANT_SIDE = {"reasoning", "function_call", "custom_tool_call", "web_search_call"}


def raw(path: Path) -> list[Any]:
    """The file's elements, read independently of the importer."""
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    value: list[Any] = json.loads(path.read_text("utf-8"))
    return value


def flat(elements: list[Any]) -> list[dict[str, Any]]:
    """Every item, a Response's output items in place of the Response."""
    out: list[dict[str, Any]] = []
    for element in elements:
        out.extend(element["output"] if element.get("object") == "response" else [element])
    return out


def text_of(item: dict[str, Any]) -> str:
    content = item["content"]
    if isinstance(content, str):
        return content
    return "".join(p["text"] for p in content if p["type"] in ("input_text", "output_text"))


def is_assistant_side(item: dict[str, Any]) -> bool:
    return item.get("type") in ASSISTANT_SIDE or item.get("role") == "assistant"


def replies(elements: list[Any]) -> int:
    """Model calls: each Response is one; else each maximal run of assistant-side items."""
    count, inside = 0, False
    for element in elements:
        if element.get("object") == "response":
            count, inside = count + 1, False
        elif element.get("type") == "compaction":
            inside = False
        elif is_assistant_side(element):
            count, inside = count + (not inside), True
        else:
            inside = False
    return count


def user_texts(elements: list[Any]) -> list[str]:
    return [text_of(i) for i in flat(elements) if i.get("role") == "user"]


def calls_in(elements: list[Any]) -> dict[str, str]:
    return {
        i["call_id"]: i["name"]
        for i in flat(elements)
        if i.get("type") in ("function_call", "custom_tool_call")
    }


def left_by(run: Run, record: Any) -> list[Message]:
    """The messages a record names as having left (its stage ids resolved in the ledger;
    a stage of several results is named once per result)."""
    return [m for s in dict.fromkeys(record.removed_stage_ids) for m in run.ledger.messages_of(s)]


def one(path: Path) -> Run:
    [run] = load_openai_responses(path)
    return run


# -- the inputs follow the documented shapes --------------------------------------------------


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_input_validates_against_the_openai_sdk_types(path: Path) -> None:
    items = TypeAdapter(ResponseInputItem)
    for element in raw(path):
        if element.get("object") == "response":
            Response.model_validate(element)
        else:
            items.validate_python(element)


# -- the files, read truly ----------------------------------------------------------------------


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_detected_and_loaded_as_openai_responses(path: Path) -> None:
    assert claims(sniff(path))
    assert detect_format(path) == "openai-responses"
    [run] = load(path)
    assert run.origin.format == "openai-responses"
    [direct] = load_openai_responses(path)
    assert [m.content for m in run.ledger.messages] == [m.content for m in direct.ledger.messages]
    assert run.provider == "openai-responses" and run.meta["log_file"] == str(path)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_requests_calls_and_results_are_the_files_own(path: Path) -> None:
    elements = raw(path)
    run = one(path)
    assert run.requests == user_texts(elements)
    assert run.request == (user_texts(elements) or [""])[-1]
    assert len(run.calls) == replies(elements)
    made = {c.id: c.name for m in history(run) for c in m.tool_calls}
    assert made == calls_in(elements)
    answered = {m.tool_call_id or "": m.name for m in history(run) if m.role == "tool"}
    outputs = [i["call_id"] for i in flat(elements) if str(i.get("type")).endswith("_output")]
    assert sorted(answered) == sorted(outputs)
    assert all(answered[k] == made[k] for k in answered)  # each result names its call's tool
    assert run.import_problems == []


def test_session_dump_reasoning_image_and_missing_usage() -> None:
    elements = raw(SESSION)
    run = one(SESSION)
    assert run.status == "done" and run.output == text_of(elements[-1])
    assert run.origin.recorded.model_dump() == {
        "inputs": False,
        "usage": False,
        "tool_results": True,
        "model": False,
        "outcome": False,
    }
    assert all(call.usage is None for call in run.calls) and run.model == "imported"
    reasoning = elements[1]
    first = run.ledger.messages[1]
    assert [c.id for c in first.tool_calls] == ["call_7Kq2PaRis0", "call_9Lm4ToKyo1"]
    thinking, opaque = first.parts
    assert thinking.kind == "thinking" and thinking.text == reasoning["summary"][0]["text"]
    assert opaque.kind == "redacted-thinking" and opaque.text is None
    assert opaque.data_chars == len(reasoning["encrypted_content"])
    assert first.chars == sum(c.chars for c in first.tool_calls) + thinking.chars + opaque.chars
    image = next(m for m in run.ledger.messages if m.parts and m.role == "user").parts[0]
    assert image.kind == "image" and image.data_chars == len(elements[7]["content"][1]["image_url"])


def test_a_log_of_responses_gives_usage_model_and_instructions() -> None:
    elements = raw(LOG)
    responses = [e for e in elements if e.get("object") == "response"]
    run = one(LOG)
    assert run.model == responses[0]["model"] and run.system == responses[0]["instructions"]
    reported = [
        (
            r["usage"]["input_tokens"],
            r["usage"]["output_tokens"],
            r["usage"]["input_tokens_details"]["cached_tokens"],
            r["usage"]["input_tokens_details"]["cache_write_tokens"],
        )
        for r in responses
    ]
    got = [
        (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens)
        for u in (c.usage for c in run.calls)
        if u is not None
    ]
    assert got == reported
    assert run.origin.recorded.usage and run.origin.recorded.model
    facts = run.meta["responses"]
    assert [f["id"] for f in facts] == [r["id"] for r in responses]
    assert [f["reasoning_tokens"] for f in facts] == [
        r["usage"]["output_tokens_details"]["reasoning_tokens"] for r in responses
    ]
    document = run.ledger.messages[0].parts[0]
    assert document.kind == "document" and document.original["filename"].endswith(".pdf")


def test_responses_alone_record_no_request_and_an_unfinished_end() -> None:
    elements = raw(ONLY)
    run = one(ONLY)
    assert run.meta["layout"] == "json-lines" and run.requests == []
    assert [c.usage.input_tokens for c in run.calls if c.usage] == [
        r["usage"]["input_tokens"] for r in elements
    ]
    assert run.status == "incomplete" and "max_output_tokens" in run.meta["ended"]
    assert run.meta["hosted_tool_calls"] == {"web_search_call": 1}
    search = run.ledger.messages[0].parts[0]
    assert search.kind == "web_search_call" and search.original == elements[0]["output"][0]
    assert not run.origin.recorded.tool_results


# -- compaction: an observed record naming what left -------------------------------------------


def compaction_index(elements: list[Any]) -> int:
    return next(k for k, e in enumerate(elements) if e.get("type") == "compaction")


def test_a_compaction_item_is_an_observed_record_of_everything_before_it() -> None:
    elements = raw(COMPACTED)
    at = compaction_index(elements)
    before, after = elements[:at], elements[at + 1 :]
    run = one(COMPACTED)
    [record] = run.records
    assert record.observed and record.strategy == "openai-compaction"
    left = left_by(run, record)
    assert [m.content for m in left if m.role == "user"] == user_texts(before)
    assert {c.id for m in left for c in m.tool_calls} == set(calls_in(before))
    assert {m.tool_call_id for m in left if m.role == "tool"} == set(calls_in(before))
    assert record.removed_message_count == len(left)
    assert not {c.id for m in left for c in m.tool_calls} & set(calls_in(after))
    # The stand-in: opaque, its characters counted, committed by the window stage only.
    [stand_in] = [m for m in run.ledger.messages if m.authored is not None]
    assert stand_in.stage_id is not None and stand_in.stage_id.startswith("window#")
    assert stand_in.role == "user" and stand_in.content == ""
    [part] = stand_in.parts
    assert part.kind == "compaction" and part.text is None
    assert part.data_chars == len(elements[at]["encrypted_content"]) == stand_in.chars
    assert stand_in not in history(run) and record.window_chars_after == stand_in.chars
    assert "lost-current-request" in {v.kind for v in record.violations or []}
    [fact] = run.meta["compactions"]
    assert fact["opaque"] and fact["applied"] and fact["removed_messages"] == len(left)
    assert fact["id"] == elements[at]["id"] and fact["rule"] == "items-before-dropped"
    # Every later call was sent the stand-in and what followed it, never what left.
    for call in run.calls[record.iteration - 1 :]:
        window = run.ledger.window_at(call.sent_commit)
        assert window[0] is stand_in or window[0].stage_id == stand_in.stage_id
        assert not {m.stage_id for m in window} & set(record.removed_stage_ids)


def session_compacted_by_responses_compact() -> list[Any]:
    """The session dump as ``OpenAIResponsesCompactionSession`` leaves it after a turn: its
    items replaced by ``responses.compact``'s output (the user messages, then one compaction
    item), then the next turn appended (a small edit of ``agents-sdk-session.json``)."""
    elements = raw(SESSION)
    users = [copy.deepcopy(e) for e in elements if e.get("role") == "user"]
    compaction = {"id": "cmp_68a1c2", "type": "compaction", "encrypted_content": "gAAAAA" * 90}
    turn = [
        {"role": "user", "content": "And tomorrow?"},
        {
            "id": "msg_68a1c3",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "annotations": [], "text": "Also open."}],
        },
    ]
    return [*users, compaction, *turn]


def test_a_session_compacted_by_responses_compact_keeps_its_user_messages() -> None:
    elements = session_compacted_by_responses_compact()
    run = from_openai_responses(elements)
    [record] = run.records
    assert record.observed and record.removed_stage_ids == [] and record.iteration == 1
    window = run.ledger.window_at(run.calls[0].sent_commit)
    assert [m.content for m in window] == [*user_texts(elements)[:2], "", "And tomorrow?"]
    assert window[2].authored == "compaction-frame" and window[2].parts[0].kind == "compaction"
    assert run.requests == user_texts(elements)
    assert run.meta["compactions"][0]["rule"] == "user-messages-kept"
    assert run.meta["compactions"][0]["kept_messages"] == 2


def test_a_compacted_response_object_in_a_log_replaces_the_window() -> None:
    """The documented ``responses.compact`` result (``object: response.compaction``: every
    user message, then one compaction item) logged after the session's items, then the next
    turn (shape: the API reference's example of ``POST /responses/compact``, whose user
    messages the SDK's ``CompactedResponse`` model does not type: the Agents SDK dumps it
    with warnings off)."""
    elements = raw(SESSION)
    users = [
        {"type": "message", "role": "user", "content": e["content"]}
        for e in elements
        if e.get("role") == "user"
    ]
    compacted = {
        "id": "resp_cmp_001",
        "object": "response.compaction",
        "created_at": 1731459200,
        "output": [*users, {"id": "cmp_001", "type": "compaction", "encrypted_content": "e" * 300}],
        "usage": {
            "input_tokens": 4210,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 512,
            "output_tokens_details": {"reasoning_tokens": 384},
            "total_tokens": 4722,
        },
    }
    after = session_compacted_by_responses_compact()[-2:]
    run = from_openai_responses([*elements, compacted, *after])
    [record] = run.records
    kept = {m.stage_id for m in run.ledger.window_at(run.calls[-1].sent_commit)}
    users_committed = [m for m in history(run) if m.role == "user"]
    assert {m.stage_id for m in users_committed[:2]} <= kept
    assert len(users_committed) == 3  # the window's copies are not new history
    left = left_by(run, record)
    assert {m.role for m in left} == {"assistant", "tool"}
    assert len(left) == record.removed_message_count == len(history(run)) - 3 - 1
    [fact] = run.meta["compactions"]
    assert fact["object"] == "response.compaction" and fact["usage"]["input_tokens"] == 4210


def test_each_of_two_compactions_is_its_own_stand_in() -> None:
    elements = raw(COMPACTED)
    second = {"id": "cmp_second", "type": "compaction", "encrypted_content": "z" * 200}
    run = from_openai_responses([*elements[:-1], second, elements[-1]])
    _, last = run.records
    stand_ins = [m for m in run.ledger.messages if m.authored == "compaction-frame"]
    assert [m.parts[0].data_chars for m in stand_ins] == [640, 200]
    assert stand_ins[0].stage_id in last.removed_stage_ids
    assert run.ledger.window_at(run.calls[-1].sent_commit)[0].parts[0].data_chars == 200
    assert [c["removed_messages"] for c in run.meta["compactions"]] == [7, 7]


def test_the_compaction_record_files_only_the_policys_own_breach() -> None:
    [record] = one(COMPACTED).records
    assert {v.kind for v in record.violations or []} == {"lost-current-request"}


# -- problems and faults --------------------------------------------------------------------------


def test_what_is_wrong_but_accepted_is_listed_at_its_item() -> None:
    elements = raw(SESSION)
    elements[4]["call_id"] = "call_nobody"  # an orphan result; call_7Kq2PaRis0 unanswered
    elements[8]["arguments"] = "{not json"
    elements[6]["content"][0]["text"] = None
    run = from_openai_responses(elements)
    assert [(p.index, p.field) for p in run.import_problems] == [
        (2, "call_id"),
        (4, "call_id"),
        (6, "content[0].text"),
        (8, "arguments"),
    ]
    assert all(p.unit == "item" and p.source == "openai-responses" for p in run.import_problems)
    with pytest.raises(TranscriptError) as raised:
        from_openai_responses(elements, strict=True)
    assert (raised.value.index, raised.value.field) == (2, "call_id")


def test_negative_usage_is_listed_and_not_recorded(tmp_path: Path) -> None:
    elements = raw(LOG)
    elements[3]["usage"]["output_tokens"] = -5
    path = tmp_path / "log.json"
    path.write_text(json.dumps(elements))
    run = one(path)
    [problem] = run.import_problems
    assert (problem.index, problem.field, problem.path) == (3, "usage.output_tokens", str(path))
    assert run.calls[1].usage is None


@pytest.mark.parametrize(
    ("edit", "index", "field"),
    [
        (lambda e: e[2].__setitem__("call_id", 7), 2, "call_id"),
        (lambda e: e[0].__setitem__("role", "tool"), 0, "role"),
        (lambda e: e[1].__setitem__("summary", "x"), 1, "summary"),
        (lambda e: e[3].pop("type"), 3, "type"),
        (lambda e: e.__setitem__(5, "text"), 5, "item"),
    ],
)
def test_malformed_items_name_the_file_item_and_field(
    tmp_path: Path, edit: Any, index: int, field: str
) -> None:
    elements = raw(SESSION)
    edit(elements)
    path = tmp_path / "session.json"
    path.write_text(json.dumps(elements))
    with pytest.raises(TranscriptError) as raised:
        load_openai_responses(path)
    error = raised.value
    assert (error.path, error.source, error.index, error.field) == (
        str(path),
        "openai-responses",
        index,
        field,
    )


def test_a_response_inside_a_log_names_its_output_field() -> None:
    elements = raw(LOG)
    del elements[1]["output"][1]["call_id"]
    with pytest.raises(TranscriptError) as raised:
        from_openai_responses(elements)
    assert (raised.value.index, raised.value.field) == (1, "output[1].call_id")


def test_json_lines_name_the_line(tmp_path: Path) -> None:
    text = ONLY.read_text("utf-8").splitlines()
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join([text[0], text[1][:40], text[2]]) + "\n")
    with pytest.raises(TranscriptError) as raised:
        load_openai_responses(path)
    assert (raised.value.unit, raised.value.index, raised.value.field) == ("line", 2, "line")


def test_a_chat_completions_list_is_not_claimed_and_is_named(tmp_path: Path) -> None:
    chat = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat))
    assert not claims(sniff(path))
    with pytest.raises(TranscriptError, match="a Chat Completions message list") as raised:
        detect_format(path)
    assert "from_openai" in str(raised.value)
    with pytest.raises(TranscriptError, match="from_openai") as raised:
        load_openai_responses(path)
    assert (raised.value.index, raised.value.field) == (1, "tool_calls")


def test_an_items_object_and_sdk_objects_read_the_same() -> None:
    elements = raw(SESSION)
    wrapped = from_openai_responses({"items": elements, "session_id": "demo-42"})
    plain = from_openai_responses(elements)
    assert [m.content for m in wrapped.ledger.messages] == [
        m.content for m in plain.ledger.messages
    ]
    assert wrapped.meta["session_id"] == "demo-42"
    objects = [Response.model_validate(e) for e in raw(ONLY)]
    from_sdk = from_openai_responses(objects)
    assert [c.usage for c in from_sdk.calls] == [c.usage for c in one(ONLY).calls]


def test_the_start_of_a_truncated_file_is_still_told() -> None:
    text = SESSION.read_text("utf-8")
    heads = head_items(text[:1100])
    assert heads[0].texts["role"] == "user" and heads[1].texts["type"] == "reasoning"
    assert any(h.texts.get("type") == "function_call" for h in heads)


# -- downstream -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_runs_replay_capture_judge_and_round_trip(path: Path, tmp_path: Path) -> None:
    run = one(path)
    replayed = replay(run, sliding_window(2))
    assert len(replayed.calls) == len(run.calls)
    frames = capture(run)
    assert len(frames.calls) == len(run.calls)
    judge(run)
    back = load_run(run.save(tmp_path / "run.json"))
    assert [m.stage_id for m in back.ledger.messages] == [m.stage_id for m in run.ledger.messages]
    assert [m.chars for m in back.ledger.messages] == [m.chars for m in run.ledger.messages]
    assert back.meta == run.meta


# -- fuzz ---------------------------------------------------------------------------------------

READ = frozenset(
    {"type", "role", "content", "text", "call_id", "name", "arguments", "output", "summary"}
    | {"encrypted_content", "usage", "input_tokens", "output_tokens", "object", "id", "input"}
)


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), which=st.sampled_from(FILES))
def test_mutated_files_give_runs_or_a_transcript_error(
    data: st.DataObject, which: Path, tmp_path: Path
) -> None:
    elements = mutate(data.draw, raw(which), wrong_values("message", "compaction"), READ)
    path = tmp_path / "mutated.json"
    path.write_text(json.dumps(elements, allow_nan=True))
    try:
        runs = load_openai_responses(path)
    except TranscriptError as exc:
        assert exc.source == "openai-responses" and exc.path == str(path)
        return
    for run in runs:
        capture(run)


def test_responses_compact_output_appended_to_a_whole_list_is_not_new_history() -> None:
    """``responses.compact``'s output (every user message again, its checkpoint prompt and
    one compaction item, as in the API reference's example) appended to the session's items
    as a whole log would hold it, then the next turn (an edit of the session dump)."""
    elements = raw(SESSION)
    copies = [
        {"type": "message", "role": "user", "content": e["content"]}
        for e in elements
        if e.get("role") == "user"
    ]
    prompt = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "You are performing a CONTEXT CHECKPOINT..."}],
    }
    compaction = {"id": "cmp_9", "type": "compaction", "encrypted_content": "k" * 120}
    after = session_compacted_by_responses_compact()[-2:]
    run = from_openai_responses([*elements, *copies, prompt, compaction, *after])
    assert run.requests == [*user_texts(elements), "And tomorrow?"]  # the copies are not requests
    [record] = run.records
    left = left_by(run, record)
    assert {m.role for m in left} == {"assistant", "tool"}
    window = run.ledger.window_at(run.calls[-1].sent_commit)
    assert [m.stage_id for m in window[:2]] == ["seed#0", "seed#4"]  # the history's own users
    assert [m.authored for m in window[2:4]] == ["compaction-frame", "compaction-frame"]
    assert window[3].parts[0].data_chars == 120
    [fact] = run.meta["compactions"]
    assert fact["rule"] == "user-messages-kept" and fact["kept_messages"] == 3


BUILT_IN: list[dict[str, Any]] = [
    {"type": "message", "role": "user", "content": "Tidy the repo and check the dashboard."},
    {
        "type": "shell_call",
        "call_id": "call_sh1",
        "status": "completed",
        "action": {"commands": ["git status --short"], "timeout_ms": 10000},
    },
    {
        "type": "shell_call_output",
        "call_id": "call_sh1",
        "output": [
            {"stdout": " M a.py\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
        ],
    },
    {
        "type": "apply_patch_call",
        "call_id": "call_ap2",
        "status": "completed",
        "operation": {"type": "update_file", "path": "a.py", "diff": "@@\n-x=1\n+x = 1\n"},
    },
    {"type": "apply_patch_call_output", "call_id": "call_ap2", "status": "completed"},
    {
        "type": "computer_call",
        "id": "cu_3",
        "call_id": "call_cu3",
        "status": "completed",
        "action": {"type": "screenshot"},
        "pending_safety_checks": [],
    },
    {
        "type": "computer_call_output",
        "call_id": "call_cu3",
        "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0K"},
    },
    {
        "type": "mcp_approval_request",
        "id": "mcpr_4",
        "name": "deploy",
        "arguments": '{"env":"staging"}',
        "server_label": "ops",
    },
    {"type": "mcp_approval_response", "approval_request_id": "mcpr_4", "approve": True},
    {"type": "item_reference", "id": "cu_3"},
    {"type": "configuration_update", "id": "cfg_7", "reasoning": {"effort": "low"}},
    {
        "type": "mcp_call",
        "id": "mcp_5",
        "name": "deploy",
        "arguments": '{"env":"staging"}',
        "server_label": "ops",
        "output": "deployed",
    },
    {"type": "future_tool_call", "id": "ft_6", "payload": {"x": 1}},
    {
        "id": "msg_8",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
    },
]


def test_built_in_tool_items_are_calls_results_or_parts() -> None:
    """Items of the SDK's built-in tools (shapes: ``ResponseInputItem``'s ``ShellCall``,
    ``ApplyPatchCall``, ``ResponseComputerToolCall``, ``McpApprovalRequest`` ... ), an item
    reference and a type the reader does not know."""
    adapter = TypeAdapter(ResponseInputItem)
    for item in BUILT_IN:
        if item["type"] != "future_tool_call":
            adapter.validate_python(item)
    run = from_openai_responses(BUILT_IN)
    calls = [c for m in history(run) for c in m.tool_calls]
    assert [(c.id, c.name) for c in calls] == [
        ("call_sh1", "shell"),
        ("call_ap2", "apply_patch"),
        ("call_cu3", "computer"),
        ("mcpr_4", "deploy"),
    ]
    assert calls[0].arguments["action"]["commands"] == ["git status --short"]
    assert calls[3].arguments == {"env": "staging"}
    results = {m.tool_call_id: m for m in history(run) if m.role == "tool"}
    assert set(results) == {c.id for c in calls} and run.import_problems == []
    assert json.loads(results["call_sh1"].content)[0]["stdout"] == " M a.py\n"
    assert results["call_ap2"].content == "completed"
    assert results["call_cu3"].parts[0].kind == "image"
    assert json.loads(results["mcpr_4"].content) == {"approve": True}
    last = history(run)[-1]
    assert last.content == "Done." and [p.kind for p in last.parts] == [
        "mcp_call",
        "future_tool_call",
    ]
    assert run.meta["hosted_tool_calls"] == {"mcp_call": 1}
    assert run.meta["unknown_items"] == {"future_tool_call": 1}
    assert run.meta["item_references"] == {"resolved": 1, "unresolved": []}
    assert run.meta["control_items"] == {"configuration_update": 1}


def test_a_compaction_inside_a_response_prunes_what_came_before_its_reply() -> None:
    """Server-side compaction as the guide describes it: the Response's output holds the
    compaction item, then the reply the model went on to write from the pruned context (an
    edit of ``responses-log.json``)."""
    elements = raw(LOG)
    compaction = {"id": "cmp_68b2", "type": "compaction", "encrypted_content": "c" * 500}
    elements[5]["output"].insert(0, compaction)
    run = from_openai_responses(elements)
    [record] = run.records
    assert record.iteration == 3 and record.strategy == "openai-compaction"
    assert [m.role for m in left_by(run, record)] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    window = run.ledger.window_at(run.calls[2].sent_commit)
    assert [(m.authored, m.chars) for m in window] == [("compaction-frame", 500)]
    assert run.calls[2].usage is not None and run.calls[2].usage.input_tokens == 2115
    assert run.meta["compactions"][0]["field"] == "output[0]"


def test_a_folder_loads_every_file_in_name_order() -> None:
    runs = load_openai_responses(DATA)
    assert [Path(r.meta["log_file"]).name for r in runs] == sorted(p.name for p in FILES)
    assert [r.origin.format for r in load(DATA)] == ["openai-responses"] * len(FILES)


def test_what_is_not_a_file_of_this_format_is_refused_by_name(tmp_path: Path) -> None:
    fifo = tmp_path / "items.json"
    os.mkfifo(fifo)
    with pytest.raises(TranscriptError, match="a FIFO, not a regular file"):
        load_openai_responses(fifo)
    with pytest.raises(TranscriptError, match="a device, not a regular file"):
        load_openai_responses("/dev/zero")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"sessionId": "s", "messages": []}))
    with pytest.raises(TranscriptError, match="expected an OpenAI Responses item list") as raised:
        load_openai_responses(other)
    assert raised.value.path == str(other) and raised.value.source == "openai-responses"
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    [run] = load_openai_responses(empty)
    assert [p.field for p in run.import_problems] == ["messages"] and run.calls == []
