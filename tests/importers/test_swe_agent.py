"""SWE-agent importer: every shared ``.traj`` file imports with pinned counts (checked against a
count of the file itself), recorded inputs become observed windows equal to what each call
received, literal-string fields parse safely, and no input raises anything but TranscriptError."""

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
from footprint_lab.importers.swe_agent import load_swe_agent
from footprint_lab.lab import capture
from footprint_lab.messages import Message
from tests.budget import examples
from tests.importers.helpers import paths, reused_call_ids

DATA = Path(__file__).parents[2] / "data" / "transcripts" / "swe-agent"
FC = "marshmallow-1867.function-calling-replace-from-source.traj"
SIMPLE = "function_calling_simple.traj"

# file: (messages, tool calls, tool results, calls) of the imported history. In the text-mode
# files every action the next entry answers is rebuilt as a call and its result (the final
# submit, which nothing answers, stays text).
PINNED: dict[str, tuple[int, int, int, int]] = {
    "ctf__crypto__BabyEncryption.traj": (30, 14, 14, 15),
    "ctf__crypto__BabyTimeCapsule.traj": (18, 8, 8, 9),
    "ctf__forensics__flash.traj": (8, 3, 3, 4),
    "ctf__web__i_got_id_demo.traj": (42, 20, 20, 21),
    "function_calling_simple.traj": (11, 5, 5, 5),
    "gpt4.swe-agent-test-repo-1c2844.traj": (9, 4, 4, 4),
    "humanevalfix-python-0.human-thought.traj": (10, 4, 4, 5),
    "marshmallow-1867.default-from-source.traj": (28, 13, 13, 14),
    "marshmallow-1867.function-calling-replace-from-source.traj": (27, 13, 13, 13),
    "marshmallow-1867.xml-cursors-window100.traj": (24, 11, 11, 12),
}
NATIVE = {
    "function_calling_simple.traj",
    "gpt4.swe-agent-test-repo-1c2844.traj",
    "marshmallow-1867.function-calling-replace-from-source.traj",
}


def raw(name: str) -> dict[str, Any]:
    """A shared file's JSON."""
    data: dict[str, Any] = json.loads((DATA / name).read_text())
    return data


def history_of(run: Run) -> list[Message]:
    """The imported history: every committed message the source's policy did not write."""
    return [m for m in run.ledger.messages if m.authored is None]


def text_actions(history: list[dict[str, Any]]) -> int:
    """Assistant entries with an action and no tool calls that a user entry answers."""
    return sum(
        e["role"] == "assistant"
        and not e.get("tool_calls")
        and bool((e.get("action") or "").strip())
        and k + 1 < len(history)
        and history[k + 1]["role"] == "user"
        for k, e in enumerate(history)
    )


def counted(data: dict[str, Any], tool_loop: bool = True) -> tuple[int, int, int, int]:
    """The same four counts, straight from the file: entries less the leading system prompt,
    the calls listed on assistant entries (and, rebuilt, each text action a user entry
    answers), tool entries (and those user entries), assistant entries."""
    history = data["history"]
    messages = len(history) - (1 if history[0]["role"] == "system" else 0)
    rebuilt = text_actions(history) if tool_loop else 0
    calls = sum(len(e.get("tool_calls") or []) for e in history if e["role"] == "assistant")
    results = sum(e["role"] == "tool" for e in history)
    replies = sum(e["role"] == "assistant" for e in history)
    return messages, calls + rebuilt, results + rebuilt, replies


def test_the_pinned_files_are_the_shared_files() -> None:
    assert sorted(PINNED) == sorted(p.name for p in DATA.glob("*.traj"))


def _counts(run: Run) -> tuple[int, int, int, int]:
    """A run's history size, tool calls, tool results and calls."""
    history = history_of(run)
    return (
        len(history),
        sum(len(m.tool_calls) for m in history),
        sum(m.role == "tool" for m in history),
        len(run.calls),
    )


@pytest.mark.parametrize("name", sorted(PINNED))
def test_every_file_imports_with_its_pinned_counts(name: str) -> None:
    (run,) = load_swe_agent(DATA / name)
    got = _counts(run)
    assert got == PINNED[name]
    assert got == counted(raw(name))
    assert run.meta["tool_loop"] == ("native" if name in NATIVE else "rebuilt")
    assert run.meta.get("rebuilt_tool_calls", 0) == text_actions(raw(name)["history"])
    (literal,) = load_swe_agent(DATA / name, tool_loop=False)
    assert _counts(literal) == counted(raw(name), tool_loop=False)
    assert literal.meta["tool_loop"] == ("native" if name in NATIVE else "literal")
    assert run.system == raw(name)["history"][0]["content"]
    assert run.provider == "swe-agent"
    assert run.meta["trajectory_id"] == name.removesuffix(".traj")
    # The one thing a shared file has wrong: call ids reused across messages (#24 item 13).
    reused = reused_call_ids(raw(name)["history"], "history")
    assert [p.field for p in run.import_problems] == reused
    assert all("duplicate call id" in p.problem for p in run.import_problems)
    assert bool(reused) == (name == "marshmallow-1867.function-calling-replace-from-source.traj")
    assert all(c.usage is None for c in run.calls)  # SWE-agent records no per-call usage


def test_a_folder_imports_every_traj_file_sorted() -> None:
    runs = load_swe_agent(DATA)
    assert [r.meta["trajectory_id"] for r in runs] == [
        n.removesuffix(".traj") for n in sorted(PINNED)
    ]


def test_tool_results_answer_their_calls_by_id() -> None:
    (run,) = load_swe_agent(DATA / FC)
    history = history_of(run)
    entries = [e for e in raw(FC)["history"] if e["role"] != "system"]
    for message, entry in zip(history, entries, strict=True):
        assert message.role == entry["role"]
        assert message.content == entry["content"]
        if entry["role"] == "tool":
            assert message.tool_call_id == entry["tool_call_ids"][0]
        if entry["role"] == "assistant":
            assert [c.id for c in message.tool_calls] == [c["id"] for c in entry["tool_calls"]]
            assert [c.arguments for c in message.tool_calls] == [
                json.loads(c["function"]["arguments"]) for c in entry["tool_calls"]
            ]
    # This file reuses call ids across replies: a result names the latest call with its id.
    named: dict[str, str] = {}
    for message in history:
        named.update((c.id, c.name) for c in message.tool_calls)
        if message.role == "tool":
            assert message.name == named[message.tool_call_id]


def test_meta_names_model_outcome_and_stats() -> None:
    (run,) = load_swe_agent(DATA / "gpt4.swe-agent-test-repo-1c2844.traj")
    assert run.model == "gpt-4o"
    assert run.meta["model"] == "gpt-4o"
    assert run.meta["instance_id"] == "SWE-agent__test-repo-i1"
    assert run.meta["exit_status"] == "submitted"
    assert run.meta["has_submission"] is True
    assert run.meta["model_stats"] == {
        "instance_cost": 0.019520000000000006,
        "tokens_sent": 7141,
        "tokens_received": 243,
        "api_calls": 5,
    }
    assert run.meta["history_processors"] == ["last_n_observations"]
    json.dumps(run.meta)  # JSON values only


@pytest.mark.parametrize(
    ("name", "unmatched"),
    [
        # step 8 is an edit SWE-agent's linter rejected and re-queried: not in history
        ("ctf__crypto__BabyEncryption.traj", [8]),
        # the final submit step was not written back to history
        ("gpt4.swe-agent-test-repo-1c2844.traj", [4]),
        # step 19's response was edited in history, its action kept
        ("ctf__web__i_got_id_demo.traj", []),
        ("marshmallow-1867.default-from-source.traj", []),
    ],
)
def test_steps_align_to_history_replies(name: str, unmatched: list[int]) -> None:
    (run,) = load_swe_agent(DATA / name)
    assert run.meta["steps"] == len(raw(name)["trajectory"])
    assert run.meta["steps_not_in_history"] == unmatched


# --- recorded inputs: observed windows -------------------------------------------------------


def wire(entry: dict[str, Any]) -> tuple[str, str, str | None]:
    """(role, content, tool_call_id) of a recorded history entry, as sent."""
    call_id = entry["tool_call_ids"][0] if entry["role"] == "tool" else None
    return entry["role"], entry["content"], call_id


def seen(run: Run) -> list[list[tuple[str, str, str | None]]]:
    """What each call of the run received, as (role, content, tool_call_id)."""
    return [
        [(m.role, m.content, m.tool_call_id) for m in run.ledger.window_at(call.sent_commit)]
        for call in run.calls
    ]


def test_observed_windows_equal_the_recorded_inputs_message_for_message() -> None:
    """Before SWE-agent 1.1 a step's ``messages`` is the processed history *after* that step
    (it ends with the step's own reply and observation), i.e. the input of the next call; the
    first call's input, the instance prompt alone, is not recorded."""
    data = raw(FC)
    (run,) = load_swe_agent(DATA / FC)
    steps = data["trajectory"]
    windows = seen(run)
    assert len(windows) == len(steps) == 13
    assert windows[0] == [wire(e) for e in data["history"][1:2]]
    for k in range(1, len(steps)):
        assert windows[k] == [wire(e) for e in steps[k - 1]["messages"][1:]], k
    assert run.meta["recorded_inputs"] == 12


def test_a_steps_messages_hold_its_own_reply_so_they_are_not_its_input() -> None:
    data = raw(FC)
    replies = [e for e in data["history"] if e["role"] == "assistant"]
    for step, reply in zip(data["trajectory"], replies, strict=True):
        assert step["messages"][-2]["content"] == reply["content"] == step["response"]


def test_masked_observations_are_stand_ins_recorded_per_call() -> None:
    (run,) = load_swe_agent(DATA / FC)
    # last_n_observations (n=5): from the 7th call on, one more observation is masked per call.
    assert [r.iteration for r in run.records] == list(range(7, 14))
    assert all(r.observed and r.strategy == "swe-agent" for r in run.records)
    assert all(r.removed_message_count == 1 and not r.violations for r in run.records)
    tools = [m for m in history_of(run) if m.role == "tool"]
    assert [r.removed_stage_ids[0] for r in run.records] == [m.stage_id for m in tools[:7]]
    stand_ins = [m for m in run.ledger.messages if m.authored is not None]
    assert len(stand_ins) == 7
    assert all(m.authored == "cleared-result" for m in stand_ins)
    assert all(m.content.startswith("Old environment output: (") for m in stand_ins)
    # the history itself is untouched: every observation in full
    assert not any(m.content.startswith("Old environment output") for m in history_of(run))
    last = run.ledger.window_at(run.calls[-1].sent_commit)
    assert sum(m.authored == "cleared-result" for m in last) == 7


def test_a_query_field_is_the_exact_input_of_its_own_step(tmp_path: Path) -> None:
    """SWE-agent 1.1 and later record ``query``; the same inputs give the same windows."""
    data = raw(FC)
    steps = data["trajectory"]
    inputs = [data["history"][:2]] + [s["messages"] for s in steps[:-1]]
    for step, query in zip(steps, inputs, strict=True):
        del step["messages"]
        step["query"] = query
    path = tmp_path / "query.traj"
    path.write_text(json.dumps(data))
    (run,) = load_swe_agent(path)
    (reference,) = load_swe_agent(DATA / FC)
    assert seen(run) == seen(reference)
    assert run.meta["recorded_inputs"] == 13
    assert len(run.records) == 7


def test_messages_that_do_not_line_up_with_history_are_not_used(tmp_path: Path) -> None:
    data = raw(FC)
    del data["trajectory"][3]["messages"][-1]  # no longer the history before call 4
    path = tmp_path / "short.traj"
    path.write_text(json.dumps(data))
    (run,) = load_swe_agent(path)
    assert run.meta["recorded_inputs"] == 11


# --- literal strings ------------------------------------------------------------------------


def with_fields(tmp_path: Path, encode: Any, name: str = "fields.traj") -> Path:
    """The simple function-calling file with ``tool_calls`` / ``tool_call_ids`` encoded."""
    data = raw(SIMPLE)
    for entry in data["history"]:
        for key in ("tool_calls", "tool_call_ids"):
            if key in entry:
                entry[key] = encode(entry[key])
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def shape(run: Run) -> list[tuple[Any, ...]]:
    return [
        (
            m.role,
            m.content,
            m.tool_call_id,
            m.name,
            [(c.id, c.name, c.arguments) for c in m.tool_calls],
        )
        for m in history_of(run)
    ]


@pytest.mark.parametrize("encode", [str, repr, json.dumps], ids=["str", "repr", "json"])
def test_fields_stored_as_python_literal_or_json_text_parse_alike(
    tmp_path: Path, encode: Any
) -> None:
    (run,) = load_swe_agent(with_fields(tmp_path, encode))
    (reference,) = load_swe_agent(DATA / SIMPLE)
    assert shape(run) == shape(reference)
    assert run.import_problems == []


@pytest.mark.parametrize(
    "text",
    [
        "not a literal",
        "__import__('os').system('echo pwned')",  # code is never run
        "[{'id': 'c1'",  # truncated
        "{1, 2}",  # a set is not a JSON value
        "[1+2j]",
        "",
    ],
)
def test_text_that_is_not_a_literal_of_json_values_names_entry_and_field(
    tmp_path: Path, text: str
) -> None:
    data = raw(SIMPLE)
    data["history"][2]["tool_calls"] = text
    path = tmp_path / "bad.traj"
    path.write_text(json.dumps(data))
    with pytest.raises(TranscriptError) as caught:
        load_swe_agent(path)
    assert caught.value.path == str(path)
    assert caught.value.index == 2
    assert caught.value.field == "history[2].tool_calls"


def test_deeply_nested_literal_text_is_a_transcript_error(tmp_path: Path) -> None:
    data = raw(SIMPLE)
    data["history"][3]["tool_call_ids"] = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.traj"
    path.write_text(json.dumps(data))
    with pytest.raises(TranscriptError) as caught:
        load_swe_agent(path)
    assert caught.value.field == "history[3].tool_call_ids"


# --- problems and strictness ----------------------------------------------------------------


def test_problems_are_listed_or_raised_when_strict(tmp_path: Path) -> None:
    data = raw(SIMPLE)
    data["history"][3]["tool_call_ids"].append("call_extra")
    data["history"][1]["content"] = None
    path = tmp_path / "problems.traj"
    path.write_text(json.dumps(data))
    (run,) = load_swe_agent(path)
    assert [(p.source, p.index, p.field) for p in run.import_problems] == [
        ("swe-agent", 1, "history[1].content"),
        ("swe-agent", 3, "history[3].tool_call_ids"),
    ]
    with pytest.raises(TranscriptError) as caught:
        load_swe_agent(path, strict=True)
    assert caught.value.path == str(path)
    assert caught.value.field == "history[1].content"


def test_an_orphan_result_is_a_problem(tmp_path: Path) -> None:
    data = raw(SIMPLE)
    data["history"][5]["tool_call_ids"] = ["call_nobody"]
    path = tmp_path / "orphan.traj"
    path.write_text(json.dumps(data))
    (run,) = load_swe_agent(path)
    # The call the result no longer names is unanswered when the next reply comes.
    assert [(p.index, p.field) for p in run.import_problems] == [
        (4, "history[4].tool_calls[0].id"),
        (5, "history[5].tool_call_id"),
    ]


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d.pop("history"), "history"),
        (lambda d: d["history"].insert(1, 7), "history[1]"),
        (lambda d: d["history"][1].update(role="robot"), "history[1].role"),
        (lambda d: d["history"][3].pop("tool_call_ids"), "history[3].tool_call_ids"),
        (lambda d: d["history"][2].update(tool_calls={"id": "x"}), "history[2].tool_calls"),
        (lambda d: d["history"][2]["tool_calls"][0].pop("id"), "history[2].tool_calls[0]"),
        (lambda d: d.update(trajectory={}), "trajectory"),
        (lambda d: d.update(info=[]), "info"),
        (lambda d: d.update(replay_config="{not json"), "replay_config"),
    ],
)
def test_malformed_input_names_the_field(tmp_path: Path, edit: Any, field: str) -> None:
    data = raw(SIMPLE)
    edit(data)
    path = tmp_path / "malformed.traj"
    path.write_text(json.dumps(data))
    with pytest.raises(TranscriptError) as caught:
        load_swe_agent(path)
    assert caught.value.path == str(path)
    assert caught.value.field == field
    assert caught.value.source == "swe-agent"


def test_a_folder_without_traj_files_and_a_missing_file_are_transcript_errors(
    tmp_path: Path,
) -> None:
    with pytest.raises(TranscriptError, match=r"no \.traj files"):
        load_swe_agent(tmp_path)
    with pytest.raises(TranscriptError, match="cannot read"):
        load_swe_agent(tmp_path / "missing.traj")


# --- fuzzing --------------------------------------------------------------------------------

FUZZ_FILES = [SIMPLE, "gpt4.swe-agent-test-repo-1c2844.traj", "ctf__forensics__flash.traj", FC]
WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([10**400, 1.5, -1, 0]),
    st.text(max_size=8),
    st.sampled_from(["[", "{1, 2}", "[{'id': 1}]", "['a', 'b']", "[1+2j]", "(1,)", "None"]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def mutated(draw: Any, data: Any) -> bytes:
    text = json.dumps(data)
    kind = draw(st.sampled_from(["delete", "replace", "replace", "truncate", "bytes"]))
    if kind == "truncate":
        cut = draw(st.integers(0, len(text)))
        return text.encode()[:cut]
    if kind == "bytes":
        return draw(st.binary(max_size=64))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.sampled_from(paths(data)[1:]))
        holder = data
        for key in at[:-1]:
            holder = holder[key]
        if kind == "delete":
            del holder[at[-1]]
        else:
            holder[at[-1]] = draw(WRONG)
        if kind == "delete":
            break
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
    path = tmp_path / "fuzzed.traj"
    path.write_bytes(mutated(data.draw, raw(name)))
    try:
        runs = load_swe_agent(path, strict=strict)
    except TranscriptError as exc:
        event("rejected")
        assert exc.path == str(path)
        assert exc.source == "swe-agent"
    else:
        event("imported")
        assert len(runs) == 1
        json.dumps(runs[0].meta)


# --- the lab accepts the runs -----------------------------------------------------------------


def test_every_run_passes_through_capture_replay_and_dependencies() -> None:
    for run in load_swe_agent(DATA):
        frames = capture(run)
        assert frames is not None
        replayed = replay(run, sliding_window(keep_recent_turns=2))
        assert len(replayed.calls) == len(run.calls)
        assert isinstance(dependencies(run), list)
