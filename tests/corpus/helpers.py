"""Shared parts of the corpus tests: the real data, the runs as the importers give them, and a
store compared with another file by file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.corpus import FRAMES, STORE_CLOCK, Corpus, source_files
from footprint_lab.corpus.build import content_hash
from footprint_lab.importers import import_clock, load

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
TRANSCRIPTS = DATA / "transcripts"
TAU_BENCH = DATA / "tau-bench"
SOURCES = [
    *sorted(p for p in TRANSCRIPTS.iterdir() if p.is_dir() and p.name != "aider"),
    TAU_BENCH,
]
"""Every stack's folder but Aider's (one history of 222 chat-only runs, which would make every
corpus here four times its size for nothing the other files do not test: the corpus of every
format, Aider's first sessions included, is built in
tests/importers/test_todays_stacks_everywhere.py)."""


def digest(path: Path) -> str:
    return content_hash(path)


def runs_by_id(paths: list[Path] | Path) -> dict[str, Run]:
    """Every run of the files ``paths`` names, loaded by the importers themselves, keyed by the
    id a corpus gives it (its file's content hash, its index), under the store's clock."""
    out: dict[str, Run] = {}
    for path in source_files(paths):
        try:
            with import_clock(STORE_CLOCK):
                runs = load(path)
        except Exception:  # a file that does not import has no runs
            continue
        for index, run in enumerate(runs):
            out[f"{digest(path)[:16]}-{index}"] = run
    return out


def store_files(corpus: Corpus) -> dict[str, bytes]:
    """Every file of a store by its path inside it (results left out), with its bytes."""
    root = Path(corpus.path)
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "results" not in p.parts
    }


def frames_of(corpus: Corpus) -> dict[str, pd.DataFrame]:
    """Every frame of a corpus, sorted by run and row so two stores compare."""
    out: dict[str, pd.DataFrame] = {}
    for name in FRAMES:
        frame = corpus.frame(name)
        keys = [c for c in ("source_path", "run_id", "kind", "index") if c in frame.columns]
        out[name] = frame.sort_values(keys, kind="stable").reset_index(drop=True)
    return out


def assert_same_store(a: Corpus, b: Corpus) -> None:
    """Two stores hold the same thing: every frame equal, every file byte for byte."""
    fa, fb = frames_of(a), frames_of(b)
    for name in FRAMES:
        pd.testing.assert_frame_equal(fa[name], fb[name], check_exact=True, obj=name)
    files_a, files_b = store_files(a), store_files(b)
    assert sorted(files_a) == sorted(files_b)
    differing = [k for k in files_a if files_a[k] != files_b[k]]
    assert not differing, differing


def without_keys(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=["run_id", "source_path"]).reset_index(drop=True)


def small_sources(root: Path, variants: int = 1) -> list[Path]:
    """The small transcripts of ``test_build_properties.SMALL`` copied into ``root`` (each in
    ``variants`` copies of its own content: trailing blank lines) and a broken file, sorted."""
    from tests.corpus.test_build_properties import SMALL

    for path in SMALL:
        data = path.read_bytes()
        for n in range(variants):
            name = path.name if variants == 1 else f"{n}-{path.name}"
            (root / name).write_bytes(data + b"\n" * n)
    (root / "broken.json").write_text('{"history": [')
    return sorted(root.iterdir())
