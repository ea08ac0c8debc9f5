"""Tests of the Inspect AI log importer: every shared log imports with the counts its own JSON
holds, each call's window is the input its model event recorded, malformed logs raise
TranscriptError naming the file, the sample and the field, and fuzzed logs never raise
anything else."""

from __future__ import annotations

import copy
import io
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import currently_in_test_context, event, given
from hypothesis import strategies as st

from footprint_lab import evidence, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers._parts import TranscriptError
from footprint_lab.importers.inspect import load_inspect
from footprint_lab.lab import capture
from tests.importers import helpers
from tests.importers.helpers import FUZZ, history, run_counts, sites, wrong_values

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "inspect"
FILES = ("browser.json", "log_streaming.eval", "popularity-a.eval", "popularity.json")

# Per file, per sample in import order: (sample id, epoch, messages, tool calls, tool results,
# model calls).
PINNED: dict[str, list[tuple[Any, int, int, int, int, int]]] = {
    "browser.json": [(1, 1, 10, 4, 4, 5)],
    "popularity.json": [(1, 1, 2, 0, 0, 1), (2, 1, 2, 0, 0, 1), (3, 1, 2, 0, 0, 1)],
    "log_streaming.eval": [
        (1, 1, 2, 0, 0, 1),
        (1, 2, 2, 0, 0, 1),
        (2, 1, 2, 0, 0, 1),
        (2, 2, 2, 0, 0, 1),
    ],
    # samples/*.json in name order: "10_epoch_1" sorts before "1_epoch_1".
    "popularity-a.eval": [(n, 1, 2, 0, 0, 1) for n in (10, 1, 2, 3, 4, 5, 6, 7, 8, 9)],
}


# -- reading the raw logs, independently of the importer ------------------------------------


def raw_samples(path: Path) -> list[dict[str, Any]]:
    """The samples of a log as its own JSON holds them, in the order the importer reads."""
    if path.suffix == ".json":
        samples: list[dict[str, Any]] = json.loads(path.read_text("utf-8")).get("samples") or []
        return samples
    with zipfile.ZipFile(path) as archive:
        names = sorted(n for n in archive.namelist() if n.startswith("samples/"))
        return [json.loads(archive.read(n)) for n in names]


def raw_counts(sample: dict[str, Any]) -> tuple[int, int, int, int]:
    """(messages, tool calls, tool results, assistant messages) counted over the raw JSON; a
    leading text-only system message is the system prompt, not a message."""
    messages = sample["messages"]
    lead = int(bool(messages) and messages[0]["role"] == "system")
    return (
        len(messages) - lead,
        sum(len(m.get("tool_calls") or []) for m in messages),
        sum(m["role"] == "tool" for m in messages),
        sum(m["role"] == "assistant" for m in messages),
    )


def resolved(value: Any, attachments: dict[str, str]) -> Any:
    """An attachment reference replaced by its text (the test's own resolver)."""
    if isinstance(value, str) and value.startswith("attachment://"):
        return attachments.get(value.removeprefix("attachment://"), value)
    return value


def model_inputs(sample: dict[str, Any]) -> list[list[tuple[str, Any, Any]]]:
    """(role, content, tool_call_id) of every model event's input, attachments resolved."""
    attachments = sample.get("attachments") or {}
    return [
        [
            (m["role"], resolved(m["content"], attachments), m.get("tool_call_id"))
            for m in e["input"]
        ]
        for e in sample["events"]
        if e["event"] == "model"
    ]


# -- the shared logs -------------------------------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_every_shared_log_imports_with_the_counts_its_json_holds(name: str) -> None:
    path = DATA / name
    runs = load_inspect(path)
    samples = raw_samples(path)
    assert len(runs) == len(samples) == len(PINNED[name])
    for run, sample, pinned in zip(runs, samples, PINNED[name], strict=True):
        sample_id, epoch, *counts = pinned
        assert (run.meta["sample_id"], run.meta["epoch"]) == (sample_id, epoch)
        assert run_counts(run) == tuple(counts)
        assert run_counts(run) == raw_counts(sample)
        assert run.import_problems == []
        assert run.meta["log_file"] == str(path)
        assert run.provider == "inspect"


def test_a_folder_imports_every_log_in_name_order() -> None:
    runs = load_inspect(DATA)
    files = [Path(r.meta["log_file"]).name for r in runs]
    counts = {**{name: len(PINNED[name]) for name in FILES}, VITALS: 26}
    assert files == [name for name in sorted(counts) for _ in range(counts[name])]
    assert len(runs) == 18 + 26


# -- a log another writer wrote (vitals: replies carry ids of their own) ---------------------

VITALS = "vitals.An-R-Eval_solvers_1da30c33.json"


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(item.get("text", "") for item in content if item.get("type") == "text")


def test_a_vitals_log_matches_every_reply_to_its_model_event_by_text() -> None:
    """vitals (tidyverse/vitals) writes Inspect logs whose assistant messages have ids of their
    own, so no reply's id is its model event's output id; each sample also holds the
    model-graded scorer's call after the solver's. Every reply is matched to the event whose
    output has its text: its usage and input are the file's, the scorer's call is left over."""
    path = DATA / VITALS
    runs = load_inspect(path)
    samples = raw_samples(path)
    assert len(runs) == len(samples) == 26
    for run, sample in zip(runs, samples, strict=True):
        replies = [m for m in sample["messages"] if m["role"] == "assistant"]
        events = [e for e in sample["events"] if e["event"] == "model"]
        assert all(
            r["id"] != e["output"]["choices"][0]["message"].get("id")
            for r in replies
            for e in events
        )  # ids never match in this file
        [reply] = replies
        [source] = [
            e for e in events if _text(e["output"]["choices"][0]["message"]) == _text(reply)
        ]
        usage = source["output"]["usage"]
        [call] = run.calls
        assert call.usage is not None and call.usage.reported
        assert (call.usage.input_tokens, call.usage.output_tokens) == (
            usage["input_tokens"],
            usage["output_tokens"],
        )
        assert run.meta["unmatched_model_events"] == len(events) - 1
        assert run.origin.recorded.usage and run.origin.recorded.inputs
        assert run.request == sample["messages"][0]["content"]
        assert not any("no model event" in p.problem for p in run.import_problems)


def test_a_reply_no_model_event_produced_is_listed(tmp_path: Path) -> None:
    """A reply whose text no model event returned, after every event was taken, is an import
    problem naming the message (its usage is not claimed)."""
    a1, a2 = assistant("one"), assistant("two")
    a1["id"], a2["id"] = "mine-1", "mine-2"
    events = [model_event([user("q")], assistant("one"), {"input_tokens": 5, "output_tokens": 1})]
    log = eval_log(sample([user("q"), a1, user("again"), a2], events))
    (run,) = load_inspect(write_json(tmp_path, log))
    assert [c.usage.input_tokens if c.usage else None for c in run.calls] == [5, None]
    [problem] = [p for p in run.import_problems if "no model event" in p.problem]
    assert problem.field.endswith("messages[3]")


def test_browser_run_meta_model_and_usage() -> None:
    (run,) = load_inspect(DATA / "browser.json")
    assert run.model == "openai/gpt-4o-mini"
    assert run.system is None
    assert {k: run.meta[k] for k in ("eval_id", "run_id", "task", "status", "scores")} == {
        "eval_id": "ZB2vu5GNujYaBdPSReCeop",
        "run_id": "Ta3ZFVTCTcjsb3AEX9FD9v",
        "task": "browser",
        "status": "success",
        "scores": {"includes": "C"},
    }
    assert run.meta["label"] == "browser-1-epoch-1"
    usages = [c.usage for c in run.calls]
    assert [(u.input_tokens, u.output_tokens, u.cache_read_tokens) for u in usages if u] == [
        (1124, 23, 0),
        (1568, 17, 1024),
        (2732, 17, 1536),
        (3896, 17, 2688),
        (5915, 207, 3840),
    ]
    assert run.status == "done" and run.output is not None
    assert run.output.startswith("The AI Security Institute (AISI)")
    # The tool results are the attachments' text, not their references.
    tools = [m for m in run.ledger.messages if m.role == "tool"]
    assert all(not m.content.startswith("attachment://") for m in tools)
    assert [m.name for m in tools] == ["web_browser_go"] + ["web_browser_click"] * 3


def test_the_browser_windows_are_the_inputs_its_model_events_recorded() -> None:
    (run,) = load_inspect(DATA / "browser.json")
    (sample,) = raw_samples(DATA / "browser.json")
    inputs = model_inputs(sample)
    assert len(run.calls) == len(inputs) == 5
    for call, recorded in zip(run.calls, inputs, strict=True):
        window = run.ledger.window_at(call.sent_commit)
        assert [(m.role, m.content, m.tool_call_id) for m in window] == recorded


@pytest.mark.parametrize("name", FILES)
def test_every_window_is_its_recorded_input_less_the_system_prompt(name: str) -> None:
    for run, sample in zip(load_inspect(DATA / name), raw_samples(DATA / name), strict=True):
        for call, recorded in zip(run.calls, model_inputs(sample), strict=True):
            if recorded and recorded[0][0] == "system":
                assert recorded[0][1] == run.system
                recorded = recorded[1:]
            window = run.ledger.window_at(call.sent_commit)
            assert [(m.role, m.content, m.tool_call_id) for m in window] == recorded
        assert run.records == []  # Inspect sent every call the whole history


@pytest.mark.parametrize("name", FILES)
def test_runs_pass_capture_replay_and_evidence(name: str) -> None:
    for run in load_inspect(DATA / name):
        capture(run)
        replayed = replay(run, sliding_window(keep_recent_turns=2))
        assert len(replayed.calls) == len(run.calls)
        evidence.dependencies(run)


# -- small logs built here -------------------------------------------------------------------


def user(text: Any, id_: str | None = None) -> dict[str, Any]:
    return {"role": "user", "content": text, **({"id": id_} if id_ else {})}


def assistant(text: Any, calls: list[Any] | None = None, id_: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": text, "source": "generate"}
    if calls:
        out["tool_calls"] = calls
    if id_:
        out["id"] = id_
    return out


def call(id_: str, function: str, **arguments: Any) -> dict[str, Any]:
    return {"id": id_, "function": function, "arguments": arguments}


def result(id_: str, text: Any, function: str = "search", **extra: Any) -> dict[str, Any]:
    return {"role": "tool", "content": text, "tool_call_id": id_, "function": function, **extra}


def model_event(inputs: list[Any], output: dict[str, Any], usage: Any = None) -> dict[str, Any]:
    return {
        "event": "model",
        "model": "openai/gpt-4o-mini",
        "input": inputs,
        "output": {"choices": [{"message": output}], "usage": usage},
    }


def eval_log(*samples: dict[str, Any], **header: Any) -> dict[str, Any]:
    log: dict[str, Any] = {
        "version": 2,
        "status": "success",
        "eval": {"eval_id": "E1", "run_id": "R1", "task": "t", "model": "openai/gpt-4o-mini"},
        **header,
    }
    if samples:
        log["samples"] = list(samples)
    return log


def sample(messages: Any, events: Sequence[Any] = (), **extra: Any) -> dict[str, Any]:
    return {"id": 1, "epoch": 1, "messages": messages, "events": list(events), **extra}


def write_json(tmp_path: Path, value: Any, name: str = "log.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(value))
    return path


def write_eval(tmp_path: Path, members: dict[str, bytes], name: str = "log.eval") -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    path = tmp_path / name
    path.write_bytes(buffer.getvalue())
    return path


def trimmed_log() -> dict[str, Any]:
    """A log whose last call Inspect's own policy sent only a note and the new question."""
    u1, a1 = user("find x", "u1"), assistant("", [call("c1", "search", q="x")], "a1")
    r1, a2 = result("c1", "x is 42"), assistant("x is 42", id_="a2")
    u2, a3 = user("and y?", "u2"), assistant("y is 7", id_="a3")
    events = [
        model_event([u1], a1, {"input_tokens": 10, "output_tokens": 2}),
        model_event([u1, a1, r1], a2, {"input_tokens": 20, "output_tokens": 3}),
        {"event": "compaction", "type": "trim", "tokens_before": 30, "tokens_after": 8},
        model_event([user("(earlier turns trimmed)"), u2], a3),
    ]
    return eval_log(sample([u1, a1, r1, a2, u2, a3], events))


def test_a_trimmed_input_is_an_observed_record_of_inspects_policy(tmp_path: Path) -> None:
    path = write_json(tmp_path, trimmed_log())
    (run,) = load_inspect(path)
    assert [c.usage.input_tokens if c.usage else None for c in run.calls] == [10, 20, None]
    window = run.ledger.window_at(run.calls[2].sent_commit)
    assert [(m.role, m.content) for m in window] == [
        ("user", "(earlier turns trimmed)"),
        ("user", "and y?"),
    ]
    (record,) = run.records
    assert record.observed and record.strategy == "inspect"
    removed = [m.stage_id for m in history(run)[:4]]
    assert record.removed_stage_ids == removed
    assert run.meta["compactions"] == [
        {"type": "trim", "tokens_before": 30, "tokens_after": 8, "source": None}
    ]
    assert run_counts(run) == (6, 1, 1, 3)


def typed_messages() -> list[Any]:
    """Messages with typed content items, a tool error, a refusal and two system messages."""
    return [
        {"role": "system", "content": "be brief"},
        user(
            [
                {"type": "text", "text": "look "},
                {"type": "image", "image": "data:image/png;base64,AAAA"},
            ]
        ),
        assistant(
            [
                {"type": "reasoning", "reasoning": "hmm", "signature": "s"},
                {"type": "reasoning", "reasoning": "ZW5j", "redacted": True},
                {"type": "text", "text": "checking"},
            ],
            [call("c1", "search", q="x")],
        ),
        result("c1", "", error={"type": "timeout", "message": "took too long"}),
        assistant([{"type": "text", "text": "I can't", "refusal": True}]),
        {"role": "system", "content": "a later system message"},
    ]


def test_content_items_tool_errors_and_the_system_prompt(tmp_path: Path) -> None:
    messages = typed_messages()
    (run,) = load_inspect(write_json(tmp_path, eval_log(sample(messages))))
    assert run.system == "be brief"
    first, reply, tool, refusal, later = run.ledger.messages
    assert first.content == "look " and [p.kind for p in first.parts] == ["image"]
    assert first.parts[0].data_chars == len("data:image/png;base64,AAAA")
    assert reply.content == "checking"
    assert [(p.kind, p.text) for p in reply.parts] == [
        ("thinking", "hmm"),
        ("redacted-thinking", None),
    ]
    assert (tool.content, tool.name, tool.tool_call_id) == ("error: took too long", "search", "c1")
    assert refusal.content == "" and refusal.parts[0].kind == "refusal"
    assert later.role == "system"
    assert run.import_problems == []


def test_usage_is_matched_in_order_when_messages_have_no_ids(tmp_path: Path) -> None:
    a1, a2 = assistant("one"), assistant("two")
    events = [
        model_event([user("q")], a1, {"input_tokens": 5, "output_tokens": 1}),
        {"event": "model", "input": [], "output": {"choices": []}, "error": "rate limited"},
        model_event([user("q"), a1, user("again")], a2, {"input_tokens": 9, "output_tokens": 1}),
        model_event([user("grade this")], assistant("C"), {"input_tokens": 3, "output_tokens": 1}),
    ]
    log = eval_log(sample([user("q"), a1, user("again"), a2], events))
    (run,) = load_inspect(write_json(tmp_path, log))
    assert [c.usage.input_tokens for c in run.calls if c.usage] == [5, 9]
    assert run.meta["unmatched_model_events"] == 2


def test_a_missing_attachment_is_kept_as_text_and_listed(tmp_path: Path) -> None:
    messages = [user("attachment://abc"), assistant("ok")]
    path = write_json(tmp_path, eval_log(sample(messages, attachments={"zzz": "unused"})))
    (run,) = load_inspect(path)
    assert run.ledger.messages[0].content == "attachment://abc"
    assert [(p.index, p.field) for p in run.import_problems] == [
        (0, "samples[0].messages[0].content")
    ]
    with pytest.raises(TranscriptError, match="not in the sample's attachments") as caught:
        load_inspect(path, strict=True)
    assert (caught.value.index, caught.value.field) == (0, "samples[0].messages[0].content")
    assert caught.value.path == str(path)


def test_logs_without_samples_give_no_runs(tmp_path: Path) -> None:
    assert load_inspect(write_json(tmp_path, eval_log())) == []
    error_log = eval_log(status="error", error={"message": "boom", "traceback": ""})
    assert load_inspect(write_json(tmp_path, error_log, "error.json")) == []
    header = json.dumps(error_log).encode()
    assert load_inspect(write_eval(tmp_path, {"header.json": header})) == []


def test_an_eval_zip_names_each_sample_by_its_member(tmp_path: Path) -> None:
    header = json.dumps(eval_log()).encode()
    good = json.dumps(sample([user("q"), assistant("a")], id=2)).encode()
    bad = json.dumps(sample([user("q"), {"role": "robot", "content": "?"}])).encode()
    path = write_eval(
        tmp_path,
        {"header.json": header, "samples/2_epoch_1.json": good, "samples/1_epoch_1.json": bad},
    )
    with pytest.raises(TranscriptError, match="unknown role") as caught:
        load_inspect(path)
    error = caught.value
    assert (error.path, error.index) == (str(path), 0)
    assert error.field == "samples/1_epoch_1.json:messages[1].role"


@pytest.mark.parametrize(
    ("members", "field", "says"),
    [
        ({"samples/1_epoch_1.json": b"{}"}, "header.json", "missing"),
        ({"header.json": b"{not json"}, "header.json", "not JSON"),
        ({"header.json": b"[]"}, "header.json", "EvalLog"),
        (
            {"header.json": b'{"eval": {}}', "samples/1_epoch_1.json": b'{"id": 1,'},
            "samples/1_epoch_1.json",
            "not JSON",
        ),
        (
            {"header.json": b'{"eval": {}}', "samples/1_epoch_1.json": b"\xff{}"},
            "samples/1_epoch_1.json",
            "UTF-8",
        ),
        (
            {"header.json": b'{"eval": {}}', "samples/1_epoch_1.json": b"[1]"},
            "samples/1_epoch_1.json",
            "sample object",
        ),
    ],
)
def test_a_bad_eval_zip_is_a_transcript_error_naming_file_and_member(
    tmp_path: Path, members: dict[str, bytes], field: str, says: str
) -> None:
    path = write_eval(tmp_path, members)
    with pytest.raises(TranscriptError, match=says) as caught:
        load_inspect(path)
    assert caught.value.path == str(path) and str(path) in str(caught.value)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("payload", "field", "says"),
    [
        (b"PK\x03\x04 not really a zip", "file", "not a readable .eval zip"),
        (b"", "file", "not a readable .eval zip"),
    ],
)
def test_a_file_that_is_not_a_zip_is_a_transcript_error(
    tmp_path: Path, payload: bytes, field: str, says: str
) -> None:
    path = tmp_path / "broken.eval"
    path.write_bytes(payload)
    with pytest.raises(TranscriptError, match=says) as caught:
        load_inspect(path)
    assert (caught.value.path, caught.value.field) == (str(path), field)


@pytest.mark.parametrize(
    ("log", "index", "field"),
    [
        ([1, 2], None, "log"),
        ({"eval": {}, "samples": {"a": 1}}, None, "samples"),
        ({"eval": "x", "samples": []}, None, "eval"),
        (eval_log(sample("nope")), 0, "samples[0].messages"),
        (
            eval_log(sample([user("q"), assistant("", [{"function": "f"}])])),
            0,
            "samples[0].messages[1].tool_calls[0].id",
        ),
        (
            eval_log(
                sample(
                    [user("q"), assistant("a")],
                    [model_event([user("q")], assistant("a"), {"input_tokens": "many"})],
                )
            ),
            0,
            "samples[0].events[0].output.usage.input_tokens",
        ),
        (eval_log(sample([user({"text": "q"})])), 0, "samples[0].messages[0].content"),
    ],
)
def test_a_malformed_json_log_names_the_sample_and_the_field(
    tmp_path: Path, log: Any, index: int | None, field: str
) -> None:
    path = write_json(tmp_path, log)
    with pytest.raises(TranscriptError) as caught:
        load_inspect(path)
    assert (caught.value.path, caught.value.index, caught.value.field) == (str(path), index, field)


def test_unreadable_files_are_transcript_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(TranscriptError, match="cannot read") as caught:
        load_inspect(missing)
    assert caught.value.path == str(missing)
    garbled = tmp_path / "garbled.json"
    garbled.write_bytes(b"\xff\xfe{}")
    with pytest.raises(TranscriptError, match="not UTF-8"):
        load_inspect(garbled)


# -- fuzzing ---------------------------------------------------------------------------------

WRONG = wrong_values("attachment://nope", "assistant", "tool", "system", "text", "model")


READ = frozenset(
    {
        "samples",
        "messages",
        "events",
        "event",
        "input",
        "output",
        "choices",
        "message",
        "content",
        "tool_calls",
        "usage",
        "attachments",
        "role",
        "id",
        "arguments",
        "function",
        "tool_call_id",
        "error",
        "text",
        "type",
        "reasoning",
        "refusal",
        "input_refs",
        "events_data",
        "scores",
        "eval",
        "status",
        "input_tokens",
    }
)
"""Keys the importer reads: the walk prefers them, so mutations land where they matter."""


def mutate(draw: Any, root: Any) -> Any:
    """``root`` with one value deleted or replaced by one of the wrong type (see
    :func:`tests.importers.helpers.mutate`)."""
    return helpers.mutate(draw, root, WRONG, READ)


@st.composite
def mutated(draw: Any, value: Any) -> Any:
    value = copy.deepcopy(value)
    for _ in range(draw(st.integers(1, 3))):
        value = mutate(draw, value)
    return value


LOGS = {
    name: json.loads((DATA / name).read_text("utf-8")) for name in FILES if name.endswith(".json")
}
# Small logs built here reach tool calls, errors, typed items and trimmed inputs more often.
LOGS["trimmed"] = trimmed_log()
LOGS["typed"] = eval_log(sample(typed_messages()))


def seen(label: str) -> None:
    """Count ``label`` in hypothesis's statistics (when hypothesis runs the test)."""
    if currently_in_test_context():
        event(label)


def imports_or_raises(path: Path) -> list[Run] | None:
    """The runs, or None for a TranscriptError naming ``path``; strict raises exactly when the
    lenient import listed a problem, and at the first one."""
    try:
        runs = load_inspect(path)
    except TranscriptError as exc:
        seen("rejected")
        assert exc.path == str(path) and exc.field and exc.problem
        with pytest.raises(TranscriptError):
            load_inspect(path, strict=True)
        return None
    problems = [p for run in runs for p in run.import_problems]
    assert all(p.source == "inspect" for p in problems)
    try:
        strict = load_inspect(path, strict=True)
    except TranscriptError as exc:
        seen("imported with problems")
        assert problems, f"strict raised with no problem listed: {exc}"
        first = problems[0]
        assert (exc.index, exc.field, exc.problem) == (first.index, first.field, first.problem)
        assert exc.path == str(path)
    else:
        seen("imported clean")
        assert problems == [] and len(strict) == len(runs)
    for run in runs:
        assert isinstance(run, Run)
        assert len(run.calls) == sum(m.role == "assistant" for m in history(run))
    return runs


SINGLE = (None, True, -1, 10**400, float("nan"), "x", [], {})
"""What every place of a small log is replaced by, one at a time (beside being deleted)."""


@pytest.mark.parametrize("name", ["trimmed", "typed"])
def test_every_single_change_to_a_small_log_imports_or_raises(tmp_path: Path, name: str) -> None:
    path = tmp_path / "changed.json"
    for k in range(len(sites(LOGS[name]))):
        for value in (*SINGLE, "delete"):
            log = copy.deepcopy(LOGS[name])
            parent, key = sites(log)[k]
            if value == "delete":
                del parent[key]
            else:
                parent[key] = value
            path.write_text(json.dumps(log, allow_nan=True))
            imports_or_raises(path)


@FUZZ
@given(st.data(), st.sampled_from(sorted(LOGS)))
def test_a_mutated_json_log_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    value = data.draw(mutated(LOGS[name]))
    path = tmp_path / "fuzzed.json"
    path.write_text(json.dumps(value, allow_nan=True))
    imports_or_raises(path)


@FUZZ
@given(st.data(), st.sampled_from(FILES))
def test_a_log_cut_at_any_byte_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    payload = (DATA / name).read_bytes()
    cut = data.draw(st.integers(0, len(payload)))
    path = tmp_path / f"cut{Path(name).suffix}"
    path.write_bytes(payload[:cut])
    imports_or_raises(path)


def _eval_members(name: str) -> dict[str, bytes]:
    with zipfile.ZipFile(DATA / name) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


EVALS = {name: _eval_members(name) for name in FILES if name.endswith(".eval")}


@FUZZ
@given(st.data(), st.sampled_from(sorted(EVALS)))
def test_a_corrupt_eval_zip_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    members = dict(EVALS[name])
    how = data.draw(st.sampled_from(["member-json", "member-bytes", "drop", "flip"]))
    member = data.draw(st.sampled_from(sorted(members)))
    if how == "member-json":
        members[member] = json.dumps(
            data.draw(mutated(json.loads(members[member]))), allow_nan=True
        ).encode()
    elif how == "member-bytes":
        raw = members[member]
        cut = data.draw(st.integers(0, len(raw)))
        members[member] = data.draw(st.sampled_from([b"", b"\xff"])) + raw[:cut]
    elif how == "drop":
        del members[member]
    path = write_eval(tmp_path, members, "fuzzed.eval")
    if how == "flip":
        payload = bytearray(path.read_bytes())
        for _ in range(data.draw(st.integers(1, 4))):
            at = data.draw(st.integers(0, len(payload) - 1))
            payload[at] = data.draw(st.integers(0, 255))
        path.write_bytes(bytes(payload))
    imports_or_raises(path)
