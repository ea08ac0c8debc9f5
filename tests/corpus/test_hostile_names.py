"""Hostile file names never end a build: whatever bytes a file's name holds (a latin-1
``café.traj``, control characters, backslashes, invalid UTF-8), every file becomes its runs or
a problem row, its name is kept as text any writer takes (each undecodable byte written
``\\xNN``), and building again finds every file unchanged."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab.corpus import Corpus
from footprint_lab.reading.paths import path_text
from tests.budget import examples
from tests.corpus.helpers import TRANSCRIPTS

CONTENTS: tuple[bytes, ...] = (
    (TRANSCRIPTS / "swe-agent" / "function_calling_simple.traj").read_bytes(),
    (TRANSCRIPTS / "claude-code" / "edge_cases.jsonl").read_bytes(),
    b'{"history": [',  # broken: a problem row
    b"\x00\xff\xfe not a transcript",
    b"",
)
"""What the files hold: two real transcripts (one run each), a truncated file, junk, nothing."""

NAME_BYTES = st.binary(min_size=1, max_size=24).filter(
    lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b"..")
)
"""A file name as POSIX allows it: any bytes but '/' and NUL."""


def test_a_latin1_name_is_kept_escaped_and_found_again(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.traj")
    source = tmp_path / "src"
    source.mkdir()
    (source / name).write_bytes(CONTENTS[0])
    (source / "broken \udcff.json").write_bytes(CONTENTS[2])
    corpus = Corpus.build(source, tmp_path / "store", executor="inline", progress=False)
    report = corpus.last_build
    assert report is not None and (report.files, report.imported, report.failed) == (2, 1, 1)
    shown = corpus.frame("runs")["source_path"].tolist()
    assert shown == [str(source) + "/caf\\xe9.traj"]
    problem = corpus.frame("problems")
    assert problem["source_path"].tolist() == [str(source) + "/broken \\xff.json"]
    assert "broken \\xff.json" in problem["message"].iloc[0]
    assert set(corpus.entries()) == {path_text(p) for p in source.iterdir()}
    [run] = corpus.runs()
    assert run.origin.path == str(source) + "/caf\\xe9.traj"
    again = Corpus.build(source, tmp_path / "store", executor="inline", progress=False)
    assert again.last_build is not None and again.last_build.unchanged == 2


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    files=st.dictionaries(NAME_BYTES, st.sampled_from(range(len(CONTENTS))), min_size=1, max_size=6)
)
def test_any_names_every_file_is_runs_or_a_problem(files: dict[bytes, int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "src"
        source.mkdir()
        for name, content in files.items():
            (source / os.fsdecode(name)).write_bytes(CONTENTS[content])
        paths = [source / os.fsdecode(name) for name in files]  # hidden names too: listed
        corpus = Corpus.build(paths, Path(tmp) / "store", executor="inline", progress=False)
        report = corpus.last_build
        assert report is not None
        assert report.files == len(files)
        assert report.imported + report.failed + report.duplicates == len(files)
        entries = corpus.entries()
        assert set(entries) == {path_text(p) for p in paths}
        for entry in entries.values():
            entry.path.encode("utf-8")  # every recorded name is text a writer takes
        runs = corpus.frame("runs")
        problems = corpus.frame("problems")
        named = set(runs["source_path"]) | set(problems["source_path"])
        assert named == set(entries)  # every file is a run's source or a problem's
        again = Corpus.build(paths, Path(tmp) / "store", executor="inline", progress=False)
        assert again.last_build is not None
        assert again.last_build.unchanged + again.last_build.duplicates == len(files)
        shutil.rmtree(source)


def test_a_name_that_spells_anothers_escapes_is_not_lost(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    latin = source / os.fsdecode(b"caf\xe9.traj")
    spelled = source / "caf\\xe9.traj"  # a UTF-8 name: a backslash, 'x', 'e', '9'
    latin.write_bytes(CONTENTS[0])
    spelled.write_bytes(
        (TRANSCRIPTS / "swe-agent" / "ctf__crypto__BabyEncryption.traj").read_bytes()
    )
    corpus = Corpus.build([latin, spelled], tmp_path / "store", executor="inline", progress=False)
    assert corpus.last_build is not None and corpus.last_build.imported == 2
    assert sorted(corpus.frame("runs")["source_path"]) == sorted(
        [f"{source}/caf\\xe9.traj", f"{source}/caf\\xe9.traj [2]"]
    )
