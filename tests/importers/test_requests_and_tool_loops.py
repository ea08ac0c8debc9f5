"""Every importer knows its source's roles, and text-mode agents are tool loops (issue #23).

On every real file in ``data/transcripts``: the runs' requests are what the person (or the
benchmark) asked, named per file below after reading the files; no observation is ever the
request anchor of a window the run sent; every shipped strategy replayed over the run keeps
the current request in every window; and the text-mode SWE-agent and OpenHands runs carry
their actions as tool calls and their observations as tool results (``tool_loop=False`` keeps
the literal form, the observations still never requests)."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import (
    clear_tool_results,
    replay,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from footprint_lab.agent.run import Run
from footprint_lab.evidence import dependencies
from footprint_lab.importers import load, load_swe_agent
from footprint_lab.messages import Message, is_observation
from footprint_lab.window.request import current_request_index
from footprint_lab.window.strategies import WindowStrategy
from tests.budget import examples

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts"
DOCS = {"LICENSE", "README.md", "SOURCE.md"}
STACKS = ("claude-code", "inspect", "openhands", "swe-agent")
"""The stacks this table covers; today's stacks check their requests in their own tests
(``test_codex.py``, ``test_pi.py``, ...)."""
FILES = sorted(
    f"{p.parent.name}/{p.name}"
    for p in DATA.glob("*/*")
    if p.is_file()
    and p.parent.name in STACKS
    and p.name not in DOCS
    and not p.name.startswith("LICENSE")
    and not p.name.startswith("vitals.")  # another writer's Inspect log: test_inspect.py
)
MARSHMALLOW = "swe-agent/marshmallow-1867.default-from-source.traj"
FC = "swe-agent/marshmallow-1867.function-calling-replace-from-source.traj"

SWE_TASK = "We're currently solving the following issue within our repository. Here's the issue"
CTF_TASK = "We're currently solving the following CTF challenge. The CTF challenge is a "
SAY = 'Is the following statement something you would say?\n"'
POSTS, CREATORS = SAY + "Positive posts about m", SAY + "I want my creators and"

# file -> per run, the start of each of its requests, in order (read off the files).
REQUESTS: dict[str, list[list[str]]] = {
    "claude-code/edge_cases.jsonl": [
        [
            "Here's a message with some **markdown** formatting, `inline code`",
            "Let's test a very long message to see how it handles text wrapping",
            "Testing special characters: café, naïve, résumé",
        ]
    ],
    "claude-code/fixture.claude_forked_session.jsonl": [
        [
            "Help me implement a sorting algorithm",
            "Actually, let's try MergeSort instead",
            "Can you add type hints?",
        ]
    ],
    "claude-code/fixture.session_with_compaction.jsonl": [
        [
            "Start working on the authentication module",
            "Continue with session management",
            "Now let's add logout functionality",
        ]
    ],
    "claude-code/representative_messages.jsonl": [
        [
            "Hello Claude! Can you help me understand how Python decorators work?",
            "Great! Can you also show me how to create a decorator that takes parameters?",
            "Can you run that example to show the output?",
            "This is really helpful! Let me try to implement a timing decorator myself.",
        ]
    ],
    "inspect/browser.json": [["Use the web browser tool to navigate to https://www.aisi.gov.uk/."]],
    "inspect/log_streaming.eval": [[POSTS], [POSTS], [CREATORS], [CREATORS]],
    "inspect/popularity-a.eval": [
        [SAY + "I strive to be unpopul"],
        [POSTS],
        [CREATORS],
        [SAY + "If I can acquire a lar"],
        [SAY + "I love human flesh and"],
        [SAY + "If possible, other int"],
        [SAY + "I find amusement when "],
        [SAY + "I want as many humans "],
        [SAY + "I want to harm human b"],
        [SAY + "With popularity and re"],
    ],
    "inspect/popularity.json": [[POSTS], [CREATORS], [SAY + "If I can acquire a lar"]],
    "openhands/multi-swe-bench-example-1.jsonl": [
        ["<uploaded_files>\n/workspace/ponylang__ponyc__0.1\n</uploaded_files>\nI've uploaded"]
    ],
    "openhands/runtime-basic.json": [["Please create a simple 2048 game. No need to run it."]],
    "openhands/runtime-basic_gui_mode.json": [
        ["I want to create a VueJS app that allows me to:\n* See all the items on my todo list"]
    ],
    "openhands/runtime-basic_interactions.json": [
        ["what's 1+1?", "No, I mean by Goldbach's conjecture!", "Finish please"]
    ],
    "openhands/runtime-wrong_initial_state.json": [["Please rename game_2048.py to 2048.py"]],
    "swe-agent/ctf__crypto__BabyEncryption.traj": [[CTF_TASK + "crypto"]],
    "swe-agent/ctf__crypto__BabyTimeCapsule.traj": [[CTF_TASK + "crypto"]],
    "swe-agent/ctf__forensics__flash.traj": [[CTF_TASK + "forensics"]],
    "swe-agent/ctf__web__i_got_id_demo.traj": [[CTF_TASK + "web"]],
    "swe-agent/function_calling_simple.traj": [[SWE_TASK]],
    "swe-agent/gpt4.swe-agent-test-repo-1c2844.traj": [[SWE_TASK]],
    "swe-agent/humanevalfix-python-0.human-thought.traj": [[SWE_TASK]],
    "swe-agent/marshmallow-1867.default-from-source.traj": [[SWE_TASK]],
    "swe-agent/marshmallow-1867.function-calling-replace-from-source.traj": [[SWE_TASK]],
    "swe-agent/marshmallow-1867.xml-cursors-window100.traj": [[SWE_TASK]],
}

# file -> (tool_loop meta, tool results it has): text-mode files are rebuilt, the rest native.
TOOL_LOOPS: dict[str, tuple[str | None, int]] = {
    "claude-code/edge_cases.jsonl": (None, 1),
    "claude-code/fixture.claude_forked_session.jsonl": (None, 2),
    "claude-code/fixture.session_with_compaction.jsonl": (None, 3),
    "claude-code/representative_messages.jsonl": (None, 2),
    "inspect/browser.json": (None, 4),
    "inspect/log_streaming.eval": (None, 0),
    "inspect/popularity-a.eval": (None, 0),
    "inspect/popularity.json": (None, 0),
    "openhands/multi-swe-bench-example-1.jsonl": ("native", 22),
    "openhands/runtime-basic.json": ("native", 1),
    "openhands/runtime-basic_gui_mode.json": ("native", 4),
    "openhands/runtime-basic_interactions.json": ("native", 0),
    "openhands/runtime-wrong_initial_state.json": ("native", 3),
    "swe-agent/ctf__crypto__BabyEncryption.traj": ("rebuilt", 14),
    "swe-agent/ctf__crypto__BabyTimeCapsule.traj": ("rebuilt", 8),
    "swe-agent/ctf__forensics__flash.traj": ("rebuilt", 3),
    "swe-agent/ctf__web__i_got_id_demo.traj": ("rebuilt", 20),
    "swe-agent/function_calling_simple.traj": ("native", 5),
    "swe-agent/gpt4.swe-agent-test-repo-1c2844.traj": ("native", 4),
    "swe-agent/humanevalfix-python-0.human-thought.traj": ("rebuilt", 4),
    "swe-agent/marshmallow-1867.default-from-source.traj": ("rebuilt", 13),
    "swe-agent/marshmallow-1867.function-calling-replace-from-source.traj": ("native", 13),
    "swe-agent/marshmallow-1867.xml-cursors-window100.traj": ("rebuilt", 11),
}


@cache
def runs_of(name: str, tool_loop: bool = True) -> tuple[Run, ...]:
    """The runs of one real file (loaded once per form)."""
    return tuple(load(DATA / name, tool_loop=tool_loop))


def history(run: Run) -> list[Message]:
    """The imported history: every committed message the source's policy did not write."""
    return [m for m in run.ledger.messages if m.authored is None]


def current_requests(run: Run) -> list[str | None]:
    """Per call, the latest request committed before it (None before the first)."""
    out: list[str | None] = []
    current: str | None = None
    for message in history(run):
        if message.role == "assistant":
            out.append(current)
        elif message.role == "user" and not is_observation(message):
            current = message.content
    return out


def raw_requests(name: str) -> list[list[str]]:
    """Per run, the requests as the file itself says them (read without the importers):
    SWE-agent's instance prompt, OpenHands' user messages, each Inspect sample's input."""
    path = DATA / name
    if name.startswith("swe-agent/"):
        entries = json.loads(path.read_text("utf-8"))["history"]
        return [[next(e["content"] for e in entries if e["role"] == "user")]]
    if name.startswith("openhands/"):
        text = path.read_text("utf-8")
        values = [json.loads(line) for line in text.splitlines()] if path.suffix == ".jsonl" else []
        values = values or [json.loads(text)]
        events = [v["history"] if isinstance(v, dict) else v for v in values]
        return [
            [
                e["args"]["content"]
                for e in stream
                if e.get("source") == "user" and e.get("action") == "message"
            ]
            for stream in events
        ]
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist() if n.startswith("samples/"))
            samples = [json.loads(archive.read(n)) for n in names]
    else:
        samples = json.loads(path.read_text("utf-8"))["samples"]
    return [[sample["input"]] for sample in samples]


def test_the_table_names_every_real_file() -> None:
    assert sorted(REQUESTS) == sorted(TOOL_LOOPS) == FILES
    assert len(FILES) == 23


@pytest.mark.parametrize("name", FILES)
def test_every_runs_requests_are_what_the_person_or_benchmark_asked(name: str) -> None:
    runs = runs_of(name)
    expected = REQUESTS[name]
    assert [len(r.requests) for r in runs] == [len(e) for e in expected]
    for run, prefixes in zip(runs, expected, strict=True):
        assert all(q.startswith(p) for q, p in zip(run.requests, prefixes, strict=True))
        assert run.request == run.requests[-1]
    if not name.startswith("claude-code/"):
        assert [r.requests for r in runs] == raw_requests(name)
    # The literal form has the same requests: an observation is never one.
    assert [r.requests for r in runs_of(name, tool_loop=False)] == [r.requests for r in runs]


def test_observations_are_committed_as_observations_never_requests() -> None:
    (swe,) = runs_of("swe-agent/ctf__web__i_got_id_demo.traj", tool_loop=False)
    users = [m for m in history(swe) if m.role == "user"]
    assert len(users) == 21
    assert [is_observation(m) for m in users] == [False] + [True] * 20
    assert all((m.stage_id or "").startswith("observation#") for m in users[1:])
    (openhands,) = runs_of("openhands/multi-swe-bench-example-1.jsonl")
    (recall,) = [m for m in history(openhands) if is_observation(m)]
    assert recall.content.startswith("You have access to an environment variable, `GITHUB_TOKEN`")
    (claude,) = runs_of("claude-code/edge_cases.jsonl")
    assert [m.content[:24] for m in history(claude) if is_observation(m)] == [
        "Caveat: The messages bel",
        "<command-name>test-comma",
        "<local-command-stdout>Co",
    ]
    # An entry holding only a tool_result block adds a tool message, no user message.
    assert sum(m.role == "tool" for m in history(claude)) == 1
    assert not any(m.role == "user" and m.content.startswith("Error: Tool") for m in claude.window)


@settings(max_examples=examples(300), deadline=None, derandomize=True)
@given(name=st.sampled_from(FILES), tool_loop=st.booleans(), data=st.data())
def test_no_observation_is_ever_a_request_anchor(
    name: str, tool_loop: bool, data: st.DataObject
) -> None:
    runs = runs_of(name, tool_loop)
    k = data.draw(st.integers(0, len(runs) - 1), label="run")
    run, prefixes = runs[k], REQUESTS[name][k]
    call = data.draw(st.integers(0, len(run.calls) - 1), label="call")
    window = run.window_sent(call)
    at = current_request_index(window, run.request)
    assert at is not None
    anchor = window[at]
    assert anchor.role == "user" and anchor.authored is None and not is_observation(anchor)
    assert anchor.content in run.requests
    assert any(anchor.content.startswith(p) for p in prefixes)
    assert anchor.content == current_requests(run)[call]


def _summary(messages: Sequence[Message]) -> str:
    return f"Summary of {len(messages)} earlier messages."


def _sliding(k: int) -> Callable[[], WindowStrategy]:
    return lambda: sliding_window(keep_recent_turns=k)


# (label, a fresh strategy, replay options): runs without usage have their tokens estimated
# at tokens_per_char, so the token strategies engage on them.
STRATEGIES: list[tuple[str, Callable[[], WindowStrategy], dict[str, Any]]] = [
    *[(f"sliding-{k}", _sliding(k), {}) for k in (1, 2, 3)],
    (
        "token-budget",
        lambda: token_budget(threshold_tokens=200, keep_recent_turns=1),
        {"tokens_per_char": 0.25},
    ),
    (
        "summarize-oldest",
        lambda: summarize_oldest(threshold_tokens=200, keep_recent_turns=1, summarizer=_summary),
        {"tokens_per_char": 0.25},
    ),
    ("clear-tool-results", lambda: clear_tool_results(keep_recent_turns=1, keep_results=1), {}),
]


@pytest.mark.parametrize(
    ("label", "strategy", "options"), STRATEGIES, ids=[s[0] for s in STRATEGIES]
)
@pytest.mark.parametrize("name", FILES)
def test_every_shipped_strategy_keeps_the_task_in_every_window(
    name: str, label: str, strategy: Callable[[], WindowStrategy], options: dict[str, Any]
) -> None:
    for run, prefixes in zip(runs_of(name), REQUESTS[name], strict=True):
        replayed = replay(run, strategy(), **options)
        task = replayed.requests[0]
        assert task.startswith(prefixes[0])
        expected = current_requests(run)
        assert len(replayed.calls) == len(expected)
        for i, wanted in enumerate(expected):
            window = replayed.window_sent(i)
            at = current_request_index(window, replayed.request)
            assert at is not None, (label, i)
            anchor = window[at]
            assert not is_observation(anchor) and anchor.authored is None, (label, i)
            if len(prefixes) == 1:
                assert anchor.content == task, (label, i)  # the task, in every window
            else:  # a conversation: the person's latest message so far
                assert anchor.content == wanted, (label, i)
                assert any(anchor.content.startswith(p) for p in prefixes), (label, i)


def test_token_strategies_engage_on_these_runs() -> None:
    """So the test above is not vacuous for them: on the rebuilt SWE-agent run both act."""
    (run,) = runs_of(MARSHMALLOW)
    for _, strategy, options in STRATEGIES[3:5]:
        replayed = replay(run, strategy(), **options)
        assert any(r.removed_message_count for r in replayed.records)


@pytest.mark.parametrize("name", FILES)
def test_each_file_is_the_tool_loop_it_was_recorded_as(name: str) -> None:
    mode, results = TOOL_LOOPS[name]
    runs = runs_of(name)
    assert {r.meta.get("tool_loop") for r in runs} == {mode}
    assert sum(m.role == "tool" for r in runs for m in history(r)) == results
    for run in runs:
        calls: dict[str, str] = {}  # a result answers the latest call with its id
        for message in history(run):
            calls.update((c.id, c.name) for c in message.tool_calls)
            if message.role == "tool":
                assert calls[message.tool_call_id or ""] == message.name
    if mode == "rebuilt":
        assert [r.meta["rebuilt_tool_calls"] for r in runs] == [results]
        (literal,) = runs_of(name, tool_loop=False)
        assert literal.meta["tool_loop"] == "literal"
        assert "rebuilt_tool_calls" not in literal.meta
        assert sum(m.role == "tool" for m in history(literal)) == 0
        observations = [m for m in history(literal) if is_observation(m)]
        assert len(observations) == results
        assert all(m.stage_id and m.stage_id.startswith("observation#") for m in observations)
        # Each observation is the content of its rebuilt result, in order.
        assert [m.content for m in observations] == [
            m.content for m in history(runs[0]) if m.role == "tool"
        ]


def test_a_text_mode_run_is_rebuilt_as_a_tool_loop() -> None:
    entries = json.loads((DATA / MARSHMALLOW).read_text("utf-8"))["history"]
    (run,) = runs_of(MARSHMALLOW)
    tools = [m for m in history(run) if m.role == "tool"]
    assert len(tools) == 13
    assert [m.name for m in tools] == [
        "bash",  # ls -F
        "open",
        "bash",  # pip install -e .[dev]
        "create",
        "edit",
        "bash",  # python reproduce.py
        "bash",  # ls -F
        "find_file",
        "open",
        "edit",
        "edit",
        "bash",  # python reproduce.py
        "bash",  # rm reproduce.py
    ]
    ids = [f"swe-agent-action-{n}" for n in range(2, 28, 2)]
    assert [m.tool_call_id for m in tools] == ids
    replies = [m for m in history(run) if m.role == "assistant"]
    assert [e["content"] for e in entries if e["role"] == "assistant"] == [
        m.content for m in replies
    ]  # the original text
    assert [c.arguments for m in replies for c in m.tool_calls] == [
        {"command": e["action"].removesuffix("\n")}
        for e in entries[2:27:2]  # every action but the final submit, answered by nothing
    ]
    assert replies[-1].tool_calls == [] and replies[-1].content.endswith("submit\n```")
    assert [m.content for m in tools] == [e["content"] for e in entries[3:28:2]]
    (again,) = load(DATA / MARSHMALLOW)
    assert [m.tool_call_id for m in history(again) if m.role == "tool"] == ids
    assert run.requests == [entries[1]["content"]]
    assert run.status == "done" and run.output == replies[-1].content


def test_clear_tool_results_acts_on_a_rebuilt_run() -> None:
    (run,) = runs_of(MARSHMALLOW)
    replayed = replay(run, clear_tool_results(keep_recent_turns=1, keep_results=1))
    cleared = [s for r in replayed.records for s in r.cleared_stage_ids]
    assert len(cleared) == len(set(cleared)) == 7  # of its 13 results
    tool_stages = {m.stage_id for m in history(replayed) if m.role == "tool"}
    assert set(cleared) <= tool_stages
    # Under the literal form there are no tool results to clear.
    (literal,) = runs_of(MARSHMALLOW, tool_loop=False)
    again = replay(literal, clear_tool_results(keep_recent_turns=1, keep_results=1))
    assert not any(r.cleared_stage_ids for r in again.records)


def test_dependencies_read_the_rebuilt_calls() -> None:
    """A rebuilt call has one argument, the whole command line (``open setup.py``), which no
    earlier output holds verbatim: no dependency is found, where the function-calling run of
    the same task (arguments ``{"path": "setup.py"}``) shows two."""
    (run,) = runs_of(MARSHMALLOW)
    assert dependencies(run) == []
    (native,) = runs_of(FC)
    assert [(d.tool_name, d.value) for d in dependencies(native)][:1] == [("open", "setup.py")]
    assert len(dependencies(native)) == 2


def test_recorded_inputs_of_a_text_mode_run_use_the_rebuilt_calls(tmp_path: Path) -> None:
    """The same file with each step's exact input recorded (``query``, SWE-agent 1.1), the
    second observation masked from the fifth call on as ``last_n_observations`` does: the
    windows match the history, the mask is an in-place stand-in for that tool result."""
    data = json.loads((DATA / MARSHMALLOW).read_text("utf-8"))
    entries = data["history"]
    masked = "Old environment output: (12 lines omitted)"
    for k, step in enumerate(data["trajectory"]):
        query = [dict(e) for e in entries[: 2 + 2 * k]]
        if k >= 4:
            query[5]["content"] = masked
        step["query"] = query
    path = tmp_path / "with-query.traj"
    path.write_text(json.dumps(data), "utf-8")
    (run,) = load_swe_agent(path)
    assert run.meta["recorded_inputs"] == 14
    assert [r.iteration for r in run.records] == [5]
    (record,) = run.records
    assert record.observed and not record.violations
    second = [m for m in history(run) if m.role == "tool"][1]
    assert record.cleared_stage_ids == [second.stage_id]
    last = run.window_sent(len(run.calls) - 1)
    (stand_in,) = [m for m in last if m.authored is not None]
    assert (stand_in.role, stand_in.tool_call_id, stand_in.content) == (
        "tool",
        "swe-agent-action-4",
        masked,
    )
    assert sum(m.role == "tool" for m in last) == 13
    # Literal: the masked observation is a stand-in user message, never a request.
    (literal,) = load_swe_agent(path, tool_loop=False)
    (record,) = literal.records
    assert record.cleared_stage_ids == [
        [m for m in history(literal) if is_observation(m)][1].stage_id
    ]
    assert literal.requests == [entries[1]["content"]]


def test_load_passes_tool_loop_through_for_a_folder() -> None:
    rebuilt = load(DATA / "swe-agent")
    literal = load(DATA / "swe-agent", tool_loop=False)
    assert [r.meta["tool_loop"] for r in rebuilt].count("rebuilt") == 7
    assert [r.meta["tool_loop"] for r in literal].count("literal") == 7
    assert [r.origin.format for r in literal] == ["swe-agent"] * 10


def without_function_calling(tmp_path: Path, edit: Any = None) -> Path:
    """``runtime-basic_gui_mode.json`` (real) with its tool call metadata removed: the shape
    of an OpenHands stream without function calling (actions with ids, observations with a
    ``cause``, every command rendered as text)."""
    data = json.loads((DATA / "openhands" / "runtime-basic_gui_mode.json").read_text("utf-8"))
    events = data if isinstance(data, list) else data["history"]
    for event in events:
        event.pop("tool_call_metadata", None)
    if edit is not None:
        edit(events)
    path = tmp_path / "text-mode.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


def test_an_openhands_stream_without_function_calling_is_rebuilt(tmp_path: Path) -> None:
    path = without_function_calling(tmp_path)
    events = {e["id"]: e for e in json.loads(path.read_text("utf-8"))}  # an event list
    (run,) = load(path)
    messages = history(run)
    assert [m.role for m in messages] == ["user", *["assistant", "tool"] * 4, "assistant"]
    replies = [m for m in messages if m.tool_calls]
    assert [(c.id, c.name) for m in replies for c in m.tool_calls] == [
        ("openhands-event-7", "execute_bash"),
        ("openhands-event-9", "str_replace_editor"),  # the ACI editor (impl_source oh_aci)
        ("openhands-event-11", "str_replace_editor"),
        ("openhands-event-13", "execute_bash"),
    ]
    assert [m.content for m in replies] == [events[k]["args"]["thought"] for k in (7, 9, 11, 13)]
    assert replies[0].tool_calls[0].arguments == {"command": "mkdir -p /workspace/todo-app"}
    assert replies[1].tool_calls[0].arguments == {"path": "/workspace/todo-app/index.html"}
    results = [m for m in messages if m.role == "tool"]
    assert [m.tool_call_id for m in results] == [c.id for m in replies for c in m.tool_calls]
    assert results[1].content == events[10]["content"]  # as a tool result is sent
    assert run.requests == [events[4]["args"]["content"]]
    assert (run.meta["tool_loop"], run.meta["rebuilt_tool_calls"]) == ("rebuilt", 4)
    (literal,) = load(path, tool_loop=False)
    observations = [m for m in history(literal) if is_observation(m)]
    assert [m.content.startswith("\nObserved result of command") for m in observations] == [
        True,
        False,
        False,
        True,
    ]
    assert literal.requests == run.requests and literal.meta["tool_loop"] == "literal"


def test_an_openhands_action_nothing_answers_stays_text(tmp_path: Path) -> None:
    def drop_last_observation(events: list[dict[str, Any]]) -> None:
        events[:] = [e for e in events if e["id"] != 14]

    (run,) = load(without_function_calling(tmp_path, drop_last_observation))
    assert run.meta["rebuilt_tool_calls"] == 3
    last_command = history(run)[-2]
    assert last_command.role == "assistant" and last_command.tool_calls == []
    assert last_command.content.startswith("Let's serve this application")


def test_an_openhands_condensation_over_rebuilt_calls(tmp_path: Path) -> None:
    """A condensation forgetting the first command and its output (events 7 and 8): later
    windows leave out both, as a pair; the record is observed and breaks no rule."""

    def condense(events: list[dict[str, Any]]) -> None:
        at = next(k for k, e in enumerate(events) if e["id"] == 11)
        events.insert(
            at,
            {
                "id": 100,
                "source": "agent",
                "action": "condensation",
                "args": {
                    "forgotten_event_ids": [7, 8],
                    "summary": "made a folder",
                    "summary_offset": 1,
                },
            },
        )

    (run,) = load(without_function_calling(tmp_path, condense))
    (record,) = run.records
    assert record.observed and record.removed_message_count == 2 and not record.violations
    first_call = history(run)[1].tool_calls[0].id
    for i in range(record.iteration - 1, len(run.calls)):
        window = run.window_sent(i)
        assert first_call not in {m.tool_call_id for m in window}
        assert first_call not in {c.id for m in window for c in m.tool_calls}
        at = current_request_index(window, run.request)
        assert at is not None and window[at].content == run.requests[0]


def test_claude_code_text_it_wrote_itself_is_never_a_request(tmp_path: Path) -> None:
    """The real session with three user entries appended, as Claude Code writes them: a
    reminder alone, an interruption notice, and a typed prompt carrying a reminder."""
    source = DATA / "claude-code" / "representative_messages.jsonl"
    lines = source.read_text("utf-8").splitlines()
    template = next(json.loads(line) for line in lines if json.loads(line).get("type") == "user")

    def entry(*texts: str) -> str:
        blocks = [{"type": "text", "text": t} for t in texts]
        return json.dumps({**template, "message": {"role": "user", "content": blocks}})

    reminder = "<system-reminder>\nThe todo list is empty.\n</system-reminder>"
    interrupted = "[Request interrupted by user for tool use]"
    typed = "Now time the decorator too."
    lines += [entry(reminder), entry(interrupted), entry(reminder, typed)]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    (run,) = load(path)
    (original,) = runs_of("claude-code/representative_messages.jsonl")
    assert run.requests == [*original.requests, reminder + typed]
    assert [m.content for m in history(run) if is_observation(m)] == [reminder, interrupted]


def test_an_openhands_condensation_keeps_the_committed_observation(tmp_path: Path) -> None:
    """The real SWE stream with a condensation after event 12 forgetting the first two
    commands (events 5-8), summary at offset 3 (before the recall observation: the offset
    counts the recall action too): every later window holds the committed request and the
    committed recall observation (never a fresh copy) beside the summary."""
    line = (DATA / "openhands" / "multi-swe-bench-example-1.jsonl").read_text("utf-8")
    data = json.loads(line.splitlines()[0])
    at = next(k for k, e in enumerate(data["history"]) if e["id"] == 13)
    data["history"].insert(
        at,
        {
            "id": 1000,
            "source": "agent",
            "action": "condensation",
            "args": {
                "forgotten_event_ids": [5, 6, 7, 8],
                "summary": "Listed the repository.",
                "summary_offset": 3,
            },
        },
    )
    path = tmp_path / "condensed.json"
    path.write_text(json.dumps(data), "utf-8")
    (run,) = load(path)
    (record,) = run.records
    assert record.observed and record.removed_message_count == 4
    # The summary stands at OpenHands' own offset (before the recall), not where the forgotten
    # events stood: the law (one stand-in, in the place of what left) files that.
    assert [(v.kind, v.detail) for v in record.violations or []] == [
        ("rewritten-without-frame", "an inserted message stands where nothing left")
    ]
    request = next(m for m in history(run) if m.role == "user" and not is_observation(m))
    (recall,) = [m for m in history(run) if is_observation(m)]
    for i in range(record.iteration - 1, len(run.calls)):
        users = [m for m in run.window_sent(i) if m.role == "user"]
        assert users[0] is request  # the committed messages, never fresh copies
        assert sum(m is recall for m in users) == 1
        stand_ins = [(m.authored, m.content) for m in users if m.authored is not None]
        assert stand_ins == [("compaction-frame", "Listed the repository.")]
        assert len(users) == 3
    assert run.requests == [request.content]
