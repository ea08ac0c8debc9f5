"""Tests of the mini-swe-agent importer on the three real trajectories in
``data/transcripts/mini-swe-agent/`` (a 2.3 tool-call run, a 1.15 text-mode run, the bare
message list of mini-swe-agent's own test data): the request is the instance prompt, every
call is paired with its result, usage and cost are the file's, the exit status is the outcome;
and on small edits of those files for the variants they lack (2.x text mode, a Responses API
model, limits, format errors, a person's words, an exception, files before 1.4). Every number
is checked against the file's own JSON, read here independently of the importer."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import TranscriptError, detect_format, load, load_mini_swe_agent
from footprint_lab.importers._sniff import sniff
from footprint_lab.importers.mini_swe_agent import FILE_FORMAT
from footprint_lab.lab import capture
from footprint_lab.messages import is_observation
from tests.importers.helpers import FUZZ, history, mutate, wrong_values

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "mini-swe-agent"
NATIVE = "astropy__astropy-12907.traj.json"
TEXT = "gemini-3-pro.v1.15.sympy__sympy-11618.traj.json"
BARE = "github_issue.traj.json"
FILES = (NATIVE, TEXT, BARE)


# -- reading the files independently of the importer -----------------------------------------


def raw(name: str) -> Any:
    return json.loads((DATA / name).read_text("utf-8"))


def raw_messages(name: str) -> list[dict[str, Any]]:
    data = raw(name)
    return data if isinstance(data, list) else data["messages"]


def bash_block(text: str) -> str:
    """The one fenced bash block of a text-mode reply (1.x's ```bash, 2.x's mswea_bash_command)."""
    [found] = re.findall(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", text, re.DOTALL)
    return str(found).strip()


def one(path: Path, **kw: Any) -> Run:
    [run] = load_mini_swe_agent(path, **kw)
    return run


def write(tmp_path: Path, data: Any, name: str = "edited.traj.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), "utf-8")
    return path


def pairs(run: Run) -> dict[str, str]:
    """Each call id of the run's history, with the text of the tool result answering it."""
    results = {m.tool_call_id: m.content for m in history(run) if m.role == "tool"}
    return {c.id: results[c.id] for m in history(run) for c in m.tool_calls}


# -- every real file ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_each_file_is_detected_and_load_gives_the_same_run(name: str) -> None:
    path = DATA / name
    assert detect_format(path) == "mini-swe-agent"
    direct = one(path)
    [loaded] = load(path)
    assert loaded.meta == direct.meta and loaded.origin.format == "mini-swe-agent"
    assert [m.content for m in loaded.ledger.messages] == [
        m.content for m in direct.ledger.messages
    ]
    assert [m.tool_calls for m in loaded.ledger.messages] == [
        m.tool_calls for m in direct.ledger.messages
    ]


@pytest.mark.parametrize("name", FILES)
def test_the_one_request_is_the_instance_prompt(name: str) -> None:
    messages = raw_messages(name)
    prompt = next(m["content"] for m in messages if m["role"] == "user")
    run = one(DATA / name)
    assert run.request == prompt and run.requests == [prompt]
    assert run.system == messages[0]["content"]
    data = raw(name)
    if isinstance(data, dict):  # the prompt is the configuration's instance template
        template = data["info"]["config"]["agent"]["instance_template"]
        assert prompt.startswith(template.split("{{task}}")[0])
    users = [m for m in history(run) if m.role == "user"]
    assert users[0].content == prompt
    assert all(is_observation(m) for m in users[1:])


def test_a_native_run_pairs_every_call_with_its_tool_result() -> None:
    messages = raw_messages(NATIVE)
    info = raw(NATIVE)["info"]
    run = one(DATA / NATIVE)
    asked = [c["id"] for m in messages if m["role"] == "assistant" for c in m["tool_calls"]]
    answered = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    got = pairs(run)
    assert list(got) == asked
    # Every tool message of the file answers its call; the one call the file answers with no
    # tool message (the submission) is answered by the exit message, whose text is the patch.
    [submit] = [i for i in asked if i not in answered]
    assert {i: got[i] for i in answered} == answered
    # (info.submission is the patch a later repair step rewrote; the exit message keeps the
    # command's output.)
    assert got[submit] == messages[-1]["content"] == messages[-1]["extra"]["submission"]
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in str(messages[-2]["tool_calls"])
    assert run.meta["tool_loop"] == "native" and run.meta["submission_as_result"] is True
    assert run.status == "done" and run.meta["ended"] == info["exit_status"] == "Submitted"
    assert run.import_problems == []
    assert len(run.calls) == info["model_stats"]["api_calls"] == 64


def test_a_text_mode_run_rebuilds_each_action_as_a_call_and_its_output_as_the_result() -> None:
    messages = raw_messages(TEXT)
    run = one(DATA / TEXT)
    replies = [m for m in history(run) if m.role == "assistant"]
    raw_replies = [(i, m) for i, m in enumerate(messages) if m["role"] == "assistant"]
    assert [m.content for m in replies] == [m["content"] for _, m in raw_replies]  # text kept
    got = pairs(run)
    for (i, m), reply in zip(raw_replies, replies, strict=True):
        [call] = reply.tool_calls
        assert call.id == f"mini-swe-agent-action-{i}" and call.name == "bash"
        assert call.arguments == {"command": bash_block(m["content"])}
        assert got[call.id] == messages[i + 1]["content"]  # the next user message
    assert got[replies[-1].tool_calls[0].id] == raw(TEXT)["info"]["submission"]
    assert run.meta["tool_loop"] == "rebuilt" and run.meta["rebuilt_tool_calls"] == 44
    assert run.status == "done" and run.import_problems == []


def test_tool_loop_false_keeps_the_literal_text_and_the_observations() -> None:
    messages = raw_messages(TEXT)
    for run in (one(DATA / TEXT, tool_loop=False), load(DATA / TEXT, tool_loop=False)[0]):
        assert not any(m.tool_calls or m.role == "tool" for m in history(run))
        assert [m.content for m in history(run)] == [m["content"] for m in messages[1:]]
        assert run.requests == [messages[1]["content"]]
        assert sum(is_observation(m) for m in history(run)) == 44
        assert run.meta["tool_loop"] == "literal"


@pytest.mark.parametrize("name", [NATIVE, TEXT])
def test_each_calls_usage_and_the_runs_cost_are_the_files(name: str) -> None:
    data = raw(name)
    run = one(DATA / name)
    replies = [m for m in data["messages"] if m["role"] == "assistant"]
    assert len(run.calls) == len(replies)
    for call, reply in zip(run.calls, replies, strict=True):
        usage = reply["extra"]["response"]["usage"]
        assert call.usage is not None
        assert call.usage.input_tokens == usage["prompt_tokens"]
        assert call.usage.output_tokens == usage["completion_tokens"]
        assert call.usage.cache_read_tokens == usage["prompt_tokens_details"]["cached_tokens"]
    stats = data["info"]["model_stats"]
    assert run.meta["instance_cost"] == stats["instance_cost"]
    assert run.meta["api_calls"] == stats["api_calls"]
    assert run.meta["mini_version"] == data["info"]["mini_version"]
    assert run.meta["trajectory_format"] == data["trajectory_format"]
    assert run.meta["instance_id"] == run.meta["label"] == data["instance_id"]
    assert run.model == run.meta["model"] == data["info"]["config"]["model"]["model_name"]
    assert run.origin.recorded.model_dump() == {
        "inputs": False,
        "usage": True,
        "tool_results": True,
        "model": True,
        "outcome": True,
    }
    costs = [m["extra"].get("cost") for m in replies]
    assert run.meta.get("call_costs", [None] * len(replies)) == costs


def test_the_bare_list_says_what_it_does_not_record() -> None:
    run = one(DATA / BARE)
    assert run.origin.recorded.model_dump() == {
        "inputs": False,
        "usage": False,
        "tool_results": True,
        "model": False,
        "outcome": False,
    }
    assert run.meta["instance_id"] == "github_issue" and "exit_status" not in run.meta
    # No exit status: the status follows the last message, the submission's output.
    assert run.status == "incomplete" and history(run)[-1].role == "tool"
    assert len(run.calls) == sum(m["role"] == "assistant" for m in raw_messages(BARE))


@pytest.mark.parametrize("name", FILES)
def test_runs_pass_replay_capture_and_a_save_round_trip(name: str, tmp_path: Path) -> None:
    run = one(DATA / name)
    replayed = replay(run, sliding_window(keep_recent_turns=2))
    assert replayed.records and all(r.strategy == "sliding-window" for r in replayed.records)
    frames = capture(run)
    assert len(frames.calls) == len(run.calls)
    back = load_run(run.save(tmp_path / "run.json"))
    assert [m.content for m in back.ledger.messages] == [m.content for m in run.ledger.messages]
    assert back.meta == run.meta and back.requests == run.requests


def test_a_folder_loads_every_trajectory_in_name_order() -> None:
    runs = load_mini_swe_agent(DATA)
    assert [r.meta["log_file"] for r in runs] == [str(DATA / n) for n in sorted(FILES)]


def test_a_swe_bench_output_folder_loads_each_instance_folders_trajectory(tmp_path: Path) -> None:
    """The layout run/benchmarks/swebench.py writes: ``<instance>/<instance>.traj.json`` beside
    ``preds.json``."""
    for name in (NATIVE, TEXT):
        instance = raw(name)["instance_id"]
        (tmp_path / instance).mkdir()
        (tmp_path / instance / f"{instance}.traj.json").write_bytes((DATA / name).read_bytes())
    (tmp_path / "preds.json").write_text("{}", "utf-8")
    runs = load_mini_swe_agent(tmp_path)
    assert [r.meta["instance_id"] for r in runs] == ["astropy__astropy-12907", "sympy__sympy-11618"]
    with pytest.raises(TranscriptError) as caught:
        load_mini_swe_agent(tmp_path / "astropy__astropy-12907" / "nothing")
    assert caught.value.source == "mini-swe-agent"


# -- claims --------------------------------------------------------------------------------------


def test_no_other_formats_file_is_claimed() -> None:
    root = DATA.parents[1]
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.parent != DATA and path.suffix in (".json", ".jsonl", ".traj"):
            assert not FILE_FORMAT.claims(sniff(path)), path


def test_the_content_alone_tells_a_trajectory_object(tmp_path: Path) -> None:
    for name in (NATIVE, TEXT):
        renamed = tmp_path / "data.json"
        renamed.write_bytes((DATA / name).read_bytes())
        assert detect_format(renamed) == "mini-swe-agent"


def test_a_chat_list_not_named_traj_json_is_not_claimed_and_the_error_says_what_to_do(
    tmp_path: Path,
) -> None:
    path = tmp_path / "chat.json"
    path.write_bytes((DATA / BARE).read_bytes())
    with pytest.raises(TranscriptError) as caught:
        detect_format(path)
    assert "name it *.traj.json" in str(caught.value) and "from_openai" in str(caught.value)


def test_a_swe_agent_trajectory_is_refused_by_name(tmp_path: Path) -> None:
    swe = DATA.parent / "swe-agent" / "marshmallow-1867.default-from-source.traj"
    path = tmp_path / "x.traj.json"
    path.write_bytes(swe.read_bytes())
    assert detect_format(path) == "swe-agent"  # its trajectory key says so, whatever its name
    with pytest.raises(TranscriptError) as caught:
        load_mini_swe_agent(path)
    assert caught.value.source == "mini-swe-agent" and "load_swe_agent" in caught.value.problem


# -- variants, built as small edits of the real files -----------------------------------------


def as_text_mode_2x(data: dict[str, Any]) -> dict[str, Any]:
    """The 1.15 text-mode file as 2.x's text-based model writes it (shape from
    src/minisweagent/models/utils/actions_text.py and agents/default.py): each reply's
    ``extra.actions``, observations with ``extra``, and a final ``exit`` message."""
    edited = copy.deepcopy(data)
    messages = edited["messages"]
    for m in messages:
        if m["role"] == "assistant":
            m["extra"]["actions"] = [{"command": bash_block(m["content"])}]
    last = messages.pop()
    messages.append(
        {
            "role": "exit",
            "content": last["content"],
            "extra": {"exit_status": "Submitted", "submission": last["content"]},
        }
    )
    edited["trajectory_format"] = "mini-swe-agent-1.1"
    return edited


def test_a_2x_text_mode_run_reads_as_the_1x_run_it_matches(tmp_path: Path) -> None:
    """Edit of the 1.15 file into 2.x's text-based shape: the same calls and results."""
    v1 = one(DATA / TEXT)
    v2 = one(write(tmp_path, as_text_mode_2x(raw(TEXT))))
    assert [(m.role, m.content, m.tool_calls) for m in history(v2)] == [
        (m.role, m.content, m.tool_calls) for m in history(v1)
    ]
    assert v2.status == "done" and v2.meta["submission_as_result"] is True
    assert v2.import_problems == []


def as_responses(data: dict[str, Any]) -> dict[str, Any]:
    """The 2.3 file as a Responses API model writes it (shape from
    src/minisweagent/models/litellm_response_model.py and utils/actions_toolcall_response.py:
    each reply the response object with ``output`` items and ``usage``, each result a
    ``function_call_output``)."""
    edited = copy.deepcopy(data)
    out: list[dict[str, Any]] = []
    for m in edited["messages"]:
        if m["role"] == "assistant":
            usage = m["extra"]["response"]["usage"]
            items: list[dict[str, Any]] = [
                {
                    "type": "reasoning",
                    "id": "rs",
                    "summary": [{"type": "summary_text", "text": "t"}],
                }
            ]
            if m["content"]:
                text = [{"type": "output_text", "text": m["content"]}]
                items.append({"type": "message", "role": "assistant", "content": text})
            for c in m["tool_calls"]:
                fn = c["function"]
                items.append(
                    {
                        "type": "function_call",
                        "call_id": c["id"],
                        "name": fn["name"],
                        "arguments": fn["arguments"],
                    }
                )
            out.append(
                {
                    "object": "response",
                    "model": "gpt-5",
                    "output": items,
                    "usage": {
                        "input_tokens": usage["prompt_tokens"],
                        "output_tokens": usage["completion_tokens"],
                        "input_tokens_details": {"cached_tokens": 7},
                    },
                    "extra": {"actions": m["extra"]["actions"], "cost": m["extra"]["cost"]},
                }
            )
        elif m["role"] == "tool":
            out.append(
                {
                    "type": "function_call_output",
                    "call_id": m["tool_call_id"],
                    "output": m["content"],
                }
            )
        else:
            out.append(m)
    edited["messages"] = out
    return edited


def test_a_responses_api_run_reads_its_items_as_calls_results_and_usage(tmp_path: Path) -> None:
    chat = one(DATA / NATIVE)
    run = one(write(tmp_path, as_responses(raw(NATIVE))))
    assert pairs(run) == pairs(chat)
    assert [m.content for m in history(run)] == [m.content for m in history(chat)]
    replies = [m for m in history(run) if m.role == "assistant"]
    assert all(m.parts[0].kind == "thinking" and m.parts[0].text == "t" for m in replies)
    assert [(c.usage.input_tokens, c.usage.output_tokens) for c in run.calls if c.usage] == [
        (c.usage.input_tokens, c.usage.output_tokens) for c in chat.calls if c.usage
    ]
    assert all(c.usage is not None and c.usage.cache_read_tokens == 7 for c in run.calls)
    assert run.status == "done" and run.import_problems == []


def test_a_limit_is_max_iterations_and_its_exit_message_no_message(tmp_path: Path) -> None:
    """Edit of the 2.3 file: cut after 10 exchanges and ended as 2.x ends on its step limit."""
    data = raw(NATIVE)
    data["messages"] = [
        *data["messages"][:22],
        {
            "role": "exit",
            "content": "LimitsExceeded",
            "extra": {"exit_status": "LimitsExceeded", "submission": ""},
        },
    ]
    data["info"].update(exit_status="LimitsExceeded", submission="")
    run = one(write(tmp_path, data))
    assert run.status == "max-iterations" and run.meta["ended"] == "LimitsExceeded"
    assert history(run)[-1].role == "tool" and len(run.calls) == 10
    assert "exit_message" not in run.meta and "submission_as_result" not in run.meta
    assert run.import_problems == []


def test_the_call_that_submitted_is_named_by_its_marker(tmp_path: Path) -> None:
    """Edit of the 2.3 file: the last reply makes two calls, ``ls`` then the submission; the
    environment raised on the second, so neither has a tool message (agents/default.py)."""
    data = raw(NATIVE)
    last = data["messages"][-2]
    submit = last["tool_calls"][0]
    ls = {**submit, "id": "call_ls", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
    last["tool_calls"] = [ls, submit]
    run = one(write(tmp_path, data))
    got = pairs_or_none(run)
    assert got[submit["id"]] == data["messages"][-1]["content"] and got["call_ls"] is None
    assert run.status == "done"
    [problem] = run.import_problems  # finished, and the ls call has no result: said, kept
    assert problem.field == "tool_calls" and "call_ls" in problem.problem


def test_an_interactive_submission_keeps_the_calls_own_result(tmp_path: Path) -> None:
    """Edit of the 2.3 file as the interactive agent writes it (agents/interactive.py): the
    submitting call answered "action was not executed", then the exit message."""
    data = raw(NATIVE)
    call_id = data["messages"][-2]["tool_calls"][0]["id"]
    not_run = "<exception>action was not executed</exception>\n<returncode>-1</returncode>"
    data["messages"].insert(-1, {"role": "tool", "tool_call_id": call_id, "content": not_run})
    run = one(write(tmp_path, data))
    assert pairs(run)[call_id] == not_run and "submission_as_result" not in run.meta
    assert "exit_message" not in run.meta and run.status == "done"
    assert run.import_problems == []


def pairs_or_none(run: Run) -> dict[str, str | None]:
    """Each call id of the run's history with its result's text (None: unanswered)."""
    results = {m.tool_call_id: m.content for m in history(run) if m.role == "tool"}
    return {c.id: results.get(c.id) for m in history(run) for c in m.tool_calls}


def test_an_exception_leaves_the_run_incomplete_with_its_text(tmp_path: Path) -> None:
    """Edit of the 2.3 file: ended by an uncaught exception (agents/default.py's
    ``handle_uncaught_exception``) while a call ran."""
    data = raw(NATIVE)
    data["messages"] = [
        *data["messages"][:5],
        {
            "role": "exit",
            "content": "boom",
            "extra": {"exit_status": "RuntimeError", "submission": "", "traceback": "..."},
        },
    ]
    del data["info"]["exit_status"]
    data["info"]["exception_str"] = "boom"
    run = one(write(tmp_path, data))
    assert run.status == "incomplete" and run.meta["ended"] == "RuntimeError"
    assert run.meta["exit_status"] == "RuntimeError" and run.meta["exit_message"] == "boom"
    assert run.meta["exception_str"] == "boom"
    # The last reply's call has no result: the file ends mid-call (incomplete, no problem).
    assert [p.field for p in run.import_problems] == []
    assert history(run)[-1].role == "assistant" and history(run)[-1].tool_calls


def test_format_errors_and_timeouts_are_observations_never_requests(tmp_path: Path) -> None:
    """Edits: 2.x's format error (a user message marked ``interrupt_type``; the rejected reply
    is not kept) and 1.x's (a reply with two actions, then the feedback)."""
    data = raw(NATIVE)
    feedback = "Tool call error:\n\n<error>\nNo tool calls found in the response.\n</error>"
    data["messages"].insert(
        4, {"role": "user", "content": feedback, "extra": {"interrupt_type": "FormatError"}}
    )
    run = one(write(tmp_path, data))
    [said] = [m for m in history(run) if m.content == feedback]
    assert is_observation(said) and len(run.requests) == 1
    assert run.meta["interrupts"] == {"FormatError": 1}
    v1 = raw(TEXT)
    two = "THOUGHT: two\n\n```bash\nls\n```\n\n```bash\npwd\n```"
    error = "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."
    v1["messages"][2:2] = [
        {"role": "assistant", "content": two, "extra": {}},
        {"role": "user", "content": error},
    ]
    run = one(write(tmp_path, v1))
    reply = next(m for m in history(run) if m.content == two)
    assert reply.tool_calls == [] and is_observation(history(run)[2])
    assert len(run.requests) == 1 and run.import_problems == []


def test_a_persons_words_in_an_interactive_run_are_requests(tmp_path: Path) -> None:
    """Edit of the 1.15 file: the person gave a new task when the agent wanted to finish
    (agents/interactive.py), and rejected a command with a comment."""
    data = raw(TEXT)
    new_task = "The user added a new task: also add a test"
    rejected = "Command not executed. The user rejected your command with the following message: no"
    data["messages"][-1] = {"role": "user", "content": new_task}
    data["messages"][4] = {"role": "user", "content": rejected}
    data["info"]["exit_status"] = None
    run = one(write(tmp_path, data))
    assert run.requests == [data["messages"][1]["content"], rejected, new_task]
    assert run.request == new_task and run.status == "incomplete"
    # The actions the person answered stay text: no call without its result.
    assert all(
        m.tool_calls == [] for m in history(run) if m.content == data["messages"][3]["content"]
    )


def test_a_file_from_before_1_4_is_still_read(tmp_path: Path) -> None:
    """Edit of the 1.15 file into the shape run/utils/save.py wrote before 1.4 (no
    ``trajectory_format``, no ``mini_version``, no ``config``)."""
    data = raw(TEXT)
    old = {
        "info": {
            "exit_status": data["info"]["exit_status"],
            "submission": data["info"]["submission"],
            "model_stats": data["info"]["model_stats"],
        },
        "messages": data["messages"],
    }
    path = write(tmp_path, old, "data.json")  # told by its model_stats and messages
    assert detect_format(path) == "mini-swe-agent"
    run = one(path)
    assert len(pairs(run)) == 44 and run.status == "done"
    assert run.model == "google/gemini-3-pro-preview"  # the responses name it


def test_the_documented_user_exit_message_is_the_outcome(tmp_path: Path) -> None:
    """Shape from docs/usage/output_files.md: a last user message whose ``extra`` holds
    ``exit_status`` and ``submission``."""
    data = as_text_mode_2x(raw(TEXT))
    last = data["messages"][-1]
    last["role"] = "user"
    run = one(write(tmp_path, data))
    assert run.status == "done" and len(pairs(run)) == 44


# -- faults ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "index", "field"),
    [
        (lambda d: d["messages"][4].update(tool_calls="x"), 4, "tool_calls"),
        (lambda d: d["messages"][4]["extra"].update(actions="x"), 4, "extra.actions"),
        (
            lambda d: d["messages"][4]["extra"]["response"]["usage"].update(prompt_tokens="x"),
            4,
            "extra.response.usage.prompt_tokens",
        ),
        (
            lambda d: d["info"]["model_stats"].update(instance_cost="x"),
            None,
            "info.model_stats.instance_cost",
        ),
        (lambda d: d["messages"].__setitem__(5, 7), 5, "message"),
        (lambda d: d.update(trajectory_format="other-1"), None, "trajectory_format"),
        (lambda d: d.update(messages={}), None, "messages"),
    ],
)
def test_a_malformed_file_names_the_file_the_message_and_the_field(
    tmp_path: Path, edit: Any, index: int | None, field: str
) -> None:
    data = raw(NATIVE)
    edit(data)
    path = write(tmp_path, data)
    with pytest.raises(TranscriptError) as caught:
        load_mini_swe_agent(path)
    error = caught.value
    assert (error.source, error.path, error.index, error.field) == (
        "mini-swe-agent",
        str(path),
        index,
        field,
    ), str(error)


def test_a_responses_item_fault_names_the_items_own_field(tmp_path: Path) -> None:
    data = as_responses(raw(NATIVE))
    del data["messages"][2]["output"][2]["call_id"]
    with pytest.raises(TranscriptError) as caught:
        load_mini_swe_agent(write(tmp_path, data))
    assert (caught.value.index, caught.value.field) == (2, "output[2].call_id")


def test_what_is_accepted_but_wrong_is_listed_or_raised_when_strict(tmp_path: Path) -> None:
    data = raw(NATIVE)
    data["messages"][3]["tool_call_id"] = "nobody"
    data["messages"].insert(6, {"role": "critic", "content": "?"})
    path = write(tmp_path, data)
    run = one(path)
    fields = [(p.index, p.field) for p in run.import_problems]
    assert (6, "role") in fields and run.meta["ignored_messages"] == {"critic": 1}
    assert all(p.path == str(path) and p.source == "mini-swe-agent" for p in run.import_problems)
    with pytest.raises(TranscriptError) as caught:
        load_mini_swe_agent(path, strict=True)
    assert caught.value.index == run.import_problems[0].index


# -- fuzz --------------------------------------------------------------------------------------

SMALL = {
    BARE: raw(BARE),
    NATIVE: {**raw(NATIVE), "messages": raw(NATIVE)["messages"][:8] + raw(NATIVE)["messages"][-2:]},
    TEXT: {**raw(TEXT), "messages": raw(TEXT)["messages"][:8] + raw(TEXT)["messages"][-2:]},
    "responses": {
        **as_responses(raw(NATIVE)),
        "messages": as_responses(raw(NATIVE))["messages"][:8],
    },
}
READ = frozenset(
    {
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
        "extra",
        "actions",
        "command",
        "response",
        "usage",
        "prompt_tokens",
        "cost",
        "info",
        "model_stats",
        "exit_status",
        "messages",
        "output",
        "call_id",
        "type",
        "object",
        "trajectory_format",
        "function",
        "arguments",
        "config",
        "model",
        "model_name",
        "interrupt_type",
        "thinking_blocks",
    }
)
WRONG = wrong_values(
    "exit",
    "user",
    "assistant",
    "tool",
    "response",
    "Submitted",
    "function_call_output",
    "mini-swe-agent-1",
)


@FUZZ
@given(st.data(), st.sampled_from(sorted(SMALL)))
def test_a_mutated_trajectory_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    mutated = copy.deepcopy(SMALL[name])
    for _ in range(data.draw(st.integers(1, 3))):
        mutated = mutate(data.draw, mutated, WRONG, READ)
    path = tmp_path / "fuzz.traj.json"
    path.write_text(json.dumps(mutated, allow_nan=True), "utf-8")
    for tool_loop in (True, False):
        try:
            runs = load_mini_swe_agent(path, tool_loop=tool_loop)
        except TranscriptError as exc:
            assert exc.path == str(path) and exc.field and exc.problem
            continue
        for run in runs:
            capture(run)
