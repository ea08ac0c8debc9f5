"""Run files check sense, not only shape, and carry a checksum that load verifies.

Each sense rule is exercised on a real run (the deploy-audit scenario) saved, then edited as
JSON: loading must raise ``RunFileError`` naming the file, the JSON place and the rule broken.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import Agent, Reply, RunFileError, ScriptedProvider, load_run, tool
from footprint_lab.agent.checkpoint import load_checkpoint
from footprint_lab.agent.run import Run
from footprint_lab.scenarios import deploy_audit

Doc = dict[str, Any]


@tool
def lookup(key: str) -> str:
    """Look something up."""
    return f"{key}: " + "value " * 20


@tool(check_in=True)
def drop_table(name: str) -> str:
    """Acts on the world: needs consent."""
    return f"dropped {name}"


_RUNS: dict[str, Run] = {}


def _run(kind: str = "folded") -> Run:
    """A real run: 'folded' (summarize-oldest: records, a folded span, a window commit),
    'paused' (waits on a check-in) or 'error' (a provider fault)."""
    if kind not in _RUNS:
        if kind == "folded":
            scenario = deploy_audit()
            _RUNS[kind] = scenario.run(scenario.strategies()["summarize-oldest"])
        else:
            replies = (
                [Reply.tool_call("lookup", key="a"), Reply.tool_call("drop_table", name="t")]
                if kind == "paused"
                else [Reply.tool_call("lookup", key="a"), Reply.fail("503 overloaded")]
            )
            agent = (
                Agent.create(provider=ScriptedProvider(replies), max_iterations=5)
                .tools(lookup, drop_table)
                .build()
            )
            _RUNS[kind] = agent.run("go")
        assert _RUNS[kind].status == {"folded": "done"}.get(kind, kind)
    return _RUNS[kind]


def _doc(kind: str = "folded") -> Doc:
    """The run's document as a file written before checksums holds it (no checksum)."""
    doc: Doc = json.loads(_run(kind).checkpoint().model_dump_json())
    return doc


def _write(tmp_path: Path, doc: Doc, name: str = "run.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _refused(path: Path, *parts: str, loader: Callable[[Path], object] = load_run) -> str:
    with pytest.raises(RunFileError) as info:
        loader(path)
    message = str(info.value)
    assert str(path) in message, message
    for part in parts:
        assert part in message, f"{part!r} not in {message!r}"
    return message


def _commits(doc: Doc, key: str) -> list[int]:
    return [i for i, c in enumerate(doc["ledger"]["commits"]) if c["key"] == key]


# -- the baseline --------------------------------------------------------------------------


def test_a_file_without_checksum_loads_only_when_the_caller_says_so(tmp_path: Path) -> None:
    for kind in ("folded", "paused", "error"):
        path = _write(tmp_path, _doc(kind))
        # Deleting the field must not turn the checksum off: such a file is refused...
        with pytest.raises(RunFileError, match=r"no checksum.*pass verify=False"):
            load_run(path)
        with pytest.raises(RunFileError, match="no checksum"):
            load_checkpoint(path)
        # ... unless the caller asks for it, unverified.
        loaded = load_run(path, verify=False)
        assert loaded.checkpoint().model_dump() == _run(kind).checkpoint().model_dump()
        assert load_checkpoint(path, verify=False).model_dump() == loaded.checkpoint().model_dump()


def test_a_checksum_is_checked_even_when_not_required(tmp_path: Path) -> None:
    path = _run().save(tmp_path / "run.json")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"status":"done"', '"status":"done" '), encoding="utf-8")
    with pytest.raises(RunFileError, match="checksum mismatch"):
        load_run(path, verify=False)


def test_save_writes_a_checksum_that_load_verifies(tmp_path: Path) -> None:
    path = _run().save(tmp_path / "run.json")
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{"checksum":"sha256:')
    assert load_checkpoint(path).model_dump() == _run().checkpoint().model_dump()
    doc = json.loads(text)
    assert len(doc["checksum"]) == len("sha256:") + 64


# -- one case per sense rule: (the run, an edit, the place and the rule the error names) ----

Edit = Callable[[Doc], tuple[str, ...]]
_RULES: list[tuple[str, str, Edit]] = []


def _rule(name: str, kind: str = "folded") -> Callable[[Edit], Edit]:
    def register(edit: Edit) -> Edit:
        _RULES.append((name, kind, edit))
        return edit

    return register


def _value(doc: Doc, key: str, n: int) -> Any:
    return doc["ledger"]["commits"][_commits(doc, key)[n]]["value"]


def _place(doc: Doc, key: str, n: int) -> str:
    return f"ledger.commits[{_commits(doc, key)[n]}].value"


@_rule("history-out-of-range")
def _history_out_of_range(doc: Doc) -> tuple[str, ...]:
    _value(doc, "history", -1)[1] = len(doc["ledger"]["messages"]) + 5
    return _place(doc, "history", -1), "out of range"


@_rule("history-reversed")
def _history_reversed(doc: Doc) -> tuple[str, ...]:
    _value(doc, "history", 2).reverse()
    return _place(doc, "history", 2), "reversed"


@_rule("history-gap")
def _history_gap(doc: Doc) -> tuple[str, ...]:
    _value(doc, "history", 3)[0] += 1
    return _place(doc, "history", 3), "leaves a gap", "tile"


@_rule("history-overlap")
def _history_overlap(doc: Doc) -> tuple[str, ...]:
    _value(doc, "history", 3)[0] -= 1
    return _place(doc, "history", 3), "overlaps", "tile"


@_rule("window-run-out-of-range")
def _window_run_out_of_range(doc: Doc) -> tuple[str, ...]:
    _value(doc, "window", 0)[1] = [0, len(doc["ledger"]["messages"]) + 3]
    return _place(doc, "window", 0) + "[1]", "out of range"


@_rule("window-run-empty")
def _window_run_empty(doc: Doc) -> tuple[str, ...]:
    _value(doc, "window", 0)[0] = [3, 3]
    return _place(doc, "window", 0) + "[0]", "empty or reversed"


@_rule("window-runs-repeat")
def _window_runs_repeat(doc: Doc) -> tuple[str, ...]:
    runs = _value(doc, "window", 0)
    runs.append(list(runs[0]))
    return _place(doc, "window", 0) + f"[{len(runs) - 1}]", "repeats positions"


@_rule("message-commit-disagrees")
def _message_commit_disagrees(doc: Doc) -> tuple[str, ...]:
    doc["ledger"]["message_commit"][3] = doc["ledger"]["message_commit"][4]
    return "ledger.message_commit[3]", "was appended by history commit"


@_rule("message-stage-disagrees")
def _message_stage_disagrees(doc: Doc) -> tuple[str, ...]:
    doc["ledger"]["messages"][2]["stage_id"] = "tool-calls#6"
    return "ledger.messages[2].stage_id", "the commit that appended it"


@_rule("stage-counter-reuses-a-commit-id")
def _stage_counter_reuses(doc: Doc) -> tuple[str, ...]:
    doc["ledger"]["stage_counter"] = 20  # call-llm#20 was allocated
    return "ledger.stage_counter", "'call-llm#20'", "reused"


@_rule("stage-counter-reuses-a-failed-call-id", "error")
def _stage_counter_below_call(doc: Doc) -> tuple[str, ...]:
    doc["calls"][-1]["stage_id"] = f"call-llm#{doc['ledger']['stage_counter']}"
    return "ledger.stage_counter", "calls[1].stage_id", "reused"


@_rule("window-out-of-range")
def _window_out_of_range(doc: Doc) -> tuple[str, ...]:
    doc["window"][2] = len(doc["ledger"]["messages"]) + 7
    return "window[2]", "out of range"


@_rule("window-repeats")
def _window_repeats(doc: Doc) -> tuple[str, ...]:
    doc["window"].append(doc["window"][1])
    return f"window[{len(doc['window']) - 1}]", "repeats"


@_rule("record-names-an-uncommitted-stage")
def _record_uncommitted(doc: Doc) -> tuple[str, ...]:
    doc["records"][0]["removed_stage_ids"][1] = "tool-calls#999"
    return "records[0].removed_stage_ids[1]", "'tool-calls#999'", "committed no message"


@_rule("folded-names-an-uncommitted-stage")
def _folded_uncommitted(doc: Doc) -> tuple[str, ...]:
    doc["folded"][0]["removed_stage_ids"][0] = "seed#77"
    return "folded[0].removed_stage_ids[0]", "committed no message"


for _part, _field in [
    ("records", "window_chars_before"),
    ("records", "removed_message_count"),
    ("calls", "chars"),
    ("calls", "messages"),
]:

    def _negative(doc: Doc, part: str = _part, field: str = _field) -> tuple[str, ...]:
        doc[part][0][field] = -4
        return f"{part}[0].{field}", "cannot be negative"

    _rule(f"negative-{_part}-{_field}")(_negative)


@_rule("negative-deep-in-a-record")
def _negative_deep(doc: Doc) -> tuple[str, ...]:
    doc["records"][0]["refusals"][0]["turn_index"] = -1
    return "records[0].refusals[0].turn_index", "cannot be negative"


@_rule("zero-removed-with-ids-named")
def _zero_removed(doc: Doc) -> tuple[str, ...]:
    doc["records"][0]["removed_message_count"] = 0
    return "records[0].removed_message_count", "is 0, but"


@_rule("sent-commit-out-of-range")
def _sent_commit(doc: Doc) -> tuple[str, ...]:
    doc["calls"][3]["sent_commit"] = len(doc["ledger"]["commits"])
    return "calls[3].sent_commit", "out of range"


@_rule("iterations-below-loop-start")
def _below_loop_start(doc: Doc) -> tuple[str, ...]:
    doc["loop_start"] = doc["iterations"] + 1
    return "iterations", "less than loop_start"


@_rule("negative-iterations")
def _negative_iterations(doc: Doc) -> tuple[str, ...]:
    doc["iterations"] = -1
    return "iterations", "cannot be negative"


@_rule("record-from-an-iteration-not-started")
def _record_future(doc: Doc) -> tuple[str, ...]:
    doc["records"][0]["iteration"] = doc["iterations"] + 1
    return "records[0].iteration", "started only"


for _kind, _status, _phase in [
    ("folded", "done", "window"),
    ("folded", "done", "call"),
    ("folded", "max-iterations", "resume"),
    ("error", "error", "finished"),
    ("paused", "paused", "tools"),
]:

    def _contradiction(doc: Doc, status: str = _status, phase: str = _phase) -> tuple[str, ...]:
        doc["status"], doc["phase"] = status, phase
        return "phase", f"contradicts status {status!r}"

    _rule(f"status-{_status}-at-{_phase}", _kind)(_contradiction)


@_rule("paused-without-a-pause", "paused")
def _no_pause(doc: Doc) -> tuple[str, ...]:
    doc["pause"] = None
    return "pause", "names what it waits on"


@_rule("a-pause-on-a-run-not-waiting", "paused")
def _stray_pause(doc: Doc) -> tuple[str, ...]:
    doc["status"], doc["phase"] = "max-iterations", "window"
    return "pause", "only a run waiting at phase 'resume'"


@_rule("a-fault-without-status-error")
def _stray_error(doc: Doc) -> tuple[str, ...]:
    doc["error"] = {"type_name": "RuntimeError", "message": "boom"}
    return "error", "only a run with status 'error'"


@pytest.mark.parametrize(("kind", "edit"), [pytest.param(k, e, id=n) for n, k, e in _RULES])
def test_each_sense_rule(tmp_path: Path, kind: str, edit: Edit) -> None:
    doc = _doc(kind)
    expected = edit(doc)
    _refused(_write(tmp_path, doc), *expected)


def test_in_flight_states_the_loop_writes_load(tmp_path: Path) -> None:
    # A boundary checkpoint (on_checkpoint) loads; status 'error' without its fault does not.
    doc = _doc()
    doc["status"], doc["phase"] = "max-iterations", "window"
    load_run(_write(tmp_path, doc, "boundary.json"), verify=False)
    doc = _doc("error")
    doc["error"] = None
    for phase in ("window", "tools"):
        doc["phase"] = phase
        _refused(_write(tmp_path, doc, f"error-{phase}.json"), "error", "names the fault")


def test_every_checkpoint_of_a_run_continued_after_a_fault_loads(tmp_path: Path) -> None:
    scenario = deploy_audit()
    agent = scenario.agent(scenario.strategies()["sliding-window"])
    paths: list[Path] = []

    def fail_once(checkpoint: Any) -> None:
        if checkpoint.iterations == 3 and not paths:
            paths.append(checkpoint.save(tmp_path / "before.json"))
            raise RuntimeError("the hook failed once")

    run = agent.run(scenario.request, on_checkpoint=fail_once)
    assert run.status == "error"

    def persist(checkpoint: Any) -> None:
        paths.append(checkpoint.save(tmp_path / f"cp{len(paths)}.json"))

    resumed = agent.resume_on_error(run.checkpoint(), on_checkpoint=persist)
    assert resumed.status == "done" and len(paths) > 2
    for path in paths:
        load_checkpoint(path)


def test_every_boundary_checkpoint_of_a_real_run_loads(tmp_path: Path) -> None:
    scenario = deploy_audit()
    paths: list[Path] = []

    def persist(checkpoint: Any) -> None:
        paths.append(checkpoint.save(tmp_path / f"cp{len(paths)}.json"))

    scenario.agent(scenario.strategies()["sliding-window"]).run(
        scenario.request, on_checkpoint=persist
    )
    assert len(paths) >= 3
    for path in paths:
        load_checkpoint(path)


# -- unknown fields, version, checksum ------------------------------------------------------


def _nested_places(doc: Doc) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "colour", doc
    yield "ledger.colour", doc["ledger"]
    yield "ledger.commits[0].colour", doc["ledger"]["commits"][0]
    rec = _commits(doc, "record")[0]
    yield f"ledger.commits[{rec}].value.colour", doc["ledger"]["commits"][rec]["value"]
    usage = _commits(doc, "usage")[0]
    yield f"ledger.commits[{usage}].value.colour", doc["ledger"]["commits"][usage]["value"]
    yield "ledger.messages[1].colour", doc["ledger"]["messages"][1]
    yield "ledger.messages[1].tool_calls[0].colour", doc["ledger"]["messages"][1]["tool_calls"][0]
    yield "records[0].colour", doc["records"][0]
    yield "records[0].refusals[0].colour", doc["records"][0]["refusals"][0]
    yield "records[0].observations.colour", doc["records"][0]["observations"]
    yield "calls[2].colour", doc["calls"][2]
    yield "calls[2].usage.colour", doc["calls"][2]["usage"]
    yield "events[1].colour", doc["events"][1]
    yield "folded[0].colour", doc["folded"][0]
    yield "folded[0].originals[0].colour", doc["folded"][0]["originals"][0]
    yield "last_usage.colour", doc["last_usage"]


def test_unknown_fields_anywhere(tmp_path: Path) -> None:
    count = len(list(_nested_places(_doc())))
    for n in range(count):
        doc = _doc()
        where, node = list(_nested_places(doc))[n]
        node["colour"] = "blue"
        _refused(_write(tmp_path, doc, f"unknown{n}.json"), where, "unknown field")


def test_unknown_field_in_the_saved_error(tmp_path: Path) -> None:
    doc = _doc("error")
    doc["error"]["colour"] = "blue"
    doc["pause"] = None
    _refused(_write(tmp_path, doc), "error.colour", "unknown field")


def test_unknown_field_in_the_pause(tmp_path: Path) -> None:
    doc = _doc("paused")
    doc["pause"]["colour"] = "blue"
    _refused(_write(tmp_path, doc), "pause.colour", "unknown field")


def test_version_true_is_not_version_1(tmp_path: Path) -> None:
    doc = _doc()
    doc["version"] = True
    _refused(_write(tmp_path, doc), "version True is not supported")


def test_a_flipped_character_is_a_checksum_mismatch(tmp_path: Path) -> None:
    path = _run().save(tmp_path / "run.json")
    text = path.read_text(encoding="utf-8")
    at = text.index("DEPLOY d1")
    path.write_text(text[:at] + "DEPLOY d2" + text[at + 9 :], encoding="utf-8")
    _refused(path, "checksum mismatch — the file was altered or corrupted")


def test_a_malformed_checksum(tmp_path: Path) -> None:
    path = _run().save(tmp_path / "run.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["checksum"] = doc["checksum"].upper()
    _refused(_write(tmp_path, doc), "checksum", "64 lowercase hex digits")


def test_a_reserialised_file_is_reported_altered(tmp_path: Path) -> None:
    path = _run().save(tmp_path / "run.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    _refused(path, "checksum mismatch")
