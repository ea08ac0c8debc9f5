"""What importers used to accept in silence is listed in ``run.import_problems``, each problem
naming the file, the place (its unit and index, the field) and the rule; nothing is rewritten
(#24 item 13): calls the next reply came without an answer to, call ids reused across
messages, empty transcripts, arguments given as text where the format has an object,
duplicate tau-bench labels, a missing ``task_id``. The OpenAI participant ``name`` survives an
import, and each loader refuses another stack's file naming the format it expected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from footprint_lab.importers import (
    TranscriptError,
    from_anthropic,
    from_langchain,
    from_openai,
    load_claude_code,
    load_inspect,
    load_swe_agent,
    load_tau_bench,
)
from footprint_lab.lab.views import import_problem_items
from footprint_lab.providers.openai import to_openai_messages
from tests.importers.helpers import openai_tool_call, reused_call_ids, saved

DATA = Path(__file__).resolve().parents[2] / "data"
TAU = DATA / "tau-bench" / "gpt-4o-airline-dev.json"
TRANSCRIPTS = DATA / "transcripts"


def places(run: Any) -> list[tuple[int | None, str]]:
    return [(p.index, p.field) for p in run.import_problems]


# -- call ids reused across messages: the real tau-bench runs -------------------------------


def test_tau_bench_call_ids_reused_across_messages_are_listed_not_renamed() -> None:
    entries = json.loads(TAU.read_text("utf-8"))
    runs = load_tau_bench(TAU)
    listed = 0
    for k, (entry, run) in enumerate(zip(entries, runs, strict=True)):
        reused = reused_call_ids(entry["traj"], "traj")
        assert [p.field for p in run.import_problems] == reused
        for p in run.import_problems:
            assert (p.source, p.index, p.unit, p.path) == ("tau-bench", k, "entry", str(TAU))
            assert "duplicate call id" in p.problem
        # Kept as given: every call keeps the id the file gives it.
        raw_ids = [c["id"] for m in entry["traj"] for c in m.get("tool_calls") or []]
        assert [c.id for m in run.ledger.messages for c in m.tool_calls] == raw_ids
        listed += bool(reused)
    assert listed == 14
    first = next(r for r in runs if r.import_problems).import_problems[0]
    with pytest.raises(TranscriptError) as caught:
        load_tau_bench(TAU, strict=True)
    assert (caught.value.path, caught.value.index, caught.value.field) == (
        str(TAU),
        first.index,
        first.field,
    )
    items, _more = import_problem_items([first])
    assert items[0][0] == f"entry {first.index}"  # the Inspector names the entry, not a message


# -- unanswered calls ------------------------------------------------------------------------


def test_a_call_the_next_reply_came_without_is_listed_in_a_real_session() -> None:
    path = TRANSCRIPTS / "claude-code" / "edge_cases.jsonl"
    (run,) = load_claude_code(path)
    unanswered = [p for p in run.import_problems if p.problem.startswith("unanswered call")]
    # Line 9 calls MultiEdit, no result follows, and line 12 is the next reply. The session's
    # last reply (line 17, TodoWrite) is only cut short: the run is incomplete, not wrong.
    assert [(p.index, p.field, p.unit, p.path) for p in unanswered] == [
        (9, "message.content[1].id", "line", str(path))
    ]
    assert "'tool_edge_002'" in unanswered[0].problem
    assert run.status == "incomplete"


def _openai_unanswered() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [openai_tool_call("c", "f", "{}")]},
        {"role": "user", "content": "never mind"},
        {"role": "assistant", "content": "ok"},
    ]


UNANSWERED: list[tuple[Any, list[dict[str, Any]], tuple[int, str]]] = [
    (from_openai, _openai_unanswered(), (1, "tool_calls[0].id")),
    (
        from_anthropic,
        [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "calling"},
                    {"type": "tool_use", "id": "c", "name": "f", "input": {}},
                ],
            },
            {"role": "user", "content": "never mind"},
            {"role": "assistant", "content": "ok"},
        ],
        (1, "content[1].id"),
    ),
    (
        from_langchain,
        [
            {"type": "human", "data": {"content": "go"}},
            {
                "type": "ai",
                "data": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "c"}]},
            },
            {"type": "human", "data": {"content": "never mind"}},
            {"type": "ai", "data": {"content": "ok"}},
        ],
        (1, "data.tool_calls[0].id"),
    ),
]


@pytest.mark.parametrize(("importer", "raw", "place"), UNANSWERED)
def test_an_unanswered_call_is_kept_and_listed(
    importer: Any, raw: list[dict[str, Any]], place: tuple[int, str]
) -> None:
    run = importer(raw)
    assert [m.role for m in run.ledger.messages] == ["user", "assistant", "user", "assistant"]
    assert places(run) == [place]
    assert run.import_problems[0].problem.startswith("unanswered call 'c': no tool result")
    with pytest.raises(TranscriptError) as caught:
        importer(raw, strict=True)
    assert (caught.value.index, caught.value.field) == place


def test_an_answered_call_and_a_transcript_cut_at_a_call_list_nothing() -> None:
    answered = _openai_unanswered()
    answered.insert(2, {"role": "tool", "tool_call_id": "c", "content": "r"})
    assert from_openai(answered, strict=True).import_problems == []
    cut = from_openai(_openai_unanswered()[:2], strict=True)
    assert cut.import_problems == [] and cut.status == "incomplete"


def test_an_unanswered_call_in_an_inspect_sample(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": "f"}]},
        {"role": "assistant", "content": "ok"},
    ]
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"eval": {"task": "t"}, "samples": [{"messages": messages}]}))
    (run,) = load_inspect(path)
    assert [(p.index, p.field, p.unit, p.path) for p in run.import_problems] == [
        (0, "samples[0].messages[1].tool_calls[0].id", "sample", str(path))
    ]


# -- empty transcripts -----------------------------------------------------------------------


@pytest.mark.parametrize("importer", [from_openai, from_anthropic, from_langchain])
def test_an_empty_transcript_imports_and_says_so(importer: Any) -> None:
    run = importer([])
    assert len(run.ledger.messages) == 0
    assert [(p.index, p.field, p.problem) for p in run.import_problems] == [
        (None, "messages", "no messages: an empty transcript, imported as an empty run")
    ]
    with pytest.raises(TranscriptError, match="no messages"):
        importer([], strict=True)


def test_empty_transcripts_in_files_name_the_file_and_the_place(tmp_path: Path) -> None:
    tau = tmp_path / "tau.json"
    tau.write_text(json.dumps([{"task_id": 7, "trial": 0, "traj": []}]))
    (run,) = load_tau_bench(tau)
    assert [(p.index, p.field, p.unit, p.path) for p in run.import_problems] == [
        (0, "traj.messages", "entry", str(tau))
    ]
    log = tmp_path / "log.json"
    log.write_text(json.dumps({"eval": {"task": "t"}, "samples": [{"messages": []}]}))
    (run,) = load_inspect(log)
    assert [(p.index, p.field, p.unit, p.path) for p in run.import_problems] == [
        (0, "samples[0].messages", "sample", str(log))
    ]
    traj = tmp_path / "empty.traj"
    traj.write_text(json.dumps({"history": []}))
    (run,) = load_swe_agent(traj)
    assert [(p.index, p.field, p.path) for p in run.import_problems] == [
        (None, "history.messages", str(traj))
    ]


# -- arguments given as text where the format has an object ----------------------------------


def _langchain_call(args: Any) -> list[dict[str, Any]]:
    return [
        {
            "type": "ai",
            "data": {"content": "", "tool_calls": [{"name": "f", "args": args, "id": "l"}]},
        }
    ]


def test_langchain_args_given_as_a_json_string_are_parsed_and_listed(tmp_path: Path) -> None:
    run = from_langchain(_langchain_call('{"city": "Oslo"}'))
    assert run.ledger.messages[0].tool_calls[0].arguments == {"city": "Oslo"}
    assert places(run) == [(0, "data.tool_calls[0].args")]
    assert run.import_problems[0].problem == (
        "arguments given as text where the format has an object: the JSON of an object, parsed"
    )
    assert saved(run, tmp_path).import_problems == run.import_problems
    with pytest.raises(TranscriptError, match=r"data\.tool_calls\[0\]\.args"):
        from_langchain(_langchain_call('{"city": "Oslo"}'), strict=True)
    # One problem for the field, whatever the text holds.
    assert len(from_langchain(_langchain_call("not json")).import_problems) == 1
    assert from_langchain(_langchain_call({"city": "Oslo"}), strict=True).import_problems == []


def test_anthropic_input_given_as_text_is_listed() -> None:
    raw = [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "f", "input": '{"a": 1}'}],
        }
    ]
    run = from_anthropic(raw)
    assert run.ledger.messages[0].tool_calls[0].arguments == {"a": 1}
    assert places(run) == [(0, "content[0].input")]


def test_openai_arguments_as_json_text_are_the_format_and_list_nothing() -> None:
    raw = [{"role": "assistant", "tool_calls": [openai_tool_call("c", "f", '{"a": 1}')]}]
    assert from_openai(raw, strict=True).import_problems == []


# -- tau-bench labels and task ids -----------------------------------------------------------


def _entry(**fields: Any) -> dict[str, Any]:
    return {**fields, "reward": 1.0, "traj": [{"role": "user", "content": "hi"}]}


def test_duplicate_tau_bench_labels_are_listed_and_both_runs_kept(tmp_path: Path) -> None:
    path = tmp_path / "tau.json"
    path.write_text(
        json.dumps(
            [_entry(task_id=3, trial=0), _entry(task_id=3, trial=1), _entry(task_id=3, trial=0)]
        )
    )
    runs = load_tau_bench(path)
    assert [r.meta["label"] for r in runs] == ["task-3-trial-0", "task-3-trial-1", "task-3-trial-0"]
    assert [places(r) for r in runs] == [[], [], [(2, "trial")]]
    (problem,) = runs[2].import_problems
    assert problem.problem.startswith("duplicate label 'task-3-trial-0': entry 0 has the same")
    assert (problem.unit, problem.path) == ("entry", str(path))
    with pytest.raises(TranscriptError, match="duplicate label") as caught:
        load_tau_bench(path, strict=True)
    assert (caught.value.path, caught.value.index, caught.value.unit) == (str(path), 2, "entry")


def test_a_missing_tau_bench_task_id_is_listed(tmp_path: Path) -> None:
    path = tmp_path / "tau.json"
    path.write_text(json.dumps([_entry(trial=0), _entry(task_id=None, trial=1)]))
    runs = load_tau_bench(path)
    assert [places(r) for r in runs] == [[(0, "task_id")], [(1, "task_id")]]
    assert runs[0].import_problems[0].problem == "missing: the run's label is 'task-None-trial-0'"
    with pytest.raises(TranscriptError, match="entry 0, field 'task_id': missing"):
        load_tau_bench(path, strict=True)


# -- the OpenAI participant name -------------------------------------------------------------


def test_the_openai_user_name_survives_import_save_load_and_the_wire(tmp_path: Path) -> None:
    run = from_openai(
        [
            {"role": "user", "name": "alice", "content": "hi"},
            {"role": "assistant", "name": "helper", "content": "hello"},
            {"role": "user", "content": "bye"},
        ],
        strict=True,
    )
    assert [(m.role, m.name) for m in run.ledger.messages] == [
        ("user", "alice"),
        ("assistant", "helper"),
        ("user", None),
    ]
    loaded = saved(run, tmp_path)
    assert [m.name for m in loaded.ledger.messages] == ["alice", "helper", None]
    assert [m.name for m in loaded.window] == ["alice", "helper", None]
    assert to_openai_messages(loaded.window) == [
        {"role": "user", "content": "hi", "name": "alice"},
        {"role": "assistant", "content": "hello", "name": "helper"},
        {"role": "user", "content": "bye"},
    ]


def test_a_named_system_message_keeps_its_name() -> None:
    run = from_openai(
        [
            {"role": "system", "name": "rules", "content": "be brief"},
            {"role": "user", "content": "x"},
        ]
    )
    assert run.system is None
    system = run.ledger.messages[0]
    assert (system.role, system.name, system.content) == ("system", "rules", "be brief")
    with pytest.raises(TranscriptError, match="field 'name': expected text"):
        from_openai([{"role": "user", "name": 7, "content": "x"}])


# -- another stack's file is refused, naming the format expected ----------------------------


def _other_files(own: str) -> list[Path]:
    files = [TAU, *sorted(p for p in TRANSCRIPTS.glob("*/*") if p.suffix != "" and p.is_file())]
    return [p for p in files if p.parent.name != own and p.suffix not in (".md",)]


@pytest.mark.parametrize("path", _other_files("inspect"), ids=lambda p: p.name)
def test_inspect_refuses_every_other_stacks_file_by_name(path: Path) -> None:
    with pytest.raises(TranscriptError, match="Inspect") as caught:
        load_inspect(path)
    assert caught.value.path == str(path)


@pytest.mark.parametrize("path", _other_files("claude-code"), ids=lambda p: p.name)
def test_claude_code_refuses_every_other_stacks_file_by_name(path: Path) -> None:
    with pytest.raises(TranscriptError, match="Claude Code") as caught:
        load_claude_code(path)
    assert caught.value.path == str(path)


def test_a_finished_tau_bench_run_whose_last_call_has_no_result_lists_it(tmp_path: Path) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "book", "arguments": "{}"}}
    traj = [
        {"role": "user", "content": "book it"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
    ]
    path = tmp_path / "tau.json"
    path.write_text(json.dumps([{"task_id": 1, "trial": 0, "reward": 1.0, "traj": traj}]))
    (run,) = load_tau_bench(path)
    assert run.status == "done"  # the source scored it: finished, whatever came last
    (problem,) = run.import_problems
    assert "['c1'] have no result" in problem.problem and "reward 1.0" in problem.problem
    assert (problem.source, problem.unit, problem.path) == ("tau-bench", "entry", str(path))
    assert problem.index == 0
    # Without a reward the transcript only stops at a call: incomplete, nothing to list.
    path.write_text(json.dumps([{"task_id": 1, "trial": 0, "traj": traj}]))
    (cut,) = load_tau_bench(path)
    assert cut.status == "incomplete" and not cut.import_problems
