"""Tests on the extra real files (``data/transcripts-extra``), each of which an importer got
wrong before: SWE-agent demonstrations of another agent, OpenHands' legacy serializations
(flattened events without ids, histories of action/observation pairs), and Inspect's older
``message_pool`` and its Zstandard-compressed ``.eval`` members. Counts are taken from the
raw JSON, independently of the importers."""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from footprint_lab import evidence, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import load, load_inspect, load_openhands, load_swe_agent
from footprint_lab.lab import capture
from tests.importers.helpers import history, run_counts

EXTRA = Path(__file__).resolve().parents[2] / "data" / "transcripts-extra"
SWE = EXTRA / "swe-agent" / "marshmallow-1867.demos-of-another-agent.trimmed.traj"
RESOLVER = EXTRA / "openhands" / "resolver-mock-output.first-line.jsonl"
GORILLA = EXTRA / "openhands" / "gorilla-torch-output.first-2-lines.jsonl"
POOLED = EXTRA / "inspect" / "log_message_deduplication.eval"
ZSTD = EXTRA / "inspect" / "retry-2-then-success.zstd.eval"
FILES = (SWE, RESOLVER, GORILLA, POOLED, ZSTD)


def literal(value: Any) -> Any:
    """A field SWE-agent stores as a value or as the Python-literal text of one."""
    return ast.literal_eval(value) if isinstance(value, str) else value


def window(run: Run, k: int) -> list[tuple[str, str, str | None]]:
    """(role, content, tool_call_id) of what call ``k`` received."""
    sent = run.ledger.window_at(run.calls[k].sent_commit)
    return [(m.role, m.content, m.tool_call_id) for m in sent]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_extra_file_loads_and_passes_capture_replay_and_evidence(path: Path) -> None:
    runs = load(path)
    assert runs
    for run in runs:
        assert run.import_problems == []
        capture(run)
        assert len(replay(run, sliding_window(keep_recent_turns=2)).calls) == len(run.calls)
        evidence.dependencies(run)


# -- SWE-agent: entries of another agent were never sent -------------------------------------


def test_swe_agent_leaves_out_the_demonstrations_another_agent_wrote() -> None:
    """``put_demos_in_history`` keeps the demonstration's own agent name (``primary``); the
    running agent (``main``) sends only its own entries, so the demos were never sent, and
    each step's ``messages`` (the next call's input) holds none of them."""
    data = json.loads(SWE.read_text("utf-8"))
    main = [e for e in data["history"] if e["agent"] == "main"]
    assert sum(e["agent"] == "primary" for e in data["history"]) == 4
    (run,) = load_swe_agent(SWE)
    assert run.meta["agent"] == "main" and run.meta["other_agent_entries"] == 4
    calls = sum(len(literal(e.get("tool_calls")) or []) for e in main)
    assert run_counts(run) == (len(main) - 1, calls, 3, 3)
    assert run.system == main[0]["content"]
    assert not any(m.content == e["content"] for m in history(run) for e in data["history"][1:5])
    assert run.meta["recorded_inputs"] == 2
    for k in (1, 2):  # step k-1's messages are call k's input, message for message
        recorded = data["trajectory"][k - 1]["messages"][1:]
        ids = [literal(e["tool_call_ids"])[0] if e["role"] == "tool" else None for e in recorded]
        assert window(run, k) == [
            (e["role"], e["content"], i) for e, i in zip(recorded, ids, strict=True)
        ]


def test_swe_agent_errors_still_name_the_entry_by_its_place_in_history(tmp_path: Path) -> None:
    data = json.loads(SWE.read_text("utf-8"))
    data["history"][6]["tool_calls"] = "not a literal ("
    path = tmp_path / "bad.traj"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(Exception) as caught:
        load_swe_agent(path)
    text = str(caught.value)
    assert str(path) in text and "entry 6" in text and "history[6].tool_calls" in text


# -- OpenHands: legacy serializations ----------------------------------------------------------


def test_openhands_reads_flattened_events_without_ids_or_sources() -> None:
    """The resolver's 2024 output puts an action's args beside ``action`` and writes no
    ``id`` or ``source``: the task is the user's, the commands the agent's."""
    (line,) = RESOLVER.read_text("utf-8").splitlines()
    events = json.loads(line)["history"]
    (run,) = load_openhands(RESOLVER)
    assert run.meta["events"] == len(events) == 8
    messages = history(run)
    # Text-mode commands (no tool call metadata) are rebuilt as calls; the observation right
    # after each (no cause is written) is its result.
    assert run_counts(run) == (8, 3, 3, 4)
    assert [m.role for m in messages] == ["user", *["assistant", "tool"] * 3, "assistant"]
    assert run.requests == [events[0]["content"]]
    assert messages[0].content == events[0]["content"]
    assert messages[1].content == events[1]["thought"]
    assert messages[1].tool_calls[0].arguments == {"command": events[1]["command"]}
    assert messages[2].content == events[2]["content"]
    assert messages[2].tool_call_id == messages[1].tool_calls[0].id == "openhands-event-at-1"
    assert messages[-1].content == events[-1]["thought"]
    assert run.meta["tool_loop"] == "rebuilt" and run.meta["rebuilt_tool_calls"] == 3
    # The literal form: the observations are user text, never requests.
    (literal,) = load_openhands(RESOLVER, tool_loop=False)
    assert run_counts(literal) == (8, 0, 0, 4)
    assert [m.role for m in history(literal)] == ["user", "assistant"] * 4
    assert history(literal)[2].content.endswith(events[2]["content"])
    assert literal.requests == [events[0]["content"]]
    assert literal.meta["tool_loop"] == "literal"


def test_openhands_reads_a_history_of_action_observation_pairs() -> None:
    lines = GORILLA.read_text("utf-8").splitlines()
    runs = load_openhands(GORILLA)
    assert len(runs) == len(lines) == 2
    for run, line in zip(runs, lines, strict=True):
        pairs = json.loads(line)["history"]
        actions = [pair[0] for pair in pairs]
        assert run.meta["events"] == 2 * len(pairs)
        # 'null' observations are not sent; every action is one message.
        assert [m.role for m in history(run)] == [
            "user" if a["source"] == "user" else "assistant" for a in actions
        ]
        assert history(run)[0].content == actions[0]["args"]["content"]


def test_openhands_names_a_bad_pair_by_its_place(tmp_path: Path) -> None:
    data = json.loads(GORILLA.read_text("utf-8").splitlines()[0])
    data["history"][1] = [data["history"][1][0]]
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(Exception) as caught:
        load_openhands(path)
    assert str(path) in str(caught.value) and "history[1]" in str(caught.value)


# -- Inspect: message_pool and Zstandard members ---------------------------------------------


def _sample(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as archive:
        (member,) = [n for n in archive.namelist() if n.startswith("samples/")]
        info = archive.getinfo(member)
        if info.compress_type != zipfile.ZIP_DEFLATED and info.compress_type != 0:
            import zstandard

            # The test's own reader of the raw member (not the importer's).
            with path.open("rb") as handle:
                handle.seek(info.header_offset + 26)
                skip = int.from_bytes(handle.read(2), "little")
                skip += int.from_bytes(handle.read(2), "little")
                handle.seek(skip, 1)
                raw = handle.read(info.compress_size)
            data = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
            return dict(json.loads(data))
        return dict(json.loads(archive.read(member)))


def test_inspect_expands_input_refs_into_the_older_message_pool() -> None:
    sample = _sample(POOLED)
    assert "events_data" not in sample and len(sample["message_pool"]) == 11
    (run,) = load_inspect(POOLED)
    messages = sample["messages"]
    assert run_counts(run) == (
        len(messages),
        sum(len(m.get("tool_calls") or []) for m in messages),
        sum(m["role"] == "tool" for m in messages),
        sum(m["role"] == "assistant" for m in messages),
    )
    inputs = [e["input_refs"] for e in sample["events"] if e["event"] == "model"]
    pool = sample["message_pool"]
    assert len(run.calls) == len(inputs) == 6
    for k, refs in enumerate(inputs):
        recorded = [pool[j] for start, end in refs for j in range(start, end)]
        assert window(run, k) == [
            (m["role"], m["content"], m.get("tool_call_id")) for m in recorded
        ]
    assert run.records == []


def test_inspect_reads_zstandard_compressed_members() -> None:
    with zipfile.ZipFile(ZSTD) as archive:
        assert {i.compress_type for i in archive.infolist()} == {93}
    sample = _sample(ZSTD)
    (run,) = load_inspect(ZSTD)
    assert (run.meta["sample_id"], run.meta["epoch"]) == (sample["id"], sample["epoch"])
    lead = int(sample["messages"][0]["role"] == "system")
    assert run_counts(run)[0] == len(sample["messages"]) - lead
