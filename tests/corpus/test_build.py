"""Building a corpus from the real transcripts: every run stored, read back as it was, the store's
frames the lab's own; building again imports only what changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from footprint_lab.agent.run import Run
from footprint_lab.corpus import FRAMES, Corpus, CorpusError, source_files
from footprint_lab.importers import FORMATS, detect_format
from footprint_lab.lab import capture
from footprint_lab.lab.schema import CORPUS_KEYS, FRAME_SPECS, spec
from tests.corpus.helpers import SOURCES, TAU_BENCH, TRANSCRIPTS, digest, without_keys

CAPTURED = ("calls", "messages", "records", "refusals", "evictions", "findings")


def test_the_build_imports_every_file_and_says_so(real_corpus: Corpus) -> None:
    files = source_files(SOURCES)
    report = real_corpus.last_build
    assert report is not None
    assert report.files == len(files) > 20
    assert report.imported == len(files) and report.unchanged == 0 and report.failed == 0
    assert report.runs == report.runs_added == len(real_corpus)
    text = str(report)
    assert f"{len(files)} imported" in text and f"{report.runs} in the store" in text
    # Documentation is not a transcript: no README or LICENSE was read.
    assert not [f for f in files if f.stem in ("README", "LICENSE") or f.suffix == ".md"]


def test_every_run_of_every_file_is_a_row_of_runs(
    real_corpus: Corpus, real_runs: dict[str, Run]
) -> None:
    runs = real_corpus.frame("runs")
    assert runs["run_id"].tolist() == sorted(runs["run_id"], key=runs["run_id"].tolist().index)
    assert set(runs["run_id"]) == set(real_runs)
    for row in runs.itertuples():
        run = real_runs[row.run_id]
        path = Path(row.source_path)
        assert row.run_id == f"{digest(path)[:16]}-{row.index}"
        assert row.format == detect_format(path) == run.origin.format
        assert (row.model, row.provider, row.request) == (run.model, run.provider, run.request)
        assert row.calls == len(run.calls) and row.iterations == run.iterations
        assert json.loads(row.meta) == json.loads(json.dumps(run.meta, default=str))
    # Sources of every kind are there, tau-bench with its fifty trajectories.
    formats = runs.groupby("format").size().to_dict()
    # Every format with real files here but Aider's (left out of these corpora: helpers.py).
    assert set(formats) == set(FORMATS) - {"aider", "openai-responses", "otel", "footprint-lab-run"}
    assert formats["tau-bench"] == 50


def test_the_stored_frames_are_the_lab_capture_of_each_run(
    real_corpus: Corpus, real_runs: dict[str, Run]
) -> None:
    for name in CAPTURED:
        stored = real_corpus.frame(name)
        assert list(stored.columns) == [*CORPUS_KEYS, *FRAME_SPECS[name].columns]
        for column, c in FRAME_SPECS[name].columns.items():
            assert stored[column].dtype == c.dtype, (name, column)
        by_run = dict(tuple(stored.groupby("run_id", sort=False)))
        for run_id, run in real_runs.items():
            own = capture(run, membership="window")[name]
            part = by_run.get(run_id)
            got = without_keys(part) if part is not None else own.iloc[0:0]
            pd.testing.assert_frame_equal(got, own.reset_index(drop=True), check_exact=True)


def test_a_run_read_back_from_the_store_captures_to_its_own_frames(
    real_corpus: Corpus, real_runs: dict[str, Run]
) -> None:
    for run_id, run in real_runs.items():
        back = real_corpus.run(run_id)
        mine, theirs = capture(back).frames(), capture(run).frames()
        for name in mine:
            pd.testing.assert_frame_equal(mine[name], theirs[name], check_exact=True, obj=name)
        assert back.meta == run.meta and back.import_problems == run.import_problems


def test_import_problems_are_rows_of_problems(
    real_corpus: Corpus, real_runs: dict[str, Run]
) -> None:
    problems = real_corpus.frame("problems")
    listed = [(run_id, p.problem) for run_id, r in real_runs.items() for p in r.import_problems]
    assert listed, "the real tau-bench file has problems the importer lists"
    rows = problems[problems["kind"] == "import-problem"]
    assert sorted(zip(rows["run_id"], rows["problem"], strict=True)) == sorted(listed)
    assert list(problems.columns) == list(spec("corpus_problems").columns)


def test_building_again_imports_nothing_and_only_the_changed_file(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    shutil.copytree(TRANSCRIPTS / "swe-agent", sources / "swe-agent")
    shutil.copytree(TRANSCRIPTS / "claude-code", sources / "claude-code")
    store = tmp_path / "store"
    first = Corpus.build(sources, store, executor="inline")
    assert first.last_build is not None and first.last_build.imported == 14
    before = first.frame("runs")

    again = Corpus.build(sources, store, executor="inline")
    assert again.last_build is not None
    assert (again.last_build.imported, again.last_build.unchanged) == (0, 14)
    assert "0 imported" in str(again.last_build) and "14 unchanged" in str(again.last_build)
    assert str(again.last_build) in repr(again)  # a notebook shows what the build did
    pd.testing.assert_frame_equal(again.frame("runs"), before, check_exact=True)

    touched = sources / "swe-agent" / "function_calling_simple.traj"
    old_id = f"{digest(touched)[:16]}-0"
    touched.write_text(touched.read_text() + "\n")  # same run, other bytes
    changed = Corpus.build(sources, store, executor="inline")
    report = changed.last_build
    assert report is not None
    assert (report.imported, report.changed, report.unchanged) == (1, 1, 13)
    new_id = f"{digest(touched)[:16]}-0"
    ids = changed.run_ids()
    assert new_id in ids and old_id not in ids and len(ids) == len(before)
    # The replaced run is gone from every table and from the checkpoints.
    for name in FRAMES:
        frame = changed.frame(name)
        if "run_id" in frame.columns:
            assert old_id not in set(frame["run_id"].dropna()), name
    assert not list(Path(store, "checkpoints").glob(f"{old_id.split('-')[0]}*"))
    with pytest.raises(CorpusError, match="no run"):
        changed.run(old_id)


def test_a_new_file_is_the_only_one_imported(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    shutil.copy(TRANSCRIPTS / "claude-code" / "edge_cases.jsonl", sources)
    store = tmp_path / "store"
    Corpus.build(sources, store, executor="inline")
    shutil.copy(TAU_BENCH / "gpt-4o-airline-dev.json", sources)
    grown = Corpus.build(sources, store, executor="inline")
    assert grown.last_build is not None
    assert (grown.last_build.imported, grown.last_build.unchanged) == (1, 1)
    assert len(grown) == 51


def test_a_glob_and_a_list_name_the_same_files() -> None:
    pattern = str(TRANSCRIPTS / "swe-agent" / "*.traj")
    listed = sorted((TRANSCRIPTS / "swe-agent").glob("*.traj"))
    assert source_files(pattern) == [p.absolute() for p in listed] == source_files(listed)
    assert source_files(str(TRANSCRIPTS / "**" / "*.eval")) == sorted(
        p.absolute() for p in TRANSCRIPTS.rglob("*.eval")
    )


def test_a_path_that_names_nothing_fails_at_build_time(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no such file or folder"):
        Corpus.build(tmp_path / "missing", tmp_path / "store", executor="inline")
    with pytest.raises(CorpusError, match="matches no file"):
        Corpus.build(str(tmp_path / "*.traj"), tmp_path / "store", executor="inline")
    with pytest.raises(CorpusError, match="no paths given"):
        Corpus.build([], tmp_path / "store", executor="inline")


def test_a_folder_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(CorpusError, match="holds other files and no corpus store"):
        Corpus.build(TRANSCRIPTS / "claude-code", tmp_path, executor="inline")
    with pytest.raises(CorpusError, match="no corpus store here"):
        Corpus.open(tmp_path / "nothing")
    assert (tmp_path / "notes.txt").read_text() == "mine"
