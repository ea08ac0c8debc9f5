"""Tests of the OpenHands V1 (software-agent-sdk) conversation importer on the real conversation
in ``data/transcripts/openhands-v1/`` (OpenHands/software-agent-sdk @ 4f4c68c1): the requests,
calls, results, usage and outcome are checked against the conversation's own files; the shapes
the real conversation lacks (a ``Condensation``, parallel calls, a conversation tree, other
execution statuses, broken files) are small edits of its real events, each said so where it is
built; fuzzed conversations give runs or a TranscriptError, never another exception."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import (
    TranscriptError,
    detect_format,
    load,
    load_openhands,
    load_openhands_v1,
)
from footprint_lab.importers._detect import REGISTRY, format_of
from footprint_lab.importers._sniff import sniff
from footprint_lab.importers.openhands_v1 import RESEMBLES
from footprint_lab.lab import capture
from tests.importers import helpers
from tests.importers.helpers import FUZZ, history, one_run_or_transcript_error, wrong_values

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "openhands-v1"
CONV = DATA / "conv-cd945624"
GOAL = DATA / "goal-events.jsonl"
"""A trimmed slice of a real conversation's persisted events, one a line (the SDK's own test
fixture ``tests/sdk/conversation/goal/fixtures/events.jsonl``): no system prompt or request,
one observation whose action was trimmed away."""


# -- the real conversation, read independently of the importer -------------------------------


def real_events() -> list[dict[str, Any]]:
    """The conversation's events, in file-number order."""
    files = sorted((CONV / "events").glob("event-*.json"), key=lambda p: int(p.name[6:11]))
    return [json.loads(p.read_text("utf-8")) for p in files]


def real_state() -> dict[str, Any]:
    state: dict[str, Any] = json.loads((CONV / "base_state.json").read_text("utf-8"))
    return state


def texts(blocks: list[dict[str, Any]]) -> str:
    return "".join(b["text"] for b in blocks if b["type"] == "text")


def write_conversation(
    folder: Path, events: list[dict[str, Any]], state: dict[str, Any] | None
) -> Path:
    """A conversation folder as the SDK persists one (``base_state.json`` unless ``state`` is
    None, and ``events/event-NNNNN-<id>.json``)."""
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "events").mkdir(parents=True)
    if state is not None:
        (folder / "base_state.json").write_text(json.dumps(state, allow_nan=True))
    for n, item in enumerate(events):
        given = item.get("id") if isinstance(item, dict) else None
        name = "".join(c for c in str(given) if c in "0123456789abcdefABCDEF-")[:64] or "0"
        text = json.dumps(item, allow_nan=True)
        (folder / "events" / f"event-{n:05d}-{name}.json").write_text(text)
    return folder


def write_list(path: Path, events: Any) -> Path:
    path.write_text(json.dumps(events, allow_nan=True))
    return path


# -- the real conversation -------------------------------------------------------------------


def test_the_real_conversation_imports_true() -> None:
    events, state = real_events(), real_state()
    (run,) = load_openhands_v1(CONV)
    assert run.import_problems == []
    # The requests are the user MessageEvents' own text, in order.
    asked = [texts(e["llm_message"]["content"]) for e in events if e["kind"] == "MessageEvent"]
    users = [
        texts(e["llm_message"]["content"])
        for e in events
        if e["kind"] == "MessageEvent" and e["source"] == "user"
    ]
    assert run.requests == users == asked[:1] + asked[1:2]
    assert run.request == users[-1]
    assert run.system == events[0]["system_prompt"]["text"]
    assert run.model == state["agent"]["llm"]["model"] == run.meta["model"]
    # Every ActionEvent's call is one call of the run, answered by its ObservationEvent.
    actions = [e for e in events if e["kind"] == "ActionEvent"]
    observations = {e["tool_call_id"]: e for e in events if e["kind"] == "ObservationEvent"}
    kept = history(run)
    calls = [c for m in kept for c in m.tool_calls]
    assert [(c.id, c.name) for c in calls] == [
        (e["tool_call"]["id"], e["tool_call"]["name"]) for e in actions
    ]
    assert [c.arguments for c in calls] == [
        json.loads(e["tool_call"]["arguments"]) for e in actions
    ]
    results = {m.tool_call_id: m for m in kept if m.role == "tool"}
    assert set(results) == set(observations) == {c.id for c in calls}
    # A shell result is sent with its command metadata, as TerminalObservation renders it.
    shell = observations[actions[0]["tool_call_id"]]["observation"]
    meta = shell["metadata"]
    assert results[actions[0]["tool_call_id"]].content == (
        f"{meta['prefix']}{texts(shell['content'])}{meta['suffix']}"
        f"\n[Current working directory: {meta['working_dir']}]"
        f"\n[Python interpreter: {meta['py_interpreter_path']}]"
        f"\n[Command finished with exit code {meta['exit_code']}]"
    )
    finish = observations[actions[1]["tool_call_id"]]["observation"]
    assert results[actions[1]["tool_call_id"]].content == texts(finish["content"])
    # One call per LLM response, each with that response's recorded token usage.
    responses = [e["llm_response_id"] for e in events if "llm_response_id" in e]
    usages = {
        u["response_id"]: u for u in state["stats"]["usage_to_metrics"]["agent"]["token_usages"]
    }
    assert len(run.calls) == len(responses) == 3
    for call, response in zip(run.calls, responses, strict=True):
        recorded = usages[response]
        assert call.usage is not None
        assert (call.usage.input_tokens, call.usage.output_tokens) == (
            recorded["prompt_tokens"],
            recorded["completion_tokens"],
        )
        assert call.usage.cache_read_tokens == recorded["cache_read_tokens"]
    assert run.origin.recorded.model_dump() == {
        "inputs": False,  # no condensation: every call was sent the whole history
        "usage": True,
        "tool_results": True,
        "model": True,
        "outcome": True,
    }
    assert run.status == "done" and run.meta["ended"] == state["execution_status"] == "finished"
    assert run.output == texts(events[-1]["llm_message"]["content"])
    assert run.meta["conversation_id"] == state["id"] == run.meta["label"]
    assert run.meta["log_file"] == str(CONV)
    assert run.meta["tools"] == ["terminal", "finish", "think"]
    assert run.meta["events"] == len(events) and run.meta["condensations"] == []
    assert run.meta["ignored_kinds"] == {} and run.meta["off_branch_events"] == 0
    assert run.records == []


def test_load_and_detect_name_the_format() -> None:
    assert detect_format(CONV) == "openhands-v1"
    (direct,) = load_openhands_v1(CONV)
    for source in (CONV, DATA):
        loaded = load(source)[0]  # the folder's runs in name order: the conversation first
        assert loaded.origin.format == "openhands-v1"
        assert {k: v for k, v in loaded.meta.items() if k != "format"} == direct.meta
        assert [m.content for m in loaded.ledger.messages] == [
            m.content for m in direct.ledger.messages
        ]
    labels = [r.meta["label"] for r in load_openhands_v1(DATA)]
    assert labels == [direct.meta["label"], GOAL.stem]
    assert [r.origin.format for r in load(DATA)] == ["openhands-v1"] * 2


def test_the_run_works_downstream(tmp_path: Path) -> None:
    (run,) = load_openhands_v1(CONV)
    replayed = replay(run, sliding_window(2))
    assert len(replayed.calls) == len(run.calls)
    frames = capture(run)
    assert len(frames.calls) == len(run.calls)
    again = load_run(run.save(tmp_path / "run.json"))
    assert [m.content for m in again.ledger.messages] == [m.content for m in run.ledger.messages]
    assert again.meta == run.meta


def test_the_same_events_as_one_list(tmp_path: Path) -> None:
    """The real events as one JSON list: the same messages; no state, so no usage or model
    (said in ``meta['recorded']``), the outcome from the last message."""
    path = write_list(tmp_path / "events.json", real_events())
    assert detect_format(path) == "openhands-v1"
    (run,) = load_openhands_v1(path)
    (folder,) = load_openhands_v1(CONV)
    assert [m.content for m in run.ledger.messages] == [m.content for m in folder.ledger.messages]
    assert run.import_problems == []
    assert run.origin.recorded.usage is False and run.origin.recorded.model is False
    assert run.origin.recorded.outcome is False and run.status == "done"
    assert run.meta["label"] == "events"


def test_a_list_carrying_its_full_state(tmp_path: Path) -> None:
    """Edit: the real state appended to the real events as the agent server streams it (a
    ``ConversationStateUpdateEvent`` with key ``full_state``, shape from the SDK's
    ``event/conversation_state.py``): model, usage and status are then read from it."""
    update = {
        "id": "5e7a7e00-0000-4000-8000-000000000000",
        "timestamp": "2026-02-05T11:24:50",
        "source": "environment",
        "key": "full_state",
        "value": real_state(),
        "kind": "ConversationStateUpdateEvent",
    }
    path = write_list(tmp_path / "events.json", [*real_events(), update])
    (run,) = load_openhands_v1(path)
    assert run.model == "openai/gpt-4o-mini"
    assert all(c.usage is not None for c in run.calls)
    assert run.meta["ended"] == "finished"
    assert run.meta["ignored_kinds"] == {"ConversationStateUpdateEvent": 1}


def test_the_real_event_lines_import_true() -> None:
    lines = [json.loads(line) for line in GOAL.read_text("utf-8").splitlines() if line.strip()]
    assert detect_format(GOAL) == "openhands-v1"
    (run,) = load_openhands_v1(GOAL)
    actions = [e for e in lines if e["kind"] == "ActionEvent"]
    observations = [(k, e) for k, e in enumerate(lines) if e["kind"] == "ObservationEvent"]
    kept = history(run)
    assert [c.id for m in kept for c in m.tool_calls] == [e["tool_call"]["id"] for e in actions]
    assert [m.tool_call_id for m in kept if m.role == "tool"] == [
        e["tool_call_id"] for _, e in observations
    ]
    # The first action's thought is the reply's text, its reasoning a thinking part.
    first = next(m for m in kept if m.role == "assistant")
    assert first.content == texts(actions[0]["thought"])
    assert [p.text for p in first.parts] == [actions[0]["reasoning_content"]]
    # An error observation is sent with the SDK's error header before its content.
    error = observations[0][1]["observation"]
    assert error["is_error"] is True
    assert kept[1].content.startswith("[An error occurred during execution.]\n")
    # The one observation whose action the slice trimmed away is an orphan, kept and listed.
    called = {e["tool_call"]["id"] for e in actions}
    orphans = [k for k, e in observations if e["tool_call_id"] not in called]
    assert [(p.index, p.field) for p in run.import_problems] == [
        (k, "tool_call_id") for k in orphans
    ]
    assert run.requests == [] and len(run.calls) == len(actions)
    updates = sum(e["kind"] == "ConversationStateUpdateEvent" for e in lines)
    assert run.meta["ignored_kinds"] == {"ConversationStateUpdateEvent": updates}
    assert run.meta["execution_status"] == "running" and run.status == "incomplete"
    assert run.origin.recorded.usage is False  # the slice's stats updates are totals only
    (loaded,) = load(GOAL)
    assert loaded.origin.format == "openhands-v1"
    capture(run)
    replay(run, sliding_window(2))


def test_the_v0_loader_names_a_v1_list(tmp_path: Path) -> None:
    path = write_list(tmp_path / "events.json", real_events())
    with pytest.raises(TranscriptError, match="OpenHands V1 conversation: use load_openhands_v1"):
        load_openhands(path)


# -- a condensation (small edits of the real events) -----------------------------------------

SUMMARY = "The agent ran `pwd > tool_output.txt` in the terminal; it succeeded."


def condensation(forgotten: list[str], **extra: Any) -> dict[str, Any]:
    """A ``Condensation`` event as the SDK writes one (shape from ``event/condenser.py``)."""
    return {
        "id": "c0d0e000-0000-4000-8000-000000000001",
        "timestamp": "2026-02-05T11:24:48.454000",
        "source": "environment",
        "forgotten_event_ids": forgotten,
        "llm_response_id": "chatcmpl-condenser-1",
        **extra,
        "kind": "Condensation",
    }


def condensed_events() -> list[dict[str, Any]]:
    """Edit of the real events: after the finish observation (event 5), a Condensation that
    forgets the terminal call and its result (events 2 and 3), its summary at offset 2 (after
    the system prompt and the first request, as the LLM summarizing condenser's
    ``keep_first=2`` puts it)."""
    events = real_events()
    cut = condensation([events[2]["id"], events[3]["id"]], summary=SUMMARY, summary_offset=2)
    return [*events[:6], cut, *events[6:]]


def condensed_state() -> dict[str, Any]:
    """The real state, with the condenser's call recorded beside the agent's."""
    state = real_state()
    state["stats"]["usage_to_metrics"]["condenser"] = {
        "model_name": "openai/gpt-4o-mini",
        "accumulated_cost": 0.0001,
        "token_usages": [
            {"prompt_tokens": 900, "completion_tokens": 40, "response_id": "chatcmpl-condenser-1"}
        ],
    }
    return state


def test_a_condensation_is_an_observed_record_of_what_it_forgot(tmp_path: Path) -> None:
    folder = write_conversation(tmp_path / "conv", condensed_events(), condensed_state())
    assert detect_format(folder) == "openhands-v1"
    (run,) = load_openhands_v1(folder)
    assert run.import_problems == []
    kept = history(run)
    assert all(m.content != SUMMARY for m in kept)  # the summary is never history
    (record,) = run.records
    assert record.observed and record.strategy == "openhands"
    removed = [run.ledger.message(s) for s in record.removed_stage_ids]
    # Exactly the messages of the forgotten events: the terminal call and its result.
    terminal = real_events()[2]["tool_call"]["id"]
    assert [(m.role, [c.id for c in m.tool_calls], m.tool_call_id) for m in removed] == [
        ("assistant", [terminal], None),
        ("tool", [], terminal),
    ]
    assert record.removed_message_count == 2 and record.violations == []
    # The last call was sent: first request, the summary (at offset 2 of the view), the
    # finish call and its result, the second request.
    window = run.ledger.window_at(run.calls[-1].sent_commit)
    assert [m.content for m in window] == [
        kept[0].content,
        SUMMARY,
        kept[3].content,
        kept[4].content,
        kept[5].content,
    ]
    assert window[1].authored == "compaction-frame"
    assert run.origin.recorded.inputs is True
    (facts,) = run.meta["condensations"]
    assert facts["forgotten_event_ids"] == [real_events()[2]["id"], real_events()[3]["id"]]
    assert facts["summary_offset"] == 2 and facts["summary_chars"] == len(SUMMARY)
    assert facts["observed"] is True
    assert facts["usage"]["input_tokens"] == 900  # the condenser's own call
    assert run.status == "done"
    capture(run)
    replay(run, sliding_window(2))
    again = load_run(run.save(tmp_path / "run.json"))
    assert len(again.records) == 1


def test_a_condensation_in_a_list_is_read_the_same(tmp_path: Path) -> None:
    path = write_list(tmp_path / "events.json", condensed_events())
    (run,) = load_openhands_v1(path)
    (folder,) = load_openhands_v1(write_conversation(tmp_path / "c", condensed_events(), None))
    assert [r.removed_stage_ids for r in run.records] == [
        r.removed_stage_ids for r in folder.records
    ]
    assert len(run.records) == 1


def test_a_forgotten_call_takes_its_result_with_it(tmp_path: Path) -> None:
    """Edit: the condensation forgets the terminal call but not its result (as SDKs before
    December 2025 could): the view leaves the orphan result out too, as the SDK's view does."""
    events = real_events()
    cut = condensation([events[2]["id"]])
    (run,) = load_openhands_v1(write_list(tmp_path / "e.json", [*events[:6], cut, *events[6:]]))
    (record,) = run.records
    assert [run.ledger.message(s).role for s in record.removed_stage_ids] == ["assistant", "tool"]


def test_a_later_condensation_forgets_the_earlier_summary(tmp_path: Path) -> None:
    """Edit: a second condensation before the last reply forgets the finish call, its result
    and the first summary (by its id ``<condensation id>-summary``), with its own summary: the
    last call is sent one summary, the second one."""
    events = real_events()
    first = condensation([events[2]["id"], events[3]["id"]], summary="first", summary_offset=2)
    second = condensation(
        [f"{first['id']}-summary", events[4]["id"], events[5]["id"]],
        summary="second",
        summary_offset=2,
    )
    second["id"] = "c0d0e000-0000-4000-8000-000000000002"
    edited = [*events[:4], first, *events[4:6], second, *events[6:]]
    (run,) = load_openhands_v1(write_list(tmp_path / "e.json", edited))
    window = run.ledger.window_at(run.calls[-1].sent_commit)
    assert [m.content for m in window if m.authored] == ["second"]
    assert len(run.records) == 2
    last = run.records[-1]
    removed = [run.ledger.message(s) for s in last.removed_stage_ids]
    assert [m.content for m in removed if m.authored] == ["first"]
    assert [m.role for m in removed if not m.authored] == ["assistant", "tool"]


def test_an_old_sdk_condensation_replaces_the_summary(tmp_path: Path) -> None:
    """Edit as SDKs before January 2026 wrote them: the summary had a fresh random id in every
    view, so the second condensation names an id nothing in the file has — the earlier
    summary is gone from the view all the same (only the latest was ever in force)."""
    events = real_events()
    first = condensation([events[2]["id"], events[3]["id"]], summary="first", summary_offset=2)
    second = condensation(
        ["0a1b2c3d-dead-4bee-8f00-000000000000", events[4]["id"], events[5]["id"]],
        summary="second",
        summary_offset=2,
    )
    second["id"] = "c0d0e000-0000-4000-8000-000000000002"
    edited = [*events[:4], first, *events[4:6], second, *events[6:]]
    (run,) = load_openhands_v1(write_list(tmp_path / "e.json", edited))
    window = run.ledger.window_at(run.calls[-1].sent_commit)
    assert [m.content for m in window if m.authored] == ["second"]


# -- parallel calls, a conversation tree, statuses (edits of the real events) ----------------


def test_actions_of_one_response_are_one_message(tmp_path: Path) -> None:
    """Edit: a second terminal ActionEvent from the same LLM response right after the first,
    answered after the first's observation: one assistant message with two calls, the
    response's usage once."""
    events = real_events()
    twin = copy.deepcopy(events[2])
    twin["id"] = "7a1e0000-0000-4000-8000-000000000002"
    twin["tool_call"]["id"] = twin["tool_call_id"] = "call_second"
    twin["thought"] = []
    answer = copy.deepcopy(events[3])
    answer["id"] = "7a1e0000-0000-4000-8000-000000000003"
    answer["tool_call_id"], answer["action_id"] = "call_second", twin["id"]
    edited = [*events[:3], twin, events[3], answer, *events[4:]]
    (run,) = load_openhands_v1(write_conversation(tmp_path / "c", edited, real_state()))
    assert run.import_problems == []
    first = next(m for m in history(run) if m.tool_calls)
    assert [c.id for c in first.tool_calls] == [events[2]["tool_call"]["id"], "call_second"]
    assert len(run.calls) == 3 and run.calls[0].usage is not None


def tree_events() -> list[dict[str, Any]]:
    """Edit (the conversation tree of SDKs since July 2026, shape from
    ``conversation/event_store.py``): every event names its parent, and a second user message
    branches off the finish observation (event 5) after the real ending."""
    events = real_events()
    for k, item in enumerate(events[1:], start=1):
        item["parent_id"] = events[k - 1]["id"]
    branch = copy.deepcopy(events[6])
    branch["id"] = "b4a0c000-0000-4000-8000-000000000001"
    branch["parent_id"] = events[5]["id"]
    branch["llm_message"]["content"][0]["text"] = "Now print the file."
    return [*events, branch]


def test_the_run_is_the_active_branch(tmp_path: Path) -> None:
    events, state = tree_events(), real_state()
    state["leaf_event_id"] = events[7]["id"]
    (run,) = load_openhands_v1(write_conversation(tmp_path / "a", events, state))
    assert run.requests[-1] == texts(events[6]["llm_message"]["content"])
    assert run.meta["off_branch_events"] == 1 and run.meta["branch_events"] == 8
    state["leaf_event_id"] = events[8]["id"]
    (run,) = load_openhands_v1(write_conversation(tmp_path / "b", events, state))
    assert run.requests[-1] == "Now print the file."
    assert run.meta["off_branch_events"] == 2 and len(run.calls) == 2
    state["leaf_event_id"] = "no-such-event"
    folder = write_conversation(tmp_path / "c", events, state)
    with pytest.raises(TranscriptError, match="leaf_event_id") as found:
        load_openhands_v1(folder)
    assert found.value.path == str(folder / "base_state.json")


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [
        ("finished", None, "done"),
        ("error", "MaxIterationsReached", "max-iterations"),
        ("error", "LLMError", "incomplete"),
        ("stuck", None, "incomplete"),
        ("paused", None, "incomplete"),
        ("idle", None, "done"),
    ],
)
def test_the_execution_status_is_the_outcome(
    tmp_path: Path, status: str, code: str | None, expected: str
) -> None:
    """Edit: the real state's ``execution_status`` changed (and, for ``error``, a
    ``ConversationErrorEvent`` as the SDK's run loop writes it appended)."""
    events, state = real_events(), real_state()
    state["execution_status"] = status
    if code is not None:
        events.append(
            {
                "id": "e0000000-0000-4000-8000-000000000001",
                "timestamp": "2026-02-05T11:24:50",
                "source": "environment",
                "code": code,
                "detail": "Agent reached maximum iterations limit (500).",
                "kind": "ConversationErrorEvent",
            }
        )
    (run,) = load_openhands_v1(write_conversation(tmp_path / "c", events, state))
    assert run.status == expected
    if status != "idle":
        assert run.meta["ended"].startswith(status)


def test_a_finish_action_ends_a_list_that_stops_there(tmp_path: Path) -> None:
    """The real events up to the finish observation, as a list (no state): done by the
    FinishAction."""
    (run,) = load_openhands_v1(write_list(tmp_path / "e.json", real_events()[:6]))
    assert run.status == "done" and run.meta["ended"] == "finish"


# -- faults name the file, the event and the field -------------------------------------------


def test_a_broken_event_file_is_named(tmp_path: Path) -> None:
    folder = write_conversation(tmp_path / "c", real_events(), real_state())
    broken = sorted((folder / "events").iterdir())[3]
    broken.write_text('{"id": "x", "kind": ')
    with pytest.raises(TranscriptError) as found:
        load_openhands_v1(folder)
    assert (found.value.path, found.value.index, found.value.unit) == (str(broken), 3, "event")


def test_a_malformed_event_names_its_file_and_field(tmp_path: Path) -> None:
    events = real_events()
    del events[2]["tool_call"]
    folder = write_conversation(tmp_path / "c", events, real_state())
    with pytest.raises(TranscriptError) as found:
        load_openhands_v1(folder)
    assert found.value.field == "tool_call" and found.value.index == 2
    assert found.value.path == str(sorted((folder / "events").iterdir())[2])


def test_a_malformed_token_count_names_base_state(tmp_path: Path) -> None:
    state = real_state()
    state["stats"]["usage_to_metrics"]["agent"]["token_usages"][1]["prompt_tokens"] = "many"
    folder = write_conversation(tmp_path / "c", real_events(), state)
    with pytest.raises(TranscriptError) as found:
        load_openhands_v1(folder)
    assert found.value.path == str(folder / "base_state.json")
    assert found.value.field == "stats.usage_to_metrics.agent.token_usages[1].prompt_tokens"


def test_problems_are_kept_and_listed(tmp_path: Path) -> None:
    """Edits: a negative token count, an observation answering no call, a missing event file."""
    events, state = real_events(), real_state()
    state["stats"]["usage_to_metrics"]["agent"]["token_usages"][0]["completion_tokens"] = -1
    events[5]["tool_call_id"] = "call_nobody_made"
    folder = write_conversation(tmp_path / "c", events, state)
    (folder / "events" / sorted(p.name for p in (folder / "events").iterdir())[6]).unlink()
    (run,) = load_openhands_v1(folder)
    found = [(p.index, p.field, Path(p.path or "").name) for p in run.import_problems]
    assert found[0] == (
        None,
        "stats.usage_to_metrics.agent.token_usages[0].completion_tokens",
        "base_state.json",
    )
    assert (5, "tool_call_id") in [(i, f) for i, f, _ in found]
    assert (7, "file") in [(i, f) for i, f, _ in found]
    assert run.calls[0].usage is None  # the negative report is no usage
    with pytest.raises(TranscriptError, match="negative token count"):
        load_openhands_v1(folder, strict=True)


def test_a_single_event_file_or_the_state_alone_is_told_what_to_pass(tmp_path: Path) -> None:
    for single in (next((CONV / "events").iterdir()), CONV / "base_state.json"):
        copied = tmp_path / single.name
        shutil.copy(single, copied)
        with pytest.raises(TranscriptError, match="pass the conversation folder") as found:
            load(copied)
        assert found.value.source == "load"
        with pytest.raises(TranscriptError, match="pass the conversation folder"):
            load_openhands_v1(copied)
    with pytest.raises(TranscriptError, match="pass the conversation folder"):
        load_openhands_v1(CONV / "events")
    assert RESEMBLES in str(found.value)


def test_a_v0_stream_handed_to_the_v1_loader_is_named(tmp_path: Path) -> None:
    v0 = DATA.parent / "openhands" / "runtime-basic.json"
    with pytest.raises(TranscriptError, match="OpenHands V0 event stream: use load_openhands"):
        load_openhands_v1(v0)


def test_a_folder_of_conversations_and_the_files_beside_events(tmp_path: Path) -> None:
    """Edit: the real conversation twice in one folder (once as a list), and the SDK's lock
    file and a stray file beside its events."""
    folder = write_conversation(tmp_path / "all" / "a-conv", real_events(), real_state())
    (folder / "events" / ".eventlog.lock").write_text("")
    (folder / "events" / "notes.txt").write_text("mine")
    write_list(tmp_path / "all" / "b-events.json", real_events())
    runs = load_openhands_v1(tmp_path / "all")
    assert [r.meta["label"] for r in runs] == [real_state()["id"], "b-events"]
    assert runs[0].meta["unrecognized_files"] == ["notes.txt"]
    assert [len(r.calls) for r in runs] == [3, 3]
    assert [r.origin.format for r in load(tmp_path / "all")] == ["openhands-v1"] * 2


def test_the_claims_are_exact() -> None:
    """The folder is claimed by this format alone; its files are claimed by none; no other
    real file in the repository's data is claimed by this format."""
    assert [f.name for f in REGISTRY if f.folders and f.claims(sniff(CONV))] == ["openhands-v1"]
    for path in CONV.rglob("*"):
        if path.is_file():
            assert format_of(sniff(path)) is None
    assert getattr(format_of(sniff(GOAL)), "name", None) == "openhands-v1"
    root = DATA.parents[1]
    for path in root.rglob("*"):
        if path.is_file() and DATA not in path.parents:
            found = sniff(path)
            assert not next(f for f in REGISTRY if f.name == "openhands-v1").claims(found)


# -- fuzzing ---------------------------------------------------------------------------------

WRONG = wrong_values(
    "MessageEvent", "ActionEvent", "ObservationEvent", "Condensation", "user", "agent", "tool"
)
READ = frozenset(
    {
        "kind",
        "id",
        "parent_id",
        "source",
        "llm_message",
        "role",
        "content",
        "text",
        "type",
        "thought",
        "tool_call",
        "tool_call_id",
        "name",
        "arguments",
        "llm_response_id",
        "observation",
        "metadata",
        "is_error",
        "error",
        "forgotten_event_ids",
        "summary",
        "summary_offset",
        "system_prompt",
        "extended_content",
        "action",
    }
)
"""Keys the importer reads: the walk prefers them, so mutations land where they matter."""
STATE_READ = frozenset(
    {"agent", "llm", "model", "execution_status", "stats", "usage_to_metrics", "token_usages"}
    | {"prompt_tokens", "completion_tokens", "response_id", "leaf_event_id", "id"}
)


def imports_or_raises(path: Path) -> Run | None:
    """The run, or None for a TranscriptError naming ``path`` (the importers' one oracle:
    :func:`tests.importers.helpers.one_run_or_transcript_error`)."""
    run = one_run_or_transcript_error(load_openhands_v1, path, "openhands-v1")
    if run is not None:
        capture(run)
    return run


def small_events() -> list[dict[str, Any]]:
    """The condensed edit with the system prompt's tool definitions cut to names (so the walk
    lands on conversation fields rather than tool schemas)."""
    events = condensed_events()
    events[0]["tools"] = [{"title": t["title"], "kind": t["kind"]} for t in events[0]["tools"]]
    return events


def test_every_single_change_to_the_events_imports_or_raises(tmp_path: Path) -> None:
    path = tmp_path / "changed.json"
    base = small_events()
    for k in range(len(helpers.sites(base))):
        value: Any
        for value in (None, True, -1, "x", [], {}, "delete"):
            events = copy.deepcopy(base)
            parent, key = helpers.sites(events)[k]
            if value == "delete":
                del parent[key]
            else:
                parent[key] = value
            imports_or_raises(write_list(path, events))


@FUZZ
@given(st.data(), st.booleans())
def test_a_mutated_conversation_imports_or_raises(
    tmp_path: Path, data: st.DataObject, as_folder: bool
) -> None:
    events: Any = small_events()
    state: Any = condensed_state()
    for _ in range(data.draw(st.integers(1, 3))):
        if as_folder and data.draw(st.booleans()):
            state = helpers.mutate(data.draw, state, WRONG, STATE_READ)
        else:
            events = helpers.mutate(data.draw, events, WRONG, READ)
    if as_folder and isinstance(events, list):
        imports_or_raises(write_conversation(tmp_path / "conv", events, state))
    else:
        imports_or_raises(write_list(tmp_path / "events.json", events))


@FUZZ
@given(st.data())
def test_a_list_cut_at_any_byte_imports_or_raises(tmp_path: Path, data: st.DataObject) -> None:
    payload = json.dumps(small_events()).encode()
    cut = data.draw(st.integers(0, len(payload)))
    path = tmp_path / "cut.json"
    path.write_bytes(payload[:cut] + data.draw(st.sampled_from([b"", b"]", b"\xff"])))
    try:
        load_openhands_v1(path)
    except TranscriptError as exc:
        assert exc.path == str(path)


@FUZZ
@given(st.data())
def test_mutated_event_lines_import_or_raise(tmp_path: Path, data: st.DataObject) -> None:
    lines: Any = [json.loads(line) for line in GOAL.read_text("utf-8").splitlines() if line]
    for _ in range(data.draw(st.integers(1, 3))):
        lines = helpers.mutate(data.draw, lines, WRONG, READ)
    path = tmp_path / "events.jsonl"
    items = lines if isinstance(lines, list) else [lines]
    path.write_text("".join(json.dumps(e, allow_nan=True) + "\n" for e in items))
    imports_or_raises(path)
