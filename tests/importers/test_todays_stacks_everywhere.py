"""Every new source works everywhere an old one does (#35 item 4): for each real file of today's
stacks in ``data/transcripts/`` — mini-swe-agent, OpenHands V1, Codex CLI, Gemini CLI, Aider,
pi — and the OpenAI Responses inputs built from the vendor's documented shapes
(``tests/data/openai-responses/``), ``load`` names the format, the run says what its file does
not record, and the report (library and CLI), the Inspector, ``replay``, ``evidence_frame``,
the Tuner, ``fork`` and ``Corpus.build`` over a folder of mixed formats all take it."""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

import pytest

from footprint_lab import (
    Reply,
    ScriptedProvider,
    clear_tool_results,
    cli,
    fork,
    replay,
    sliding_window,
)
from footprint_lab.agent.run import Run
from footprint_lab.corpus import Corpus
from footprint_lab.importers import detect_format, load
from footprint_lab.importers.recorded import Recorded, recorded_of
from footprint_lab.lab import Inspector, Tuner, capture, evidence_frame, write_report
from footprint_lab.lab.views import run_notes

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "data" / "transcripts"
RESPONSES = ROOT / "tests" / "data" / "openai-responses"
NEW = ("mini-swe-agent", "openhands-v1", "codex", "gemini-cli", "aider", "pi")


def sources() -> list[tuple[Path, str]]:
    """Each real file (or conversation folder) of today's stacks, with its format."""
    found: list[tuple[Path, str]] = []
    for name in NEW:
        folder = TRANSCRIPTS / name
        for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
            if not entry.name.startswith("LICENSE"):
                found.append((entry, name))
    for entry in sorted(RESPONSES.glob("*.json")) if RESPONSES.is_dir() else []:
        found.append((entry, "openai-responses"))
    return found


SOURCES = sources()
IDS = [f"{fmt}/{path.name}" for path, fmt in SOURCES]


@cache
def runs_of(path: Path) -> tuple[Run, ...]:
    return tuple(load(path))


def first_run(path: Path) -> Run:
    """The file's first run with a model call (an Aider history holds hundreds of sessions)."""
    runs = runs_of(path)
    assert runs, f"{path} gave no run"
    return next((r for r in runs if r.calls), runs[0])


def test_every_new_format_has_a_real_or_documented_file() -> None:
    assert {fmt for _, fmt in SOURCES} == {*NEW, "openai-responses"}


@pytest.mark.parametrize(("path", "fmt"), SOURCES, ids=IDS)
def test_load_names_the_format_and_the_run_says_what_is_not_recorded(path: Path, fmt: str) -> None:
    assert detect_format(path) == fmt
    for run in runs_of(path):
        assert run.origin.format == fmt
        facts = recorded_of(run)
        assert facts is not None
        missing = [k for k, v in facts.model_dump().items() if not v]
        notes = [n for n in run_notes(run) if n.kind == "not recorded"]
        assert len(notes) == len(missing) and set(Recorded.model_fields) >= set(missing)


@pytest.mark.parametrize(("path", "fmt"), SOURCES, ids=IDS)
def test_report_inspector_replay_and_capture_take_it(tmp_path: Path, path: Path, fmt: str) -> None:
    run = first_run(path)
    replayed = replay(run, sliding_window(keep_recent_turns=2))
    frames = capture(replayed)
    assert len(frames.calls) == len(run.calls)
    report = write_report(
        {fmt: {"recorded": run, "sliding_window(2)": replayed}}, tmp_path / "r.html"
    )
    assert report.stat().st_size > 0
    assert Inspector(run).overview_html.value


@pytest.mark.parametrize(("path", "fmt"), SOURCES, ids=IDS)
def test_evidence_the_tuner_and_fork_take_it(path: Path, fmt: str) -> None:
    run = first_run(path)
    configs = [
        sliding_window(keep_recent_turns=1),
        clear_tool_results(keep_recent_turns=1, keep_results=1),
    ]
    frame = evidence_frame([run], configs, progress=False)
    assert len(frame) == 2
    tuner = Tuner(run, "sliding_window", keep_recent_turns=[1, 2, 3])
    assert tuner is not None
    if run.iterations:
        forked = fork(
            run, at=1, strategy=sliding_window(2), provider=ScriptedProvider([Reply.text("done")])
        )
        assert forked.status in ("done", "max-iterations"), forked.error


AIDER_SESSIONS = 40
"""Sessions of the Aider history the CLI and corpus tests read: its first ones, cut from the
real file at a session header (the whole file's 222 runs make a 14 MB report)."""


def small(path: Path, tmp_path: Path) -> Path:
    """``path``, or for the Aider history its first :data:`AIDER_SESSIONS` sessions."""
    if not path.name.endswith(".md"):
        return path
    marker = "\n# aider chat started at "
    text = path.read_text(encoding="utf-8")
    cut = -1
    for _ in range(AIDER_SESSIONS + 1):
        cut = text.find(marker, cut + 1)
        if cut < 0:
            return path
    excerpt = tmp_path / path.name
    excerpt.write_text(text[: cut + 1], encoding="utf-8")
    return excerpt


def test_the_cli_reports_each_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command's own entry point (``footprint_lab.cli.main``) in this process, as
    ``tests/test_cli.py`` calls it: the command installed as a program is run as one by the
    CLI's own tests; a process per file here cost three seconds of start-up each."""
    for k, (whole, _) in enumerate(SOURCES):
        path = small(whole, tmp_path)
        out = tmp_path / f"report-{k}.html"
        assert cli.main(["report", str(path), "-o", str(out)]) == 0, capsys.readouterr().err
        assert out.stat().st_size > 0


def test_a_corpus_of_mixed_formats_holds_every_run(tmp_path: Path) -> None:
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    expected = 0
    for k, (whole, _) in enumerate(SOURCES):
        path = small(whole, tmp_path)
        target = mixed / f"{k:02d}-{path.name}"
        if path.is_dir():
            shutil.copytree(path, target)
        else:
            shutil.copy(path, target)
        expected += len(load(path))
    corpus = Corpus.build(mixed, tmp_path / "store", progress=False)
    runs = corpus.frame("runs")
    assert len(runs) == expected
    assert set(runs["format"]) == {fmt for _, fmt in SOURCES}
    assert len(corpus.frame("problems").query("kind == 'error'")) == 0
