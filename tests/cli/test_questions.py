"""``footprint-lab inspect``, ``cost``, ``explain`` and ``replay``: every real file of ``data/``
inspected and priced (exit 0, lines of at most 80 characters, ``--json`` parses), golden
outputs for one file of five stacks, the same words and numbers as the Python lab, and errors
that exit 2 naming the file or argument.

Refresh the golden outputs after a deliberate change with
``FOOTPRINT_LAB_REFRESH_GOLDEN=1 pytest tests/cli/test_questions.py`` or
``python tests/cli/test_questions.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import footprint_lab
from footprint_lab import cli
from footprint_lab.cli import cost as cost_module
from footprint_lab.costs import cost_frame
from footprint_lab.evidence import dependencies, losses
from footprint_lab.evidence.losses import calls_of
from footprint_lab.importers import load
from footprint_lab.lab.evidence import evidence_frame
from footprint_lab.window.strategies import sliding_window, token_budget

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "cli_golden"
REFRESH = os.environ.get("FOOTPRINT_LAB_REFRESH_GOLDEN") == "1"
DOCS = ("LICENSE", "README", "SOURCE")


def _real_files() -> list[str]:
    """Every file of data/ that load reads, relative to the repository (no documentation)."""
    found = []
    for folder in sorted((ROOT / "data" / "transcripts").iterdir()):
        if folder.is_dir():
            for entry in sorted(folder.iterdir()):
                if not entry.name.startswith(DOCS):
                    found.append(entry)
    found += sorted((ROOT / "data" / "tau-bench").glob("*.json"))
    return [str(p.relative_to(ROOT)) for p in found]


REAL_FILES = _real_files()

GOLDEN_CASES: dict[str, list[str]] = {
    "swe-agent.inspect": ["inspect", "data/transcripts/swe-agent/function_calling_simple.traj"],
    "swe-agent.cost": [
        "cost",
        "data/transcripts/swe-agent/gpt4.swe-agent-test-repo-1c2844.traj",
    ],
    "claude-code.inspect": [
        "inspect",
        "data/transcripts/claude-code/fixture.session_with_compaction.jsonl",
    ],
    "claude-code.cost": [
        "cost",
        "data/transcripts/claude-code/fixture.session_with_compaction.jsonl",
    ],
    "claude-code.explain": [
        "explain",
        "data/transcripts/claude-code/fixture.session_with_compaction.jsonl",
        "window#9",
    ],
    "claude-code.replay": [
        "replay",
        "data/transcripts/claude-code/fixture.session_with_compaction.jsonl",
        "--strategy",
        "sliding_window(keep_recent_turns=3)",
        "--strategy",
        "token-budget(threshold_tokens=20000)",
    ],
    "codex.inspect": ["inspect", "data/transcripts/codex/fixture.session_with_compaction.jsonl"],
    "codex.cost": [
        "cost",
        "data/transcripts/codex/fixture.session_with_compaction.jsonl",
        "--pricing",
        "gpt-4.1",
    ],
    "openhands.inspect": ["inspect", "data/transcripts/openhands/runtime-basic.json"],
    "openhands.cost": ["cost", "data/transcripts/openhands/runtime-basic.json"],
    "tau-bench.inspect": ["inspect", "data/tau-bench/gpt-4o-airline-dev.json"],
    "tau-bench.cost": ["cost", "data/tau-bench/gpt-4o-airline-dev.json", "--run", "0"],
}
"""Golden output name -> the command's arguments (paths relative to the repository)."""


@pytest.fixture(scope="module")
def loaded() -> dict[str, Any]:
    """Each file read once for the module: ``load`` memoised (the commands only read runs)."""
    return {}


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch, loaded: dict[str, Any]) -> Iterator[None]:
    """Run from the repository (relative paths, as in the golden outputs), each file loaded and
    priced once for the module."""
    import footprint_lab.importers as importers

    real_load = importers.load
    real_priced = cost_module.priced_frame

    def cached_load(path: str | Path, **kwargs: Any) -> Any:
        key = ("load", str(path), tuple(sorted(kwargs.items())))
        if key not in loaded:
            loaded[key] = real_load(path, **kwargs)
        return loaded[key]

    def cached_priced(runs: Any, pricing: Any, cache: Any) -> Any:
        key = ("priced", tuple(map(id, runs.values())), tuple(runs), repr(pricing), cache)
        if key not in loaded:
            loaded[key] = real_priced(runs, pricing, cache)
        return loaded[key]

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(importers, "load", cached_load)
    monkeypatch.setattr(cost_module, "priced_frame", cached_priced)
    yield


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def _narrow(text: str) -> None:
    too_long = [line for line in text.splitlines() if len(line) > 80]
    assert not too_long, too_long


def test_every_real_file_is_found() -> None:
    assert len(REAL_FILES) >= 30
    assert not [p for p in REAL_FILES if Path(p).name.startswith(DOCS)]


@pytest.mark.parametrize("path", REAL_FILES)
def test_inspect_and_cost_read_every_real_file(
    path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("inspect", "cost"):
        code, out, err = _run(capsys, command, path)
        assert (code, err) == (0, ""), (command, err)
        assert out.startswith(path[:40])  # the file, first
        _narrow(out)
        code, out, err = _run(capsys, command, path, "--json")
        assert (code, err) == (0, "")
        document = json.loads(out)
        assert document["file"] == path


def _golden(name: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    code, out, err = _run(capsys, *argv)
    assert (code, err) == (0, ""), err
    _narrow(out)
    golden = GOLDEN / f"{name}.txt"
    if REFRESH or not golden.exists():
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(out, encoding="utf-8")
    return out, golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden_outputs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    out, golden = _golden(name, GOLDEN_CASES[name], capsys)
    assert out == golden, f"{name}: output changed; refresh with FOOTPRINT_LAB_REFRESH_GOLDEN=1"
    assert str(ROOT) not in out


CLAUDE = "data/transcripts/claude-code/fixture.session_with_compaction.jsonl"


def test_explain_prints_what_the_lab_says(capsys: pytest.CaptureFixture[str]) -> None:
    [run] = load(CLAUDE)
    record = next(r for r in run.records if r.removed_stage_ids)
    stage = record.removed_stage_ids[0]
    sentence = footprint_lab.explain(run, stage)
    assert "left the window" in sentence
    code, out, err = _run(capsys, "explain", CLAUDE, stage)
    assert (code, err) == (0, "")
    _narrow(out)
    assert " ".join(out.splitlines()) == sentence
    code, out, _ = _run(capsys, "explain", CLAUDE, stage, "--json")
    assert code == 0
    assert json.loads(out) == {"file": CLAUDE, "run": 0, "stage_id": stage, "explanation": sentence}


def test_replay_rows_are_the_labs_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    exprs = ["sliding_window(keep_recent_turns=3)", "token-budget(threshold_tokens=20000)"]
    argv = ["replay", CLAUDE, "--json"]
    for expr in exprs:
        argv += ["--strategy", expr]
    code, out, err = _run(capsys, *argv)
    assert (code, err) == (0, "")
    rows = json.loads(out)["rows"]
    assert [r["row"] for r in rows] == ["as recorded (claude-code)", *exprs]
    [run] = load(CLAUDE)
    strategies = {exprs[0]: sliding_window(3), exprs[1]: token_budget(threshold_tokens=20000)}
    replays = {label: footprint_lab.replay(run, s) for label, s in strategies.items()}
    costs = cost_frame({rows[0]["row"]: run, **replays}, cache="prefix")
    evidence = evidence_frame([run], strategies, progress=False)
    deps = dependencies(run)
    expected_lost = [calls_of(losses(run, deps)), *evidence["lost_calls"].tolist()]
    expected_deps = [calls_of(deps), *evidence["dependent_calls"].tolist()]
    for row, lost, dep in zip(rows, expected_lost, expected_deps, strict=True):
        mine = costs[costs["label"] == row["row"]]
        assert row["total_cost"] == pytest.approx(float(mine["total_cost"].sum()), abs=1e-12)
        assert row["estimated"] == bool(mine["estimated"].any())
        assert (row["lost_calls"], row["dependent_calls"]) == (lost, dep)
    assert [r["removed_messages"] for r in rows[1:]] == evidence["removed_messages"].tolist()
    assert [r["chars_sent"] for r in rows[1:]] == evidence["window_chars"].tolist()
    assert rows[0]["removed_messages"] == sum(r.removed_message_count for r in run.records)
    assert rows[1]["estimated"] and not rows[0]["estimated"]


def test_replay_writes_the_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "compare.html"
    argv = ["replay", CLAUDE, "--strategy", "summarize_oldest(threshold_tokens=1000)"]
    code, out, err = _run(capsys, *argv, "-o", str(out_file))
    assert (code, err) == (0, "")
    assert out_file.exists() and out_file.stat().st_size > 10_000
    assert "comparison written to" in out


def test_cost_is_cost_frame(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "cost", CLAUDE, "--json", "--cache", "none")
    assert code == 0
    document = json.loads(out)
    [run] = load(CLAUDE)
    frame = cost_frame(run, cache="none")
    assert document["cache_rule"] == "none"
    calls = document["runs"][0]["calls"]
    assert [c["total_cost"] for c in calls] == pytest.approx(frame["total_cost"].tolist())
    assert [c["input_tokens"] for c in calls] == frame["input_tokens"].tolist()
    assert document["total"]["total_cost"] == pytest.approx(frame["total_cost"].sum())


def test_cost_of_a_model_with_no_price_shows_tokens_and_how_to_price(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = "data/transcripts/codex/real.session-01.jsonl"
    code, out, _ = _run(capsys, "cost", path)
    assert code == 0 and "pass --pricing MODEL" in out
    code, out, _ = _run(capsys, "cost", path, "--pricing", "gpt-4o-mini-2024-07-18", "--json")
    assert code == 0 and json.loads(out)["runs"][0]["priced_as"] == "gpt-4o-mini"


ERRORS: dict[str, tuple[list[str], list[str]]] = {
    "missing file": (["inspect", "no/such/file.jsonl"], ["no/such/file.jsonl", "no such file"]),
    "missing file (cost)": (["cost", "nowhere.json"], ["nowhere.json"]),
    "not a transcript": (["cost", "pyproject.toml"], ["pyproject.toml", "formats tried"]),
    "bad strategy": (
        ["replay", CLAUDE, "--strategy", "__import__('os').system('true')"],
        ["__import__", "sliding_window", "openai_compaction"],
    ),
    "unknown strategy": (
        ["replay", CLAUDE, "--strategy", "keep_everything(n=3)"],
        ["keep_everything(n=3)", "no shipped strategy", "token_budget"],
    ),
    "not a literal": (
        ["replay", CLAUDE, "--strategy", "sliding_window(keep_recent_turns=x)"],
        ["keep_recent_turns=x", "not a literal"],
    ),
    "bad argument": (
        ["replay", CLAUDE, "--strategy", "sliding_window(keep_recent=3)"],
        ["sliding_window(keep_recent=3)"],
    ),
    "unknown stage": (
        ["explain", CLAUDE, "call-llm#99"],
        [CLAUDE, "call-llm#99", "seed#0", "Did you mean"],
    ),
    "unknown model": (["cost", CLAUDE, "--pricing", "gpt-9"], ["gpt-9", "gpt-4o-mini"]),
    "several runs": (
        ["explain", "data/tau-bench/gpt-4o-airline-dev.json", "seed#0"],
        ["50 runs", "--run N"],
    ),
    "run out of range": (["inspect", CLAUDE, "--run", "3"], ["--run 3", CLAUDE]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_exit_2_naming_what(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv, said = ERRORS[case]
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    _narrow(err)
    flat = " ".join(err.split())
    for words in said:
        assert " ".join(words.split()) in flat, (words, err)


def _refresh_all() -> None:
    """Write every golden output afresh (``python tests/cli/test_questions.py``)."""
    os.chdir(ROOT)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, argv in GOLDEN_CASES.items():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli.main(argv)
        assert code == 0, name
        (GOLDEN / f"{name}.txt").write_text(out.getvalue(), encoding="utf-8")
        print(f"wrote {GOLDEN / name}.txt", file=sys.stderr)


if __name__ == "__main__":
    _refresh_all()
