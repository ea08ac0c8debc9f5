"""Tests of the Aider chat history importer on the first half of Aider's own history
(``data/transcripts/aider/chat-history.first-half.md``: 566 sessions, Aider v0.47-v0.50):
one run per session the model replied in, requests and usage checked against the file's own
lines (read here by plain line rules, independently of the importer), ``/clear`` and the
linter's sub-coder as observed records naming what left, observations never requests, and
fuzzed histories giving runs or a TranscriptError, never another exception.

Shapes the real file lacks are built as small edits of its session 2 (said in each test):
rounded and cache usage reports (``aider/coders/base_coder.py``
``calculate_and_show_tokens_and_cost`` with ``aider/utils.py`` ``format_tokens``, v0.52 on),
a reasoning block (``aider/reasoning_tags.py``) and the architect's editor hand-off
(``aider/coders/architect_coder.py`` ``reply_completed`` logging through ``aider/io.py``
``user_input``)."""

from __future__ import annotations

import re
import shutil
import time
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from footprint_lab import load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import TranscriptError, detect_format, load, load_aider
from footprint_lab.importers._sniff import sniff
from footprint_lab.importers.aider import FILE_FORMAT
from footprint_lab.importers.recorded import unrecorded_notes
from footprint_lab.lab import capture
from footprint_lab.messages import is_observation
from tests.importers.helpers import FUZZ

DATA = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "aider"
FILE = DATA / "chat-history.first-half.md"
HEADER = "# aider chat started at "
TOKENS = re.compile(r"^> Tokens: ([\d,]+) sent, ([\d,]+) received")


# -- the file read by plain line rules, independently of the importer -------------------------


@cache
def text() -> str:
    return FILE.read_text("utf-8")


@cache
def raw_sessions() -> dict[int, list[str]]:
    """Each session's lines by session number (0: the lines before the first header)."""
    out: dict[int, list[str]] = {0: []}
    number = 0
    for line in text().split("\n"):
        if line.startswith(HEADER):
            number += 1
            out[number] = [line]
        else:
            out[number].append(line)
    return out


def raw_inputs(lines: list[str]) -> list[str]:
    """The ``####`` blocks of some lines: consecutive ``#### `` lines after a blank line,
    each without ``#### `` and its two trailing spaces."""
    blocks: list[str] = []
    current: list[str] | None = None
    previous = ""
    for line in lines:
        if line.startswith("#### ") and (current is not None or not previous.strip()):
            body = line[:-2] if line.endswith("  ") else line
            current = [*(current or []), body[5:]]
        else:
            if current is not None:
                blocks.append("\n".join(current))
            current = None
        previous = line
    if current is not None:
        blocks.append("\n".join(current))
    return blocks


def raw_reports(lines: list[str]) -> list[tuple[int, int]]:
    """The (sent, received) of every exact ``> Tokens:`` report in some lines."""
    found = (TOKENS.match(line) for line in lines)
    return [(int(m[1].replace(",", "")), int(m[2].replace(",", ""))) for m in found if m]


@cache
def runs() -> tuple[Run, ...]:
    return tuple(load_aider(FILE))


def session(number: int) -> Run:
    return next(r for r in runs() if r.meta["session"] == number)


def write(tmp_path: Path, body: str, name: str = ".aider.chat.history.md") -> Path:
    path = tmp_path / name
    path.write_text(body, "utf-8")
    return path


def session_2() -> str:
    """Session 2 of the file as written (a request, a reply with edits, its usage)."""
    return "\n".join(raw_sessions()[2]) + "\n"


# -- sessions, requests, replies ---------------------------------------------------------------


def test_one_run_per_session_the_model_replied_in() -> None:
    sessions = raw_sessions()
    found = runs()
    assert all(r.meta["sessions_in_file"] == len(sessions) - 1 == 566 for r in found)
    skipped = found[0].meta["skipped_sessions"]
    numbers = [r.meta["session"] for r in found] + [s["session"] for s in skipped]
    assert sorted(numbers) == list(range(len(sessions)))  # session 0: the file starts inside one
    assert all(r.meta["sessions_skipped"] == len(skipped) for r in found)
    # Every session whose model reported receiving tokens is a run.
    answered = {n for n, lines in sessions.items() if any(out for _, out in raw_reports(lines))}
    assert answered <= {r.meta["session"] for r in found}
    for run in found:
        header = sessions[run.meta["session"]][0]
        assert header == HEADER + run.meta["started_at"]
        assert run.calls and run.provider == "aider"


def test_requests_are_the_persons_inputs_as_the_file_holds_them() -> None:
    for run in runs():
        inputs = raw_inputs(raw_sessions()[run.meta["session"]])
        for request in run.requests:
            assert request in inputs
            assert not request.startswith(("/", "!")) and request != "<blank>"
            assert not request.startswith("# Fix any errors below")
    first = session(2)
    assert first.requests == [raw_inputs(raw_sessions()[2])[0]]
    assert first.request == "Use the Spinner instead of the inlined custom spinner"
    # /ask X logs "/ask X", then X as an input of its own: X is the request.
    asked = next(r for r in runs() if "/ask" in r.meta["commands"])
    inputs = raw_inputs(raw_sessions()[asked.meta["session"]])
    ask = next(i for i in inputs if i.startswith("/ask "))
    assert " " + ask[len("/ask ") :] in asked.requests


def test_replies_and_startup_facts_are_the_files() -> None:
    run = session(2)
    lines = raw_sessions()[2]
    reply = run.ledger.messages[1]
    asked = lines.index("#### Use the Spinner instead of the inlined custom spinner  ")
    assert reply.role == "assistant"
    assert reply.content.split("\n")[0] == lines[asked + 2]
    assert reply.content in "\n".join(lines)
    assert "<<<<<<< SEARCH" in reply.content  # edit blocks stay the reply's text
    facts = {line[2:].rstrip() for line in lines if line.startswith("> ")}
    assert f"Aider v{run.meta['aider_version']}" in facts
    assert run.model == run.meta["model"] == "claude-3-5-sonnet-20240620"
    assert (
        f"Models: {run.model} with {run.meta['edit_format']} edit format, weak model "
        f"{run.meta['weak_model']}" in facts
    )
    assert f"Repo-map: {run.meta['repo_map']}" in facts
    assert run.meta["command_line"] in facts
    assert run.meta["mode_line"] == text().split("\n")[0]


def test_usage_is_every_report_the_file_prints() -> None:
    """Every ``> Tokens:`` report is the usage of the reply it follows, or a call with no
    reply (an error, an interrupt), exactly once; v0.47-v0.51 print whole counts."""
    from_runs: Counter[tuple[int, int]] = Counter()
    for run in runs():
        for call in run.calls:
            if call.usage is not None:
                from_runs[(call.usage.input_tokens, call.usage.output_tokens)] += 1
        for report in run.meta["calls_without_reply"]:
            counts = report["approximately"]
            from_runs[(counts["input_tokens"], counts["output_tokens"])] += 1
        assert run.meta["rounded_usage"] == []
        assert run.origin.recorded.usage == any(c.usage for c in run.calls)
    in_runs = {r.meta["session"] for r in runs()}
    printed = Counter(
        pair for n, lines in raw_sessions().items() if n in in_runs for pair in raw_reports(lines)
    )
    assert from_runs == printed
    [call] = session(2).calls
    assert call.usage is not None
    assert (call.usage.input_tokens, call.usage.output_tokens) == raw_reports(raw_sessions()[2])[0]


def test_observations_are_what_aider_sent_itself_never_requests() -> None:
    seen = Counter[str]()
    for run in runs():
        observed = [m for m in run.ledger.messages if is_observation(m)]
        assert len(observed) == len(run.meta["observations"])
        assert not {m.content for m in observed} & set(run.requests)
        seen.update(o["source"] for o in run.meta["observations"])
    assert {"reply", "lint", "/run", "/test"} <= set(seen)
    # A reflection: what Aider showed between a reply and the reply it asked for.
    run = session(12)
    lines = "\n".join(raw_sessions()[12])
    reflection = next(m for m in run.ledger.messages if is_observation(m))
    assert "Attempt to fix lint errors?" in reflection.content
    assert all(part in lines for part in reflection.content.split("\n"))


def test_the_linters_fix_request_starts_a_sub_coder_window() -> None:
    """``/cle`` (``/clear``) then ``/lint``: the lint coder starts from an empty history."""
    run = session(434)
    assert run.meta["clears"][0]["by"] == "/cle"
    [sub] = run.meta["sub_coders"]
    assert sub["kind"] == "lint"
    lint = next(m for m in run.ledger.messages if is_observation(m))
    assert lint.content.startswith("# Fix any errors below, if possible.")
    assert lint.content in raw_inputs(raw_sessions()[434])
    [record] = run.records
    assert record.observed and record.strategy == "aider"
    left = [run.ledger.message(s) for s in record.removed_stage_ids]
    assert [m.content for m in left if m.role == "user"] == run.requests
    call = run.calls[record.iteration - 1]
    assert run.ledger.window_at(call.sent_commit) == [lint]


def test_clear_is_an_observed_record_naming_what_left() -> None:
    run = session(12)
    lines = raw_sessions()[12]
    at = lines.index("#### /clear  ")
    typed = [b for b in raw_inputs(lines[:at]) if not b.startswith(("/", "!"))]
    after = [b for b in raw_inputs(lines[at + 1 :]) if not b.startswith(("/", "!"))]
    [record] = run.records
    assert record.observed and record.strategy == "aider"
    left = [run.ledger.message(s) for s in record.removed_stage_ids]
    assert [m.content for m in left if m.role == "user" and not is_observation(m)] == typed
    assert left == [m for m in run.ledger.messages if m.stage_id in record.removed_stage_ids]
    call = run.calls[record.iteration - 1]
    window = run.ledger.window_at(call.sent_commit)
    assert [m.content for m in window] == [after[0]]
    assert run.origin.recorded.inputs is False  # the file does not record what was sent


def test_a_window_repeating_earlier_messages_is_listed_not_misfiled() -> None:
    """Session 13 repeats its request word for word after two of its four ``/clear`` s: those
    windows cannot be told from the earlier messages, so each is listed as a problem instead
    of a record naming the wrong ones (which would say the current request left)."""
    run = session(13)
    lines = raw_sessions()[13]
    clears = sum(1 for line in lines if line == "#### /clear  ")
    dropped = [p for p in run.import_problems if p.field == "window"]
    assert len(run.meta["clears"]) == clears == 4
    assert len(run.records) + len(dropped) == clears
    assert all(p.unit == "line" and p.index is not None for p in dropped)
    for record in run.records:
        assert not [v for v in record.violations or [] if v.kind == "lost-current-request"]


def test_a_retried_call_is_no_observation_and_its_partial_reply_leaves() -> None:
    """Session 536: the API dropped the connection mid-reply four times. Aider logged each
    partial reply, then ``Retrying in ...``: the first retry continued the reply (sent with the
    partial one as a prefill), the others started it again (sent without it)."""
    run = session(536)
    lines = raw_sessions()[536]
    retrying = [k for k, line in enumerate(lines) if line.startswith("> Retrying in ")]
    assert len(run.meta["retried_calls"]) == len(retrying) == 4
    assert [o["source"] for o in run.meta["observations"]] == ["reply"]
    replies = [m for m in run.ledger.messages if m.role == "assistant"]
    for record in run.records:
        [left] = [run.ledger.message(s) for s in record.removed_stage_ids]
        assert left is replies[record.iteration - 2]  # the partial reply just before
        again = replies[record.iteration - 1]
        assert again.content.startswith(left.content[:40])
    assert len(run.records) == 3


# -- documented shapes, built as small edits of the real file's session 2 ---------------------


def test_rounded_usage_is_listed_not_reported(tmp_path: Path) -> None:
    body = re.sub(
        r"> Tokens: .*",
        "> Tokens: 2.4k sent, 131 received. Cost: $0.0094 message, $0.0094 session.  ",
        session_2(),
    )
    [run] = load_aider(write(tmp_path, body))
    assert run.calls[0].usage is None
    [report] = run.meta["rounded_usage"]
    assert report["iteration"] == 1
    assert report["approximately"] == {"input_tokens": 2400, "output_tokens": 131}
    assert report["printed"].startswith("Tokens: 2.4k sent")
    assert run.origin.recorded.usage is False and run.meta["usage_note"]
    assert any("no token usage" in note for note in unrecorded_notes(run))
    assert run.meta["cost_session"] == "0.0094"


@pytest.mark.parametrize(
    ("report", "usage"),
    [
        (
            "> Tokens: 950 sent, 300 cache write, 600 cache hit, 95 received.\n"
            "Cost: $0.0031 message, $0.0031 session.  ",
            (950, 95, 600, 300),
        ),
        (
            "> Tokens: 12k sent, 3.2k cache write, 1.1k cache hit, 95 received.\n"
            "Cost: $0.05 message, $0.05 session.  ",
            None,
        ),
    ],
    ids=["exact", "rounded"],
)
def test_cache_reports_span_two_lines(
    tmp_path: Path, report: str, usage: tuple[int, int, int, int] | None
) -> None:
    """With both cache parts Aider puts the cost on a line of its own (one entry)."""
    [run] = load_aider(write(tmp_path, re.sub(r"> Tokens: .*", report, session_2())))
    got = run.calls[0].usage
    if usage is None:
        assert (
            got is None
            and run.meta["rounded_usage"][0]["approximately"]["cache_write_tokens"] == 3200
        )
    else:
        assert got is not None
        assert (
            got.input_tokens,
            got.output_tokens,
            got.cache_read_tokens,
            got.cache_write_tokens,
        ) == usage
    assert len(run.ledger.messages) == 2  # the cost line is no reply text


def test_a_reasoning_block_is_a_thinking_part(tmp_path: Path) -> None:
    tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
    body = session_2().replace(
        "\nCertainly! I'll modify",
        f"\n<{tag}>\n\nThe user wants the Spinner.\n\n</{tag}>\n\nCertainly! I'll modify",
        1,
    )
    [run] = load_aider(write(tmp_path, body))
    reply = run.ledger.messages[1]
    assert reply.content == session(2).ledger.messages[1].content
    [part] = reply.parts
    assert part.kind == "thinking" and part.text == "The user wants the Spinner."


def test_the_architects_editor_hand_off_is_a_sub_coder(tmp_path: Path) -> None:
    """Architect mode: the architect's reply is handed to the editor model as its input
    (logged as a ``####`` block equal to the reply); the editor starts from an empty history
    and the architect's conversation resumes after it."""
    base = session_2()
    base = base[: base.index("\n#### /diff")]  # the session's request, reply and usage
    reply = raw_sessions()[2][
        raw_sessions()[2].index("#### Use the Spinner instead of the inlined custom spinner  ") + 2
    ]
    start = base.index(reply)
    end = base.index("\n> Tokens:")
    answer = base[start:end].strip()
    hand_off = "\n".join(f"#### {line}  " for line in answer.split("\n"))
    body = (
        base.rstrip("\n")
        + "\n> Edit the files? (Y)es/(N)o [Yes]: y  \n\n"
        + hand_off
        + "\n\nDone: the edit is in place.\n\n> Tokens: 3,000 sent, 12 received.  \n\n"
        + "#### thanks, now add a test  \n\nSure.\n\n> Tokens: 2,000 sent, 3 received.  \n"
    )
    [run] = load_aider(write(tmp_path, body))
    messages = run.ledger.messages
    handed = next(m for m in messages if is_observation(m))
    assert handed.content == answer
    assert run.requests == [
        "Use the Spinner instead of the inlined custom spinner",
        "thanks, now add a test",
    ]
    assert [s["kind"] for s in run.meta["sub_coders"]] == ["editor"]
    editor, back = run.records
    windows = [run.ledger.window_at(run.calls[r.iteration - 1].sent_commit) for r in run.records]
    assert windows[0] == [handed]
    assert [m.content for m in windows[1]] == [
        run.requests[0],
        messages[1].content,
        run.requests[1],
    ]
    assert {run.ledger.message(s).content for s in back.removed_stage_ids} == {
        handed.content,
        "Done: the edit is in place.",
    }
    assert len(editor.removed_stage_ids) == 2


# -- the registry, downstream, faults ------------------------------------------------------------


def test_detect_and_load_name_the_format(tmp_path: Path) -> None:
    assert detect_format(FILE) == "aider"
    loaded = load(FILE)
    assert [r.meta["session"] for r in loaded] == [r.meta["session"] for r in runs()]
    assert all(r.origin.format == "aider" for r in loaded)
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(FILE, folder / ".aider.chat.history.md")
    (folder / "README.md").write_text("# notes\n\n#### not a history  \n")
    assert len(load(folder)) == len(runs()) == len(load_aider(folder))


def test_claims_only_histories_and_says_what_a_headerless_one_lacks(tmp_path: Path) -> None:
    assert FILE_FORMAT.claims(sniff(FILE))
    cut = write(tmp_path, "#### hello  \n\nHi there.\n", "cut.md")
    assert not FILE_FORMAT.claims(sniff(cut))
    hint = FILE_FORMAT.resembles(sniff(cut))
    assert hint is not None and "# aider chat started at" in hint
    with pytest.raises(TranscriptError, match="Aider opens every session") as raised:
        detect_format(cut)
    assert str(cut) in str(raised.value)
    notes = write(tmp_path, "# Notes\n\n# aider chat started at 2024-01-01 00:00:00\n", "n.md")
    assert not FILE_FORMAT.claims(sniff(notes))


def test_a_hand_written_history_reads_leniently(tmp_path: Path) -> None:
    """Written without Aider's trailing two spaces (as a test author would)."""
    body = "\n# aider chat started at 2024-05-01 10:00:00\n\n#### hi\n\nHello!\n"
    [run] = load(write(tmp_path, body))
    assert run.requests == ["hi"] and run.output == "Hello!" and run.status == "done"


def test_faults_name_the_file_the_line_and_the_rule(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\n# aider chat started at 2024-05-01 10:00:00\n\n#### \xff  \n")
    with pytest.raises(TranscriptError, match="not UTF-8") as raised:
        load_aider(bad)
    assert str(bad) in str(raised.value)
    with pytest.raises(TranscriptError, match="not an Aider chat history"):
        load_aider(write(tmp_path, "just text\n", "plain.md"))
    cut = text()[: len(text()) // 2].rstrip()
    with pytest.raises(TranscriptError, match="ends inside a line") as ends:
        load(write(tmp_path, cut, "cut.md"))
    assert (ends.value.source, ends.value.index) == ("aider", cut.count("\n") + 1)
    with pytest.raises(TranscriptError) as strict:
        load_aider(FILE, strict=True)
    first = next(r.import_problems[0] for r in runs() if r.import_problems)
    assert (strict.value.index, strict.value.field) == (first.index, first.field)
    assert strict.value.unit == "line" and str(FILE) in str(strict.value)


@pytest.mark.parametrize("number", [2, 12, 434])
def test_a_run_works_downstream(tmp_path: Path, number: int) -> None:
    run = session(number)
    replayed = replay(run, sliding_window(2))
    assert len(capture(replayed).calls) == len(run.calls)
    assert len(capture(run).calls) == len(run.calls)
    back = load_run(run.save(tmp_path / "run.json"))
    assert [m.content for m in back.ledger.messages] == [m.content for m in run.ledger.messages]
    assert back.meta == run.meta and len(back.records) == len(run.records)


def test_the_whole_file_loads_in_one_linear_pass() -> None:
    started = time.perf_counter()
    load_aider(FILE)
    assert time.perf_counter() - started < 3.0


# -- fuzzing -------------------------------------------------------------------------------------


@cache
def sample_lines() -> tuple[str, ...]:
    """Sessions 11-14 (lint reflections, /test output, clears, failed edits)."""
    sessions = raw_sessions()
    return tuple(line for n in range(11, 15) for line in sessions[n])


EDITS = st.sampled_from(["delete", "duplicate", "insert", "cut", "chars", "strip"])
JUNK = st.sampled_from(
    [
        "",
        ">",
        "> ",
        "####",
        "#### ",
        "#### /clear  ",
        "> Tokens: 1.2k sent, x received.  ",
        "> Tokens: 99999999999999999999999 sent, 1 received.  ",
        "# aider chat started at ",
        "<thinking-content-0a>",
        "</think>",
        "Cost: $",
        "\r",
        "> Retrying in 1 seconds...  ",
    ]
)


@FUZZ
@given(data=st.data())
def test_fuzzed_histories_give_runs_or_a_transcript_error(
    tmp_path: Path, data: st.DataObject
) -> None:
    lines = list(sample_lines())
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(lines) - 1))
        edit = data.draw(EDITS)
        if edit == "delete":
            del lines[at]
        elif edit == "duplicate":
            lines.insert(at, lines[at])
        elif edit == "insert":
            lines.insert(at, data.draw(JUNK))
        elif edit == "cut":
            lines = lines[:at]
        elif edit == "strip":
            lines[at] = lines[at].rstrip()
        else:
            lines[at] = data.draw(st.text(max_size=12)) + lines[at][data.draw(st.integers(0, 8)) :]
        if not lines:
            lines = [""]
    whole = data.draw(st.booleans()) or len(lines) < 2
    path = write(tmp_path, "\n".join(lines) + ("\n" if whole else ""))
    try:
        found = load_aider(path)
    except TranscriptError as exc:
        assert exc.source == "aider"
        return
    for run in found:
        assert run.calls
        for call in run.calls:
            assert call.usage is None or call.usage.input_tokens >= 0
