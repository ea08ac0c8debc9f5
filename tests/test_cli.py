"""``footprint-lab demo`` and ``report``: record lines, the HTML report, where it was written, and
the report of any file (or folder) ``footprint_lab.importers.load`` reads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from html import escape as html_escape
from pathlib import Path

import pytest

from footprint_lab import cli
from footprint_lab.importers import FORMATS
from footprint_lab.lab.progress import quiet
from footprint_lab.scenarios import SCENARIOS, deploy_audit


def test_demo_writes_the_report_and_prints_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "reports" / "demo.html"
    assert cli.main(["demo", "--scenario", "deploy-audit", "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert out.exists() and out.stat().st_size > 100_000
    assert f"report written to {out.resolve()}" in printed.out
    lines = printed.out.splitlines()
    assert lines[0].startswith("== deploy-audit: ")
    for label in ("sliding-window", "token-budget", "summarize-oldest"):
        assert any(line.startswith(f"{label}: status=done") for line in lines)
    assert any(line.strip().startswith("iter ") and "removed" in line for line in lines)
    # each run's summary table (from run_summary): a heading line, then its numbers
    headings = [i for i, line in enumerate(lines) if line.split()[:2] == ["calls", "removals"]]
    assert len(headings) == 3
    assert all(lines[i + 1].split()[0].isdigit() for i in headings)
    assert printed.err == ""  # the progress bar is quiet (FOOTPRINT_LAB_QUIET=1 in tests)
    html = out.read_text(encoding="utf-8")
    assert "<h2>deploy-audit</h2>" in html and "screen-driver" not in html


def test_demo_defaults_to_every_demo_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = ["deploy-audit", "screen-driver", "parallel-tools"]
    if "long-session" in SCENARIOS:
        expected.append("long-session")
    assert cli.default_scenarios() == expected
    monkeypatch.chdir(tmp_path)
    assert cli.main(["demo"]) == 0
    printed = capsys.readouterr().out
    assert (tmp_path / "footprint-report.html").exists()
    assert f"report written to {(tmp_path / 'footprint-report.html').resolve()}" in printed
    headers = [line for line in printed.splitlines() if line.startswith("== ")]
    assert [h.split(":")[0][3:] for h in headers] == expected


def test_progress_bars_are_quiet_in_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    assert quiet()
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    monkeypatch.setenv("FOOTPRINT_LAB_QUIET", "1")
    assert quiet()


def test_report_command_on_saved_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from footprint_lab.scenarios import deploy_audit

    scenario = deploy_audit()
    paths = []
    for label, strategy in scenario.strategies().items():
        paths.append(scenario.run(strategy).save(tmp_path / f"{label}.json"))
    out = tmp_path / "saved-report.html"
    assert cli.main(["report", *map(str, paths), "-o", str(out)]) == 0
    html = out.read_text()
    assert (
        "deploy-audit" in html and html.count("js-plotly-plot") + html.count("plotly-graph-div") > 0
    )
    assert str(out.resolve()) in capsys.readouterr().out


def test_report_command_rejects_a_bad_file_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli.main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    # No format claims it: the error names the file and every format tried.
    assert str(bad) in err and "formats tried" in err
    assert all(name in err for name in FORMATS)
    assert not (tmp_path / "r.html").exists()
    # A saved run cut short is that format's own error.
    saved = tmp_path / "saved.json"
    text = deploy_audit().run(None).save(tmp_path / "whole.json").read_text()
    saved.write_text(text[: len(text) // 2])
    assert cli.main(["report", str(saved), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert str(saved) in err and "footprint-lab-run" in err and "formats tried" not in err


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    from footprint_lab import __version__

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"footprint-lab {__version__}"


def test_demo_ends_with_a_table_of_every_run_and_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from footprint_lab.agent import Run
    from footprint_lab.lab.summary import run_summary

    out = tmp_path / "demo.html"
    results: dict[str, dict[str, Run]] = {}
    real_demo = cli.demo

    def recording_demo(names: list[str] | None = None) -> dict[str, dict[str, Run]]:
        results.update(real_demo(names))
        return results

    monkeypatch.setattr(cli, "demo", recording_demo)
    assert cli.main(["demo", "--scenario", "deploy-audit", "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("In short, one row per run:")
    assert lines[start + 1].split()[:2] == ["scenario", "strategy"]
    assert lines[start + 1].endswith("messages removed  refusals  final window chars")
    rows = lines[start + 2 : start + 5]
    assert rows[0].split()[0] == "deploy-audit"
    keys = ("iterations", "records", "removed_messages", "refusals", "final_window_chars")
    for row, (label, run) in zip(rows, results["deploy-audit"].items(), strict=True):
        numbers = run_summary(run)
        assert row.split()[-6:] == [label, *(str(numbers[key]) for key in keys)]
    # the table, a blank line, then where the report is and how to read it: the last lines
    assert lines[start + 5 :] == ["", *cli.report_lines(out)]
    assert lines[start + 6] == f"report written to {out.resolve()}"
    assert " ".join(lines[start + 7 :]) == cli.REPORT_HINT


def test_the_record_lines_name_refusals_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    from footprint_lab.scenarios import deploy_audit

    scenario = deploy_audit()
    run = scenario.run(scenario.strategies()["sliding-window"])
    lines = cli.run_lines("sliding-window", run)
    record_lines = [line for line in lines if line.strip().startswith("iter ")]
    assert len(record_lines) == len(run.records)
    assert not any("@t" in line for line in lines)
    # each record's words, its wrapped lines joined
    records = [" ".join(line.strip() for line in cli.record_lines(r)) for r in run.records]
    assert any(
        "refusals: current-request (turn 0), inside-keep-window (turns " in text for text in records
    )


def test_help_is_in_plain_words(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["demo", "--help"], ["report", "--help"]):
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        assert done.value.code == 0
        text = capsys.readouterr().out
        for markup in ("``", ":func:", ":data:", ":mod:", "Layer:", "~footprint_lab"):
            assert markup not in text, (argv, markup)
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    top = capsys.readouterr().out
    assert "no network, no API key" in top and "Boundary slider" in top
    with pytest.raises(SystemExit):
        cli.main(["demo", "--help"])
    demo_help = capsys.readouterr().out
    assert "refused to leave and why" in demo_help
    assert "the HTML file to write" in demo_help


def test_the_demo_prints_a_few_records_per_run_and_says_how_many_more() -> None:
    from footprint_lab.scenarios import long_session

    scenario = long_session()
    run = scenario.run(scenario.strategies()["sliding-window"])
    assert len(run.records) > cli.DEMO_RECORD_LINES
    lines = cli.run_lines("sliding-window", run, cli.DEMO_RECORD_LINES)
    records = [line for line in lines if line.strip().startswith("iter ")]
    assert len(records) == cli.DEMO_RECORD_LINES
    assert lines[-1] == (
        f"  … {len(run.records) - cli.DEMO_RECORD_LINES} more record(s): every one is in the report"
    )
    hidden = run.records[cli.DEMO_RECORD_LINES :]
    # every record not shown: its lines, and the sentence under it when it removed something
    assert len(cli.run_lines("sliding-window", run)) == len(lines) - 1 + sum(
        len(cli.record_lines(record)) for record in hidden
    )


def test_the_demo_prints_why_under_each_removal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["demo", "--scenario", "deploy-audit", "-o", str(tmp_path / "d.html")]) == 0
    lines = capsys.readouterr().out.splitlines()
    scenario = deploy_audit()
    removals = 0
    for label, strategy in scenario.strategies().items():
        run = scenario.run(strategy)
        start = lines.index(next(line for line in lines if line.startswith(f"{label}: status=")))
        shown = run.records[: cli.DEMO_RECORD_LINES]
        at = start + 3
        for record in shown:
            mine = cli.record_lines(record)
            assert lines[at : at + len(mine)] == mine
            # the record's line, wrapped: the same words as the lab's
            why = [i for i, line in enumerate(mine) if line.startswith(cli.WHY_PREFIX)]
            head = mine[: why[0]] if why else mine
            assert " ".join(" ".join(head).split()) == " ".join(cli.format_record(record).split())
            if record.removed_message_count:
                # the sentence the report prints, word for word, under the record's line
                sentence = " ".join(line.strip() for line in mine[why[0] :])
                assert sentence == f"why: {' '.join(record.explain().split())}"
                assert sentence.startswith(f"why: iteration {record.iteration}: {label}")
                assert " because " in sentence
                removals += 1
            else:
                assert not why
            # no record line wider than a terminal: long lists of ids wrap
            assert max(len(line) for line in mine) <= cli.WIDTH
            at += len(mine)
    assert removals >= 3


# -- footprint-lab report FILE...: any file load reads, and folders ------------------------------

DATA = Path(__file__).resolve().parents[1] / "data"
TRANSCRIPTS = DATA / "transcripts"
DOCS = {"LICENSE", "README.md", "SOURCE.md"}
STACKS = ("swe-agent", "openhands", "inspect", "claude-code")
REAL = sorted(
    p
    for p in TRANSCRIPTS.glob("*/*")
    if p.is_file()
    and p.parent.name in STACKS
    and p.name not in DOCS
    and not p.name.startswith("LICENSE")
)
"""Every real transcript file of the first four stacks (data/transcripts/<stack>/); today's
stacks are reported by the CLI in tests/importers/test_todays_stacks_everywhere.py."""


def _tau_sample(tmp_path: Path) -> Path:
    """Three tau-bench trajectories from the real file (the whole file's 50 take long)."""
    entries = json.loads((DATA / "tau-bench" / "gpt-4o-airline-dev.json").read_text())
    path = tmp_path / "tau-bench-sample.json"
    path.write_text(json.dumps(entries[:3]))
    return path


def _report(
    paths: list[Path], out: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    code = cli.main(["report", *map(str, paths), "-o", str(out)])
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def _names(path: Path) -> list[str]:
    """The labels the report gives the runs of ``path`` (its label, else the file's name)."""
    from footprint_lab.importers import load

    return [str(run.meta.get("label") or path.stem) for run in load(path)]


def test_every_stack_is_read_by_its_format() -> None:
    from footprint_lab.importers import detect_format

    found = {detect_format(p) for p in REAL}
    assert found == {"swe-agent", "openhands", "inspect", "claude-code"}
    assert {p.parent.name for p in REAL} == {"swe-agent", "openhands", "inspect", "claude-code"}


@pytest.mark.parametrize("path", REAL, ids=[f"{p.parent.name}/{p.name}" for p in REAL])
def test_report_on_each_real_transcript(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    code, printed, err = _report([path], out, capsys)
    assert code == 0, err
    assert err == ""
    html = out.read_text(encoding="utf-8")
    names = _names(path)
    assert names and f"{len(names)} run(s) from 1 file(s)" in printed
    for name in names:
        assert html_escape(name) in html, name
    assert html_escape(str(path)) in html  # the file is the report's section
    assert f"report written to {out.resolve()}" in printed


def test_report_on_tau_bench_trajectories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = _tau_sample(tmp_path)
    out = tmp_path / "tau.html"
    code, printed, err = _report([sample], out, capsys)
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    assert "3 run(s) from 1 file(s)" in printed
    names = _names(sample)
    assert len(set(names)) == 3 and all(name.startswith("task-") for name in names)
    assert all(name in html and name in printed for name in names)


def test_the_openhands_jsonl_is_a_transcript_not_a_corrupt_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = TRANSCRIPTS / "openhands" / "multi-swe-bench-example-1.jsonl"
    out = tmp_path / "openhands.html"
    code, printed, err = _report([path], out, capsys)
    assert code == 0 and "truncated or corrupt" not in err + printed
    assert "multi-swe-bench-example-1" in out.read_text(encoding="utf-8")


def test_report_on_a_folder_names_what_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = TRANSCRIPTS / "openhands"
    out = tmp_path / "openhands.html"
    code, printed, err = _report([folder], out, capsys)
    assert code == 0, err
    files = sorted(p for p in folder.iterdir() if p.name not in DOCS)
    html = out.read_text(encoding="utf-8")
    assert f"{len(files)} run(s) from {len(files)} file(s)" in printed
    for path in files:
        assert html_escape(str(path)) in html
    assert f"skipped {folder / 'LICENSE'}: documentation" in err
    assert "1 file(s) skipped" in printed


def test_a_mixed_folder_reads_what_it_can_and_says_why_it_skipped_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "runs"
    (folder / "nested").mkdir(parents=True)
    shutil.copy(TRANSCRIPTS / "claude-code" / "edge_cases.jsonl", folder / "session.jsonl")
    shutil.copy(TRANSCRIPTS / "swe-agent" / "function_calling_simple.traj", folder / "nested")
    saved = deploy_audit().run(None).save(folder / "saved.json")
    (folder / "notes.log").write_text("not a transcript\n")
    (folder / "cut.json").write_text('{"history": [')
    (folder / "README.md").write_text("# runs\n")
    (folder / ".hidden.json").write_text("{}")
    out = tmp_path / "mixed.html"
    code, printed, err = _report([folder], out, capsys)
    assert code == 0, err
    assert "3 run(s) from 3 file(s)" in printed and "4 file(s) skipped" in printed
    html = out.read_text(encoding="utf-8")
    assert "edge_cases" in html and "function_calling_simple" in html
    assert "deploy-audit" in html and f"no strategy ({saved.stem})" in html
    skipped = {line.split(": ", 2)[1]: line for line in err.splitlines()}
    assert set(skipped) == {
        f"skipped {folder / name}"
        for name in (".hidden.json", "README.md", "cut.json", "notes.log")
    }
    assert "hidden" in skipped[f"skipped {folder / '.hidden.json'}"]
    assert "documentation" in skipped[f"skipped {folder / 'README.md'}"]
    assert "openhands" in skipped[f"skipped {folder / 'cut.json'}"]  # its format's own error
    unknown = skipped[f"skipped {folder / 'notes.log'}"]
    assert "formats tried" in unknown and all(name in unknown for name in FORMATS)


def test_an_unknown_file_fails_and_lists_the_formats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("just some notes\n")
    out = tmp_path / "r.html"
    code, printed, err = _report([text], out, capsys)
    assert code == 2 and printed == ""
    assert str(text) in err and "formats tried" in err
    assert all(name in err for name in FORMATS)
    assert not out.exists()
    # as a subprocess, the command's own exit status and message
    done = subprocess.run(
        [sys.executable, "-m", "footprint_lab.cli", "report", str(text), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "FOOTPRINT_LAB_QUIET": "1"},
    )
    assert done.returncode == 2 and "formats tried" in done.stderr and not out.exists()


def test_a_folder_with_nothing_to_read_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "LICENSE").write_text("MIT")
    code, _, err = _report([tmp_path], tmp_path / "r.html", capsys)
    assert code == 2 and "no runs to report" in err and "documentation" in err
