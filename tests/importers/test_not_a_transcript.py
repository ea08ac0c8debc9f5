"""What is not a transcript is refused by name (#24 item 13): a FIFO or a device is never
read (a FIFO would block a loader forever, ``/dev/zero`` never ends), and another format's
file is a ``TranscriptError`` naming the format the loader expected, never an empty import."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from footprint_lab.importers import (
    TranscriptError,
    load,
    load_claude_code,
    load_inspect,
    load_openhands,
    load_otel,
    load_swe_agent,
    load_tau_bench,
)

DATA = Path(__file__).resolve().parents[2] / "data"
LOADERS: list[Callable[..., Any]] = [
    load,
    load_swe_agent,
    load_openhands,
    load_inspect,
    load_claude_code,
    load_tau_bench,
    load_otel,
]


@pytest.mark.parametrize("loader", LOADERS, ids=lambda f: f.__name__)
def test_a_fifo_is_refused_without_reading_it(tmp_path: Path, loader: Callable[..., Any]) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(TranscriptError, match="a FIFO, not a regular file") as raised:
        loader(fifo)
    assert str(fifo) in str(raised.value)


@pytest.mark.parametrize("loader", LOADERS, ids=lambda f: f.__name__)
def test_a_device_is_refused_without_reading_it(loader: Callable[..., Any]) -> None:
    with pytest.raises(TranscriptError, match="a device, not a regular file"):
        loader("/dev/zero")


@pytest.mark.parametrize(
    "path",
    [
        DATA / "tau-bench" / "gpt-4o-airline-dev.json",
        DATA / "transcripts" / "openhands" / "runtime-basic.json",
        DATA / "transcripts" / "swe-agent" / "gpt4.swe-agent-test-repo-1c2844.traj",
    ],
    ids=lambda p: p.name,
)
def test_inspect_refuses_another_formats_json(path: Path) -> None:
    with pytest.raises(TranscriptError, match="EvalLog"):
        load_inspect(path)


def test_inspect_names_the_missing_eval_object(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"messages": [], "status": "done"}))
    with pytest.raises(TranscriptError, match=r"no 'eval' object \(its keys: messages, status\)"):
        load_inspect(other)


def test_inspect_still_reads_a_log_without_samples(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    log.write_text(json.dumps({"version": 2, "status": "error", "eval": {"task": "t"}}))
    assert load_inspect(log) == []


def test_claude_code_refuses_other_json_lines(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="not a Claude Code session"):
        load_claude_code(DATA / "transcripts" / "openhands" / "multi-swe-bench-example-1.jsonl")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"hello": 1}) + "\n" + json.dumps({"type": "weird"}) + "\n")
    with pytest.raises(TranscriptError, match="no line is an entry of type"):
        load_claude_code(other)


def test_an_empty_session_is_imported_and_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    (run,) = load_claude_code(empty)
    assert [(p.index, p.field, p.problem) for p in run.import_problems] == [
        (None, "messages", "no messages: an empty transcript, imported as an empty run")
    ]
    with pytest.raises(TranscriptError, match="no messages"):
        load_claude_code(empty, strict=True)
