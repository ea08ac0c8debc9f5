"""Tests of the Codex CLI rollout importer on the two shared rollouts (a real, redacted 0.135.0
session and a fixture with a ``compacted`` line) and on small edits of them: requests, calls
and results, usage and the compaction's observed record are checked against the files' own
lines; what the files lack (replacement histories, rollbacks, tool items, early rollouts) is
built by editing them, in the shapes ``codex-rs`` writes (each test names its source); faults
name the file, the line and the field; fuzzed rollouts import or raise TranscriptError."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import evidence, load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import detect_format, load, load_codex
from footprint_lab.importers._detect import REGISTRY
from footprint_lab.importers._parts import TranscriptError
from footprint_lab.importers._sniff import sniff
from footprint_lab.lab import capture
from footprint_lab.messages import Message
from tests.importers import helpers
from tests.importers.helpers import FUZZ, history, one_run_or_transcript_error, wrong_values

ROOT = Path(__file__).resolve().parents[2] / "data"
DATA = ROOT / "transcripts" / "codex"
REAL = DATA / "real.session-01.jsonl"
FIXTURE = DATA / "fixture.session_with_compaction.jsonl"
PREFIX = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process."
)
"""How Codex's ``templates/compact/summary_prefix.md`` starts."""


# -- reading the files independently of the importer -----------------------------------------


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def items(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x["payload"] for x in lines if x["type"] == "response_item"]


def texts(item: dict[str, Any]) -> str:
    return "".join(part["text"] for part in item["content"])


def typed_requests(lines: list[dict[str, Any]]) -> list[str]:
    """The user messages the person typed: user items that are not Codex's tagged context."""
    return [
        texts(i)
        for i in items(lines)
        if i["type"] == "message" and i["role"] == "user" and not texts(i).startswith("<")
    ]


def write(tmp_path: Path, lines: list[Any], name: str = "rollout.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def item_line(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2025-10-28T06:00:00.000Z", "type": "response_item", "payload": payload}


def event_line(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2025-10-28T06:00:00.000Z", "type": "event_msg", "payload": payload}


def paired(run: Run) -> None:
    """Every call has exactly one result, after it, naming it."""
    kept = history(run)
    for i, message in enumerate(kept):
        for call in message.tool_calls:
            answers = [m for m in kept[i + 1 :] if m.role == "tool" and m.tool_call_id == call.id]
            assert len(answers) == 1 and answers[0].name == call.name
    calls = {c.id for m in kept for c in m.tool_calls}
    assert all(m.tool_call_id in calls for m in kept if m.role == "tool")


def downstream(run: Run, tmp_path: Path) -> None:
    capture(run)
    replayed = replay(run, sliding_window(2))
    assert len(replayed.calls) == len(run.calls)
    evidence.dependencies(run)
    again = load_run(run.save(tmp_path / "run.json"))
    assert [m.content for m in again.ledger.messages] == [m.content for m in run.ledger.messages]
    assert again.meta == run.meta and len(again.records) == len(run.records)


# -- the real session ------------------------------------------------------------------------


def test_the_real_session_reads_its_request_usage_and_facts(tmp_path: Path) -> None:
    lines = lines_of(REAL)
    assert detect_format(REAL) == "codex"
    (run,) = load_codex(REAL)
    meta = lines[0]["payload"]
    assert run.requests == typed_requests(lines) == [run.request]
    assert run.system == meta["base_instructions"]["text"]
    roles = [(m.role, str(m.stage_id).split("#")[0]) for m in history(run)]
    assert roles == [
        ("system", "seed"),
        ("user", "observation"),
        ("user", "seed"),
        ("assistant", "call-llm"),
    ]
    (developer,) = [i for i in items(lines) if i["role"] == "developer"]
    assert history(run)[0].content == texts(developer)
    (answer,) = [i for i in items(lines) if i["role"] == "assistant"]
    assert run.output == texts(answer) and run.status == "done"
    (count,) = [x["payload"] for x in lines if x["payload"].get("type") == "token_count"]
    last = count["info"]["last_token_usage"]
    (call,) = run.calls
    assert call.usage is not None
    assert (call.usage.input_tokens, call.usage.output_tokens, call.usage.cache_read_tokens) == (
        last["input_tokens"],
        last["output_tokens"],
        last["cached_input_tokens"],
    )
    assert run.meta["token_usage"] == count["info"]["total_token_usage"]
    assert run.meta["model_context_window"] == count["info"]["model_context_window"]
    for key in ("cli_version", "originator", "cwd", "source", "model_provider"):
        assert run.meta[key] == meta[key]
    assert run.meta["session_id"] == meta["id"] == run.meta["label"]
    assert run.model == run.meta["model"] == lines[4]["payload"]["model"]
    assert run.meta["ended"] == "task_complete"
    assert run.origin.recorded.model_dump() == {
        "inputs": False,
        "usage": True,
        "tool_results": False,
        "model": True,
        "outcome": True,
    }
    assert run.meta["events"]["user_message"] == 1  # counted, not imported twice
    events = [x["payload"]["type"] for x in lines if x["type"] == "event_msg"]
    assert run.meta["events"] == {kind: events.count(kind) for kind in events}
    assert run.meta["log_file"] == str(REAL) and run.import_problems == [] and run.records == []
    downstream(run, tmp_path)


def test_load_gives_the_same_runs_with_the_format_named() -> None:
    for path in (REAL, FIXTURE):
        (direct,) = load_codex(path)
        (loaded,) = load(path)
        assert loaded.meta == direct.meta and loaded.origin.format == "codex"
        assert [m.content for m in loaded.ledger.messages] == [
            m.content for m in direct.ledger.messages
        ]
    assert [r.meta["label"] for r in load_codex(DATA)] == [
        "compact-codex-001",
        lines_of(REAL)[0]["payload"]["id"],
    ]


# -- the compacted fixture -------------------------------------------------------------------


def test_the_compaction_is_an_observed_record_of_everything_before_it(tmp_path: Path) -> None:
    lines = lines_of(FIXTURE)
    (run,) = load_codex(FIXTURE)
    assert run.requests == typed_requests(lines)
    paired(run)
    at = next(n for n, x in enumerate(lines) if x["type"] == "compacted")
    summary = lines[at]["payload"]["message"]
    before = items(lines[:at])
    # Before the compaction: 3 requests, 4 replies (reasoning + text + call are one), 1 result.
    kept = history(run)
    first = kept[: len(kept) - 4]
    assert [m.role for m in first] == ["user", "assistant", "tool", "assistant"] + [
        "user",
        "assistant",
    ] * 2
    assert [m.content for m in first if m.role == "user"] == [
        texts(i) for i in before if i.get("role") == "user"
    ]
    (record,) = run.records
    assert record.observed and record.strategy == "codex"
    removed = [
        m for s in dict.fromkeys(record.removed_stage_ids) for m in run.ledger.messages_of(s)
    ]
    assert removed == first
    assert run.ledger.message(record.removed_stage_ids[0]).content == texts(before[0])
    windows = [run.ledger.window_at(c.sent_commit) for c in run.calls]
    stand_in, request = windows[4]
    assert (stand_in.role, stand_in.content, stand_in.authored) == (
        "user",
        summary,
        "compaction-frame",
    )
    assert request.content == "Now add the authentication middleware" == run.request
    assert windows[5][:2] == [stand_in, request]
    assert all(m.content != summary for m in kept)
    assert run.meta["compactions"] == [
        {"line": at + 1, "summary_chars": len(summary), "rule": "the summary alone"}
    ]
    last = lines[-1]["payload"]["info"]["last_token_usage"]
    assert [c.usage.input_tokens if c.usage else None for c in run.calls] == [None] * 5 + [
        last["input_tokens"]
    ]
    assert run.origin.recorded.inputs and run.origin.recorded.usage
    assert run.origin.recorded.outcome is False and run.status == "done"
    reasoning = [p for m in kept for p in m.parts if p.kind == "thinking"]
    assert [p.text for p in reasoning] == [
        i["summary"][0]["text"] for i in items(lines) if i["type"] == "reasoning"
    ]
    downstream(run, tmp_path)


def with_compaction(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The fixture with its ``compacted`` payload replaced."""
    lines = lines_of(FIXTURE)
    for line in lines:
        if line["type"] == "compacted":
            line["payload"] = payload
    return lines


def test_a_replacement_history_keeps_exactly_what_it_holds(tmp_path: Path) -> None:
    """Shape from ``codex-rs/core/src/compact.rs`` (local compaction, 2026): the replacement
    history holds the kept user messages and the summary message (prefix included)."""
    lines = lines_of(FIXTURE)
    at = next(n for n, x in enumerate(lines) if x["type"] == "compacted")
    summary = f"{PREFIX}\n{lines[at]['payload']['message']}"
    requests = [i for i in items(lines) if i.get("role") == "user"][:3]
    replacement = [
        *requests,
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]},
    ]
    path = write(
        tmp_path, with_compaction({"message": summary, "replacement_history": replacement})
    )
    (run,) = load_codex(path)
    (record,) = run.records
    removed = [run.ledger.message(s) for s in record.removed_stage_ids]
    assert [m.role for m in removed] == ["assistant", "tool", "assistant", "assistant", "assistant"]
    window = run.ledger.window_at(run.calls[4].sent_commit)
    assert [m.content for m in window] == [*(texts(r) for r in requests), summary, run.request]
    assert [m.authored for m in window] == [None, None, None, "compaction-frame", None]
    assert run.meta["compactions"][0]["rule"] == "replacement_history"
    downstream(run, tmp_path)


def test_a_remote_compaction_keeps_its_encrypted_item_as_the_stand_in(tmp_path: Path) -> None:
    """Shape from ``codex-rs/core/src/compact_remote.rs``: an empty message, and a replacement
    history ending in the provider's encrypted ``compaction`` item."""
    lines = lines_of(FIXTURE)
    first = items(lines)[0]
    replacement = [first, {"type": "compaction", "encrypted_content": "gAAA" * 25}]
    (run,) = load_codex(
        write(tmp_path, with_compaction({"message": "", "replacement_history": replacement}))
    )
    window = run.ledger.window_at(run.calls[4].sent_commit)
    assert [m.content for m in window[:1]] == [texts(first)]
    (part,) = window[1].parts
    assert (part.kind, part.data_chars, part.text) == ("compaction", 100, None)
    assert window[1].authored == "compaction-frame"


def test_without_replacement_the_prefixed_summary_follows_the_latest_requests(
    tmp_path: Path,
) -> None:
    """Codex's rule (``compact.rs`` ``build_compacted_history``, and its resume in
    ``rollout_reconstruction.rs``) when a prefixed summary comes without a replacement
    history: the latest user messages (up to 20,000 tokens) stay, the summary after them."""
    summary = f"{PREFIX}\nAll done so far."
    (run,) = load_codex(write(tmp_path, with_compaction({"message": summary})))
    window = run.ledger.window_at(run.calls[4].sent_commit)
    assert [m.content for m in window] == [*run.requests[:3], summary, run.request]
    (record,) = run.records
    assert all(run.ledger.message(s).role != "user" for s in record.removed_stage_ids)
    fact = run.meta["compactions"][0]
    assert (fact["kept_user_messages"], fact["truncated_user_message_left_out"]) == (3, False)


def test_a_rollback_is_an_observed_removal_of_the_last_turns(tmp_path: Path) -> None:
    """A ``thread_rolled_back`` event (``codex-rs/protocol/src/protocol.rs``) inserted before
    the fixture's third request drops the second turn from the window."""
    lines = lines_of(FIXTURE)
    at = next(
        n for n, x in enumerate(lines) if typed_requests([x]) == ["Now add product endpoints"]
    )
    lines.insert(at, event_line({"type": "thread_rolled_back", "num_turns": 1}))
    (run,) = load_codex(write(tmp_path, lines))
    first, second = run.records[0], run.records[1]
    assert [run.ledger.message(s).content for s in first.removed_stage_ids] == [
        "Add the user CRUD endpoints",
        "I'll add all the user CRUD endpoints with proper validation.",
    ]
    assert second.removed_message_count > 0
    assert run.meta["rollbacks"] == [{"line": at + 1, "num_turns": 1, "messages_left": 2}]


# -- items the shared files do not hold ------------------------------------------------------


def with_tools() -> list[dict[str, Any]]:
    """The real session with a custom tool call, a local shell call and a web search before
    its final answer, and their results (shapes from ``codex-rs/protocol/src/models.rs``)."""
    lines = lines_of(REAL)
    end = len(lines) - 3  # before the final answer
    lines[end:end] = [
        item_line(
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "input": "*** Begin Patch",
                "call_id": "c1",
            }
        ),
        item_line(
            {
                "type": "local_shell_call",
                "call_id": "c2",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls"]},
            }
        ),
        item_line(
            {
                "type": "web_search_call",
                "status": "completed",
                "action": {"type": "search", "query": "codex"},
            }
        ),
        item_line({"type": "custom_tool_call_output", "call_id": "c1", "output": "Done!"}),
        item_line(
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": [
                    {"type": "input_text", "text": "a.txt"},
                    {"type": "input_image", "image_url": helpers.URL},
                ],
            }
        ),
    ]
    return lines


def test_every_kind_of_call_pairs_with_its_result(tmp_path: Path) -> None:
    """Shapes from ``codex-rs/protocol/src/models.rs``: ``custom_tool_call`` (free-form input),
    ``local_shell_call`` (an exec action; its output a ``function_call_output``), a
    ``web_search_call`` (run by the provider: no result), an output given as content items."""
    lines = with_tools()
    (run,) = load_codex(write(tmp_path, lines))
    paired(run)
    reply = history(run)[3]
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("apply_patch", {"input": "*** Begin Patch"}),
        ("local_shell", {"type": "exec", "command": ["ls"]}),
    ]
    assert [p.kind for p in reply.parts] == ["web-search"]
    results = [m for m in history(run) if m.role == "tool"]
    assert [(m.content, [p.kind for p in m.parts]) for m in results] == [
        ("Done!", []),
        ("a.txt", ["image"]),
    ]
    assert run.import_problems == [] and run.origin.recorded.tool_results


def test_encrypted_reasoning_is_sized_never_read(tmp_path: Path) -> None:
    lines = lines_of(FIXTURE)
    for line in lines:
        if line["payload"].get("type") == "reasoning":
            line["payload"]["encrypted_content"] = "gAAAAB" * 10
    (run,) = load_codex(write(tmp_path, lines))
    parts = [p for p in history(run)[1].parts]
    assert [(p.kind, p.text is None, p.data_chars) for p in parts] == [
        ("thinking", False, 0),
        ("redacted-thinking", True, 60),
    ]


def test_a_repeated_total_and_a_compaction_call_report_no_reply(tmp_path: Path) -> None:
    lines = lines_of(REAL)
    count = next(x for x in lines if x["payload"].get("type") == "token_count")
    lines.insert(lines.index(count) + 1, copy.deepcopy(count))  # a rate-limit update repeats it
    lines.append(copy.deepcopy(count))  # the same total again after the turn: no new call
    (run,) = load_codex(write(tmp_path, lines))
    assert run.meta["token_counts"] == {"matched": 1, "repeated": 2}
    assert run.calls[0].usage is not None


def early() -> list[dict[str, Any]]:
    """The fixture as an early rollout: shape from ``codex-rs/core/src/rollout.rs`` @ 89a151f5
    (May 2025): the session first (id, timestamp, instructions), then each response item on a
    bare line, with state records."""
    lines = lines_of(FIXTURE)
    head = {
        "id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e",
        "timestamp": lines[0]["timestamp"],
        "instructions": None,
    }
    bare = [
        head,
        *(x["payload"] for x in lines if x["type"] == "response_item"),
        {"record_type": "state"},
    ]
    return bare


def test_an_early_rollout_of_bare_items_reads_the_same(tmp_path: Path) -> None:
    """Shape from ``codex-rs/core/src/rollout.rs`` @ 89a151f5 (May 2025): the session first
    (id, timestamp, instructions), then each response item on a bare line, with state records."""
    bare = early()
    head = bare[0]
    path = write(tmp_path, bare)
    assert detect_format(path) == "codex"
    (run,) = load_codex(path)
    (typed,) = load_codex(FIXTURE)
    assert [(m.role, m.content) for m in history(run)][:8] == [
        (m.role, m.content) for m in history(typed)
    ][:8]
    assert run.meta["rollout_format"] == "early (bare items)"
    assert run.meta["session_id"] == head["id"] and run.meta["ignored"] == {"record_type": 1}
    assert run.origin.recorded.usage is False and run.records == []


# -- faults and foreign files ----------------------------------------------------------------


def bad(payload: Any, kind: str = "response_item") -> bytes:
    return json.dumps({"type": kind, "payload": payload}).encode()


CALL = {"type": "function_call", "name": "f", "arguments": "{}"}
COUNT = {"type": "token_count", "info": {"last_token_usage": {"input_tokens": "9"}}}


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (b"{not json", "line"),
        (b"[1, 2]", "line"),
        (bad(3), "payload"),
        (bad({"type": "message", "role": "user", "content": "x"}), "payload.content"),
        (bad(CALL), "payload.call_id"),
        (bad(COUNT, "event_msg"), "payload.info.last_token_usage.input_tokens"),
        (
            bad({"message": "S", "replacement_history": [1]}, "compacted"),
            "payload.replacement_history[0]",
        ),
    ],
)
def test_a_bad_line_names_the_file_the_line_and_the_field(
    tmp_path: Path, line: bytes, field: str
) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(REAL.read_bytes() + line + b"\n")
    with pytest.raises(TranscriptError) as caught:
        load_codex(path)
    error = caught.value
    assert (error.path, error.source, error.unit, error.index, error.field) == (
        str(path),
        "codex",
        "line",
        len(lines_of(REAL)) + 1,
        field,
    )


def test_what_is_wrong_but_readable_is_kept_and_listed(tmp_path: Path) -> None:
    lines = lines_of(FIXTURE)
    lines.append(item_line({"type": "function_call_output", "call_id": "nobody", "output": None}))
    lines.append(item_line({"type": "futuristic_item", "content": []}))
    (run,) = load_codex(write(tmp_path, lines))
    assert [(p.index, p.field) for p in run.import_problems] == [
        (21, "payload.output"),
        (21, "payload.call_id"),
        (22, "payload.type"),
    ]
    assert history(run)[-1].tool_call_id == "nobody"
    with pytest.raises(TranscriptError) as caught:
        load_codex(write(tmp_path, lines), strict=True)
    assert (caught.value.index, caught.value.field) == (21, "payload.output")


def test_foreign_json_lines_are_never_claimed(tmp_path: Path) -> None:
    claude = ROOT / "transcripts" / "claude-code" / "representative_messages.jsonl"
    with pytest.raises(TranscriptError, match="not a Codex CLI rollout"):
        load_codex(claude)
    odd = write(tmp_path, [{"type": "turn", "payload": {}}], "odd.jsonl")
    with pytest.raises(TranscriptError, match="looks like a Codex CLI rollout"):
        detect_format(odd)
    for path in sorted(ROOT.rglob("*")):
        if path.is_file():
            found = sniff(path)
            claimed = [f.name for f in REGISTRY if not found.is_dir and f.claims(found)]
            assert len(claimed) <= 1, path
            assert ("codex" in claimed) == (path.parent == DATA and path.suffix == ".jsonl"), path


# -- fuzzing ---------------------------------------------------------------------------------

WRONG = wrong_values(
    "message", "user", "assistant", "developer", "function_call", "compacted", "token_count"
)
READ = frozenset(
    {
        "type",
        "payload",
        "role",
        "content",
        "text",
        "name",
        "arguments",
        "call_id",
        "output",
        "summary",
        "encrypted_content",
        "info",
        "last_token_usage",
        "total_token_usage",
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "message",
        "replacement_history",
        "model",
        "base_instructions",
        "id",
        "num_turns",
        "model_context_window",
    }
)
ROLLOUTS = {
    "real": lines_of(REAL),
    "fixture": lines_of(FIXTURE),
    "replaced": with_compaction(
        {"message": PREFIX, "replacement_history": items(lines_of(FIXTURE))[:3]}
    ),
    "tools": with_tools(),
    "early": early(),
}


def imports_or_raises(path: Path) -> None:
    """The run, or None for a TranscriptError naming ``path`` (the importers' one oracle:
    :func:`tests.importers.helpers.one_run_or_transcript_error`)."""
    run = one_run_or_transcript_error(load_codex, path, "codex")
    if run is not None:
        capture(run)


@FUZZ
@given(st.data(), st.sampled_from(sorted(ROLLOUTS)))
def test_a_mutated_rollout_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    lines = copy.deepcopy(ROLLOUTS[name])
    for _ in range(data.draw(st.integers(1, 3))):
        lines = helpers.mutate(data.draw, lines, WRONG, READ)
    rows = lines if isinstance(lines, list) else [lines]
    path = tmp_path / "fuzzed.jsonl"
    path.write_text("".join(json.dumps(x, allow_nan=True) + "\n" for x in rows))
    imports_or_raises(path)


@FUZZ
@given(st.data(), st.sampled_from(sorted(ROLLOUTS)))
def test_a_rollout_cut_at_any_byte_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    payload = "".join(json.dumps(x) + "\n" for x in ROLLOUTS[name]).encode()
    cut = data.draw(st.integers(0, len(payload)))
    path = tmp_path / "cut.jsonl"
    path.write_bytes(payload[:cut] + data.draw(st.sampled_from([b"", b"\n", b"\xff"])))
    imports_or_raises(path)


def test_a_message_list_round_trips_through_the_window_it_was_sent() -> None:
    """The stand-in is never history: replaying the compacted run keeps every message once."""
    (run,) = load_codex(FIXTURE)
    replayed = replay(run, sliding_window(2))
    originals = [m for m in replayed.ledger.messages if m.authored is None]
    assert [m.content for m in originals] == [m.content for m in history(run)]
    assert isinstance(originals[0], Message)
