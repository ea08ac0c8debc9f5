"""The format registry (#35 item 1): each format claims its own files, no file is claimed by two
formats, and a file nobody claims is refused with an error naming the file, why, the stacks it
resembles and every format tried — checked on every file in ``data/``, on the real files of
``../shared/data`` when they are there, and on small foreign files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from footprint_lab.importers import (
    FORMATS,
    REGISTRY,
    TranscriptError,
    detect_format,
    folder_entries,
    is_whole_folder,
    load,
)
from footprint_lab.importers._sniff import sniff

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
SHARED = ROOT.parent / "shared" / "data"


def every_file() -> list[Path]:
    """Every file under ``data/`` (and the shared data when this checkout sits beside it)."""
    found = sorted(p for p in DATA.rglob("*") if p.is_file())
    if SHARED.is_dir():
        found += sorted(p for p in SHARED.rglob("*") if p.is_file())
    return found


FILES = every_file()


def claims_of(path: Path) -> list[str]:
    found = sniff(path)
    return [f.name for f in REGISTRY if (f.folders or not found.is_dir) and f.claims(found)]


def test_every_format_is_registered_once_with_its_loader() -> None:
    names = [f.name for f in REGISTRY]
    assert len(names) == len(set(names))
    assert set(FORMATS) == set(names)
    assert {
        "mini-swe-agent",
        "openhands-v1",
        "codex",
        "gemini-cli",
        "openai-responses",
        "aider",
        "pi",
    } <= set(names)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_a_file_is_claimed_by_at_most_one_format_and_detect_agrees(path: Path) -> None:
    claimed = claims_of(path)
    assert len(claimed) <= 1, f"{path} is claimed by {claimed}"
    if claimed:
        assert detect_format(path) == claimed[0]
    else:
        with pytest.raises(TranscriptError) as raised:
            detect_format(path)
        message = str(raised.value)
        assert str(path) in message and "formats tried" in message


def test_no_folder_in_data_is_claimed_by_two_formats() -> None:
    for folder in [DATA, *sorted(p for p in DATA.rglob("*") if p.is_dir())]:
        found = sniff(folder)
        claimed = [f.name for f in REGISTRY if f.folders and f.claims(found)]
        assert len(claimed) <= 1, f"{folder} is claimed by {claimed}"


def test_json_lines_without_claude_codes_fields_are_not_claude_code(tmp_path: Path) -> None:
    """Entries with ``type`` and ``message`` but none of Claude Code's link fields are another
    stack's: refused, and the error says why it is not Claude Code."""
    path = tmp_path / "session.jsonl"
    lines = [
        {"type": "message", "id": "a1", "message": {"role": "user", "content": "hi"}},
        {"type": "message", "id": "a2", "message": {"role": "assistant", "content": "yo"}},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    with pytest.raises(TranscriptError) as raised:
        detect_format(path)
    message = str(raised.value)
    assert str(path) in message
    assert "not a Claude Code session" in message
    assert "formats tried" in message


def test_a_chat_completions_list_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    with pytest.raises(TranscriptError, match="from_openai") as raised:
        detect_format(path)
    assert str(path) in str(raised.value)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "an empty file"),
        ("hello", "not JSON"),
        ("{}", "an object without keys"),
        ('{"zzz": 1}', "the keys zzz"),
    ],
)
def test_what_no_format_claims_says_why(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(TranscriptError, match=why):
        detect_format(path)


def test_a_folder_is_read_file_by_file_unless_a_format_reads_it_whole() -> None:
    tau = DATA / "tau-bench"
    assert detect_format(tau) == "tau-bench"
    assert not is_whole_folder(tau)  # its results file is a source of its own
    assert len(load(tau)) == len(load(tau / "gpt-4o-airline-dev.json"))
    conversation = next((DATA / "transcripts" / "openhands-v1").iterdir(), None)
    if conversation is not None and conversation.is_dir():
        assert is_whole_folder(conversation)
        assert detect_format(conversation) == "openhands-v1"


def test_documentation_is_skipped_but_a_claimed_markdown_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# notes\n")
    (tmp_path / "LICENSE").write_text("MIT\n")
    history = tmp_path / ".aider.chat.history.md"
    history.write_text("\n# aider chat started at 2024-05-01 10:00:00\n\n#### hi\n\nHello!\n")
    entries = folder_entries(tmp_path)
    assert [p.name for p in entries] == [history.name]
