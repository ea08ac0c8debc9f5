"""Run files are checked for meaning: what a file says must follow from the ledger it carries.

Properties (hypothesis, 1,000 examples each), on real saved runs (scripted runs under every
shipped strategy, a parallel batch, in-place clearing, a conversation, a pause, a fault):

(a) a meaning-level edit from the family in ``run_file_edits`` — a window without the request,
    a kept result whose call left, a reversed window, a pin limit below 0, record sizes or
    counts that disagree with the ledger, a tool message turned into a user one, a ghost call
    id, a forged visit that breaks the law with honest sizes, and more — *re-signed with a
    valid checksum* never loads: ``load_run`` raises ``RunFileError`` naming the file, the
    place and the rule (#24 item 11);
(b) every honest run loads, equal: random scripted runs under random strategies, pins,
    pauses, faults and conversations, saved at the end and at a checkpoint; and every real
    transcript, imported and replayed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Agent,
    Checkpoint,
    Reply,
    RunFileError,
    ScriptedProvider,
    clear_tool_results,
    load_run,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)
from footprint_lab.scenarios import deploy_audit
from footprint_lab.window.strategies.summarizers import extractive_summarizer
from tests.agent.run_file_docs import (
    BASES,
    FOLDER,
    Doc,
    View,
    doc_of,
    drop_table,
    forge_visit,
    resigned,
)
from tests.agent.run_file_edits import EDITS
from tests.budget import examples


@pytest.mark.parametrize("name", sorted(BASES))
def test_every_base_run_resigned_loads_equal(name: str) -> None:
    loaded = load_run(resigned(doc_of(name), f"same-{name}.json"))
    assert json.loads(loaded.checkpoint().model_dump_json()) == doc_of(name)


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_meaning_level_edit_resigned_never_loads(data: st.DataObject) -> None:
    base = data.draw(st.sampled_from(sorted(BASES)), label="run")
    doc = doc_of(base)
    edit = data.draw(st.sampled_from([e for e in EDITS if e.applies(doc)]), label="edit")
    edit.make(doc, data)
    path = resigned(doc, "edited.json")
    with pytest.raises(RunFileError) as info:
        load_run(path)
    message = str(info.value)
    # A sense rule refused it, named with its place — not the checksum, which is valid.
    assert message.startswith(f"{path}: inconsistent run file — ") or message.startswith(
        f"{path}: corrupt run file — "
    ), message


def test_every_edit_applies_to_some_run() -> None:
    for edit in EDITS:
        assert any(edit.applies(doc_of(name)) for name in BASES), edit.name


# -- the edits the issue names, one by one --------------------------------------------------


def _issue_edit(kind: str) -> tuple[Doc, str]:
    """One of the meaning-level edits of #24 item 11 on the parallel-tools run, and the place
    and rule the refusal must name."""
    doc = doc_of("parallel")
    view = View(doc)
    window = doc["window"]
    results = [p for p, m in enumerate(view.messages) if m.role == "tool"]
    if kind == "request":
        window.remove(view.request())
        return doc, "window["
    if kind == "call left":
        caller = next(i for i, p in enumerate(window) if view.messages[p].tool_calls)
        del window[caller]
        return doc, f"window[{caller}]: is not the ledger's window"
    if kind == "pins":
        doc["keep_last_tool_results"] = -1
        return doc, "keep_last_tool_results: keep_last_tool_results must be a whole number >= 0"
    if kind in ("sizes", "count"):
        record = doc["records"][-1]
        field, value = (
            ("window_chars_after", record["window_chars_after"] + 7)
            if kind == "sizes"
            else ("removed_message_count", 10**6)
        )
        for copy in (record, doc["ledger"]["commits"][record["commit"]]["value"]):
            copy[field] = value
        return doc, f"records[{len(doc['records']) - 1}].{field}: is {value}, but "
    if kind == "huge usage":
        doc["calls"][0]["usage"]["input_tokens"] = 10**15
        return doc, "calls[0].usage.input_tokens: is 1,000,000,000,000,000; no call reads"
    if kind == "late event":
        doc["events"][0]["iteration"] = 999
        return doc, "events[0].iteration: is 999, but the run started only"
    if kind == "huge pins":
        doc["keep_last_tool_results"] = 10**9
        return doc, "keep_last_tool_results: is 1,000,000,000; a pin limit is at most 1,000,000"
    if kind == "huge meta":
        doc["meta"]["note"] = "x" * 5_000_000
        return doc, "meta: holds 5,000,0"
    if kind == "tool to user":
        doc["ledger"]["messages"][results[0]]["role"] = "user"
        return doc, f"ledger.messages[{results[0]}].role: is 'user', but a tool-calls stage"
    if kind == "ghost":
        doc["ledger"]["messages"][results[0]]["tool_call_id"] = "call-nobody-made"
        return doc, f"ledger.messages[{results[0]}].tool_call_id: the result answers call"
    if kind == "reversed":
        doc["window"] = window[::-1]
        return doc, "window[0]: is not the ledger's window"
    assert kind == "forged"
    forge_visit(doc, [p for p in window if p != view.request()], violations=[])
    return doc, (
        f"records[{len(doc['records']) - 1}]: the window change it records breaks the law: "
        "'lost-current-request'"
    )


@pytest.mark.parametrize(
    "kind",
    [
        "request",
        "call left",
        "pins",
        "sizes",
        "count",
        "tool to user",
        "ghost",
        "reversed",
        "forged",
        "huge usage",
        "late event",
        "huge pins",
        "huge meta",
    ],
)
def test_each_edit_the_issue_names_is_refused_naming_the_rule(kind: str) -> None:
    doc, expected = _issue_edit(kind)
    path = resigned(doc, f"issue-{kind.replace(' ', '-')}.json")
    with pytest.raises(RunFileError) as info:
        load_run(path)
    assert f"{path}: inconsistent run file — {expected}" in str(info.value), str(info.value)


# -- every honest run loads ---------------------------------------------------------------


@tool
def fetch(key: str) -> str:
    """A payload whose size depends on the key (``boom`` raises)."""
    if key == "boom":
        raise ValueError("bad key")
    return f"{key}:" + "data " * (len(key) * 15)


_KEYS = st.sampled_from(["a", "bb", "ccc", "boom", "dddd"])
_STEP = st.one_of(
    st.builds(lambda k: Reply.tool_call("fetch", key=k), _KEYS),
    st.builds(
        lambda ks: Reply.tool_calls([("fetch", {"key": k}) for k in ks]),
        st.lists(_KEYS, min_size=2, max_size=3),
    ),
    st.builds(lambda n: Reply.tool_call("drop_table", name=n), st.sampled_from(["t", "u"])),
)
_STRATEGIES = st.one_of(
    st.none(),
    st.builds(sliding_window, st.integers(1, 4), st.integers(0, 2)),
    st.builds(
        lambda t, k: token_budget(t, keep_recent_turns=k), st.integers(20, 600), st.integers(1, 4)
    ),
    st.builds(
        lambda t, k: summarize_oldest(t, extractive_summarizer, keep_recent_turns=k),
        st.integers(20, 600),
        st.integers(1, 4),
    ),
    st.builds(
        lambda n, k, inputs: clear_tool_results(
            keep_results=n, keep_recent_turns=k, clear_tool_inputs=inputs
        ),
        st.integers(0, 3),
        st.integers(1, 3),
        st.booleans(),
    ),
)


def _loads_equal(checkpoint: Checkpoint, name: str) -> None:
    path = checkpoint.save(FOLDER / name)
    assert json.loads(load_run(path).checkpoint().model_dump_json()) == json.loads(
        checkpoint.model_dump_json()
    )


@settings(
    max_examples=examples(1000),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    first=st.lists(_STEP, max_size=8),
    second=st.lists(_STEP, max_size=4),
    strategy=_STRATEGIES,
    keep_last=st.integers(0, 3),
    ending=st.sampled_from(["answer", "fault", "cap"]),
    approve=st.booleans(),
    data=st.data(),
)
def test_every_honest_run_loads_equal(
    first: list[Reply],
    second: list[Reply],
    strategy: Any,
    keep_last: int,
    ending: str,
    approve: bool,
    data: st.DataObject,
) -> None:
    last = {"answer": [Reply.text("done")], "fault": [Reply.fail("503")], "cap": []}[ending]
    provider = ScriptedProvider([*first, *last, *second, Reply.text("again")])
    builder = Agent.create(
        provider=provider, max_iterations=len(first) + 2, keep_last_tool_results=keep_last
    ).tools(fetch, drop_table)
    agent = (builder if strategy is None else builder.window(strategy)).build()
    checkpoints: list[Checkpoint] = []
    run = agent.run("do the thing", on_checkpoint=checkpoints.append)
    while run.status == "paused":
        run = run.approve() if approve else run.deny()
    if run.status == "done" and data.draw(st.booleans(), label="a second request"):
        run = agent.run("and one more thing", on_checkpoint=checkpoints.append)
        while run.status == "paused":
            run = run.approve()
    _loads_equal(run.checkpoint(), "honest.json")
    if checkpoints:
        # How many checkpoints a run takes depends on timing (results of a parallel batch that
        # finish together share one), so the draw must not: a position in [0, 1) picks one.
        at = data.draw(st.integers(0, 999), label="checkpoint") * len(checkpoints) // 1000
        _loads_equal(checkpoints[at], "honest-checkpoint.json")


_DATA = Path(__file__).resolve().parents[2] / "data"


def _sources(folder: Path) -> list[Path]:
    """What ``load`` reads in ``folder``, each source once: files, and folders a format reads
    whole (an OpenHands V1 conversation), recursively; licences and documentation left out."""
    from footprint_lab.importers import folder_entries, is_whole_folder

    found: list[Path] = []
    for entry in folder_entries(folder):
        if entry.is_dir() and not is_whole_folder(entry):
            found.extend(_sources(entry))
        else:
            found.append(entry)
    return found


_REAL = sorted(
    path
    for folder in ("transcripts", "transcripts-extra", "tau-bench")
    for path in _sources(_DATA / folder)
)


@pytest.mark.parametrize("path", _REAL, ids=[p.relative_to(_DATA).as_posix() for p in _REAL])
def test_real_transcripts_and_their_replays_load_equal(path: Path) -> None:
    from footprint_lab import replay
    from footprint_lab.importers import load

    runs = load(path)
    assert runs
    for n, imported in enumerate(runs[:12]):
        for k, run in enumerate((imported, replay(imported, sliding_window(keep_recent_turns=2)))):
            _loads_equal(run.checkpoint(), f"real-{n}-{k}.json")


def test_a_replay_of_a_transcript_opening_on_a_reply_loads() -> None:
    from footprint_lab import replay
    from footprint_lab.importers import from_openai

    imported = from_openai(
        [
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": "audit d1"},
            {"role": "assistant", "content": "d1 is fine"},
        ]
    )
    run = replay(imported, sliding_window(keep_recent_turns=1))
    assert run.calls[0].sent_commit == 0  # it follows the empty seed, as in the import
    _loads_equal(run.checkpoint(), "opening-reply.json")


def _shorten_results(messages: list[Any]) -> list[Any]:
    """A foreign policy that rewrites every tool result in place (the audit records it)."""
    return [
        m.model_copy(update={"content": m.content[:12]}) if m.role == "tool" else m
        for m in messages
    ]


def test_an_audited_policys_rewrites_load_and_without_violations_are_refused() -> None:
    from footprint_lab import audit, replay

    # Replayed: a replay files an audited policy's breaches (an agent would refuse them).
    run = replay(deploy_audit().run(None), audit(_shorten_results))
    assert any(r.violations for r in run.records)
    _loads_equal(run.checkpoint(), "audited.json")
    # The same rewrites with the violations taken away are a lawless window stage.
    doc = json.loads(run.checkpoint().model_dump_json())
    for record in doc["records"]:
        for copy in (record, doc["ledger"]["commits"][record["commit"]]["value"]):
            copy["violations"] = None
    path = resigned(doc, "audited-unfiled.json")
    with pytest.raises(RunFileError, match="unless its record files the violations"):
        load_run(path)


def test_a_tool_stage_may_only_put_its_results_in_call_order() -> None:
    from footprint_lab.scenarios import parallel_tools

    run = parallel_tools().run(None)
    _loads_equal(run.checkpoint(), "placed.json")  # results placed in call order: honest
    doc = json.loads(run.checkpoint().model_dump_json())
    commits = doc["ledger"]["commits"]
    placing = [c for c in commits if c["key"] == "window" and c["stage_id"].startswith("tool-")]
    assert placing, "the scenario's async tool finishes first: its batch is placed"
    last = placing[-1]
    # The same commit, now also moving the request behind the results: not a placement.
    runs = [list(r) for r in last["value"]]
    placed = [p for a, b in runs for p in range(a, b)]
    assert runs[0][0] == 0
    runs[0][0] = 1
    runs.append([0, 1])
    last["value"] = runs
    # the saved window follows the forged commit, so only the commit's own rule can refuse it
    doc["window"] = [p for a, b in runs for p in range(a, b)] + doc["window"][len(placed) :]
    path = resigned(doc, "placed-forged.json")
    with pytest.raises(RunFileError, match="committed a window but no record"):
        load_run(path)
