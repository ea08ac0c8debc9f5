"""Claude Code sessions read as Claude Code resumes them: the conversation is the
``parentUuid`` chain of the newest leaf, an abandoned branch (a rewind or an edited prompt) is
listed and never sent, and a compaction's ``summary`` entry is its stand-in.

The real files are kvsankar/agent-history's fixtures (``data/transcripts/claude-code/``):
``fixture.claude_forked_session.jsonl`` (two branches from one reply) and
``fixture.session_with_compaction.jsonl`` (a ``compact_boundary`` followed by a ``summary``
entry). Every expectation is computed from the file's own lines, not typed here. The variants
the fixtures lack (split parallel replies, a kept segment, lost links, a local command after
the leaf, no links at all) are small edits of these real files, each said so where it is made.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import detect_format, load
from footprint_lab.importers.claude_code import load_claude_code
from footprint_lab.importers.claude_code._chain import conversation
from footprint_lab.lab import capture
from footprint_lab.messages import Message
from tests.importers import helpers
from tests.importers.helpers import history
from tests.importers.test_claude_code import FUZZ, READ, WRONG, imports_or_raises

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "claude-code"
FORKED = DATA / "fixture.claude_forked_session.jsonl"
COMPACTED = DATA / "fixture.session_with_compaction.jsonl"


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def write(tmp_path: Path, entries: list[dict[str, Any]], name: str = "edited.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def text_of(entry: dict[str, Any]) -> str:
    """The text an entry's message says (its text blocks joined; a tool result's content)."""
    content = entry["message"]["content"]
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if block["type"] == "text":
            parts.append(block["text"])
        elif block["type"] == "tool_result":
            parts.append(block["content"])
    return "".join(parts)


def chain_from(entries: list[dict[str, Any]], leaf: str) -> list[dict[str, Any]]:
    """The leaf and its parents, root first, walked independently of the importer."""
    by_uuid = {e["uuid"]: e for e in entries if "uuid" in e}
    out = []
    current: str | None = leaf
    while current is not None:
        entry = by_uuid[current]
        out.append(entry)
        current = entry.get("parentUuid") or entry.get("logicalParentUuid")
    return out[::-1]


def downstream(run: Run, tmp_path: Path) -> None:
    replayed = replay(run, sliding_window(2))
    assert len(replayed.calls) == len(run.calls)
    capture(run)
    again = load_run(run.save(tmp_path / "run.json"))
    assert [m.content for m in again.ledger.messages] == [m.content for m in run.ledger.messages]
    assert again.records == run.records


# -- a rewound conversation ------------------------------------------------------------------


def test_the_conversation_is_the_chain_of_the_newest_leaf(tmp_path: Path) -> None:
    entries = lines_of(FORKED)
    (run,) = load_claude_code(FORKED)
    leaf = entries[-1]["uuid"]  # the last line written is the newest (its timestamp says so)
    assert max(entries, key=lambda e: e["timestamp"])["uuid"] == leaf
    path = chain_from(entries, leaf)
    assert run.meta["order"] == "parentUuid chain" and run.meta["leaf_uuid"] == leaf
    assert [m.content for m in history(run)] == [text_of(e) for e in path]
    assert [m.role for m in history(run)] == [
        "tool" if isinstance(e["message"]["content"], list) and e["type"] == "user" else e["type"]
        for e in path
    ]
    # The request is the task the person typed last on the live branch, not on the other.
    typed = [
        text_of(e) for e in path if e["type"] == "user" and isinstance(e["message"]["content"], str)
    ]
    assert run.requests == typed and run.request == typed[-1]
    # Every call on the chain is paired with its result.
    uses = [
        b["id"]
        for e in path
        if e["type"] == "assistant"
        for b in e["message"]["content"]
        if b["type"] == "tool_use"
    ]
    assert [m.tool_call_id for m in history(run) if m.role == "tool"] == uses
    assert len(run.calls) == sum(e["type"] == "assistant" for e in path)
    # Usage is each reply's own, as its line reports it (the other branch's replies bill nothing).
    replies = [e for e in path if e["type"] == "assistant"]
    assert [(c.usage.input_tokens, c.usage.output_tokens) for c in run.calls if c.usage] == [
        (e["message"]["usage"]["input_tokens"], e["message"]["usage"]["output_tokens"])
        for e in replies
    ]
    assert run.origin.recorded.usage is True
    assert run.model == replies[0]["message"]["model"]
    assert run.import_problems == [] and run.records == []
    downstream(run, tmp_path)


def test_the_abandoned_branch_is_listed_and_never_sent() -> None:
    entries = lines_of(FORKED)
    (run,) = load_claude_code(FORKED)
    on_chain = {e["uuid"] for e in chain_from(entries, entries[-1]["uuid"])}
    off = [(n, e) for n, e in enumerate(entries, 1) if e["uuid"] not in on_chain]
    (branch,) = run.meta["abandoned_branches"]
    assert branch == {
        "leafUuid": off[-1][1]["uuid"],
        "fork_uuid": off[0][1]["parentUuid"],
        "uuids": [e["uuid"] for _, e in off],
        "lines": [n for n, _ in off],
        "message_count": len(off),
        "reason": "abandoned branch (rewind or edit)",
    }
    gone = {text_of(e) for _, e in off} - {
        text_of(entries[n]) for n in range(len(entries)) if entries[n]["uuid"] in on_chain
    }
    assert gone  # the branch said things the live one did not
    for call in run.calls:
        window = run.ledger.window_at(call.sent_commit)
        assert not gone & {m.content for m in window}
    assert not gone & {m.content for m in run.ledger.messages}


def test_load_detects_and_reads_both_files_the_same() -> None:
    for path in (FORKED, COMPACTED):
        assert detect_format(path) == "claude-code"
        (loaded,) = load(path)
        (direct,) = load_claude_code(path)
        assert loaded.origin.format == "claude-code"
        assert {k: v for k, v in loaded.meta.items() if k != "format"} == direct.meta
        assert [m.content for m in loaded.ledger.messages] == [
            m.content for m in direct.ledger.messages
        ]


def test_the_newest_leaf_wins_whatever_the_file_order(tmp_path: Path) -> None:
    """Edit of the real file: the abandoned branch's lines moved after the live ones (its
    timestamps are older), so the leaf written last is not the newest."""
    entries = lines_of(FORKED)
    live = {e["uuid"] for e in chain_from(entries, entries[-1]["uuid"])}
    moved = [e for e in entries if e["uuid"] in live] + [
        e for e in entries if e["uuid"] not in live
    ]
    (run,) = load_claude_code(write(tmp_path, moved))
    (original,) = load_claude_code(FORKED)
    assert run.meta["leaf_uuid"] == entries[-1]["uuid"]
    assert [m.content for m in history(run)] == [m.content for m in history(original)]


def test_a_file_without_links_is_read_in_file_order(tmp_path: Path) -> None:
    """Edit of the real file: every ``parentUuid`` set to null (older logs link nothing)."""
    entries = [{**e, "parentUuid": None} for e in lines_of(FORKED)]
    (run,) = load_claude_code(write(tmp_path, entries))
    assert run.meta["order"] == "file order" and run.meta["abandoned_branches"] == []
    assert [m.content for m in history(run)] == [text_of(e) for e in entries]


def test_a_lost_link_continues_from_the_entry_written_before(tmp_path: Path) -> None:
    """Edit of the real file: one entry of the live branch names a parent the file does not
    hold; the conversation goes on from the entry written before it, as it was sent."""
    entries = lines_of(FORKED)
    entries[-3]["parentUuid"] = "not-in-this-file"
    (run,) = load_claude_code(write(tmp_path, entries))
    (original,) = load_claude_code(FORKED)
    assert [m.content for m in history(run)] == [m.content for m in history(original)]
    assert run.meta["abandoned_branches"] == original.meta["abandoned_branches"]


def test_split_parallel_replies_keep_every_call_and_result(tmp_path: Path) -> None:
    """Edit of the real file: the reply at the fork's tip written as Claude Code streams a
    parallel batch (one entry a block, one ``message.id``), a second call on its own entry
    and each result linked to its own entry, so the leaf's chain passes through one of them."""
    entries = lines_of(FORKED)
    reply = next(e for e in entries if e["uuid"] == "fa4b-fork")
    text, call = reply["message"]["content"]
    second = {"type": "tool_use", "id": "toolu_extra", "name": "Read", "input": {"file_path": "x"}}
    reply["message"]["content"] = [text]
    at = entries.index(reply)
    block_call = copy.deepcopy(reply) | {"uuid": "fa4b-call", "parentUuid": "fa4b-fork"}
    block_call["message"]["content"] = [call]
    block_extra = copy.deepcopy(reply) | {"uuid": "fa4b-extra", "parentUuid": "fa4b-fork"}
    block_extra["message"]["content"] = [second]
    result_extra = {
        **entries[at + 1],
        "uuid": "fu-extra",
        "parentUuid": "fa4b-extra",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_extra", "content": "x read"}],
        },
    }
    entries[at + 1]["parentUuid"] = "fa4b-call"
    entries[at + 1 : at + 1] = [block_call, block_extra, result_extra]
    (run,) = load_claude_code(write(tmp_path, entries))
    merged = next(m for m in history(run) if m.content == text["text"])
    assert [c.id for c in merged.tool_calls] == [call["id"], "toolu_extra"]
    results = [m.tool_call_id for m in history(run) if m.role == "tool"]
    assert call["id"] in results and "toolu_extra" in results
    assert run.import_problems == []
    (original,) = load_claude_code(FORKED)
    assert run.meta["abandoned_branches"] == original.meta["abandoned_branches"]


def test_a_local_command_after_the_leaf_joins_the_conversation(tmp_path: Path) -> None:
    """Edit of the real file: a local command's caveat and output written below the leaf
    (Claude Code never resumes from them; they are no abandoned branch either)."""
    entries = lines_of(FORKED)
    tip = entries[-1]
    caveat = "<local-command-caveat>Caveat: local command</local-command-caveat>"
    stdout = "<local-command-stdout>Total cost: $0.01</local-command-stdout>"
    for k, text in enumerate((caveat, stdout)):
        entries.append(
            {
                **{k2: v for k2, v in entries[0].items() if k2 != "message"},
                "uuid": f"local-{k}",
                "parentUuid": entries[-1]["uuid"],
                "timestamp": "2025-12-10T09:02:00.000Z",
                "isMeta": True,
                "message": {"role": "user", "content": text},
            }
        )
    (run,) = load_claude_code(write(tmp_path, entries))
    assert run.meta["leaf_uuid"] == tip["uuid"]
    assert [m.content for m in history(run)][-2:] == [caveat, stdout]
    (original,) = load_claude_code(FORKED)
    assert run.request == original.request and run.requests == original.requests
    assert run.ledger.messages[-1].stage_id.startswith("observation#")  # never a request
    assert len(run.meta["abandoned_branches"]) == 1


# -- a compaction whose stand-in is a summary entry ------------------------------------------


def boundary_of(entries: list[dict[str, Any]]) -> int:
    return next(k for k, e in enumerate(entries) if e.get("subtype") == "compact_boundary")


def test_the_summary_entry_stands_in_for_the_compaction(tmp_path: Path) -> None:
    entries = lines_of(COMPACTED)
    b = boundary_of(entries)
    boundary, summary = entries[b], entries[b + 1]
    assert summary["type"] == "summary" and summary["parentUuid"] == boundary["uuid"]
    assert not any(e.get("isCompactSummary") for e in entries)
    (run,) = load_claude_code(COMPACTED)
    assert run.meta["compactions"] == [
        {
            "boundary_line": b + 1,
            "trigger": boundary["compactMetadata"]["trigger"],
            "preTokens": boundary["compactMetadata"]["preTokens"],
            "summary_line": b + 2,
            "summary_type": "summary",
        }
    ]
    assert run.meta["summaries"] == []  # the stand-in is no session title
    (record,) = run.records
    assert record.observed and record.strategy == "claude-code"
    left = [run.ledger.message(s) for s in record.removed_stage_ids]
    before = [e for e in entries[:b] if e["type"] in ("user", "assistant")]
    assert [m.content for m in left] == [text_of(e) for e in before]
    assert record.iteration == 1 + sum(e["type"] == "assistant" for e in before)
    call = run.calls[record.iteration - 1]
    stand_in, *rest = run.ledger.window_at(call.sent_commit)
    assert (stand_in.role, stand_in.content) == ("user", summary["message"]["content"])
    assert stand_in.authored == "compaction-frame"
    assert [m.content for m in rest] == [
        text_of(e) for e in entries[b + 2 :] if e["type"] == "user"
    ][:1]
    assert all(m.content != stand_in.content for m in history(run))
    assert record.window_chars_after < record.window_chars_before
    downstream(run, tmp_path)


def test_an_is_compact_summary_entry_replaces_the_summary_entry(tmp_path: Path) -> None:
    """Edit of the real file: Claude Code's own ``isCompactSummary`` user entry written after
    the ``summary`` entry, before the next turn: it is the stand-in."""
    entries = lines_of(COMPACTED)
    b = boundary_of(entries)
    own = {
        **{k: v for k, v in entries[b + 2].items() if k != "message"},
        "uuid": "own-summary",
        "parentUuid": entries[b + 1]["uuid"],
        "isCompactSummary": True,
        "message": {"role": "user", "content": "This session is being continued. Summary: auth."},
    }
    entries[b + 2]["parentUuid"] = "own-summary"
    entries.insert(b + 2, own)
    (run,) = load_claude_code(write(tmp_path, entries))
    (compaction,) = run.meta["compactions"]
    assert compaction["summary_line"] == b + 3 and "summary_type" not in compaction
    (record,) = run.records
    stand_in = run.ledger.window_at(run.calls[record.iteration - 1].sent_commit)[0]
    assert stand_in.content == own["message"]["content"]


@pytest.mark.parametrize("relinked", [False, True])
def test_a_kept_segment_stays_in_the_window(tmp_path: Path, relinked: bool) -> None:
    """Edit of the real file: the boundary kept its last exchange verbatim
    (``compactMetadata.preservedSegment``, as Claude Code 2.1 writes it); ``relinked``: the
    first entry after the compaction links to the segment's tail, not the summary."""
    entries = lines_of(COMPACTED)
    b = boundary_of(entries)
    head, tail = entries[b - 2], entries[b - 1]
    entries[b]["compactMetadata"]["preservedSegment"] = {
        "headUuid": head["uuid"],
        "anchorUuid": entries[b + 1]["uuid"],
        "tailUuid": tail["uuid"],
    }
    if relinked:
        entries[b + 2]["parentUuid"] = tail["uuid"]
    (run,) = load_claude_code(write(tmp_path, entries))
    (record,) = run.records
    left = [run.ledger.message(s).content for s in record.removed_stage_ids]
    kept = [text_of(head), text_of(tail)]
    before = [text_of(e) for e in entries[: b - 2] if e["type"] in ("user", "assistant")]
    assert left == before
    window = run.ledger.window_at(run.calls[record.iteration - 1].sent_commit)
    assert [m.content for m in window][:3] == [entries[b + 1]["message"]["content"], *kept]
    assert run.meta["compactions"][0]["preserved_uuids"] == [head["uuid"], tail["uuid"]]
    assert run.meta["abandoned_branches"] == []


# -- fuzzing ---------------------------------------------------------------------------------

SESSIONS = {"forked": lines_of(FORKED), "compacted": lines_of(COMPACTED)}
LINKS = READ | {"uuid", "parentUuid", "logicalParentUuid", "timestamp", "isSidechain", "message"}
"""Keys the chain is read from, beside those the messages are: mutations land there too."""


@FUZZ
@given(st.data(), st.sampled_from(sorted(SESSIONS)))
def test_a_mutated_linked_session_imports_or_raises_transcript_error(
    tmp_path: Path, data: st.DataObject, name: str
) -> None:
    entries = copy.deepcopy(SESSIONS[name])
    for _ in range(data.draw(st.integers(1, 3))):
        entries = helpers.mutate(data.draw, entries, WRONG, LINKS)
    lines = entries if isinstance(entries, list) else [entries]
    path = tmp_path / "fuzzed.jsonl"
    path.write_text("".join(json.dumps(e, allow_nan=True) + "\n" for e in lines))
    run = imports_or_raises(path)
    if run is not None:
        assert isinstance(run.meta["abandoned_branches"], list)
        assert all(isinstance(m, Message) for m in run.ledger.messages)


@st.composite
def linked_sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Sessions of linked entries drawn at random: rewinds, lost and repeated uuids, cycles,
    missing timestamps, sidechains and boundaries."""
    n = draw(st.integers(1, 25))
    uuids = [f"u{draw(st.integers(0, n + 2))}" for _ in range(n)]
    entries: list[dict[str, Any]] = []
    for k in range(n):
        kind = draw(st.sampled_from(["user", "assistant", "assistant", "system"]))
        parent = draw(st.sampled_from([None, "lost", *uuids]))
        entry: dict[str, Any] = {"type": kind, "uuid": uuids[k], "parentUuid": parent}
        if draw(st.booleans()):
            entry["timestamp"] = f"2025-01-01T00:{draw(st.integers(0, 59)):02d}:00Z"
        if draw(st.integers(0, 9)) == 0:
            entry["isSidechain"] = True
        if kind == "system":
            entry |= {"subtype": "compact_boundary", "parentUuid": None}
            entry["logicalParentUuid"] = parent
        elif kind == "user":
            entry["message"] = {"role": "user", "content": f"prompt {k}"}
        else:
            entry["message"] = {
                "id": f"m{draw(st.integers(0, 3))}",
                "role": "assistant",
                "content": [{"type": "text", "text": f"reply {k}"}],
            }
        entries.append(entry)
    return entries


@FUZZ
@given(linked_sessions())
def test_every_entry_is_on_the_chain_on_a_branch_or_a_repeat(entries: list[dict[str, Any]]) -> None:
    numbered = list(enumerate(entries, 1))
    chain = conversation(numbered)
    if chain is None:
        return
    abandoned = [n for branch in chain.abandoned for n in branch["lines"]]
    assert len(abandoned) == len(set(abandoned)) and not set(abandoned) & chain.keep
    for n, entry in numbered:
        if entry["type"] in ("user", "assistant") and not entry.get("isSidechain"):
            assert (n in chain.keep) + (n in abandoned) + (n in chain.duplicates) == 1, n


def test_the_views_name_the_abandoned_branch(tmp_path: Path) -> None:
    """The real forked session: its abandoned branch is said above the run's figures, in the
    Inspector and the report, in the words of the issue."""
    from footprint_lab.lab import Inspector, write_report
    from footprint_lab.lab.views import run_notes

    [run] = load_claude_code(FORKED)
    [note] = [n for n in run_notes(run) if n.kind == "abandoned branch"]
    assert "abandoned branch (rewind or edit)" in note.text
    assert f"holding {run.meta['abandoned_branches'][0]['message_count']} message(s)" in note.text
    assert note.text in Inspector(run).overview_html.value
    report = write_report({"forked": {"session": run}}, tmp_path / "report.html")
    assert "abandoned branch (rewind or edit)" in report.read_text(encoding="utf-8")
