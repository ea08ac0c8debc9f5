"""OpenHands importer: every shared event stream imports with pinned counts (checked against a
count of the file itself), one model reply with several tool calls is one message, condensation
events become observed windows built as OpenHands builds its view, and no input raises anything
but TranscriptError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from footprint_lab import replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.evidence import dependencies
from footprint_lab.importers import TranscriptError
from footprint_lab.importers.openhands import load_openhands
from footprint_lab.lab import capture
from footprint_lab.messages import Message
from tests.budget import examples
from tests.importers.helpers import paths

DATA = Path(__file__).parents[2] / "data" / "transcripts" / "openhands"
SWE = "multi-swe-bench-example-1.jsonl"

# file: (messages, tool calls, tool results, calls, calls with usage) of the imported history.
PINNED: dict[str, tuple[int, int, int, int, int]] = {
    "multi-swe-bench-example-1.jsonl": (47, 22, 22, 23, 23),
    "runtime-basic.json": (4, 1, 1, 2, 2),
    "runtime-basic_gui_mode.json": (10, 4, 4, 5, 4),
    "runtime-basic_interactions.json": (6, 0, 0, 3, 1),
    "runtime-wrong_initial_state.json": (8, 3, 3, 4, 4),
}


def events_of(name: str) -> list[dict[str, Any]]:
    """A shared file's events (the first instance of a JSONL file)."""
    text = (DATA / name).read_text()
    if name.endswith(".jsonl"):
        history: list[dict[str, Any]] = json.loads(text.splitlines()[0])["history"]
        return history
    data = json.loads(text)
    events: list[dict[str, Any]] = data if isinstance(data, list) else data["history"]
    return events


def counted(events: list[dict[str, Any]]) -> tuple[int, int, int, int, int]:
    """The same five counts, straight from the events: a reply is one model response (actions
    sharing its id) or an agent message without one; a ``finish`` reply sends text, not its
    tool call; results are observations with tool call metadata; user turns are user messages
    and recall observations that recorded knowledge."""
    responses: dict[str, dict[str, Any]] = {}
    finishes: set[str] = set()
    plain_replies = 0
    for e in events:
        tcm = e.get("tool_call_metadata")
        if e.get("source") == "agent" and "action" in e:
            if tcm:
                response = tcm["model_response"]
                responses[response["id"]] = response
                if e["action"] == "finish":
                    finishes.add(response["id"])
            elif e["action"] == "message":
                plain_replies += 1
    replies = len(responses) + plain_replies
    calls = sum(
        len(r["choices"][0]["message"].get("tool_calls") or [])
        for rid, r in responses.items()
        if rid not in finishes
    )
    results = sum("observation" in e and bool(e.get("tool_call_metadata")) for e in events)
    users = sum(e.get("source") == "user" and e.get("action") == "message" for e in events)
    users += sum(
        e.get("observation") == "recall" and bool(e["extras"].get("microagent_knowledge"))
        for e in events
    )
    usage = sum(bool(r.get("usage")) for r in responses.values())
    return replies + results + users, calls, results, replies, usage


def history_of(run: Run) -> list[Message]:
    """The imported history: every committed message the source's policy did not write."""
    return [m for m in run.ledger.messages if m.authored is None]


def counts(run: Run) -> tuple[int, int, int, int, int]:
    history = history_of(run)
    return (
        len(history),
        sum(len(m.tool_calls) for m in history),
        sum(m.role == "tool" for m in history),
        len(run.calls),
        sum(c.usage is not None for c in run.calls),
    )


def test_the_pinned_files_are_the_shared_files() -> None:
    shared = sorted(p.name for p in DATA.iterdir() if p.suffix in (".json", ".jsonl"))
    assert sorted(PINNED) == shared


@pytest.mark.parametrize("name", sorted(PINNED))
def test_every_file_imports_with_its_pinned_counts(name: str) -> None:
    (run,) = load_openhands(DATA / name)
    assert counts(run) == PINNED[name]
    assert counts(run) == counted(events_of(name))
    assert run.provider == "openhands"
    assert run.import_problems == []
    assert run.records == []  # no condensation in the shared files
    assert run.meta["condensations"] == 0
    json.dumps(run.meta)


def test_a_folder_imports_every_json_and_jsonl_file_sorted() -> None:
    runs = load_openhands(DATA)
    assert [r.meta["instance_id"] for r in runs] == [
        "ponylang__ponyc-4595",
        "runtime-basic",
        "runtime-basic_gui_mode",
        "runtime-basic_interactions",
        "runtime-wrong_initial_state",
    ]


def test_the_swe_run_keeps_system_prompt_usage_model_and_outcome() -> None:
    (run,) = load_openhands(DATA / SWE)
    events = events_of(SWE)
    assert run.system == events[0]["args"]["content"]
    assert run.model == "openai/openrouter-llama-4-maverick"
    assert run.meta["instance_id"] == "ponylang__ponyc-4595"
    assert run.meta["agent_class"] == "CodeActAgent"
    assert run.meta["outcome"] == {"has_patch": True}
    assert run.meta["accumulated_cost"] == 0.0
    assert run.meta["accumulated_token_usage"]["prompt_tokens"] == 565158
    assert run.meta["max_message_chars"] == 30000
    responses = [
        e["tool_call_metadata"]["model_response"]
        for e in events
        if "action" in e and e.get("tool_call_metadata")
    ]
    assert [c.usage.input_tokens for c in run.calls if c.usage] == [
        r["usage"]["prompt_tokens"] for r in responses
    ]
    assert sum(c.usage.output_tokens for c in run.calls if c.usage) == 2558
    # the run ends in the finish action's text, as OpenHands sends it
    assert run.status == "done"
    assert run.output == events[-1]["args"]["thought"]


def test_cache_usage_is_read() -> None:
    (run,) = load_openhands(DATA / "runtime-basic.json")
    last = run.calls[-1].usage
    assert last is not None
    assert (last.input_tokens, last.output_tokens) == (4646, 177)
    assert (last.cache_read_tokens, last.cache_write_tokens) == (3482, 1158)


def test_tool_results_carry_their_calls_id_and_command_output_its_metadata() -> None:
    (run,) = load_openhands(DATA / "runtime-basic_gui_mode.json")
    history = history_of(run)
    assert [m.role for m in history] == ["user"] + ["assistant", "tool"] * 4 + ["assistant"]
    call, result = history[1], history[2]
    assert call.tool_calls[0].name == "execute_bash"
    assert call.tool_calls[0].arguments == {"command": "mkdir -p /workspace/todo-app"}
    assert result.tool_call_id == call.tool_calls[0].id
    assert result.name == "execute_bash"
    assert result.content.endswith(
        "[Current working directory: /workspace]\n"
        "[Python interpreter: /openhands/poetry/openhands-ai-5O4_aCHf-py3.12/bin/python]\n"
        "[Command finished with exit code 0]"
    )


# --- small streams ---------------------------------------------------------------------------


def reply(rid: str, calls: list[tuple[str, str, dict[str, Any]]], text: str = "") -> dict[str, Any]:
    """A ``model_response`` with these (id, name, arguments) tool calls."""
    return {
        "id": rid,
        "model": "test-model",
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": text,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                        for cid, name, args in calls
                    ],
                }
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10},
    }


def act(eid: int, response: dict[str, Any], k: int = 0) -> dict[str, Any]:
    """The agent action for call ``k`` of ``response``."""
    call = response["choices"][0]["message"]["tool_calls"][k]
    return {
        "id": eid,
        "source": "agent",
        "action": "run",
        "args": {"command": json.loads(call["function"]["arguments"])["command"], "thought": ""},
        "tool_call_metadata": {
            "function_name": call["function"]["name"],
            "tool_call_id": call["id"],
            "model_response": response,
            "total_calls_in_response": len(response["choices"][0]["message"]["tool_calls"]),
        },
    }


def observe(eid: int, action: dict[str, Any], output: str) -> dict[str, Any]:
    """The observation answering ``action``."""
    return {
        "id": eid,
        "source": "agent",
        "observation": "run",
        "cause": action["id"],
        "content": output,
        "extras": {},
        "tool_call_metadata": action["tool_call_metadata"],
    }


def system(eid: int = 0) -> dict[str, Any]:
    return {"id": eid, "source": "agent", "action": "system", "args": {"content": "You are OH."}}


def user(eid: int, text: str) -> dict[str, Any]:
    return {"id": eid, "source": "user", "action": "message", "args": {"content": text}}


def condensation(eid: int, **args: Any) -> dict[str, Any]:
    return {"id": eid, "source": "agent", "action": "condensation", "args": args}


def turns(first_id: int, count: int) -> list[dict[str, Any]]:
    """``count`` single-call turns (action, observation), ids from ``first_id``."""
    out: list[dict[str, Any]] = []
    for n in range(count):
        eid = first_id + 2 * n
        response = reply(f"r{eid}", [(f"c{eid}", "execute_bash", {"command": f"step {eid}"})])
        action = act(eid, response)
        out += [action, observe(eid + 1, action, f"output of step {eid} " * 20)]
    return out


def load(tmp_path: Path, events: list[dict[str, Any]], name: str = "stream.json") -> Run:
    path = tmp_path / name
    path.write_text(json.dumps(events))
    (run,) = load_openhands(path)
    return run


def texts(run: Run, k: int) -> list[tuple[str, str]]:
    """(role, content) of what call ``k`` received."""
    return [(m.role, m.content) for m in run.ledger.window_at(run.calls[k].sent_commit)]


def test_calls_of_one_model_response_are_one_message(tmp_path: Path) -> None:
    both = reply(
        "r2", [("a", "execute_bash", {"command": "ls"}), ("b", "execute_bash", {"command": "pwd"})]
    )
    first, second = act(2, both, 0), act(3, both, 1)
    events = [
        system(),
        user(1, "look around"),
        first,
        second,
        observe(4, first, "a b c"),
        observe(5, second, "/home"),
    ]
    run = load(tmp_path, events)
    history = history_of(run)
    assert [m.role for m in history] == ["user", "assistant", "tool", "tool"]
    assert [c.id for c in history[1].tool_calls] == ["a", "b"]
    assert [m.tool_call_id for m in history[2:]] == ["a", "b"]
    assert len(run.calls) == 1
    assert run.calls[0].usage is not None and run.calls[0].usage.input_tokens == 100
    assert run.system == "You are OH."


def test_finish_sends_its_thought_and_the_replys_text_where_it_differs(tmp_path: Path) -> None:
    done = reply("r9", [("f", "finish", {"message": "bye"})], text="All done.")
    finish = {
        "id": 2,
        "source": "agent",
        "action": "finish",
        "args": {"thought": "Wrapping up.", "outputs": {}},
        "tool_call_metadata": {
            "function_name": "finish",
            "tool_call_id": "f",
            "model_response": done,
        },
    }
    run = load(tmp_path, [system(), user(1, "go"), finish])
    assert run.output == "Wrapping up.\nAll done."
    assert history_of(run)[-1].tool_calls == []
    assert run.calls[-1].usage is not None


def test_control_events_and_hidden_events_are_not_sent(tmp_path: Path) -> None:
    noise = [
        {
            "id": 2,
            "source": "environment",
            "observation": "agent_state_changed",
            "content": "",
            "extras": {},
        },
        {
            "id": 3,
            "source": "environment",
            "action": "change_agent_state",
            "args": {"agent_state": "running"},
        },
        {"id": 4, "source": "user", "observation": "null", "content": "", "cause": 1, "extras": {}},
        {"id": 5, "source": "user", "action": "recall", "args": {"query": "x"}},
    ]
    hidden = turns(6, 1)
    hidden[0]["args"]["hidden"] = True
    hidden[1]["extras"]["hidden"] = True
    run = load(tmp_path, [system(), user(1, "hi"), *noise, *hidden])
    assert [m.role for m in history_of(run)] == ["user"]


# --- condensation -----------------------------------------------------------------------------


def test_a_condensation_forgets_events_and_inserts_its_summary_as_a_stand_in(
    tmp_path: Path,
) -> None:
    # system 0, user 1, turns 2..9 (calls c2 c4 c6 c8), condensation 10, turns 11..14
    events = [system(), user(1, "fix the bug"), *turns(2, 4)]
    events.append(
        condensation(
            10, forgotten_event_ids=[2, 3, 4, 5], summary="I listed files.", summary_offset=2
        )
    )
    events += turns(11, 2)
    run = load(tmp_path, events)
    history = history_of(run)
    assert len(run.calls) == 6
    assert not any("I listed files." in m.content for m in history)  # never history
    # calls before the condensation saw the history as it was
    assert run.records[0].iteration == 5
    before = texts(run, 3)
    assert len(before) == 1 + 2 * 3
    # later calls: system, user, the summary at offset 2, then what was not forgotten
    kept = [(m.role, m.content) for m in history[5:9]]
    assert texts(run, 4) == [("user", "fix the bug"), ("user", "I listed files."), *kept]
    assert texts(run, 5) == texts(run, 4) + [(m.role, m.content) for m in history[9:11]]
    (record,) = run.records
    assert record.observed and record.strategy == "openhands"
    assert record.removed_message_count == 4
    forgotten = [m.stage_id for m in history[1:5]]
    assert sorted(record.removed_stage_ids) == sorted(forgotten)
    (summary,) = [m for m in run.ledger.messages if m.authored is not None]
    assert summary.authored == "compaction-frame"
    assert summary.content == "I listed files."
    assert run.meta["condensations"] == 1


def test_a_condenser_that_drops_the_first_user_message_gets_it_back(tmp_path: Path) -> None:
    """LLMSummarizingCondenser with keep_first=1 forgets everything after the system prompt;
    ConversationMemory puts the first user message back before the summary."""
    events = [system(), user(1, "fix the bug"), *turns(2, 3)]
    events.append(
        condensation(
            8,
            forgotten_events_start_id=1,
            forgotten_events_end_id=5,
            summary="Summary so far.",
            summary_offset=1,
        )
    )
    events += turns(9, 1)
    run = load(tmp_path, events)
    history = history_of(run)
    kept = [(m.role, m.content) for m in history[5:7]]  # the last turn before the condensation
    assert texts(run, 3) == [("user", "fix the bug"), ("user", "Summary so far."), *kept]


def test_condensations_accumulate_and_the_latest_summary_wins(tmp_path: Path) -> None:
    events = [system(), user(1, "task"), *turns(2, 2)]
    events.append(condensation(6, forgotten_event_ids=[2, 3], summary="first", summary_offset=2))
    events += turns(7, 2)
    events.append(
        condensation(11, forgotten_event_ids=[4, 5, 7, 8], summary="second", summary_offset=2)
    )
    events += turns(12, 1)
    run = load(tmp_path, events)
    history = history_of(run)
    last = texts(run, 4)
    assert last == [
        ("user", "task"),
        ("user", "second"),
        *[(m.role, m.content) for m in history[7:9]],  # turn 9..10 survives both
    ]
    assert [m.content for m in run.ledger.messages if m.authored] == ["first", "second"]


def test_a_condensation_without_summary_only_forgets(tmp_path: Path) -> None:
    events = [system(), user(1, "task"), *turns(2, 2), condensation(6, forgotten_event_ids=[2, 3])]
    events += turns(7, 1)
    run = load(tmp_path, events)
    history = history_of(run)
    assert texts(run, 2) == [("user", "task"), *[(m.role, m.content) for m in history[3:5]]]
    assert [m for m in run.ledger.messages if m.authored] == []


def test_a_call_whose_result_was_forgotten_is_left_out(tmp_path: Path) -> None:
    events = [system(), user(1, "task"), *turns(2, 2), condensation(6, forgotten_event_ids=[3])]
    events += turns(7, 1)
    run = load(tmp_path, events)
    history = history_of(run)
    # OpenHands drops the call that lost its result, so no tool pair is split
    assert texts(run, 2) == [("user", "task"), *[(m.role, m.content) for m in history[3:5]]]


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"forgotten_event_ids": [1], "forgotten_events_start_id": 1, "forgotten_events_end_id": 2},
        {"forgotten_event_ids": [1], "summary": "s"},
        {"forgotten_event_ids": "1"},
        {"forgotten_events_start_id": 1, "forgotten_events_end_id": "2"},
        {"forgotten_event_ids": [], "summary": 3, "summary_offset": 1},
    ],
)
def test_a_malformed_condensation_names_its_event(tmp_path: Path, args: dict[str, Any]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([system(), user(1, "t"), condensation(2, **args)]))
    with pytest.raises(TranscriptError) as caught:
        load_openhands(path)
    assert caught.value.path == str(path)
    assert caught.value.index == 2
    assert caught.value.field.startswith("history[2].args")


def test_a_huge_forgotten_range_is_not_expanded(tmp_path: Path) -> None:
    events = [system(), user(1, "task"), *turns(2, 1)]
    events.append(condensation(4, forgotten_events_start_id=2, forgotten_events_end_id=10**15))
    events += turns(5, 1)
    run = load(tmp_path, events)
    assert texts(run, 1) == [("user", "task")]


# --- files, problems, strictness --------------------------------------------------------------


def test_jsonl_instances_and_instance_lists_import_one_run_each(tmp_path: Path) -> None:
    line = (DATA / SWE).read_text().splitlines()[0]
    jsonl = tmp_path / "two.jsonl"
    jsonl.write_text(line + "\n\n" + line + "\n")
    assert len(load_openhands(jsonl)) == 2
    listed = tmp_path / "listed.json"
    listed.write_text("[" + line + "," + line + "]")
    assert len(load_openhands(listed)) == 2
    single = tmp_path / "single.json"
    single.write_text(line)
    (run,) = load_openhands(single)
    assert counts(run) == PINNED[SWE]


def test_a_bad_jsonl_line_names_its_line(tmp_path: Path) -> None:
    line = (DATA / SWE).read_text().splitlines()[0]
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n" + line[:500] + "\n")
    with pytest.raises(TranscriptError) as caught:
        load_openhands(path)
    assert caught.value.path == str(path)
    assert caught.value.index == 1
    assert caught.value.field == "line 2"


def test_an_orphan_result_is_a_problem_or_raises_when_strict(tmp_path: Path) -> None:
    (action, result) = turns(2, 1)
    result["tool_call_metadata"] = {**result["tool_call_metadata"], "tool_call_id": "nobody"}
    path = tmp_path / "orphan.json"
    path.write_text(json.dumps([system(), user(1, "t"), action, result]))
    (run,) = load_openhands(path)
    assert [(p.source, p.index, p.field) for p in run.import_problems] == [
        ("openhands", 3, "history[3].tool_call_metadata.tool_call_id")
    ]
    with pytest.raises(TranscriptError) as caught:
        load_openhands(path, strict=True)
    assert caught.value.path == str(path)
    assert caught.value.index == 3


@pytest.mark.parametrize(
    ("edit", "index", "field"),
    [
        (lambda e: e[2].pop("id"), 2, "history[2].id"),
        (lambda e: e[2].update(observation="run"), 2, "history[2]"),
        (lambda e: e[2].update(action=5), 2, "history[2].action"),
        (
            lambda e: e[2]["tool_call_metadata"].update(model_response=[]),
            2,
            "history[2].tool_call_metadata.model_response",
        ),
        (
            lambda e: e[2]["tool_call_metadata"]["model_response"].update(choices=[]),
            2,
            "history[2].tool_call_metadata.model_response.choices",
        ),
        (
            lambda e: e[2]["tool_call_metadata"]["model_response"]["choices"][0]["message"][
                "tool_calls"
            ][0].pop("id"),
            2,
            "history[2].tool_call_metadata.model_response.choices[0].message.tool_calls[0]",
        ),
        (
            lambda e: e[2]["tool_call_metadata"]["model_response"]["usage"].update(
                prompt_tokens="x"
            ),
            2,
            "history[2].tool_call_metadata.model_response.usage.prompt_tokens",
        ),
        (lambda e: e[3].update(content=7), 3, "history[3].content"),
        (lambda e: e[1]["args"].update(content=7), 1, "history[1].args.content"),
        (lambda e: e.insert(1, "event"), 1, "history[1]"),
    ],
)
def test_malformed_events_name_event_and_field(
    tmp_path: Path, edit: Any, index: int, field: str
) -> None:
    events = [system(), user(1, "t"), *turns(2, 1)]
    events = json.loads(json.dumps(events))  # the turns share their response object
    edit(events)
    path = tmp_path / "malformed.json"
    path.write_text(json.dumps(events))
    with pytest.raises(TranscriptError) as caught:
        load_openhands(path)
    assert caught.value.path == str(path)
    assert (caught.value.index, caught.value.field) == (index, field)
    assert caught.value.source == "openhands"


def test_a_folder_without_event_files_and_a_missing_file_are_transcript_errors(
    tmp_path: Path,
) -> None:
    with pytest.raises(TranscriptError, match=r"no \.json or \.jsonl files"):
        load_openhands(tmp_path)
    with pytest.raises(TranscriptError, match="cannot read"):
        load_openhands(tmp_path / "missing.json")


# --- fuzzing --------------------------------------------------------------------------------

FUZZ_FILES = [
    "runtime-basic.json",
    "runtime-wrong_initial_state.json",
    "runtime-basic_gui_mode.json",
    SWE,
]
WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([10**400, 1.5, -1, 0, 10**15]),
    st.text(max_size=8),
    st.sampled_from(
        ["condensation", "run", "finish", "message", "recall", "system", "agent", "user"]
    ),
    st.lists(st.integers(-2, 60), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def mutated(draw: Any, name: str) -> bytes:
    text = (DATA / name).read_text()
    kind = draw(st.sampled_from(["delete", "replace", "replace", "condense", "truncate", "bytes"]))
    if kind == "truncate":
        return text.encode()[: draw(st.integers(0, len(text)))]
    if kind == "bytes":
        return draw(st.binary(max_size=64))
    data = json.loads(text.splitlines()[0]) if name.endswith(".jsonl") else json.loads(text)
    events = data["history"] if isinstance(data, dict) else data
    if kind == "condense":
        at = draw(st.integers(0, len(events)))
        args = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "forgotten_event_ids": st.lists(st.integers(-1, 60), max_size=6),
                    "forgotten_events_start_id": st.integers(-1, 60),
                    "forgotten_events_end_id": st.integers(-1, 60),
                    "summary": st.text(max_size=10),
                    "summary_offset": st.integers(-3, 60),
                },
            )
        )
        events.insert(at, condensation(1000 + at, **args))
    else:
        for _ in range(draw(st.integers(1, 3))):
            where = draw(st.sampled_from(paths(data)[1:]))
            holder = data
            for key in where[:-1]:
                holder = holder[key]
            if kind == "delete":
                del holder[where[-1]]
                break
            holder[where[-1]] = draw(WRONG)
    return json.dumps(data).encode()


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(name=st.sampled_from(FUZZ_FILES), strict=st.booleans(), data=st.data())
def test_fuzzed_files_import_or_raise_transcript_error(
    tmp_path: Path, name: str, strict: bool, data: st.DataObject
) -> None:
    path = tmp_path / ("fuzzed.jsonl" if name.endswith(".jsonl") else "fuzzed.json")
    path.write_bytes(mutated(data.draw, name))
    try:
        runs = load_openhands(path, strict=strict)
    except TranscriptError as exc:
        event("rejected")
        assert exc.path == str(path)
        assert exc.source == "openhands"
    else:
        event("imported")
        for run in runs:
            json.dumps(run.meta)


# --- the lab accepts the runs -----------------------------------------------------------------


def condensed(tmp_path: Path) -> Run:
    events = [system(), user(1, "fix the bug"), *turns(2, 4)]
    events.append(
        condensation(
            10, forgotten_event_ids=[2, 3, 4, 5], summary="I listed files.", summary_offset=2
        )
    )
    events += turns(11, 2)
    return load(tmp_path, events, "condensed.json")


def test_every_run_passes_through_capture_replay_and_dependencies(tmp_path: Path) -> None:
    for run in [*load_openhands(DATA), condensed(tmp_path)]:
        frames = capture(run)
        assert frames is not None
        replayed = replay(run, sliding_window(keep_recent_turns=2))
        assert len(replayed.calls) == len(run.calls)
        assert isinstance(dependencies(run), list)
